package mockup

import (
	"image"
	"math"

	"github.com/kinohq/kino/server/psd"
)

// gradientFill draws a gradient fill layer stored without pixels from
// its settings, over the canvas (its vector mask, if any, is applied as
// a pixel layer's is: psd.Layer.PathMask).
func (r *renderer) gradientFill(l *psd.Layer, g *psd.GradientFill) *image.NRGBA {
	canvas := image.Rect(0, 0, r.t.File.Width, r.t.File.Height)
	box := canvas
	if g.Aligned {
		if b := vectorBox(l.Vector); !b.Empty() {
			box = b
		}
	}
	return drawGradient(g.GradientOverlay, box, canvas, 0, true)
}

// shapeGradient draws a shape's gradient fill over r (its path's
// rectangle), aligned with the shape's box or the canvas.
func shapeGradient(l *psd.Layer, r, canvas image.Rectangle) *image.NRGBA {
	g := l.FillGradient
	box := canvas
	if b := vectorBox(l.Vector); g.Aligned && !b.Empty() {
		box = b
	}
	return drawGradient(g.GradientOverlay, box, r, 0, true)
}

// vectorBox is the box of a vector mask's points, rounded outwards:
// what a gradient aligned with a fill layer spans; empty when there is
// no mask, it is switched off, covers the canvas, or has no points.
func vectorBox(v *psd.VectorMask) image.Rectangle {
	if v == nil || v.Disabled || v.Invert || v.FillAll || (len(v.Subpaths) > 0 && (v.Subpaths[0].Op == 2 || v.Subpaths[0].Op == 3)) {
		// The shape is (or starts from) the whole canvas.
		return image.Rectangle{}
	}
	lo, hi := psd.Point{X: math.Inf(1), Y: math.Inf(1)}, psd.Point{X: math.Inf(-1), Y: math.Inf(-1)}
	for _, p := range v.Subpaths {
		for _, k := range p.Knots {
			lo.X, lo.Y = math.Min(lo.X, k.Anchor.X), math.Min(lo.Y, k.Anchor.Y)
			hi.X, hi.Y = math.Max(hi.X, k.Anchor.X), math.Max(hi.Y, k.Anchor.Y)
		}
	}
	if lo.X > hi.X || lo.Y > hi.Y {
		return image.Rectangle{}
	}
	// Points lie within ±128 canvases (8.24 fixed point).
	return image.Rect(int(math.Floor(lo.X)), int(math.Floor(lo.Y)), int(math.Ceil(hi.X)), int(math.Ceil(hi.Y)))
}
