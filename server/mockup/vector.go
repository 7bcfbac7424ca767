package mockup

import (
	"image"

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
	var paint *image.NRGBA
	if s.Color != nil {
		paint = composite.Shape{Rect: r, A: ones(r.Dx() * r.Dy())}.Paint(*s.Color)
	} else {
		// A gradient stroke spans the shape's box, as its fill would.
		g := *l
		g.FillGradient = s.Gradient
		paint = shapeGradient(&g, r, canvas)
	}
	strokeOnto(img, paint, cover, stroke, s.Alignment, float32(s.Opacity))
	return img
}

func ones(n int) []float32 {
	a := make([]float32, n)
	for i := range a {
		a[i] = 1
	}
	return a
}

// strokeOnto draws a stroke of coverage stroke, in paint at opacity, onto
// img, the fill drawn with coverage cover (all over r). Where the shape's
// edge crosses a pixel, an inside stroke and the fill share the part of
// it the shape covers (the stroke laid over the fill there, the pixel's
// alpha the shape's), and an outside stroke and the fill split it, each
// its own part; blending the two as if independent would make the edge
// denser inside and leave a seam outside. A centred stroke spans the edge
// and is laid over the fill.
func strokeOnto(img, paint *image.NRGBA, cover, stroke composite.Shape, align string, opacity float32) {
	for i, sv := range stroke.A {
		if sv <= 0 {
			continue
		}
		p, q := img.Pix[4*i:4*i+4:4*i+4], paint.Pix[4*i:4*i+4:4*i+4]
		f, pa := cover.A[i], float32(p[3])/255
		qa := float32(q[3]) / 255 * opacity
		var as, ab, ao, scale float32 // stroke's and fill's weights, the result's alpha, over the part of the pixel they share
		switch {
		case align == "inside" && f > 0:
			// Within the shape's part f: the stroke covers sv/f of it,
			// over the fill's alpha there.
			as, ab = min(sv/f, 1)*qa, min(pa/f, 1)
			ab *= 1 - as
			ao, scale = as+ab, f
		case align == "outside" && f < 1:
			// Disjoint parts: the stroke's sv (of 1-f), the fill's pa.
			as, ab = sv*qa, pa
			ao, scale = as+ab, 1
		default:
			as = sv * qa
			ab = pa * (1 - as)
			ao, scale = as+ab, 1
		}
		if ao <= 0 {
			continue
		}
		mix := func(cs, cb uint8) uint8 {
			return uint8((float32(cs)*as+float32(cb)*ab)/ao + 0.5)
		}
		p[0], p[1], p[2], p[3] = mix(q[0], p[0]), mix(q[1], p[1]), mix(q[2], p[2]), uint8(min(ao*scale, 1)*255+0.5)
	}
}

func point(p psd.Point) composite.Point { return composite.Point{X: p.X, Y: p.Y} }

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
