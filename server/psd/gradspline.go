package psd

import "image/color"

// splineSpace is the space a gradient fill's colour stops are mixed in
// when Photoshop draws it along a spline through them.
type splineSpace uint8

const (
	// splineNone mixes two stops at a time (Gradient.mix).
	splineNone splineSpace = iota
	// splineLab mixes a Lab file's stops in Lab.
	splineLab
	// splineLinear mixes a 32-bit greyscale file's stops in linear
	// light.
	splineLinear
)

// rgb is a value of the space as sRGB.
func (sp splineSpace) rgb(v [3]float64) color.NRGBA {
	if sp == splineLab {
		c := labToRGB(v[0], v[1], v[2])
		return color.NRGBA{unit8(c[0]), unit8(c[1]), unit8(c[2]), 255}
	}
	return color.NRGBA{toSRGB(v[0]), toSRGB(v[1]), toSRGB(v[2]), 255}
}

// splineAt is the colour f of the way from stop i-1 to stop i of s
// along the spline Photoshop's smoothness at 100 % draws through the
// stops (splineChannel), in the gradient's spline space.
func (g Gradient) splineAt(s []GradientStop, i int, f float64) color.NRGBA {
	var out [3]float64
	for c := range out {
		out[c] = splineChannel(s, i, f, g.Smoothness, func(st GradientStop) float64 { return st.value[c] })
	}
	return g.spline.rgb(out)
}

// inkSplineAt is as splineAt for a CMYK file's stops: their inks along
// the spline, the mix converted through the profile (pt-cmyk-16bit 32.5
// dB mixing two stops' inks at a time, 35.3 so).
func (g Gradient) inkSplineAt(s []GradientStop, i int, f float64) color.NRGBA {
	var m [4]uint8
	for c := range m {
		v := splineChannel(s, i, f, g.Smoothness, func(st GradientStop) float64 { return float64(st.ink[c]) })
		m[c] = uint8(clampRange(v, 0, 255) + 0.5)
	}
	return mixInks(g.profile, m, m, 0)
}

// splineChannel is one channel (val) f of the way from stop i-1 to
// stop i of s, along the spline Photoshop's smoothness at 100 % draws
// through the stops, each channel apart: a cubic through each pair of
// stops whose slope at a stop is the mean of the slopes of the lines to
// the stops either side (at an end stop, half its one line's). On
// pt-lab-16bit and pt-32bit-grey it gives Photoshop's pixels a quarter
// and three quarters of the way to within a hundredth of a level, where
// mixing two stops at a time is 6 to 11 levels off. Less smoothness
// mixes the spline with the straight line.
func splineChannel(s []GradientStop, i int, f, smooth float64, val func(GradientStop) float64) float64 {
	slope := func(j int) float64 {
		// The slope at stop j, in value per unit of location.
		var sum float64
		if j > 0 && s[j].Location > s[j-1].Location {
			sum += (val(s[j]) - val(s[j-1])) / (s[j].Location - s[j-1].Location)
		}
		if j+1 < len(s) && s[j+1].Location > s[j].Location {
			sum += (val(s[j+1]) - val(s[j])) / (s[j+1].Location - s[j].Location)
		}
		return sum / 2
	}
	a, b := val(s[i-1]), val(s[i])
	w := s[i].Location - s[i-1].Location
	h00, h10 := 2*f*f*f-3*f*f+1, f*f*f-2*f*f+f
	h01, h11 := -2*f*f*f+3*f*f, f*f*f-f*f
	line := a + (b-a)*f
	curve := h00*a + h10*w*slope(i-1) + h01*b + h11*w*slope(i)
	return line + smooth*(curve-line)
}
