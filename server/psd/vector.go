package psd

import (
	"image"
	"image/color"
	"math"
	"strings"
)

// VectorMask is a layer's vector mask (vmsk or vsms): the outline of a
// shape layer, or a mask drawn from a path over a layer's pixels.
type VectorMask struct {
	// Invert and Disabled are the mask's switches.
	Invert, Disabled bool
	// FillAll is the initial fill rule: the fill starts with every pixel.
	FillAll bool
	// Density is the masks panel's density of a vector mask drawn over
	// pixels: 255 hides all it hides, 0 nothing.
	Density uint8
	// Subpaths are the outlines, in canvas pixels, in the order
	// Photoshop combines them.
	Subpaths []Subpath
}

// Subpath is one outline of a vector mask: Bezier knots, each segment
// running from a knot's Out to the next knot's In and Anchor.
type Subpath struct {
	Closed bool
	// Op combines it with the subpaths before it: 0 exclude
	// (either but not both), 1 combine (union), 2 subtract, 3 intersect;
	// -1 makes it part of the previous subpath's shape.
	Op    int
	Knots []Knot
}

// Knot is one anchor of a path with its two control points, in canvas
// pixels.
type Knot struct{ In, Anchor, Out Point }

// VectorStroke is a shape layer's stroke (vstk) as far as kino reads it.
type VectorStroke struct {
	// Enabled draws the stroke; FillEnabled draws the shape's fill.
	Enabled, FillEnabled bool
	Width                float64
	// Alignment is "inside", "center" or "outside".
	Alignment string
	// Color is the stroke's colour; nil when it is a gradient or pattern.
	Color   *color.NRGBA
	Opacity float64
	Blend   BlendMode
	// Cap ("butt", "round", "square") ends open outlines and dashes;
	// Join ("miter", "round", "bevel") meets segments, a miter longer
	// than MiterLimit times the width bevelled.
	Cap, Join  string
	MiterLimit float64
	// Dashes alternate dash and gap lengths in multiples of Width (none
	// for a solid line), starting DashOffset widths into the pattern.
	Dashes     []float64
	DashOffset float64
	// Gradient is the stroke's gradient, when it is one; Pattern is
	// true when it is a pattern (not drawn).
	Gradient *GradientFill
	Pattern  bool
}

// maxDashes bounds a stroke's dash pattern: Photoshop's dialog offers
// three dash and gap pairs.
const maxDashes = 32

// maxKnots bounds the knots of one layer's vector mask: a segment
// drawn costs up to some 40 lines, each as long as the picture is high
// (4,096 knots criss-crossing a 1024x1024 canvas take 0.26 s, 0.47 s when
// they swing far off it), and 4,096 knots is beyond Photoshop's shapes
// (a few hundred for a traced logo).
const maxKnots = 1 << 12

// readVectorMask reads a vmsk/vsms block: a version, flags and 26-byte
// path records (Photoshop's path resource format, with points as 8.24
// fixed-point fractions of the canvas, y before x).
func (d *decoder) readVectorMask(l *Layer, c *cursor) {
	c.u32() // version 3
	flags := c.u32()
	if c.err != nil {
		return
	}
	v := &VectorMask{Invert: flags&1 != 0, Disabled: flags&4 != 0, Density: 255}
	w, h := float64(d.f.Width), float64(d.f.Height)
	point := func() Point {
		y := float64(c.i32()) / (1 << 24)
		x := float64(c.i32()) / (1 << 24)
		return Point{X: x * w, Y: y * h}
	}
	knots := 0
	var cur *Subpath
	for c.left() >= 26 {
		sel := c.u16()
		switch sel {
		case 0, 3: // closed or open subpath length record
			c.u16() // knot count: the knot records that follow say it again
			op := int(int16(c.u16()))
			c.skip(20)
			if op < -1 || op > 3 {
				op = 1
			}
			v.Subpaths = append(v.Subpaths, Subpath{Closed: sel == 0, Op: op})
			cur = &v.Subpaths[len(v.Subpaths)-1]
		case 1, 2, 4, 5: // Bezier knots, linked or not, closed or open
			k := Knot{In: point(), Anchor: point(), Out: point()}
			if cur == nil {
				continue
			}
			if knots++; knots > maxKnots {
				d.note(l, "vector mask of more than 4,096 points")
				return
			}
			cur.Knots = append(cur.Knots, k)
		case 8: // initial fill rule
			v.FillAll = c.u16() == 1
			c.skip(22)
		default: // path fill rule, clipboard, unknown
			c.skip(24)
		}
		if c.err != nil {
			return
		}
		// Appending may move the slice: cur points into it anew.
		if len(v.Subpaths) > 0 {
			cur = &v.Subpaths[len(v.Subpaths)-1]
		}
	}
	l.Vector = v
}

// readVectorStroke reads a vstk descriptor.
func (d *decoder) readVectorStroke(l *Layer, c *cursor) {
	desc, err := readDescriptor(c, d.lim.MaxDescriptorDepth)
	if err != nil {
		d.note(l, "vector stroke")
		return
	}
	l.Stroke = d.vectorStroke(desc)
}

// vectorStroke is a vstk descriptor's stroke.
func (d *decoder) vectorStroke(desc *descriptor) *VectorStroke {
	s := &VectorStroke{Enabled: true, FillEnabled: true, Width: 1, Alignment: "inside", Opacity: 1, Blend: "normal", Cap: "butt", Join: "miter", MiterLimit: 100}
	if v, ok := desc.get("strokeEnabled").(bool); ok {
		s.Enabled = v
	}
	if v, ok := desc.get("fillEnabled").(bool); ok {
		s.FillEnabled = v
	}
	if v, ok := desc.num("strokeStyleLineWidth"); ok {
		// A width in points is one at the stroke's resolution.
		if u, ok := desc.get("strokeStyleLineWidth").(unitFloat); ok && u.Unit == "#Pnt" {
			res, ok := desc.num("strokeStyleResolution")
			if !ok || !(res > 0) {
				res = 72
			}
			v *= clampRange(res, 1, 10000) / 72
		}
		s.Width = clampRange(v, 0, 1000)
	}
	d.readLineStyle(s, desc)
	if v, ok := desc.num("strokeStyleOpacity"); ok {
		s.Opacity = clampUnit(v / 100)
	}
	if v, ok := desc.get("strokeStyleLineAlignment").(enumValue); ok {
		switch v.Value {
		case "strokeStyleAlignCenter":
			s.Alignment = "center"
		case "strokeStyleAlignOutside":
			s.Alignment = "outside"
		}
	}
	if v, ok := desc.get("strokeStyleBlendMode").(enumValue); ok {
		if m, ok := effectBlends[v.Value]; ok {
			s.Blend = m
		} else {
			s.Blend = BlendMode("key:" + v.Value)
		}
	}
	if content := desc.desc("strokeStyleContent"); content != nil {
		switch {
		case content.desc("Clr ") != nil:
			s.Color = d.color(content.desc("Clr "))
		case content.desc("Grad") != nil:
			s.Gradient = d.readGradientFillLayer(content)
			s.Pattern = s.Gradient == nil // a gradient kino does not draw
		default:
			s.Pattern = true
		}
	}
	return s
}

// readLineStyle reads a vector stroke's caps, joins and dashes.
func (d *decoder) readLineStyle(s *VectorStroke, desc *descriptor) {
	if v, ok := desc.get("strokeStyleLineCapType").(enumValue); ok {
		s.Cap = map[string]string{"strokeStyleRoundCap": "round", "strokeStyleSquareCap": "square"}[v.Value]
		if s.Cap == "" {
			s.Cap = "butt"
		}
	}
	if v, ok := desc.get("strokeStyleLineJoinType").(enumValue); ok {
		s.Join = map[string]string{"strokeStyleRoundJoin": "round", "strokeStyleBevelJoin": "bevel"}[v.Value]
		if s.Join == "" {
			s.Join = "miter"
		}
	}
	if v, ok := desc.num("strokeStyleMiterLimit"); ok {
		s.MiterLimit = clampRange(v, 1, 1000)
	}
	if v, ok := desc.num("strokeStyleLineDashOffset"); ok {
		s.DashOffset = clampRange(v, -1000, 1000)
	}
	for _, v := range desc.list("strokeStyleLineDashSet") {
		if n, ok := number(v); ok && len(s.Dashes) < maxDashes {
			s.Dashes = append(s.Dashes, clampRange(n, 0, 1000))
		}
	}
}

// readVectorFill reads a vscg block (a shape's fill when it has no SoCo):
// a key, a version and a descriptor; a solid colour and a gradient (the
// settings a gradient fill layer holds) are kept.
func (d *decoder) readVectorFill(l *Layer, c *cursor) {
	c.sig() // fill kind; the version (16) follows and readDescriptor reads it
	desc, err := readDescriptor(c, d.lim.MaxDescriptorDepth)
	if err != nil {
		return
	}
	switch {
	case desc.desc("Clr ") != nil:
		if l.FillColor == nil {
			l.FillColor = d.color(desc.desc("Clr "))
		}
	case desc.desc("Grad") != nil && l.FillColor == nil:
		if l.FillGradient = d.readGradientFillLayer(desc); l.FillGradient == nil {
			l.vectorFillOther = true
		}
	default:
		l.vectorFillOther = true
	}
}

// vectorNotes names what kino does not draw of a shape layer, once its
// rectangle is known. A shape with pixels is drawn from them: Photoshop
// stores the shape filled and stroked. One without is drawn from its
// path: its fill when a solid colour or a gradient, its stroke when a
// solid colour or a gradient (dashed or not, any caps and joins).
func (d *decoder) vectorNotes(l *Layer) {
	if l.Kind == KindText && l.Rect.Empty() && l.Text != nil && strings.TrimSpace(l.Text.Value) != "" {
		// kino draws text from the pixels Photoshop cached, not from
		// its characters.
		d.note(l, "text without its pixels")
	}
	if l.Kind != KindShape || !l.Rect.Empty() || l.Vector == nil {
		return
	}
	if l.Vector.Disabled {
		d.note(l, "shape with its vector mask switched off")
		return
	}
	fill := l.Stroke == nil || l.Stroke.FillEnabled
	if fill && ((l.FillColor == nil && l.FillGradient == nil) || l.vectorFillOther) {
		d.note(l, "shape fill with a pattern")
	}
	if s := l.Stroke; s != nil && s.Enabled && s.Width > 0 {
		if s.Pattern {
			d.note(l, "vector stroke with a pattern")
		}
		if s.Blend != "normal" {
			// Drawn over the fill in normal mode.
			d.note(l, "vector stroke blend mode")
		}
	}
}

// PathRect is the canvas rectangle over which a shape without pixels is
// drawn from its path: the box of its outlines' points grown by its
// stroke's reach and a pixel, cut to the canvas (the whole canvas when the mask
// is inverted or starts full); empty for every other layer.
func (l *Layer) PathRect() image.Rectangle {
	v := l.Vector
	if l.Kind != KindShape || !l.Rect.Empty() || v == nil || v.Disabled {
		return image.Rectangle{}
	}
	canvas := image.Rect(0, 0, l.f.Width, l.f.Height)
	if v.Invert || v.FillAll || (len(v.Subpaths) > 0 && (v.Subpaths[0].Op == 2 || v.Subpaths[0].Op == 3)) {
		return canvas
	}
	lo, hi := Point{X: math.Inf(1), Y: math.Inf(1)}, Point{X: math.Inf(-1), Y: math.Inf(-1)}
	for _, p := range v.Subpaths {
		for _, k := range p.Knots {
			for _, q := range [3]Point{k.In, k.Anchor, k.Out} {
				lo.X, lo.Y = math.Min(lo.X, q.X), math.Min(lo.Y, q.Y)
				hi.X, hi.Y = math.Max(hi.X, q.X), math.Max(hi.Y, q.Y)
			}
		}
	}
	if lo.X > hi.X || lo.Y > hi.Y {
		return image.Rectangle{}
	}
	pad := 1.0
	if s := l.Stroke; s != nil && s.Enabled {
		// An inside or outside stroke is drawn twice as wide and cut: it
		// reaches a width out; a miter further, up to its limit (spikes
		// sharper than 29 degrees are cut at four widths, so that a
		// shape's picture stays near its box).
		reach := 1.0
		if s.Join == "miter" {
			reach = clampRange(s.MiterLimit, 1, 4)
		}
		pad += s.Width * reach
	}
	// Points lie within ±128 canvases (8.24 fixed point): clamped to
	// the canvas before conversion.
	clampX := func(v float64) int { return int(clampRange(v, -1, float64(l.f.Width)+1)) }
	clampY := func(v float64) int { return int(clampRange(v, -1, float64(l.f.Height)+1)) }
	r := image.Rect(clampX(math.Floor(lo.X-pad)), clampY(math.Floor(lo.Y-pad)), clampX(math.Ceil(hi.X+pad)), clampY(math.Ceil(hi.Y+pad)))
	return r.Intersect(canvas)
}

// pathMask decides, once the layer's mask is tied to its channel, how a
// vector mask over pixels is drawn: through the mask channel that renders
// it, or from its path (PathMask) when the only mask kept is the user
// mask or there is none. Either way it is drawn, and not named.
func (d *decoder) pathMask(l *Layer) {
	v := l.Vector
	if m := l.Mask; m != nil {
		// A mask is the vector mask's rendering when it is not the real
		// user mask and the layer has a vector mask.
		m.density = m.userDensity
		if v != nil && !m.real {
			m.density = m.vectorDensity
		}
		if m.density < 255 {
			m.DefaultColor = applyDensity(m.DefaultColor, m.density)
		}
		if m.feather {
			d.note(l, "mask feather")
		}
		if v != nil && m.real {
			v.Density = m.vectorDensity
		}
	}
	if v == nil || l.Kind == KindShape || l.divider != 0 {
		return
	}
	switch {
	case l.Mask != nil && !l.Mask.real:
		// The mask is the vector mask's rendering.
	case v.Disabled:
	case l.Kind == KindPixel || l.Kind == KindSmartObject || l.Kind == KindText || l.Kind == KindFill:
		// A fill covers the canvas (its pixels, when it has any, too):
		// its vector mask cuts it as a pixel layer's does.
		l.PathMask = true
	default:
		return // an adjustment layer: named, not drawn
	}
	for i, f := range l.Unsupported {
		if f == "vector mask" {
			l.Unsupported = append(l.Unsupported[:i], l.Unsupported[i+1:]...)
			break
		}
	}
}
