package psd

import (
	"image/color"
	"math"
	"strings"
)

// Effects are a layer's layer effects (its layer style), as the lfx2
// descriptor holds them, switched on only: each kind may appear several
// times (Photoshop CC's "multi" effects), bottom first. Sizes are in
// pixels, already scaled by the style's scale; opacities 0 to 1; angles
// in degrees, counter-clockwise from the positive x axis, as Photoshop
// shows them (the light comes from that direction, so a shadow falls the
// other way).
type Effects struct {
	DropShadows      []Shadow
	InnerShadows     []Shadow
	OuterGlows       []Glow
	InnerGlows       []Glow
	ColorOverlays    []ColorOverlay
	GradientOverlays []GradientOverlay
	Strokes          []Stroke
	PatternOverlays  []PatternOverlay
	Satins           []Satin
	Bevels           []Bevel
	// Unread names the effects switched on that are not read, and the
	// settings of read ones that are not (a glow or stroke drawn with a
	// gradient or pattern, a bevel's texture).
	Unread []string
}

// Contour is an effect's contour (its "TrnS" or "MpgS" curve): points
// from 0 to 1 in, 0 to 1 out, by input. Empty is linear.
type Contour []Point

// maxContourPoints bounds a contour's points: Photoshop's contour editor
// holds some twenty.
const maxContourPoints = 64

// At is the contour's output at v, 0 to 1: straight lines between its
// points (Photoshop rounds the points it does not mark as corners; kino
// draws every contour as corners).
func (c Contour) At(v float64) float64 {
	if len(c) == 0 {
		return v
	}
	if v <= c[0].X {
		return c[0].Y
	}
	for i := 1; i < len(c); i++ {
		if v <= c[i].X {
			a, b := c[i-1], c[i]
			if b.X <= a.X {
				return b.Y
			}
			return a.Y + (b.Y-a.Y)*(v-a.X)/(b.X-a.X)
		}
	}
	return c[len(c)-1].Y
}

// Linear reports whether the contour is the identity.
func (c Contour) Linear() bool {
	for _, p := range c {
		if math.Abs(p.X-p.Y) > 1e-3 {
			return false
		}
	}
	return true
}

// Satin shades the layer's inside with two copies of its blurred alpha,
// moved apart: where they differ (or agree, inverted) it is coloured.
type Satin struct {
	Blend   BlendMode
	Color   color.NRGBA
	Opacity float64
	// Angle and Distance move the copies apart; Size blurs them.
	Angle, Distance, Size float64
	Invert                bool
	Contour               Contour
}

// Bevel is a bevel and emboss: the layer's edge shaded as if raised,
// lit from Angle at Altitude.
type Bevel struct {
	// Style is "inner", "outer", "emboss" or "pillow"; Technique
	// "smooth", "chisel hard" or "chisel soft".
	Style, Technique string
	// Depth scales the slopes (1 is Photoshop's 100 %); Down sinks the
	// edge instead of raising it.
	Depth float64
	Down  bool
	// Size is the bevel's width; Soften blurs its shading.
	Size, Soften     float64
	Angle, Altitude  float64
	HighlightBlend   BlendMode
	HighlightColor   color.NRGBA
	HighlightOpacity float64
	ShadowBlend      BlendMode
	ShadowColor      color.NRGBA
	ShadowOpacity    float64
	// Gloss maps the shading (Photoshop's gloss contour); Edge, when
	// set, the edge's profile (its "contour" option).
	Gloss, Edge Contour
}

// Shadow is a drop shadow or an inner shadow.
type Shadow struct {
	Blend   BlendMode
	Color   color.NRGBA
	Opacity float64
	// Angle is the light's direction; Distance how far the shadow falls.
	Angle, Distance float64
	// Spread is the drop shadow's spread or the inner shadow's choke,
	// 0 to 1 of Size; Size the blur's radius.
	Spread, Size float64
}

// Glow is an outer or inner glow in one colour.
type Glow struct {
	Blend   BlendMode
	Color   color.NRGBA
	Opacity float64
	// Spread is the outer glow's spread or the inner glow's choke, 0 to 1
	// of Size.
	Spread, Size float64
	// Center is true for an inner glow from the centre, not the edges.
	Center bool
	// Gradient, when set, colours an outer glow instead of Color: its
	// start where the glow is strongest, its end where it fades.
	Gradient *Gradient
	// Contour maps the strength of a glow in a gradient; nil for linear
	// (a glow in one colour is drawn linear whatever its contour).
	Contour Contour
}

// ColorOverlay paints the layer's pixels one colour.
type ColorOverlay struct {
	Blend   BlendMode
	Color   color.NRGBA
	Opacity float64
}

// GradientStop is one colour or opacity stop of a gradient: Location 0
// to 1 along it.
type GradientStop struct {
	Location float64
	Color    color.NRGBA // the colour; for an opacity stop, A alone counts
	// Midpoint is where, between the stop before and this one, the two
	// mix half and half: 0 to 1 of the way (0.5 when the file says none).
	Midpoint float64
	// ink is a CMYK file's colour stop as its inks (see Gradient.profile).
	ink [4]uint8
	// value is the stop's colour in the space Gradient.spline mixes in.
	value [3]float64
}

// Gradient is a gradient's stops, colour and opacity apart, by location;
// or, when Noise is set, a noise gradient (no stops).
type Gradient struct {
	Colors, Alphas []GradientStop
	// Smoothness (0 to 1; Photoshop's default is 1) eases the change
	// from stop to stop.
	Smoothness float64
	// Method is how two stops' colours mix: "classic" (the document's
	// values, mixed linearly), "perceptual" (in Oklab) or "linear" (in
	// linear light).
	Method string
	// Noise is a noise gradient's settings, nil for stops.
	Noise *NoiseGradient
	// profile, when set, mixes the colour stops' inks and converts each
	// mix through it, as a CMYK document's gradient fill is drawn.
	profile *cmykProfile
	// spline, when not splineNone, mixes the colour stops' values along
	// a spline through them and converts each mix to sRGB (gradspline.go).
	spline splineSpace
}

// NoiseGradient is a gradient of random colours: Photoshop draws it
// from a seeded generator of its own, which kino does not reproduce
// (kino draws the colours' middle: see NoiseGradient.mean).
type NoiseGradient struct {
	Seed uint32
	// Roughness is 0 to 1.
	Roughness float64
	// Lab is set for a gradient in the Lab colour model; else RGB.
	Lab bool
	// Min and Max bound each of R, G, B (or L, a, b) and alpha, 0 to 1.
	Min, Max [4]float64
	// Transparent adds random transparency (between Min[3] and Max[3]).
	Transparent bool
}

// GradientOverlay paints the layer's pixels with a gradient over its
// box.
type GradientOverlay struct {
	Blend   BlendMode
	Opacity float64
	// Style is "linear", "radial", "angle", "reflected" or "diamond".
	Style    string
	Angle    float64
	Scale    float64 // 1 spans the layer's box
	Reverse  bool
	Gradient Gradient
	// Offset moves the gradient's centre, in fractions of the box.
	OffsetX, OffsetY float64
	// Canvas is set for an effect's gradient not aligned with the layer
	// (Algn off): its box is the canvas. (A gradient fill layer's is
	// GradientFill.Aligned.)
	Canvas bool
}

// Stroke outlines the layer's pixels in one colour.
type Stroke struct {
	Blend   BlendMode
	Color   color.NRGBA
	Opacity float64
	Size    float64
	// Position is "outside", "inside" or "center".
	Position string
	// Gradient, when set, paints the stroke instead of Color (its Blend
	// and Opacity are the stroke's).
	Gradient *GradientOverlay
	// Pattern, when set, paints the stroke instead of Color.
	Pattern *PatternFill
}

// PatternOverlay paints the layer's pixels with a pattern the file
// embeds, tiled over the canvas.
type PatternOverlay struct {
	Blend   BlendMode
	Opacity float64
	Fill    PatternFill
}

// PatternFill is how a pattern is tiled: by a pattern overlay or a
// pattern fill layer.
type PatternFill struct {
	// Pattern is the pattern's ID (File.Pattern finds it); Name its name.
	Pattern, Name string
	// Scale is 1 to draw the pattern at its size (0.01 to 10).
	Scale float64
	// Angle turns the pattern, in degrees counter-clockwise.
	Angle float64
	// Phase moves the pattern's origin, in pixels.
	Phase Point
	// Linked ("link with layer") puts the origin at the layer's
	// reference point (Layer.Reference) rather than the canvas's.
	Linked bool
}

// readPatternFill reads a pattern overlay's or a pattern fill layer's
// settings; false when it names no pattern.
func readPatternFill(d *descriptor) (PatternFill, bool) {
	p := PatternFill{Scale: 1}
	if pt := d.desc("Ptrn"); pt != nil {
		p.Pattern = strings.TrimRight(pt.str("Idnt"), "\x00")
		p.Name = strings.TrimRight(pt.str("Nm  "), "\x00")
	}
	if s, ok := d.num("Scl "); ok && s >= 1 && s <= 1000 {
		p.Scale = s / 100
	}
	if a, ok := d.num("Angl"); ok && !math.IsNaN(a) && !math.IsInf(a, 0) {
		p.Angle = math.Mod(a, 360)
	}
	if ph := d.desc("phase"); ph != nil {
		x, _ := ph.num("Hrzn")
		y, _ := ph.num("Vrtc")
		p.Phase = Point{clampRange(x, -1e6, 1e6), clampRange(y, -1e6, 1e6)}
	}
	// A pattern fill layer has no Algn and starts at its reference
	// point (patterns.psd of psd-tools' tests: each of its six fills).
	p.Linked = true
	if a, ok := d.get("Algn").(bool); ok {
		p.Linked = a
	}
	return p, p.Pattern != ""
}

// Any reports whether an effect is switched on.
func (e *Effects) Any() bool {
	return e != nil && (len(e.DropShadows)+len(e.InnerShadows)+len(e.OuterGlows)+len(e.InnerGlows)+
		len(e.ColorOverlays)+len(e.GradientOverlays)+len(e.Strokes)+len(e.PatternOverlays)+len(e.Satins)+len(e.Bevels)+len(e.Unread) > 0)
}

// effectBlends are the blend modes of effects, by their descriptor enum.
//
//nolint:gochecknoglobals // read-only table: the BlnM enum's values
var effectBlends = map[string]BlendMode{
	"Nrml": "normal", "Dslv": "dissolve", "Drkn": "darken", "Mltp": "multiply", "CBrn": "color burn",
	"linearBurn": "linear burn", "darkerColor": "darker color", "Lghn": "lighten", "Scrn": "screen",
	"CDdg": "color dodge", "linearDodge": "linear dodge", "lighterColor": "lighter color", "Ovrl": "overlay",
	"SftL": "soft light", "HrdL": "hard light", "vividLight": "vivid light", "linearLight": "linear light",
	"pinLight": "pin light", "hardMix": "hard mix", "Dfrn": "difference", "Xclu": "exclusion",
	"blendSubtraction": "subtract", "blendDivide": "divide", "H   ": "hue", "Strt": "saturation",
	"Clr ": "color", "Lmns": "luminosity",
}

// readEffects reads an lfx2 descriptor's switched-on effects; nil when
// none is on. globalAngle is the document's light (image resource 1037).
func readEffects(desc *descriptor, globalAngle float64) *Effects {
	if on, ok := desc.get("masterFXSwitch").(bool); ok && !on {
		return nil
	}
	// The descriptor's "Scl " (208 % or 417 % in the test files) is not
	// applied: sizes and distances are stored as drawn. Scaling them drew
	// ag-group-drop-shadows.psd's shadow four times too far and too soft
	// (15 dB against Photoshop's picture, 45 dB without) and
	// pt-layer-effects.psd's effects twice too large (22.4 dB, 23.8 without).
	e := &Effects{}
	each := func(one, multi string, fn func(*descriptor)) {
		items := []any{desc.get(one)}
		if l := desc.list(multi); len(l) > 0 {
			// Photoshop lists them top first, as its dialog shows them:
			// ag-strokes.psd's upper stroke, 7 px in multiply, is listed
			// before the 18 px one it lies over.
			items = make([]any, len(l))
			for i, it := range l {
				items[len(l)-1-i] = it
			}
		}
		for _, it := range items {
			if d, ok := it.(*descriptor); ok {
				if on, _ := d.get("enab").(bool); on {
					fn(d)
				}
			}
		}
	}
	blend := func(d *descriptor) BlendMode {
		if v, ok := d.get("Md  ").(enumValue); ok {
			if m, ok := effectBlends[v.Value]; ok {
				return m
			}
			return BlendMode("key:" + v.Value)
		}
		return "normal"
	}
	pct := func(d *descriptor, key string, def float64) float64 {
		if v, ok := d.num(key); ok {
			return clampUnit(v / 100)
		}
		return def
	}
	px := func(d *descriptor, key string) float64 {
		v, _ := d.num(key)
		return clampRange(v, 0, 1000) // NaN too: it would pass math.Min and math.Max
	}
	// A shadow's or a one-colour glow's contour and noise are not drawn
	// (a linear contour, no noise): named, not dropped in silence.
	undrawn := func(d *descriptor, what string, contour bool) {
		if contour && readContour(d.desc("TrnS")) != nil {
			e.Unread = append(e.Unread, what+": contour (drawn linear)")
		}
		if n, ok := d.num("Nose"); ok && n > 0 {
			e.Unread = append(e.Unread, what+": noise")
		}
	}
	shadow := func(d *descriptor, what string) Shadow {
		undrawn(d, what, true)
		s := Shadow{Blend: blend(d), Color: *descColor(d.desc("Clr ")), Opacity: pct(d, "Opct", 1),
			Distance: px(d, "Dstn"), Spread: pct(d, "Ckmt", 0), Size: px(d, "blur")}
		s.Angle = globalAngle
		if g, _ := d.get("uglg").(bool); !g {
			if a, ok := d.num("lagl"); ok && !math.IsNaN(a) && !math.IsInf(a, 0) {
				s.Angle = a
			}
		}
		return s
	}
	glow := func(d *descriptor, what string) Glow {
		g := Glow{Blend: blend(d), Color: *descColor(d.desc("Clr ")), Opacity: pct(d, "Opct", 1),
			Spread: pct(d, "Ckmt", 0), Size: px(d, "blur")}
		if v, ok := d.get("glwS").(enumValue); ok && v.Value == "SrcC" {
			g.Center = true
		}
		if d.desc("Clr ") == nil && d.desc("Grad") != nil {
			// An outer glow's gradient is drawn; an inner glow's, or a
			// noise gradient, is not.
			if gr, ok := readGradient(d.desc("Grad")); ok && gr.Noise == nil && len(gr.Colors) > 0 && what == "outer glow" {
				g.Gradient = &gr
			} else {
				e.Unread = append(e.Unread, what+" in a gradient")
			}
		}
		g.Contour = readContour(d.desc("TrnS"))
		undrawn(d, what, g.Gradient == nil)
		return g
	}
	each("DrSh", "dropShadowMulti", func(d *descriptor) { e.DropShadows = append(e.DropShadows, shadow(d, "drop shadow")) })
	each("IrSh", "innerShadowMulti", func(d *descriptor) { e.InnerShadows = append(e.InnerShadows, shadow(d, "inner shadow")) })
	each("OrGl", "outerGlowMulti", func(d *descriptor) { e.OuterGlows = append(e.OuterGlows, glow(d, "outer glow")) })
	each("IrGl", "innerGlowMulti", func(d *descriptor) { e.InnerGlows = append(e.InnerGlows, glow(d, "inner glow")) })
	each("SoFi", "solidFillMulti", func(d *descriptor) {
		e.ColorOverlays = append(e.ColorOverlays, ColorOverlay{Blend: blend(d), Color: *descColor(d.desc("Clr ")), Opacity: pct(d, "Opct", 1)})
	})
	each("GrFl", "gradientFillMulti", func(d *descriptor) {
		g, ok := readGradientFill(d, blend(d), pct(d, "Opct", 1))
		if !ok {
			e.Unread = append(e.Unread, "gradient overlay (an unknown style, or a noise gradient in HSB)")
			return
		}
		e.noise(g, "gradient overlay")
		g.Canvas = unaligned(d)
		e.GradientOverlays = append(e.GradientOverlays, g)
	})
	each("FrFX", "frameFXMulti", func(d *descriptor) {
		s := Stroke{Blend: blend(d), Color: *descColor(d.desc("Clr ")), Opacity: pct(d, "Opct", 1), Size: px(d, "Sz  "), Position: "outside"}
		if v, ok := d.get("Styl").(enumValue); ok {
			s.Position = map[string]string{"OutF": "outside", "InsF": "inside", "CtrF": "center"}[v.Value]
		}
		e.strokePaint(d, &s)
		if s.Position == "" {
			s.Position = "outside"
		}
		e.Strokes = append(e.Strokes, s)
	})
	each("ebbl", "bevelEmbossMulti", func(d *descriptor) {
		b, ok := readBevel(d, globalAngle)
		if !ok {
			e.Unread = append(e.Unread, "bevel and emboss: stroke emboss")
			return
		}
		if t, _ := d.get("useTexture").(bool); t {
			e.Unread = append(e.Unread, "bevel and emboss: texture")
		}
		e.Bevels = append(e.Bevels, b)
	})
	each("ChFX", "chromeFXMulti", func(d *descriptor) {
		st := Satin{Blend: blend(d), Color: *descColor(d.desc("Clr ")), Opacity: pct(d, "Opct", 1),
			Distance: px(d, "Dstn"), Size: px(d, "blur"), Contour: readContour(d.desc("MpgS"))}
		st.Invert, _ = d.get("Invr").(bool)
		if a, ok := d.num("lagl"); ok && !math.IsNaN(a) && !math.IsInf(a, 0) {
			st.Angle = a
		}
		e.Satins = append(e.Satins, st)
	})
	each("patternFill", "patternFillMulti", func(d *descriptor) {
		p, ok := readPatternFill(d)
		if !ok {
			e.Unread = append(e.Unread, "pattern overlay (no pattern named)")
			return
		}
		e.PatternOverlays = append(e.PatternOverlays, PatternOverlay{Blend: blend(d), Opacity: pct(d, "Opct", 1), Fill: p})
	})
	if !e.Any() {
		return nil
	}
	return e
}

// strokePaint reads what a stroke is painted with besides its colour:
// a gradient or a pattern.
func (e *Effects) strokePaint(d *descriptor, s *Stroke) {
	v, _ := d.get("PntT").(enumValue)
	switch v.Value {
	case "", "SClr":
		return
	case "GrFl":
		if g, ok := readGradientFill(d, s.Blend, s.Opacity); ok {
			g.Canvas = unaligned(d)
			s.Gradient = &g
			e.noise(g, "stroke")
			return
		}
	case "Ptrn":
		if p, ok := readPatternFill(d); ok {
			s.Pattern = &p
			return
		}
	}
	e.Unread = append(e.Unread, "stroke with a shape-burst gradient, a noise gradient in HSB or no pattern named (drawn in its colour)")
}

// unaligned says whether an effect's gradient is not aligned with the
// layer: pt-layer-params.psd's radial stroke spans the canvas (its box
// drawn at 23.0 dB so, 20.8 spanning the layer).
func unaligned(d *descriptor) bool {
	a, ok := d.get("Algn").(bool)
	return ok && !a
}

// noise names an effect's noise gradient: drawn, but not in
// Photoshop's colours.
func (e *Effects) noise(g GradientOverlay, what string) {
	if g.Gradient.Noise != nil {
		e.Unread = append(e.Unread, what+" in a noise gradient (drawn in the middle of its colours: Photoshop's generator is not published)")
	}
}

// bevelStyles and bevelTechniques are the bvlS and bvlT enums' values.
//
//nolint:gochecknoglobals // read-only tables of the enums' values
var (
	bevelStyles     = map[string]string{"InrB": "inner", "OtrB": "outer", "Embs": "emboss", "PlEb": "pillow"}
	bevelTechniques = map[string]string{"SfBL": "smooth", "PrBL": "chisel hard", "Slmt": "chisel soft"}
)

// readBevel reads a bevel and emboss; false for a stroke emboss, which
// kino does not draw.
func readBevel(d *descriptor, globalAngle float64) (Bevel, bool) {
	b := Bevel{Style: "inner", Technique: "smooth", Depth: 1, Angle: globalAngle, Altitude: 30,
		HighlightBlend: "screen", HighlightColor: color.NRGBA{255, 255, 255, 255}, HighlightOpacity: 0.75,
		ShadowBlend: "multiply", ShadowColor: color.NRGBA{A: 255}, ShadowOpacity: 0.75}
	enum := func(key string) string {
		v, _ := d.get(key).(enumValue)
		return v.Value
	}
	if v := enum("bvlS"); v != "" {
		s, ok := bevelStyles[v]
		if !ok {
			return b, false
		}
		b.Style = s
	}
	if t, ok := bevelTechniques[enum("bvlT")]; ok {
		b.Technique = t
	}
	b.Down = enum("bvlD") == "Out "
	if v, ok := d.num("srgR"); ok {
		b.Depth = clampRange(v/100, 0.01, 10)
	}
	b.Size = clampRange(numOr(d, "blur", 0), 0, 250)
	b.Soften = clampRange(numOr(d, "Sftn", 0), 0, 16)
	if g, _ := d.get("uglg").(bool); !g {
		if a, ok := d.num("lagl"); ok && !math.IsNaN(a) && !math.IsInf(a, 0) {
			b.Angle = a
		}
	}
	b.Altitude = clampRange(numOr(d, "Lald", 30), 0, 90)
	mode := func(key string, def BlendMode) BlendMode {
		if v := enum(key); v != "" {
			if m, ok := effectBlends[v]; ok {
				return m
			}
			return BlendMode("key:" + v)
		}
		return def
	}
	b.HighlightBlend, b.ShadowBlend = mode("hglM", b.HighlightBlend), mode("sdwM", b.ShadowBlend)
	if c := d.desc("hglC"); c != nil {
		b.HighlightColor = *descColor(c)
	}
	if c := d.desc("sdwC"); c != nil {
		b.ShadowColor = *descColor(c)
	}
	if v, ok := d.num("hglO"); ok {
		b.HighlightOpacity = clampUnit(v / 100)
	}
	if v, ok := d.num("sdwO"); ok {
		b.ShadowOpacity = clampUnit(v / 100)
	}
	b.Gloss = readContour(d.desc("TrnS"))
	if on, _ := d.get("useShape").(bool); on {
		b.Edge = readContour(d.desc("MpgS"))
	}
	return b, true
}

// numOr is a descriptor's number, def when absent or not finite.
func numOr(d *descriptor, key string, def float64) float64 {
	if v, ok := d.num(key); ok && !math.IsNaN(v) && !math.IsInf(v, 0) {
		return v
	}
	return def
}

// readContour reads a contour's curve ("Crv ": points 0 to 255), at most
// maxContourPoints of them, kept in order of input.
func readContour(d *descriptor) Contour {
	if d == nil {
		return nil
	}
	var c Contour
	for _, it := range d.list("Crv ") {
		p, ok := it.(*descriptor)
		if !ok || len(c) == maxContourPoints {
			continue
		}
		x, _ := p.num("Hrzn")
		y, _ := p.num("Vrtc")
		pt := Point{X: clampUnit(x / 255), Y: clampUnit(y / 255)}
		if len(c) > 0 && pt.X < c[len(c)-1].X {
			pt.X = c[len(c)-1].X
		}
		c = append(c, pt)
	}
	if c.Linear() {
		return nil
	}
	return c
}

// readGradientFill reads a gradient overlay's or a stroke's gradient
// settings; false when its style or stops are not ones kino draws (a
// noise gradient, a stroke's shape burst).
func readGradientFill(d *descriptor, blend BlendMode, opacity float64) (GradientOverlay, bool) {
	grad, ok := readGradient(d.desc("Grad"))
	if !ok {
		return GradientOverlay{}, false
	}
	if v, ok := d.get("gs99").(enumValue); ok {
		// Photoshop 2023's interpolation methods; absent, classic.
		grad.Method = map[string]string{"Perc": "perceptual", "Lnr ": "linear"}[v.Value]
		if grad.Method == "" {
			grad.Method = "classic"
		}
	}
	g := GradientOverlay{Blend: blend, Opacity: opacity, Style: "linear", Scale: 1, Gradient: grad}
	if s, ok := d.num("Scl "); ok && s > 0 && s <= 1000 {
		g.Scale = s / 100
	}
	if a, ok := d.num("Angl"); ok && !math.IsNaN(a) && !math.IsInf(a, 0) {
		g.Angle = a
	}
	g.Reverse, _ = d.get("Rvrs").(bool)
	if v, ok := d.get("Type").(enumValue); ok {
		g.Style = map[string]string{"Lnr ": "linear", "Rdl ": "radial", "Angl": "angle", "Rflc": "reflected", "Dmnd": "diamond"}[v.Value]
	}
	if o := d.desc("Ofst"); o != nil {
		x, _ := o.num("Hrzn")
		y, _ := o.num("Vrtc")
		g.OffsetX, g.OffsetY = clampRange(x/100, -10, 10), clampRange(y/100, -10, 10)
	}
	return g, g.Style != "" && (len(g.Gradient.Colors) > 0 || g.Gradient.Noise != nil)
}

// readGradient reads a gradient (a Grdn descriptor): its stops, or a
// noise gradient's settings (RGB or Lab ones; ok false for HSB).
func readGradient(d *descriptor) (g Gradient, ok bool) {
	g.Method, g.Smoothness = "classic", 1
	if d == nil {
		return g, true
	}
	if v, isEnum := d.get("GrdF").(enumValue); isEnum && v.Value == "ClNs" {
		return readNoise(d)
	}
	if v, ok := d.num("Intr"); ok {
		g.Smoothness = clampUnit(v / 4096)
	}
	stop := func(s *descriptor) GradientStop {
		loc, _ := s.num("Lctn")
		mid, ok := s.num("Mdpn")
		if !ok {
			mid = 50
		}
		return GradientStop{Location: clampUnit(loc / 4096), Midpoint: clampRange(mid/100, 0.01, 0.99)}
	}
	for _, it := range d.list("Clrs") {
		if s, ok := it.(*descriptor); ok && len(g.Colors) < maxStops {
			st := stop(s)
			st.Color = *descColor(s.desc("Clr "))
			g.Colors = append(g.Colors, st)
		}
	}
	for _, it := range d.list("Trns") {
		if s, ok := it.(*descriptor); ok && len(g.Alphas) < maxStops {
			st := stop(s)
			o, ok := s.num("Opct")
			if !ok {
				o = 100
			}
			st.Color = color.NRGBA{A: uint8(clampUnit(o/100)*255 + 0.5)}
			g.Alphas = append(g.Alphas, st)
		}
	}
	return g, true
}

// maxStops bounds a gradient's stops of each kind: Photoshop's editor
// takes a few dozen.
const maxStops = 1000

// readNoise reads a noise gradient's settings.
func readNoise(d *descriptor) (Gradient, bool) {
	g := Gradient{Method: "classic", Noise: &NoiseGradient{Max: [4]float64{1, 1, 1, 1}}}
	n := g.Noise
	if v, ok := d.get("ClrS").(enumValue); ok {
		switch v.Value {
		case "RGBC":
		case "LbCl":
			n.Lab = true
		default:
			return g, false
		}
	}
	if v, ok := d.num("RndS"); ok {
		n.Seed = uint32(int64(clampRange(v, -1<<31, 1<<32-1)))
	}
	if v, ok := d.num("Smth"); ok {
		n.Roughness = clampUnit(v / 4096)
	}
	for i, it := range d.list("Mnm ") {
		if v, ok := number(it); ok && i < 4 {
			n.Min[i] = clampUnit(float64(v) / 100)
		}
	}
	for i, it := range d.list("Mxm ") {
		if v, ok := number(it); ok && i < 4 {
			n.Max[i] = clampUnit(float64(v) / 100)
		}
	}
	n.Transparent, _ = d.get("ShTr").(bool)
	return g, true
}

func clampUnit(v float64) float64 { return clampRange(v, 0, 1) }

func clampRange(v, lo, hi float64) float64 {
	switch {
	case math.IsNaN(v) || v < lo:
		return lo
	case v > hi:
		return hi
	}
	return v
}
