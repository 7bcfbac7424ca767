package composite

import (
	"context"
	"image"
	"image/color"
	"math"
	"testing"
)

// TestGaussianBlurSpread blurs a band of opaque red, 20 pixels wide and
// the picture's height, on transparency,
// and checks what a Gaussian of σ does: the alpha's total is kept, its
// spread along a row grows by σ², the colour stays red where anything
// shows, for a σ under a pixel's width of a whole box and for large ones
// drawn on a reduced picture (within 6% of σ²).
func TestGaussianBlurSpread(t *testing.T) {
	t.Parallel()
	for _, sigma := range []float64{0.8, 1.5, 3.5, 12, 40} {
		img := image.NewNRGBA(image.Rect(0, 0, 600, 600))
		for y := 0; y < 600; y++ {
			for x := 290; x < 310; x++ {
				img.SetNRGBA(x, y, color.NRGBA{255, 0, 0, 255})
			}
		}
		GaussianBlur(context.Background(), img, img.Rect, sigma)
		var total, m2 float64
		for x := 0; x < 600; x++ {
			a := float64(img.NRGBAAt(x, 300).A)
			total += a
			m2 += a * (float64(x) - 299.5) * (float64(x) - 299.5)
			if c := img.NRGBAAt(x, 300); a > 8 && (c.R < 250 || c.G > 5 || c.B > 5) {
				t.Fatalf("σ %v: pixel %d is %v, red expected", sigma, x, c)
			}
		}
		// A 20-pixel box has a variance of (20²-1)/12.
		variance := m2/total - (20*20-1)/12.0
		if math.Abs(total-20*255)/(20*255) > 0.02 || math.Abs(variance-sigma*sigma)/(sigma*sigma) > 0.06 {
			t.Errorf("σ %v: alpha total %.0f (%d expected), spread %.1f (%.1f expected)", sigma, total, 20*255, variance, sigma*sigma)
		}
	}
}

// BenchmarkGaussianBlur blurs a 1700×1900 opaque picture (the smart
// object of bench-fx.psd) by σ 3.
func BenchmarkGaussianBlur(b *testing.B) {
	img := image.NewNRGBA(image.Rect(0, 0, 1700, 1900))
	for i := range img.Pix {
		img.Pix[i] = uint8(i * 7)
	}
	for i := 3; i < len(img.Pix); i += 4 {
		img.Pix[i] = 255
	}
	for b.Loop() {
		GaussianBlur(context.Background(), img, img.Rect, 3)
	}
}
