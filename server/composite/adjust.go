package composite

import (
	"context"
	"image"
)

// Adjustment is what an adjustment layer does to the colours under it:
// per-channel tables, then a threshold.
type Adjustment struct {
	// Tables map R, G and B, when set.
	Tables *[3][256]uint8
	// Threshold, when not zero, turns pixels whose luminance (Rec. 601
	// weights) is at least it white, the others black.
	Threshold int
	// Color, when set, maps each pixel's colour after Tables.
	Color func(r, g, b uint8) (uint8, uint8, uint8)
}

// apply is the backdrop over area with its colours adjusted, opaque: the
// adjusted colour replaces the backdrop's where the layer shows fully,
// and the backdrop's alpha is kept by drawing it as a clipped layer is.
func (a *Adjustment) apply(ctx context.Context, backdrop *image.NRGBA, area image.Rectangle) *image.NRGBA {
	out := image.NewNRGBA(area)
	area = area.Intersect(backdrop.Rect)
	rows(ctx, area, func(y0, y1 int) {
		for y := y0; y < y1; y++ {
			src := backdrop.Pix[backdrop.PixOffset(area.Min.X, y):][:4*area.Dx()]
			dst := out.Pix[out.PixOffset(area.Min.X, y):][:4*area.Dx()]
			for i := 0; i < len(src); i += 4 {
				r, g, b := src[i], src[i+1], src[i+2]
				if t := a.Tables; t != nil {
					r, g, b = t[0][r], t[1][g], t[2][b]
				}
				if a.Color != nil {
					r, g, b = a.Color(r, g, b)
				}
				if a.Threshold > 0 {
					v := uint8(0)
					if (299*int(r)+587*int(g)+114*int(b)+500)/1000 >= a.Threshold {
						v = 255
					}
					r, g, b = v, v, v
				}
				dst[i], dst[i+1], dst[i+2], dst[i+3] = r, g, b, 255
			}
		}
	})
	return out
}
