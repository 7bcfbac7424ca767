package yuva

import (
	"image"
	"image/color"
	"testing"
)

// BenchmarkScaleWord scales a word's picture (240×64) through the sizes
// of a pop: 45 frames from a tenth of its size to 110% and back.
func BenchmarkScaleWord(b *testing.B) {
	img := image.NewNRGBA(image.Rect(0, 0, 240, 64))
	for y := 16; y < 56; y++ {
		for x := 8; x < 232; x++ {
			img.SetNRGBA(x, y, color.NRGBA{R: uint8(x), G: uint8(y * 3), B: 200, A: uint8(x * y)})
		}
	}
	p := FromNRGBA(img)
	var s Scaler
	b.ResetTimer()
	for range b.N {
		for f := range 45 {
			z := 0.1 + float64(f)/40
			if z > 1.1 {
				z = 2.2 - z
			}
			s.Scale(p, int(240*z), int(64*z))
		}
	}
}
