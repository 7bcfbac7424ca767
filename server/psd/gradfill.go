package psd

import "image/color"

// GradientFill is a gradient fill layer's settings (GdFl): the gradient
// overlay effect's, and what box the gradient spans.
type GradientFill struct {
	GradientOverlay
	// Aligned ("align with layer") spans the gradient over the box of
	// the layer's vector mask, when it has one; otherwise, and when
	// not aligned, over the canvas.
	Aligned bool
}

// gradientFill reads a GdFl block into l, naming it when kino does not
// draw it.
func (d *decoder) gradientFill(l *Layer, c *cursor) {
	l.Kind = KindFill
	if desc, err := readDescriptor(c, d.lim.MaxDescriptorDepth); err == nil {
		if l.FillGradient = d.readGradientFillLayer(desc); l.FillGradient != nil {
			return
		}
	}
	d.note(l, "gradient fill")
}

// readGradientFillLayer reads a GdFl block's descriptor, its colours
// converted for the document as Photoshop mixes them: a CMYK file's
// stops mixed in inks and each mix converted as its pixels are, a
// 32-bit file's (linear light, 255 for white) mixed in linear light,
// a Lab file's in Lab and a 32-bit greyscale file's along a spline
// (splineAt);
// nil when kino does not draw it.
func (d *decoder) readGradientFillLayer(desc *descriptor) *GradientFill {
	g, ok := readGradientFill(desc, blendMode("norm"), 1)
	if !ok {
		return nil
	}
	if v, ok := desc.get("gradientsInterpolationMethod").(enumValue); ok {
		// The fill layer's name for the overlay's gs99.
		g.Gradient.Method = map[string]string{"Perc": "perceptual", "Lnr ": "linear"}[v.Value]
		if g.Gradient.Method == "" {
			g.Gradient.Method = "classic"
		}
	}
	f := &GradientFill{GradientOverlay: g, Aligned: true}
	if a, ok := desc.get("Algn").(bool); ok {
		f.Aligned = a
	}
	stops := desc.desc("Grad").list("Clrs")
	if g.Gradient.Noise != nil || len(stops) != len(g.Gradient.Colors) {
		return f
	}
	switch {
	case d.f.Mode == CMYK && d.f.profile != nil && allInks(stops):
		// Whatever the interpolation method: no CMYK test file sets one.
		f.Gradient.profile = d.f.profile
		for i, it := range stops {
			f.Gradient.Colors[i].ink = inks(it.(*descriptor).desc("Clr "))
		}
	case f.Gradient.Method == "classic" && d.f.Mode == Lab && allHave(stops, "Lmnc"):
		f.Gradient.spline = splineLab
		for i, it := range stops {
			c := it.(*descriptor).desc("Clr ")
			l, _ := c.num("Lmnc")
			a, _ := c.num("A   ")
			b, _ := c.num("B   ")
			f.Gradient.Colors[i].value = [3]float64{l, a, b}
		}
	case f.Gradient.Method == "classic" && d.f.Depth == 32 && d.f.Mode == Grayscale && allHave(stops, "Gry "):
		// Stored as linear light, as in RGB below, but mixed along a
		// spline.
		f.Gradient.spline = splineLinear
		for i, it := range stops {
			g, _ := it.(*descriptor).desc("Clr ").num("Gry ")
			y := clampRange(1-g/100, 0, 1)
			f.Gradient.Colors[i].value = [3]float64{y, y, y}
			f.Gradient.Colors[i].Color = linearColor(it.(*descriptor).desc("Clr "))
		}
	case d.f.Depth == 32:
		// Stored as linear light: shown through the sRGB curve, and
		// mixed in linear light as the document is (unless the file
		// asks for another method).
		if f.Gradient.Method == "classic" {
			f.Gradient.Method = "linear"
		}
		for i, it := range stops {
			if s, ok := it.(*descriptor); ok {
				f.Gradient.Colors[i].Color = linearColor(s.desc("Clr "))
			}
		}
	}
	return f
}

// allInks says whether every colour stop is a CMYK colour.
func allInks(stops []any) bool { return allHave(stops, "Blck") }

// allHave says whether every colour stop's colour has key.
func allHave(stops []any, key string) bool {
	for _, it := range stops {
		s, ok := it.(*descriptor)
		if !ok {
			return false
		}
		if _, ok := s.desc("Clr ").num(key); !ok {
			return false
		}
	}
	return true
}

// inks are a CMYK descriptor colour's inks as a CMYK file stores them
// (255 no ink); no ink for another colour.
func inks(d *descriptor) [4]uint8 {
	out := [4]uint8{255, 255, 255, 255}
	if d == nil {
		return out
	}
	if _, ok := d.num("Blck"); !ok {
		return out
	}
	for i, k := range [4]string{"Cyn ", "Mgnt", "Ylw ", "Blck"} {
		v, _ := d.num(k)
		out[i] = uint8(255 - clampRange(v, 0, 100)*2.55 + 0.5)
	}
	return out
}

// mixInks mixes two stops' inks f of the way and converts the mix
// through profile.
func mixInks(pr *cmykProfile, x, y [4]uint8, f float64) color.NRGBA {
	var m [4]uint8
	for i := range m {
		m[i] = lerp8(x[i], y[i], f)
	}
	v := pr.rgb(m[0], m[1], m[2], m[3])
	return color.NRGBA{v[0], v[1], v[2], 255}
}

// linearColor is a 32-bit file's descriptor colour (linear light, 255
// for white; grey a percentage of black) shown through the sRGB curve,
// from its unrounded values: a red of 0.74 rounded to 1 shows as 13,
// not 10.
func linearColor(d *descriptor) color.NRGBA {
	v := func(key string) uint8 {
		x, _ := d.num(key)
		return toneMap(float32(clampRange(x/255, 0, 1)))
	}
	if g, ok := d.num("Gry "); ok {
		y := toneMap(float32(clampRange(1-g/100, 0, 1)))
		return color.NRGBA{y, y, y, 255}
	}
	return color.NRGBA{v("Rd  "), v("Grn "), v("Bl  "), 255}
}
