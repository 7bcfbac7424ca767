package mockup

import (
	"image"
	"image/color"
	"math"

	"github.com/kinohq/kino/server/composite"
	"github.com/kinohq/kino/server/psd"
)

// effectLayers is a layer with its effects, as the compositor's layers: the
// effects effectLayers under it (drop shadows, outer glows), those effectLayers on its
// own pixels (overlays, inner shadows and glows: clipped to it, or, for
// a layer that is itself clipped or has a fill opacity, layers of their
// own cut to its shape) and those over it (strokes).
type effectLayers struct {
	before, interior, after []*composite.Layer
}

// effectsDrawable says whether kino draws a layer's effects: those of a
// layer with pixels of its own, and a group's, drawn around its
// children's picture (not a fill's or an adjustment's).
func effectsDrawable(l *psd.Layer) bool {
	if !l.Effects.Any() {
		return false
	}
	switch l.Kind {
	case psd.KindGroup:
		return true
	case psd.KindPixel, psd.KindText, psd.KindShape, psd.KindSmartObject:
		return !l.Rect.Empty() || !l.PathRect().Empty()
	}
	return false
}

// effects builds the layers that draw l's effects around cl, the layer
// of its pixels (cl.Image set).
func (r *renderer) effects(l *psd.Layer, cl *composite.Layer) effectLayers {
	var out effectLayers
	e := l.Effects
	if cl.Image == nil || !effectsDrawable(l) {
		return out
	}
	canvas := image.Rect(0, 0, r.t.File.Width, r.t.File.Height)
	pad := 0.0
	for _, s := range append(append([]psd.Shadow{}, e.DropShadows...), e.InnerShadows...) {
		pad = math.Max(pad, s.Distance+s.Size)
	}
	for _, g := range append(append([]psd.Glow{}, e.OuterGlows...), e.InnerGlows...) {
		pad = math.Max(pad, g.Size)
	}
	for _, s := range e.Strokes {
		pad = math.Max(pad, s.Size)
	}
	for _, s := range e.Satins {
		pad = math.Max(pad, s.Distance+s.Size)
	}
	for _, b := range e.Bevels {
		pad = math.Max(pad, 1.5*b.Size+b.Soften)
	}
	var mask *image.Gray
	var def uint8
	if cl.Mask != nil {
		mask, def = cl.Mask, cl.MaskDefault
	}
	// The shape reaches past the canvas as far as the effects do: a shape
	// running off the canvas has no edge there, so an inside stroke or
	// inner glow must not find one at the canvas's border.
	grow := int(math.Ceil(pad)) + 2
	shape := composite.ShapeOf(cl.Image, mask, def, grow, canvas.Inset(-grow))
	if shape.Rect.Empty() {
		return out
	}
	opacity := cl.Opacity
	// Effects effectLayers as layers of their own take the layer's opacity, and
	// are clipped where it is.
	own := func(img *image.NRGBA, blend psd.BlendMode, o float64) *composite.Layer {
		return &composite.Layer{Image: img, Mode: composite.Mode(blend), Opacity: o * opacity, FillOpacity: 1, Clipped: cl.Clipped,
			OffChannels: cl.OffChannels}
	}
	for _, s := range e.DropShadows {
		dx, dy := offset(s.Angle, s.Distance)
		out.before = append(out.before, own(composite.DropShadow(shape, dx, dy, s.Spread, s.Size).Paint(s.Color), s.Blend, s.Opacity))
	}
	for _, g := range e.OuterGlows {
		cov := composite.OuterGlow(shape, g.Spread, g.Size)
		if g.Gradient != nil {
			// A glow in a gradient is strongest at the edge, fading over
			// half its size, through its contour: fitted to
			// pt-layer-params.psd (its glow drawn at 34 dB over its box;
			// along the blurred glow's strength, 27).
			cov = composite.EdgeRamp(shape, g.Size/2)
			if g.Contour != nil {
				for i, v := range cov.A {
					cov.A[i] = float32(g.Contour.At(float64(v)))
				}
			}
		}
		out.before = append(out.before, own(glow(cov, g), g.Blend, g.Opacity))
	}
	// Interior effects: clipped to the layer when it can be a base and its
	// fill opacity does not scale them; else cut to its shape.
	clip := !cl.Clipped && cl.FillOpacity >= 1
	interior := func(cover composite.Shape, c color.NRGBA, blend psd.BlendMode, o float64) {
		if !clip {
			cover = cover.Times(shape)
			out.interior = append(out.interior, own(cover.Paint(c), blend, o))
			return
		}
		out.interior = append(out.interior, &composite.Layer{Image: cover.Paint(c), Mode: composite.Mode(blend), Opacity: o, FillOpacity: 1, Clipped: true})
	}
	full := composite.Shape{Rect: shape.Rect, A: make([]float32, len(shape.A))}
	for i := range full.A {
		full.A[i] = 1
	}
	box := l.Rect
	if l.Kind == psd.KindGroup || box.Empty() {
		// A group's records have no rectangle, nor has a shape drawn
		// from its path.
		box = cl.Image.Rect
	}
	for _, g := range e.GradientOverlays {
		img := gradientOverlay(g, box, shape.Rect)
		if !clip {
			img = cut(img, shape)
		}
		cg := &composite.Layer{Image: img, Mode: composite.Mode(g.Blend), FillOpacity: 1}
		if clip {
			cg.Opacity, cg.Clipped = g.Opacity, true
		} else {
			cg.Opacity, cg.Clipped, cg.OffChannels = g.Opacity*opacity, cl.Clipped, cl.OffChannels
		}
		out.interior = append(out.interior, cg)
	}
	for _, c := range e.ColorOverlays {
		interior(full, c.Color, c.Blend, c.Opacity)
	}
	for _, st := range e.Satins {
		dx, dy := offset(st.Angle, st.Distance)
		interior(composite.Satin(shape, dx, dy, st.Size, st.Invert, contourFunc(st.Contour)), st.Color, st.Blend, st.Opacity)
	}
	for _, g := range e.InnerGlows {
		interior(composite.InnerGlow(shape, g.Spread, g.Size, g.Center), g.Color, g.Blend, g.Opacity)
	}
	for _, s := range e.InnerShadows {
		dx, dy := offset(s.Angle, s.Distance)
		interior(composite.InnerShadow(shape, dx, dy, s.Spread, s.Size), s.Color, s.Blend, s.Opacity)
	}
	// A stroke hides the strokes under it where it lies: ag-strokes.psd's
	// upper stroke, in multiply, darkens the layers beneath, not the
	// stroke it covers.
	covers := make([]composite.Shape, len(e.Strokes))
	for i := len(e.Strokes) - 1; i >= 0; i-- {
		covers[i] = composite.Stroke(shape, e.Strokes[i].Size, e.Strokes[i].Position)
		for _, above := range covers[i+1:] {
			covers[i] = covers[i].Times(above.Invert())
		}
	}
	for i, s := range e.Strokes {
		cover := covers[i]
		img := cover.Paint(s.Color)
		if s.Gradient != nil {
			box := l.Rect
			if box.Empty() {
				box = cl.Image.Rect
			}
			img = cut(gradientOverlay(*s.Gradient, box, shape.Rect), cover)
		}
		out.after = append(out.after, own(img, s.Blend, s.Opacity))
	}
	out.after = append(out.after, bevels(e.Bevels, shape, own)...)
	return out
}

// bevels are the layers of a layer's bevels, over it and its strokes:
// each a highlight and a shadow.
func bevels(bs []psd.Bevel, shape composite.Shape, own func(*image.NRGBA, psd.BlendMode, float64) *composite.Layer) []*composite.Layer {
	var out []*composite.Layer
	for _, b := range bs {
		hi, lo := composite.Bevel(shape, composite.BevelStyle{Style: b.Style, Technique: b.Technique, Size: b.Size,
			Depth: b.Depth, Down: b.Down, Angle: b.Angle, Altitude: b.Altitude, Soften: b.Soften,
			Edge: contourFunc(b.Edge), Gloss: contourFunc(b.Gloss)})
		if b.Style == "inner" {
			// An inner bevel lies on the layer only.
			hi, lo = hi.Times(shape), lo.Times(shape)
		}
		out = append(out, own(lo.Paint(b.ShadowColor), b.ShadowBlend, b.ShadowOpacity),
			own(hi.Paint(b.HighlightColor), b.HighlightBlend, b.HighlightOpacity))
	}
	return out
}

// contourFunc is a contour as the compositor takes it, nil for linear.
func contourFunc(c psd.Contour) func(float64) float64 {
	if len(c) == 0 {
		return nil
	}
	return c.At
}

// offset is where a shadow falls: away from the light at angle degrees.
func offset(angle, distance float64) (dx, dy float64) {
	a := angle * math.Pi / 180
	return -math.Cos(a) * distance, math.Sin(a) * distance
}

// cut multiplies a picture's alpha by a shape of the same rectangle.
func cut(img *image.NRGBA, s composite.Shape) *image.NRGBA {
	for i, v := range s.A {
		img.Pix[4*i+3] = uint8(float32(img.Pix[4*i+3])*v + 0.5)
	}
	return img
}

// gradientOverlay draws a gradient overlay over area, aligned with box
// (the layer's rectangle), as Photoshop aligns it with the layer.
func gradientOverlay(g psd.GradientOverlay, box, area image.Rectangle) *image.NRGBA {
	img := image.NewNRGBA(area)
	w, h := float64(box.Dx()), float64(box.Dy())
	cx := float64(box.Min.X) + w/2 + g.OffsetX*w
	cy := float64(box.Min.Y) + h/2 + g.OffsetY*h
	a := g.Angle * math.Pi / 180
	ux, uy := math.Cos(a), -math.Sin(a)
	extent := (math.Abs(w*ux) + math.Abs(h*uy)) * g.Scale
	// A linear gradient spans the diameter of the ellipse inscribed in
	// the box, along its direction: the box's width or height straight
	// across, less than its extent aslant. Photoshop's rule is not
	// published; this comes closer than the extent: pt-shape-fx2.psd's
	// gradient at −45° spans 34 pixels of its 32-pixel box (32 drawn, the
	// extent 45), pt-layer-effects.psd's at 87° some 52 of its 600×60
	// box (60 drawn, the extent 91).
	length := 2 / math.Hypot(2*ux/math.Max(w, 1), 2*uy/math.Max(h, 1)) * g.Scale
	// A radial gradient reaches 0.4 of the box's extent along its
	// angle: fitted to ag-effects.psd's overlay and pt-layer-params.psd's
	// stroke (the half-diagonal drew them at 16 and 22 dB over their
	// boxes, 31 and 22 now).
	radius := 0.4 * extent
	if length <= 0 {
		length = 1
	}
	if radius <= 0 {
		radius = 1
	}
	for y := area.Min.Y; y < area.Max.Y; y++ {
		for x := area.Min.X; x < area.Max.X; x++ {
			px, py := float64(x)+0.5-cx, float64(y)+0.5-cy
			along := px*ux + py*uy
			var t float64
			switch g.Style {
			case "radial":
				t = math.Hypot(px, py) / radius
			case "reflected":
				t = math.Abs(along) / (length / 2)
			case "angle":
				t = math.Mod(math.Atan2(-py, px)-a+4*math.Pi, 2*math.Pi) / (2 * math.Pi)
				t = 1 - t
			case "diamond":
				across := -px*uy + py*ux
				t = (math.Abs(along) + math.Abs(across)) / (length / 2)
			default:
				t = 0.5 + along/length
			}
			t = math.Min(math.Max(t, 0), 1)
			if g.Reverse {
				t = 1 - t
			}
			c := g.Gradient.At(t)
			i := img.PixOffset(x, y)
			img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = c.R, c.G, c.B, c.A
		}
	}
	return img
}

// glow paints a glow's coverage in its colour or along its gradient:
// the gradient's start where the glow is strongest, its end where it
// fades, in the gradient's own opacity wherever the glow reaches (its
// strength does not fade it further: pt-layer-params.psd's glow drawn
// at 34 dB over its box so, 29 when the strength scaled it too).
func glow(cover composite.Shape, g psd.Glow) *image.NRGBA {
	if g.Gradient == nil {
		return cover.Paint(g.Color)
	}
	img := image.NewNRGBA(cover.Rect)
	for i, v := range cover.A {
		if v <= 0 {
			continue
		}
		c := g.Gradient.At(1 - float64(v))
		p := img.Pix[4*i : 4*i+4 : 4*i+4]
		p[0], p[1], p[2], p[3] = c.R, c.G, c.B, c.A
	}
	return img
}
