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
	pad := effectsReach(e)
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
	box := l.Rect
	if l.Kind == psd.KindGroup || box.Empty() {
		// A group's records have no rectangle, nor has a shape drawn
		// from its path.
		box = cl.Image.Rect
	}
	// A picture painted over the layer's pixels: clipped to it, or cut
	// to its shape.
	paint := func(img *image.NRGBA, blend psd.BlendMode, o float64) {
		if !clip {
			img = cut(img, shape)
		}
		cg := &composite.Layer{Image: img, Mode: composite.Mode(blend), FillOpacity: 1}
		if clip {
			cg.Opacity, cg.Clipped = o, true
		} else {
			cg.Opacity, cg.Clipped, cg.OffChannels = o*opacity, cl.Clipped, cl.OffChannels
		}
		out.interior = append(out.interior, cg)
	}
	// Photoshop paints the pattern overlay under the gradient and colour
	// overlays.
	for _, p := range e.PatternOverlays {
		if img := r.tiled(l, p.Fill, shape.Rect); img != nil {
			paint(img, p.Blend, p.Opacity)
		}
	}
	for _, g := range e.GradientOverlays {
		b := box
		if g.Canvas {
			b = canvas
		}
		paint(gradientOverlay(g, b, shape.Rect), g.Blend, g.Opacity)
	}
	for _, c := range e.ColorOverlays {
		full := composite.Shape{Rect: shape.Rect, A: make([]float32, len(shape.A))}
		for i := range full.A {
			full.A[i] = 1
		}
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
			box, grow := l.Rect, strokeReach(s)
			if box.Empty() {
				box = cl.Image.Rect
			}
			if s.Gradient.Canvas {
				box, grow = canvas, 0
			}
			img = cut(drawGradient(*s.Gradient, box, shape.Rect, grow, false), cover)
		}
		if s.Pattern != nil {
			if p := r.tiled(l, *s.Pattern, shape.Rect); p != nil {
				img = cut(p, cover)
			}
		}
		out.after = append(out.after, own(img, s.Blend, s.Opacity))
	}
	out.after = append(out.after, bevels(e.Bevels, shape, own)...)
	return out
}

// effectsReach is how far past a layer's shape its effects reach, in
// pixels.
func effectsReach(e *psd.Effects) float64 {
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
	return pad
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

// gradientSteps are the colours a gradient is drawn with: more than
// the 256 levels a channel has between any two stops a canvas spans.
const gradientSteps = 4096

// gradientOverlay draws a gradient overlay over area, aligned with box
// (the layer's rectangle), as Photoshop aligns it with the layer.
func gradientOverlay(g psd.GradientOverlay, box, area image.Rectangle) *image.NRGBA {
	return drawGradient(g, box, area, 0, false)
}

// strokeReach is how far a stroke's gradient spans past the layer's
// rectangle on each side: to the stroke's outer edge, from the shape's
// edge, half a pixel inside the rectangle's anti-aliased border
// (pt-stroke-gradient.psd's rainbow stroke, 3 pixels outside: 22.9 dB
// over its box so, 17.7 over the layer's rectangle alone).
func strokeReach(s psd.Stroke) float64 {
	reach := 0.0
	switch s.Position {
	case "outside":
		reach = s.Size
	case "center":
		reach = s.Size / 2
	}
	return math.Max(0, reach-0.5)
}

// gradientSpan is the direction (ux, uy: y down) and length of a
// linear gradient over a w × h box: from where a line through the
// box's centre at angle a (radians) leaves the box on one side to
// where it leaves it on the other (the 87° overlay of
// pt-layer-effects.psd, 600 × 60 pixels: 42.8 dB inside its box, 31.5
// spanning the box's extent along the direction). snap moves the end
// away from the centre to whole pixels, as Photoshop places a gradient
// fill layer's ends: the 30° fills of pt-32bit-rgb.psd and its
// siblings, 4 × 4 pixels, lie at 45°, from corner to corner.
func gradientSpan(a, w, h float64, snap bool) (ux, uy, length float64) {
	ux, uy = math.Cos(a), -math.Sin(a)
	// The end's offset from the centre: to the nearer of the box's
	// sides the line meets (a zero cosine or sine divides to infinity).
	hx := math.Min(w/2, h/2/math.Abs(uy)*math.Abs(ux))
	hy := math.Min(h/2, w/2/math.Abs(ux)*math.Abs(uy))
	if snap {
		hx, hy = math.Ceil(hx-1e-9), math.Ceil(hy-1e-9)
	}
	half := math.Hypot(hx, hy)
	if half <= 0 {
		return ux, uy, 1
	}
	return math.Copysign(hx/half, ux), math.Copysign(hy/half, uy), 2 * half
}

// drawGradient draws gradient g over area, aligned with box grown by
// grow pixels on each side; snap as gradientSpan takes it.
func drawGradient(g psd.GradientOverlay, box, area image.Rectangle, grow float64, snap bool) *image.NRGBA {
	img := image.NewNRGBA(area)
	lut := g.Gradient.Table(gradientSteps)
	w, h := float64(box.Dx())+2*grow, float64(box.Dy())+2*grow
	cx := float64(box.Min.X) - grow + w/2 + g.OffsetX*w
	cy := float64(box.Min.Y) - grow + h/2 + g.OffsetY*h
	a := g.Angle * math.Pi / 180
	// Every style spans the line through the box's centre at its angle,
	// cut by the box's sides; a radial one's radius is half of it. Fitted
	// on the gradient fills Photoshop drew in psd-tools' gradient-styles
	// and gradient-sizes (linear 49 to 55 dB against 29 to 39 for the
	// box's extent along the angle; radial 50 against 18 for half its
	// diagonal).
	ux, uy, length := gradientSpan(a, w, h, snap)
	length *= g.Scale
	radius := length / 2
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
			c := lut[int(t*(gradientSteps-1)+0.5)]
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
	// From the table, as overlays: mixing the stops at each pixel searched
	// up to 1,000 of them a pixel, far past the work the estimate counts.
	lut := g.Gradient.Table(gradientSteps)
	for i, v := range cover.A {
		if !(v > 0) { // NaN too: it would index the table out of range
			continue
		}
		c := lut[int((1-min(float64(v), 1))*(gradientSteps-1)+0.5)]
		p := img.Pix[4*i : 4*i+4 : 4*i+4]
		p[0], p[1], p[2], p[3] = c.R, c.G, c.B, c.A
	}
	return img
}
