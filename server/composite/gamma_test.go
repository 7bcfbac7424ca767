package composite

import (
	"image"
	"image/color"
	"testing"
)

// TestTextGamma: a text layer's anti-aliased edge mixes with the backdrop
// at gamma 1.45, as in uv-download.psd's merged image (black at alpha 68,
// 170 and 238 over white: 209, 125 and 38 there), not as a plain mix
// would (187, 85, 17); a layer without TextGamma mixes plainly, and a
// fully covered pixel is the text's colour either way.
func TestTextGamma(t *testing.T) {
	t.Parallel()
	white := color.NRGBA{255, 255, 255, 255}
	for _, c := range []struct {
		alpha      uint8
		gamma      bool
		want, slop int
	}{
		{68, true, 209, 3}, {170, true, 125, 5}, {238, true, 38, 2}, {255, true, 0, 0},
		{68, false, 187, 1}, {170, false, 85, 1}, {238, false, 17, 1},
	} {
		img := image.NewNRGBA(image.Rect(0, 0, 1, 1))
		img.Pix[3] = c.alpha
		got := Flatten(1, 1, []*Layer{
			{Fill: &white, Opacity: 1, FillOpacity: 1},
			{Image: img, Opacity: 1, FillOpacity: 1, TextGamma: c.gamma},
		}).Pix
		if d := int(got[0]) - c.want; d < -c.slop || d > c.slop || got[0] != got[1] || got[3] != 255 {
			t.Errorf("alpha %d, gamma %v: %v, want grey %d±%d", c.alpha, c.gamma, got, c.want, c.slop)
		}
	}
}
