package psd

import (
	"math"
	"sort"
)

// Adjustment is an adjustment layer kino draws: per-channel tables, a
// threshold, or a colour function. Kind names it ("invert", "posterize",
// "threshold", "levels", "curves", "brightness/contrast", "exposure",
// "hue/saturation", "gradient map", …). Adjustments not read have no
// Adjustment: the layer's Unsupported names them.
type Adjustment struct {
	Kind string
	// Tables map each of R, G and B (grey uses R), 0..255, when set.
	Tables *[3][256]uint8
	// Threshold, when not zero, turns pixels whose luminance is at least
	// it white and the others black.
	Threshold int
	// Color, when set, maps a pixel's colour (after Tables): the
	// adjustments that mix channels (hue/saturation, gradient map, …).
	Color func(r, g, b uint8) (uint8, uint8, uint8)
	// Partial, when set, names what of the adjustment is not drawn.
	Partial string
	// ColorWork is what a pixel of Color costs, in non-separable blends
	// of a pixel (0 counts as 1): hue/saturation with colour ranges
	// measured at three.
	ColorWork int
}

// Bounds of what an adjustment block may hold.
const (
	maxCurvePoints = 19 // Photoshop's own limit per channel
	maxGradStops   = 64
)

// readAdjustment reads the adjustments kino draws from their block; nil
// for the others, or for a block it cannot read. mode is the document's:
// grey documents keep their one channel's settings where RGB keeps red's.
// maxDepth bounds the descriptors some blocks are.
func readAdjustment(key string, c *cursor, mode ColorMode, maxDepth int) *Adjustment {
	switch key {
	case "nvrt":
		t := identity()
		for ch := range t {
			for v := range t[ch] {
				t[ch][v] = uint8(255 - v)
			}
		}
		return &Adjustment{Kind: "invert", Tables: t}
	case "post":
		n := int(c.u16())
		if c.err != nil || n < 2 || n > 255 {
			return nil
		}
		t := identity()
		for ch := range t {
			for v := range t[ch] {
				// Photoshop's bands: v·n/256 levels, spread over 0..255.
				t[ch][v] = uint8(min(v*n/256, n-1) * 255 / (n - 1))
			}
		}
		return &Adjustment{Kind: "posterize", Tables: t}
	case "thrs":
		n := int(c.u16())
		if c.err != nil || n < 1 || n > 255 {
			return nil
		}
		return &Adjustment{Kind: "threshold", Threshold: n}
	case "levl":
		return readLevels(c, mode)
	case "curv":
		return readCurves(c, mode)
	case "brit":
		return readBrightness(c)
	case "expA":
		return readExposure(c, mode)
	case "hue2":
		return readHueSaturation(c)
	case "grdm":
		return readGradientMap(c)
	case "mixr":
		return readChannelMixer(c)
	case "selc":
		return readSelectiveColor(c)
	case "blnc":
		return readColorBalance(c)
	case "phfl":
		return readPhotoFilter(c)
	case "blwh":
		return readBlackWhite(c, maxDepth)
	case "clrL":
		return readColorLookup(c, maxDepth)
	}
	return nil
}

func identity() *[3][256]uint8 {
	var t [3][256]uint8
	for ch := range t {
		for v := range t[ch] {
			t[ch][v] = uint8(v)
		}
	}
	return &t
}

// channelTables turns a composite curve and one curve per channel into
// tables: each channel's own curve first, then the composite's, as
// Photoshop's dialogs show them. In a grey document the first channel's
// curve is grey's and applies to all three.
func channelTables(composite [256]float64, channels [3][256]float64, mode ColorMode) *[3][256]uint8 {
	t := identity()
	for ch := range t {
		own := channels[ch]
		if mode == Grayscale {
			own = channels[0]
		}
		for v := range t[ch] {
			x := own[v]
			t[ch][v] = clamp8(lookup(&composite, x))
		}
	}
	return t
}

// lookup reads a 256-entry curve at x (0..255) by linear interpolation.
func lookup(curve *[256]float64, x float64) float64 {
	x = math.Max(0, math.Min(255, x))
	i := int(x)
	if i >= 255 {
		return curve[255]
	}
	f := x - float64(i)
	return curve[i]*(1-f) + curve[i+1]*f
}

func clamp8(v float64) uint8 {
	return uint8(math.Max(0, math.Min(255, math.Round(v))))
}

func identityCurve() [256]float64 {
	var c [256]float64
	for i := range c {
		c[i] = float64(i)
	}
	return c
}

// readLevels reads a Levels block: a version, then records of input
// black, input white, output black, output white and gamma·100, the
// first for the composite, then one per channel.
func readLevels(c *cursor, mode ColorMode) *Adjustment {
	if v := c.u16(); c.err != nil || v != 2 {
		return nil
	}
	var recs [4][256]float64
	for i := range recs {
		inLo, inHi, outLo, outHi, g := int(c.u16()), int(c.u16()), int(c.u16()), int(c.u16()), int(c.u16())
		if c.err != nil || inLo > 255 || inHi > 255 || outLo > 255 || outHi > 255 || g < 1 || g > 999 {
			return nil
		}
		recs[i] = levelsCurve(inLo, inHi, outLo, outHi, float64(g)/100)
	}
	return &Adjustment{Kind: "levels", Tables: channelTables(recs[0], [3][256]float64{recs[1], recs[2], recs[3]}, mode)}
}

func levelsCurve(inLo, inHi, outLo, outHi int, gamma float64) [256]float64 {
	var out [256]float64
	for v := range out {
		x := 1.0
		if inHi > inLo {
			x = math.Max(0, math.Min(1, float64(v-inLo)/float64(inHi-inLo)))
		} else if v < inLo {
			x = 0
		}
		x = math.Pow(x, 1/gamma)
		out[v] = float64(outLo) + x*float64(outHi-outLo)
	}
	return out
}

// readCurves reads a Curves block: version 1 with a bitmap of the
// channels whose curves follow (bit 0 the composite), each a count of
// points stored as output then input. The 256-entry map form is not read.
func readCurves(c *cursor, mode ColorMode) *Adjustment {
	isMap := c.u8()
	version := c.u16()
	bits := c.u32()
	if c.err != nil || isMap != 0 || version != 1 {
		return nil
	}
	curves := [4][256]float64{identityCurve(), identityCurve(), identityCurve(), identityCurve()}
	for ch := 0; ch < 32; ch++ {
		if bits&(1<<ch) == 0 {
			continue
		}
		n := int(c.u16())
		if c.err != nil || n < 2 || n > maxCurvePoints {
			return nil
		}
		xs, ys := make([]float64, n), make([]float64, n)
		for i := 0; i < n; i++ {
			ys[i], xs[i] = float64(c.u16()), float64(c.u16())
			if c.err != nil || xs[i] > 255 || ys[i] > 255 {
				return nil
			}
		}
		if ch < len(curves) {
			curves[ch] = spline(xs, ys)
		}
	}
	return &Adjustment{Kind: "curves", Tables: channelTables(curves[0], [3][256]float64{curves[1], curves[2], curves[3]}, mode)}
}

// spline is the natural cubic spline through points (xs sorted by the
// dialog, but sorted again here), flat beyond the first and last,
// clipped to 0..255.
func spline(xs, ys []float64) [256]float64 {
	idx := make([]int, len(xs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return xs[idx[a]] < xs[idx[b]] })
	x, y := make([]float64, 0, len(xs)), make([]float64, 0, len(xs))
	for _, i := range idx {
		if len(x) > 0 && xs[i] <= x[len(x)-1] {
			continue // two points at one input: the first wins
		}
		x, y = append(x, xs[i]), append(y, ys[i])
	}
	n := len(x)
	// Second derivatives of the natural spline (tridiagonal solve).
	m := make([]float64, n)
	if n > 2 {
		u := make([]float64, n)
		for i := 1; i < n-1; i++ {
			sig := (x[i] - x[i-1]) / (x[i+1] - x[i-1])
			p := sig*m[i-1] + 2
			m[i] = (sig - 1) / p
			d := (y[i+1]-y[i])/(x[i+1]-x[i]) - (y[i]-y[i-1])/(x[i]-x[i-1])
			u[i] = (6*d/(x[i+1]-x[i-1]) - sig*u[i-1]) / p
		}
		m[n-1] = 0
		for k := n - 2; k >= 0; k-- {
			m[k] = m[k]*m[k+1] + u[k]
		}
	}
	var out [256]float64
	k := 0
	for v := range out {
		fv := float64(v)
		switch {
		case n == 1 || fv <= x[0]:
			out[v] = y[0]
		case fv >= x[n-1]:
			out[v] = y[n-1]
		default:
			for k < n-2 && fv > x[k+1] {
				k++
			}
			h := x[k+1] - x[k]
			a, b := (x[k+1]-fv)/h, (fv-x[k])/h
			out[v] = a*y[k] + b*y[k+1] + ((a*a*a-a)*m[k]+(b*b*b-b)*m[k+1])*h*h/6
		}
		out[v] = math.Max(0, math.Min(255, out[v]))
	}
	return out
}

// readBrightness reads the legacy Brightness/Contrast block (brightness
// and contrast, -100..100, and the mean contrast pivots on). A CgEd
// block after it replaces it (brightnessContrast) unless it says legacy.
func readBrightness(c *cursor) *Adjustment {
	b, k, mean := int(c.i16()), int(c.i16()), int(c.i16())
	if c.err != nil || b < -150 || b > 150 || k < -100 || k > 100 || mean < 0 || mean > 255 {
		return nil
	}
	return brightnessLegacy(b, k, mean)
}

// brightnessLegacy is Photoshop's "use legacy" brightness and contrast:
// brightness added, then contrast stretching about the mean.
func brightnessLegacy(b, k, mean int) *Adjustment {
	var curve [256]float64
	f := 1 + float64(k)/100
	if k > 0 {
		f = 1 / math.Max(1-float64(k)/100, 1.0/255)
	}
	for v := range curve {
		x := float64(v + b)
		curve[v] = (x-float64(mean))*f + float64(mean)
	}
	return &Adjustment{Kind: "brightness/contrast", Tables: channelTables(curve, [3][256]float64{identityCurve(), identityCurve(), identityCurve()}, RGB)}
}

// brightnessContrast is the modern Brightness/Contrast (CgEd's Brgh,
// Cntr), whose formula Adobe does not publish. Measured on Photoshop's
// merged images (each slider alone, then four pairs), it is one curve
// for every channel, brightness first, then contrast:
//
// Brightness b > 0 multiplies the value by s = 2^(b/110) (b/50 stops of
// exposure in gamma-2.2 light: the slope at black of all six settings
// measured, to 0.01) and rolls the highlights off so that white stays
// white: s·x / (1 + (s^m − 1)·x^m)^(1/m). The roll-off's shape m = 4.3 is
// the one fitted part (1 to 2 levels RMS); b < 0 is the inverse of +|b|
// (exact: -150 undoes +150 to the level).
//
// Contrast k is the quadratic B-spline through (0,0), (¼, ¼ − e),
// (¾, ¾ + e), (1,1) with e = 0.19·k/100: a parabola each side of the
// middle, x − 4e·x(1 − 2x) below it, mirrored above. Exact (within a
// level) on +100 and −50; it pivots on 127.5 whatever the stored mean.
func brightnessContrast(b, k float64) *Adjustment {
	const m = 4.3
	sm := math.Pow(math.Pow(2, math.Abs(b)/110), m)
	e := 0.19 * k / 100
	var curve [256]float64
	for v := range curve {
		x := float64(v) / 255
		switch {
		case b > 0:
			x = math.Pow(sm, 1/m) * x / math.Pow(1+(sm-1)*math.Pow(x, m), 1/m)
		case b < 0:
			x /= math.Pow(sm-(sm-1)*math.Pow(x, m), 1/m)
		}
		if x <= 0.5 {
			x -= 4 * e * x * (1 - 2*x)
		} else {
			x += 4 * e * (1 - x) * (2*x - 1)
		}
		curve[v] = x * 255
	}
	return &Adjustment{Kind: "brightness/contrast", Tables: channelTables(curve, [3][256]float64{identityCurve(), identityCurve(), identityCurve()}, RGB)}
}

// readExposure reads an Exposure block: a version, then exposure (stops),
// offset and gamma as 32-bit floats. Photoshop applies them in linear
// light: an RGB document's values are taken as gamma 2.2 (exact against
// Photoshop's merged images), a grey one's as gamma 1.73 (its Dot Gain
// 20% space: 54.7 dB, where 2.2 is 25.7 dB).
func readExposure(c *cursor, mode ColorMode) *Adjustment {
	gamma := 2.2
	if mode == Grayscale {
		gamma = 1.73
	}
	c.u16()
	e, off, g := f32(c), f32(c), f32(c)
	if c.err != nil || math.IsNaN(e) || math.IsNaN(off) || math.IsNaN(g) || e < -20 || e > 20 || off < -1 || off > 1 || g < 0.01 || g > 10 {
		return nil
	}
	var curve [256]float64
	for v := range curve {
		x := math.Pow(float64(v)/255, gamma)
		x = x*math.Pow(2, e) + off
		x = math.Pow(math.Max(0, x), 1/g)
		curve[v] = math.Pow(x, 1/gamma) * 255
	}
	return &Adjustment{Kind: "exposure", Tables: channelTables(curve, [3][256]float64{identityCurve(), identityCurve(), identityCurve()}, RGB)}
}

func f32(c *cursor) float64 {
	return float64(math.Float32frombits(c.u32()))
}

// readHueSaturation reads a Hue/Saturation block (hue2, version 2):
// colorize on or off, the colorize hue, saturation and lightness, the
// master's, then six colour ranges, each its four hue bounds in degrees
// (fall-off start, range start, range end, fall-off end, around the
// circle) and its own hue, saturation and lightness.
func readHueSaturation(c *cursor) *Adjustment {
	if v := c.u16(); c.err != nil || v != 2 {
		return nil
	}
	colorize := c.u8() != 0
	c.u8()
	var col, master [3]float64
	for i := range col {
		col[i] = float64(c.i16())
	}
	for i := range master {
		master[i] = float64(c.i16())
	}
	var ranges []hueRange
	for range 6 {
		var bounds [4]float64
		var set [3]float64
		for i := range bounds {
			bounds[i] = float64(c.i16())
		}
		for i := range set {
			set[i] = float64(c.i16())
		}
		if c.err != nil {
			return nil
		}
		if set != [3]float64{} {
			ranges = append(ranges, newHueRange(bounds, set))
		}
	}
	if c.err != nil {
		return nil
	}
	a := &Adjustment{Kind: "hue/saturation"}
	if colorize {
		h, s, l := col[0], col[1]/100, col[2]/100
		if h < 0 {
			h += 360
		}
		a.Color = func(r, g, b uint8) (uint8, uint8, uint8) {
			lum := (float64(max(r, g, b)) + float64(min(r, g, b))) / 510
			if l > 0 {
				lum += (1 - lum) * l
			} else {
				lum += lum * l
			}
			rr, gg, bb := hslToRGB(h/360, s, lum)
			return clamp8(rr * 255), clamp8(gg * 255), clamp8(bb * 255)
		}
		return a
	}
	a.Color = func(r, g, b uint8) (uint8, uint8, uint8) {
		return hueSatRanges(r, g, b, master, ranges)
	}
	if len(ranges) > 0 {
		a.ColorWork = 3
	}
	return a
}

// hueRange is one of hue/saturation's six colour ranges: its bounds,
// the last three in degrees past the first (0..360), and its hue,
// saturation and lightness settings.
type hueRange struct {
	from float64
	rel  [3]float64
	set  [3]float64
}

// newHueRange keeps a range's bounds as the weight reads them.
func newHueRange(bounds [4]float64, set [3]float64) hueRange {
	deg := func(v float64) float64 { return math.Mod(math.Mod(v, 360)+360, 360) }
	r := hueRange{from: deg(bounds[0]), set: set}
	for i, b := range bounds[1:] {
		r.rel[i] = deg(b - bounds[0])
	}
	return r
}

// weight is how much of the range a hue (degrees, 0..360) is in: 1
// between the two inner bounds, falling linearly to 0 at the outer ones.
func (r hueRange) weight(h float64) float64 {
	x := h - r.from
	if x < 0 {
		x += 360
	}
	b2, b3, b4 := r.rel[0], r.rel[1], r.rel[2]
	switch {
	case x < b2:
		return x / b2
	case x <= b3:
		return 1
	case x < b4:
		return (b4 - x) / (b4 - b3)
	}
	return 0
}

// hueSatRanges is Photoshop's Hue/Saturation with colour ranges, as
// measured on its merged images (42 to 53 dB on its three test files). Each range counts by how much of it the pixel's hue is
// in. Their lightness settings, summed by that weight (-1..1), move each
// channel towards the pixel's largest channel (up) or its smallest
// (down), so that +100 turns a colour grey at its brightest and greys
// stay; then the master's lightness moves every channel towards white or
// black. Hue: the master's plus each range's by its weight. Saturation
// (HSL, lightness kept): multiplied by the master's factor and by one
// plus each range's factor less one, by its weight.
func hueSatRanges(r, g, b uint8, master [3]float64, ranges []hueRange) (uint8, uint8, uint8) {
	h0, s0, _ := rgbToHSL(r, g, b)
	px := [3]float64{float64(r) / 255, float64(g) / 255, float64(b) / 255}
	hi, lo := float64(max(r, g, b))/255, float64(min(r, g, b))/255
	dh, dl, k := master[0], 0.0, 1.0
	for _, rg := range ranges {
		if s0 == 0 {
			break
		}
		w := rg.weight(h0 * 360)
		dh += w * rg.set[0]
		k += w * (satFactor(rg.set[1]/100) - 1)
		dl += w * rg.set[2] / 100
	}
	dl = math.Max(-1, math.Min(1, dl))
	k = math.Max(0, k*satFactor(master[1]/100))
	for i, v := range px {
		if dl > 0 {
			v += (hi - v) * dl
		} else {
			v += (v - lo) * dl
		}
		px[i] = lighten(v, master[2]/100)
	}
	h, s, l := floatToHSL(px[0], px[1], px[2])
	rf, gf, bf := hslToRGB(math.Mod(h+dh/360+2, 1), math.Min(1, s*k), l)
	return clamp8(rf * 255), clamp8(gf * 255), clamp8(bf * 255)
}

// satFactor is what a saturation setting (-1..1) multiplies HSL
// saturation by: 1+ds down, 1/(1-ds) up, and 128 at +100 (measured: a
// +100 range 10% into its fall-off, under a master of -97, leaves a full
// colour at 36% saturation).
func satFactor(ds float64) float64 {
	switch {
	case ds >= 1:
		return 128
	case ds > 0:
		return 1 / (1 - ds)
	}
	return math.Max(0, 1+ds)
}

// lighten moves v towards white (dl > 0) or black by dl (-1..1).
func lighten(v, dl float64) float64 {
	if dl > 0 {
		return v + (1-v)*math.Min(dl, 1)
	}
	return v + v*math.Max(dl, -1)
}

func rgbToHSL(r, g, b uint8) (h, s, l float64) {
	return floatToHSL(float64(r)/255, float64(g)/255, float64(b)/255)
}

// floatToHSL is rgbToHSL of channels 0..1.
func floatToHSL(rf, gf, bf float64) (h, s, l float64) {
	mx, mn := math.Max(rf, math.Max(gf, bf)), math.Min(rf, math.Min(gf, bf))
	l = (mx + mn) / 2
	d := mx - mn
	if d == 0 {
		return 0, 0, l
	}
	if l > 0.5 {
		s = d / (2 - mx - mn)
	} else {
		s = d / (mx + mn)
	}
	switch mx {
	case rf:
		h = (gf - bf) / d
		if gf < bf {
			h += 6
		}
	case gf:
		h = (bf-rf)/d + 2
	default:
		h = (rf-gf)/d + 4
	}
	return h / 6, s, l
}

func hslToRGB(h, s, l float64) (r, g, b float64) {
	if s == 0 {
		return l, l, l
	}
	q := l * (1 + s)
	if l >= 0.5 {
		q = l + s - l*s
	}
	p := 2*l - q
	hue := func(t float64) float64 {
		t = math.Mod(t+1, 1)
		switch {
		case t < 1.0/6:
			return p + (q-p)*6*t
		case t < 0.5:
			return q
		case t < 2.0/3:
			return p + (q-p)*(2.0/3-t)*6
		}
		return p
	}
	return hue(h + 1.0/3), hue(h), hue(h - 1.0/3)
}

// readGradientMap reads a Gradient Map block (version 1 or 3): the
// colour stops (location 0..4096, midpoint %, RGB as 16 bits) map each
// pixel's luminance to a colour; transparency stops are not drawn.
func readGradientMap(c *cursor) *Adjustment {
	version := c.u16()
	reversed := c.u8() != 0
	c.u8() // dithered
	if c.err != nil || (version != 1 && version != 3) {
		return nil
	}
	if version == 3 {
		if m := c.sig(); m != "Gcls" && m != "Lnr " && m != "Perc" {
			return nil
		}
	}
	c.unicode()
	n := int(c.u16())
	if c.err != nil || n < 1 || n > maxGradStops {
		return nil
	}
	type stop struct{ loc, mid, r, g, b float64 }
	stops := make([]stop, n)
	for i := range stops {
		loc, mid := float64(c.u32()), float64(c.u32())
		if mode := c.u16(); mode != 0 {
			return nil // only RGB stops
		}
		stops[i] = stop{loc: loc / 4096, mid: mid / 100, r: float64(c.u16()) / 257, g: float64(c.u16()) / 257, b: float64(c.u16()) / 257}
		c.u16()
		c.u16()
		if c.err != nil || loc > 4096 || mid > 100 {
			return nil
		}
	}
	sort.SliceStable(stops, func(a, b int) bool { return stops[a].loc < stops[b].loc })
	var lut [256][3]uint8
	for v := range lut {
		x := float64(v) / 255
		if reversed {
			x = 1 - x
		}
		i := 0
		for i < n-1 && stops[i+1].loc < x {
			i++
		}
		a := stops[i]
		if i == n-1 || x <= a.loc {
			lut[v] = [3]uint8{clamp8(a.r), clamp8(a.g), clamp8(a.b)}
			continue
		}
		b := stops[i+1]
		t := (x - a.loc) / math.Max(b.loc-a.loc, 1e-9)
		// The midpoint is where the two colours are half and half.
		if mid := b.mid; mid > 0 && mid < 1 && mid != 0.5 {
			t = math.Pow(t, math.Log(0.5)/math.Log(mid))
		}
		lut[v] = [3]uint8{clamp8(a.r + (b.r-a.r)*t), clamp8(a.g + (b.g-a.g)*t), clamp8(a.b + (b.b-a.b)*t)}
	}
	return &Adjustment{Kind: "gradient map", Color: func(r, g, b uint8) (uint8, uint8, uint8) {
		y := (299*int(r) + 587*int(g) + 114*int(b) + 500) / 1000
		o := lut[y]
		return o[0], o[1], o[2]
	}}
}

// readChannelMixer reads a Channel Mixer block: a version, monochrome,
// then for each output channel (red, green, blue; one for all when
// monochrome) the percentages of red, green and blue it takes, a fourth
// for CMYK, and a constant percentage of white.
func readChannelMixer(c *cursor) *Adjustment {
	c.u16()
	mono := c.u16() != 0
	var m [3][4]float64
	n := 3
	if mono {
		n = 1
	}
	for o := 0; o < n; o++ {
		for i := range 5 {
			v := float64(c.i16())
			if v < -200 || v > 200 {
				return nil
			}
			switch {
			case i < 3:
				m[o][i] = v / 100
			case i == 4:
				m[o][3] = v / 100 * 255
			}
		}
	}
	if c.err != nil {
		return nil
	}
	if mono {
		m[1], m[2] = m[0], m[0]
	}
	return &Adjustment{Kind: "channel mixer", Color: func(r, g, b uint8) (uint8, uint8, uint8) {
		in := [3]float64{float64(r), float64(g), float64(b)}
		var out [3]uint8
		for o := range out {
			out[o] = clamp8(m[o][0]*in[0] + m[o][1]*in[1] + m[o][2]*in[2] + m[o][3])
		}
		return out[0], out[1], out[2]
	}}
}

// readSelectiveColor reads a Selective Color block: a version, the
// method (0 relative, 1 absolute), then ten records of cyan, magenta,
// yellow and black percentages: one unused, then reds, yellows, greens,
// cyans, blues, magentas, whites, neutrals and blacks.
func readSelectiveColor(c *cursor) *Adjustment {
	c.u16()
	absolute := c.u16() == 1
	var adj [10][4]float64
	for i := range adj {
		for j := range adj[i] {
			v := float64(c.i16())
			if v < -100 || v > 100 {
				return nil
			}
			adj[i][j] = v / 100
		}
	}
	if c.err != nil {
		return nil
	}
	return &Adjustment{Kind: "selective color", Color: func(r, g, b uint8) (uint8, uint8, uint8) {
		in := [3]float64{float64(r) / 255, float64(g) / 255, float64(b) / 255}
		mx := math.Max(in[0], math.Max(in[1], in[2]))
		mn := math.Min(in[0], math.Min(in[1], in[2]))
		mid := in[0] + in[1] + in[2] - mx - mn
		out := in
		apply := func(rec int, amount float64) {
			if amount <= 0 || adj[rec] == [4]float64{} {
				return
			}
			k := adj[rec][3]
			for ch := range out {
				a := adj[rec][ch] // cyan for red, magenta for green, yellow for blue
				d := (-1-a)*k - a
				if !absolute {
					d *= 1 - in[ch]
				}
				out[ch] += math.Max(-in[ch], math.Min(1-in[ch], d)) * amount
			}
		}
		// Each pixel belongs to the primary that is largest in it, the
		// secondary made of its two largest, and to whites, neutrals and
		// blacks by its lightness.
		switch {
		case in[0] == mx:
			apply(1, mx-mid)
		case in[1] == mx:
			apply(3, mx-mid)
		default:
			apply(5, mx-mid)
		}
		switch {
		case in[2] == mn:
			apply(2, mid-mn)
		case in[0] == mn:
			apply(4, mid-mn)
		default:
			apply(6, mid-mn)
		}
		apply(7, math.Max(0, (mn-0.5)*2))
		apply(8, 1-math.Abs(mx-0.5)-math.Abs(mn-0.5))
		apply(9, math.Max(0, (0.5-mx)*2))
		return clamp8(out[0] * 255), clamp8(out[1] * 255), clamp8(out[2] * 255)
	}}
}
