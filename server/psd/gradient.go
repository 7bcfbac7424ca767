package psd

import (
	"image/color"
	"math"
)

// smoothEase is how far Photoshop's smoothness at 100 % bends the
// change between two stops towards a smoothstep: fitted on
// ag-gradient-mode.psd (57 dB down its middle column; 0 gives 24 dB).
const smoothEase = 0.56

// At is the gradient's colour at t, 0 to 1. Table is faster for many.
func (g Gradient) At(t float64) color.NRGBA {
	if g.Noise != nil {
		return g.Noise.mean()
	}
	c := g.mix(g.Colors, t, false)
	c.A = 255
	if len(g.Alphas) > 0 {
		c.A = g.mix(g.Alphas, t, true).A
	}
	return c
}

// Table is the gradient at n evenly spaced points from 0 to 1 (n at
// least 2).
func (g Gradient) Table(n int) []color.NRGBA {
	out := make([]color.NRGBA, n)
	if g.Noise != nil {
		c := g.Noise.mean()
		for i := range out {
			out[i] = c
		}
		return out
	}
	for i := range out {
		out[i] = g.At(float64(i) / float64(n-1))
	}
	return out
}

// mix is the stops' colour at t: between two stops, their mix at the
// fraction of the way the midpoint and smoothness make of t's, in the
// gradient's method.
func (g Gradient) mix(s []GradientStop, t float64, alpha bool) color.NRGBA {
	if len(s) == 0 {
		return color.NRGBA{A: 255}
	}
	if t <= s[0].Location {
		return g.end(s[0], alpha)
	}
	for i := 1; i < len(s); i++ {
		if t > s[i].Location {
			continue
		}
		a, b := s[i-1], s[i]
		f := 0.0
		if b.Location > a.Location {
			f = (t - a.Location) / (b.Location - a.Location)
		}
		// The midpoint is where the two mix half and half: the way to
		// it and from it are each stretched linearly.
		if m := b.Midpoint; m > 0 && m < 1 {
			if f <= m {
				f = f / m / 2
			} else {
				f = 0.5 + (f-m)/(1-m)/2
			}
		}
		if g.spline != splineNone && !alpha {
			return g.splineAt(s, i, f)
		}
		if g.profile != nil && !alpha {
			return g.inkSplineAt(s, i, f)
		}
		f += g.Smoothness * smoothEase * (f*f*(3-2*f) - f)
		if alpha {
			return color.NRGBA{A: lerp8(a.Color.A, b.Color.A, f)}
		}
		if g.profile != nil {
			return mixInks(g.profile, a.ink, b.ink, f)
		}
		return mixColors(a.Color, b.Color, f, g.Method)
	}
	return g.end(s[len(s)-1], alpha)
}

// end is an end stop's colour, converted from its inks when the
// gradient mixes inks.
func (g Gradient) end(s GradientStop, alpha bool) color.NRGBA {
	if g.profile != nil && !alpha {
		return mixInks(g.profile, s.ink, s.ink, 0)
	}
	if g.spline != splineNone && !alpha {
		return g.spline.rgb(s.value)
	}
	return s.Color
}

func lerp8(x, y uint8, f float64) uint8 {
	return uint8(float64(x) + (float64(y)-float64(x))*f + 0.5)
}

// mixColors mixes x and y, f of the way to y, in method's space.
func mixColors(x, y color.NRGBA, f float64, method string) color.NRGBA {
	switch method {
	case "linear":
		var out [3]float64
		for i, p := range [3][2]uint8{{x.R, y.R}, {x.G, y.G}, {x.B, y.B}} {
			a, b := toLinear(p[0]), toLinear(p[1])
			out[i] = a + (b-a)*f
		}
		return color.NRGBA{toSRGB(out[0]), toSRGB(out[1]), toSRGB(out[2]), 255}
	case "perceptual":
		a, b := oklab(x), oklab(y)
		var o [3]float64
		for i := range o {
			o[i] = a[i] + (b[i]-a[i])*f
		}
		return fromOklab(o)
	}
	return color.NRGBA{lerp8(x.R, y.R, f), lerp8(x.G, y.G, f), lerp8(x.B, y.B, f), 255}
}

// toLinear is an sRGB value in linear light, 0 to 1.
func toLinear(v uint8) float64 {
	c := float64(v) / 255
	if c <= 0.04045 {
		return c / 12.92
	}
	return math.Pow((c+0.055)/1.055, 2.4)
}

// toSRGB is a linear-light value, 0 to 1, as an sRGB value.
func toSRGB(c float64) uint8 {
	c = clampUnit(c)
	if c <= 0.0031308 {
		c *= 12.92
	} else {
		c = 1.055*math.Pow(c, 1/2.4) - 0.055
	}
	return uint8(clampUnit(c)*255 + 0.5)
}

// oklab is an sRGB colour in Oklab (Björn Ottosson's published
// matrices), the space Photoshop's perceptual method matches: its
// gradient in ag-gradient-mode.psd lies within half a level of Oklab's
// path between the two stops, 15 levels off sRGB's.
func oklab(c color.NRGBA) [3]float64 {
	r, g, b := toLinear(c.R), toLinear(c.G), toLinear(c.B)
	l := math.Cbrt(0.4122214708*r + 0.5363325363*g + 0.0514459929*b)
	m := math.Cbrt(0.2119034982*r + 0.6806995451*g + 0.1073969566*b)
	s := math.Cbrt(0.0883024619*r + 0.2817188376*g + 0.6299787005*b)
	return [3]float64{
		0.2104542553*l + 0.7936177850*m - 0.0040720468*s,
		1.9779984951*l - 2.4285922050*m + 0.4505937099*s,
		0.0259040371*l + 0.7827717662*m - 0.8086757660*s,
	}
}

func fromOklab(o [3]float64) color.NRGBA {
	l := o[0] + 0.3963377774*o[1] + 0.2158037573*o[2]
	m := o[0] - 0.1055613458*o[1] - 0.0638541728*o[2]
	s := o[0] - 0.0894841775*o[1] - 1.2914855480*o[2]
	l, m, s = l*l*l, m*m*m, s*s*s
	return color.NRGBA{
		toSRGB(4.0767416621*l - 3.3077115913*m + 0.2309699292*s),
		toSRGB(-1.2684380046*l + 2.6097574011*m - 0.3413193965*s),
		toSRGB(-0.0041960771*l - 0.7034186147*m + 1.7076147010*s),
		255,
	}
}

// mean is the colour kino draws a noise gradient in, all along it: the
// middle of each channel's bounds, in the gradient's colour model.
// Photoshop's generator (its random numbers from the seed, and how the
// roughness spaces the colours) is not published, and random colours
// of kino's own differ from Photoshop's as two random draws do, twice
// the error of the middle colour: pt-stroke-gradient.psd's noise stroke
// drawn at 15.6 dB so, 10.9 in random colours; ag-effects.psd's Lab
// noise overlay at 18.4, 13.7 in random ones.
func (n *NoiseGradient) mean() color.NRGBA {
	var mid [4]float64
	for i := range mid {
		mid[i] = (n.Min[i] + n.Max[i]) / 2
	}
	c := color.NRGBA{A: 255}
	if n.Transparent {
		c.A = uint8(mid[3]*255 + 0.5)
	}
	rgb := [3]float64{mid[0], mid[1], mid[2]}
	if n.Lab {
		// L runs 0 to 100, a and b about ±127.5 (neutral half way).
		rgb = labToRGB(100*mid[0], 255*(mid[1]-0.5), 255*(mid[2]-0.5))
	}
	c.R, c.G, c.B = uint8(clampUnit(rgb[0])*255+0.5), uint8(clampUnit(rgb[1])*255+0.5), uint8(clampUnit(rgb[2])*255+0.5)
	return c
}
