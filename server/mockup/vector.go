package mockup

import (
	"image"
	"image/color"

	"github.com/kinohq/kino/server/composite"
	"github.com/kinohq/kino/server/psd"
)

// shape draws a shape layer that has no pixels of its own from its path
// (psd.Layer.PathRect says which): its fill in its colour, then its
// stroke over it, as Photoshop caches a shape's pixels; a gradient
// aligned with the canvas spans canvas. What it cannot draw (a pattern)
// the layer's Unsupported names.
func shape(l *psd.Layer, r, canvas image.Rectangle) *image.NRGBA {
	v := l.Vector
	cover := composite.PathShape(paths(v), v.FillAll, v.Invert, r)
	s := l.Stroke
	img := image.NewNRGBA(r)
	switch fill := s == nil || s.FillEnabled; {
	case fill && l.FillColor != nil:
		img = cover.Paint(*l.FillColor)
	case fill && l.FillGradient != nil:
		img = cut(shapeGradient(l, r, canvas), cover)
	}
	if s == nil || !s.Enabled || s.Width <= 0 || (s.Color == nil && s.Gradient == nil) {
		return img
	}
	line := composite.LineStyle{Width: s.Width, Align: s.Alignment, Cap: s.Cap, Join: s.Join, MiterLimit: s.MiterLimit, Dashes: s.Dashes, DashOffset: s.DashOffset}
	stroke := composite.PathStroke(paths(v), v.FillAll, v.Invert, line, r)
	if s.Color != nil {
		c := *s.Color
		c.A = uint8(float64(c.A)*s.Opacity + 0.5)
		over(img, stroke, c)
		return img
	}
	// A gradient stroke spans the shape's box, as its fill would.
	g := *l
	g.FillGradient = s.Gradient
	grad := cut(shapeGradient(&g, r, canvas), stroke)
	overImage(img, grad, s.Opacity)
	return img
}

// overImage draws src over img (same rectangle) at opacity: source-over
// on straight alpha, as over does for one colour.
func overImage(img, src *image.NRGBA, opacity float64) {
	for i := 0; i < len(src.Pix); i += 4 {
		as := float32(src.Pix[i+3]) / 255 * float32(opacity)
		if as <= 0 {
			continue
		}
		p, q := img.Pix[i:i+4:i+4], src.Pix[i:i+4:i+4]
		ab := float32(p[3]) / 255
		ao := as + ab*(1-as)
		mix := func(cs, cb uint8) uint8 {
			return uint8((float32(cs)*as+float32(cb)*ab*(1-as))/ao + 0.5)
		}
		p[0], p[1], p[2], p[3] = mix(q[0], p[0]), mix(q[1], p[1]), mix(q[2], p[2]), uint8(ao*255+0.5)
	}
}

func point(p psd.Point) composite.Point { return composite.Point{X: p.X, Y: p.Y} }

// over paints colour c, with coverage s, over img (same rectangle):
// source-over on straight alpha.
func over(img *image.NRGBA, s composite.Shape, c color.NRGBA) {
	for i, v := range s.A {
		as := float32(c.A) / 255 * v
		if as <= 0 {
			continue
		}
		p := img.Pix[4*i : 4*i+4 : 4*i+4]
		ab := float32(p[3]) / 255
		ao := as + ab*(1-as)
		if ao <= 0 {
			continue
		}
		mix := func(cs, cb uint8) uint8 {
			return uint8((float32(cs)*as+float32(cb)*ab*(1-as))/ao + 0.5)
		}
		p[0], p[1], p[2], p[3] = mix(c.R, p[0]), mix(c.G, p[1]), mix(c.B, p[2]), uint8(ao*255+0.5)
	}
}

// pathMask is a layer's user mask (nil for none, def outside it) times
// its vector mask drawn from its path, over the canvas.
func pathMask(l *psd.Layer, user *image.Gray, def uint8, w, h int) *image.Gray {
	r := image.Rect(0, 0, w, h)
	v := l.Vector
	cover := composite.PathShape(paths(v), v.FillAll, v.Invert, r)
	out := image.NewGray(r)
	for i, c := range cover.A {
		m := float32(255)
		if user != nil {
			x, y := i%w, i/w
			m = float32(def)
			if (image.Point{x, y}).In(user.Rect) {
				m = float32(user.Pix[user.PixOffset(x, y)])
			}
		}
		if d := v.Density; d < 255 {
			c = 1 - (1-c)*float32(d)/255
		}
		out.Pix[i] = uint8(m*c + 0.5)
	}
	return out
}

// paths are a vector mask's subpaths as the compositor takes them.
func paths(v *psd.VectorMask) []composite.Subpath {
	out := make([]composite.Subpath, len(v.Subpaths))
	for i, p := range v.Subpaths {
		knots := make([]composite.Knot, len(p.Knots))
		for j, k := range p.Knots {
			knots[j] = composite.Knot{In: point(k.In), Anchor: point(k.Anchor), Out: point(k.Out)}
		}
		out[i] = composite.Subpath{Closed: p.Closed, Op: p.Op, Knots: knots}
	}
	return out
}
