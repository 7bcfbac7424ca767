package psd

import (
	"bufio"
	"bytes"
	"math"
	"strconv"
	"strings"
)

// Bounds of what the colour adjustments' blocks may hold.
const (
	maxLUTSize = 65 // a cube's points per side (Photoshop's own reach 64)
	maxBWValue = 300
)

// readColorBalance reads a Color Balance block: cyan-red, magenta-green
// and yellow-blue (-100..100) for the shadows, the midtones and the
// highlights, then preserve luminosity.
func readColorBalance(c *cursor) *Adjustment {
	var set [3][3]float64 // range, channel
	for r := range set {
		for ch := range set[r] {
			v := float64(c.i16())
			if v < -100 || v > 100 {
				return nil
			}
			set[r][ch] = v / 100
		}
	}
	keep := c.u8() != 0
	if c.err != nil {
		return nil
	}
	return &Adjustment{Kind: "color balance", Color: func(r, g, b uint8) (uint8, uint8, uint8) {
		return colorBalance(r, g, b, set, keep)
	}}
}

// colorBalance is GIMP's colour balance, the open definition of
// Photoshop's: each channel moves by its shadows', midtones' and
// highlights' settings, each weighted by a mask of the pixel's HSL
// lightness (ramps a quarter wide at a third and two thirds, summing to
// one) and by 0.7; preserve luminosity then gives back the pixel's HSL
// lightness.
func colorBalance(r, g, b uint8, set [3][3]float64, keep bool) (uint8, uint8, uint8) {
	const a, edge, scale = 0.25, 0.333, 0.7
	_, _, l := rgbToHSL(r, g, b)
	clamp01 := func(v float64) float64 { return math.Max(0, math.Min(1, v)) }
	ws := [3]float64{
		clamp01((l-edge)/-a+0.5) * scale,
		clamp01((l-edge)/a+0.5) * clamp01((l+edge-1)/-a+0.5) * scale,
		clamp01((l+edge-1)/a+0.5) * scale,
	}
	px := [3]float64{float64(r) / 255, float64(g) / 255, float64(b) / 255}
	for ch := range px {
		for rg := range ws {
			px[ch] += set[rg][ch] * ws[rg]
		}
		px[ch] = clamp01(px[ch])
	}
	nr, ng, nb := clamp8(px[0]*255), clamp8(px[1]*255), clamp8(px[2]*255)
	if !keep {
		return nr, ng, nb
	}
	h, s, _ := rgbToHSL(nr, ng, nb)
	rf, gf, bf := hslToRGB(h, s, l)
	return clamp8(rf * 255), clamp8(gf * 255), clamp8(bf * 255)
}

// readPhotoFilter reads a Photo Filter block: version 3 with the
// filter's colour as Lab (three 32-bit hundredths), or version 2 with a
// colour record (RGB or Lab read); then the density in percent and
// preserve luminosity.
func readPhotoFilter(c *cursor) *Adjustment {
	var col [3]float64
	switch c.u16() {
	case 3:
		l, a, b := float64(c.i32())/100, float64(c.i32())/100, float64(c.i32())/100
		col = labToRGB(l, a, b)
	case 2:
		var ok bool
		if col, ok = colorRecord(c); !ok {
			return nil
		}
	default:
		return nil
	}
	density := float64(c.u32()) / 100
	keep := c.u8() != 0
	if c.err != nil || density > 1 || math.IsNaN(col[0]+col[1]+col[2]) {
		return nil
	}
	return &Adjustment{Kind: "photo filter", Color: func(r, g, b uint8) (uint8, uint8, uint8) {
		return photoFilter(r, g, b, col, density, keep)
	}}
}

// colorRecord reads a colour space and four 16-bit components: RGB
// (0..65535) or Lab (L 0..10000, a and b signed hundredths) as RGB 0..1.
func colorRecord(c *cursor) ([3]float64, bool) {
	space := c.u16()
	var v [4]uint16
	for i := range v {
		v[i] = c.u16()
	}
	if c.err != nil {
		return [3]float64{}, false
	}
	switch space {
	case 0:
		return [3]float64{float64(v[0]) / 65535, float64(v[1]) / 65535, float64(v[2]) / 65535}, true
	case 7:
		if v[0] > 10000 {
			return [3]float64{}, false
		}
		return labToRGB(float64(v[0])/100, float64(int16(v[1]))/100, float64(int16(v[2]))/100), true
	}
	return [3]float64{}, false
}

// labToRGB converts CIE Lab (D50, as Photoshop keeps it) to sRGB 0..1,
// through XYZ adapted to D65 by Bradford (labToXYZ, xyzToSRGB: the Lab
// file's conversion).
func labToRGB(l, a, b float64) [3]float64 {
	lin := xyzToSRGB(labToXYZ([3]float64{l, a, b}))
	for i, v := range lin {
		v = math.Max(0, math.Min(1, v))
		if v <= 0.0031308 {
			lin[i] = 12.92 * v
		} else {
			lin[i] = 1.055*math.Pow(v, 1/2.4) - 0.055
		}
	}
	return lin
}

// photoFilter multiplies the pixel by the filter's colour, mixed in by
// the density; preserve luminosity gives back the pixel's luminosity
// (the Luminosity blend's SetLum, 0.3 R + 0.59 G + 0.11 B).
func photoFilter(r, g, b uint8, col [3]float64, density float64, keep bool) (uint8, uint8, uint8) {
	in := [3]float64{float64(r) / 255, float64(g) / 255, float64(b) / 255}
	var out [3]float64
	for i := range out {
		out[i] = in[i] + (in[i]*col[i]-in[i])*density
	}
	if keep {
		out = setLum(out, lum(in))
	}
	return clamp8(out[0] * 255), clamp8(out[1] * 255), clamp8(out[2] * 255)
}

func lum(c [3]float64) float64 { return 0.3*c[0] + 0.59*c[1] + 0.11*c[2] }

// setLum is the non-separable blend modes' SetLum: c moved to luminosity
// l, then brought back into 0..1 keeping its luminosity and hue.
func setLum(c [3]float64, l float64) [3]float64 {
	d := l - lum(c)
	for i := range c {
		c[i] += d
	}
	l = lum(c)
	n, x := math.Min(c[0], math.Min(c[1], c[2])), math.Max(c[0], math.Max(c[1], c[2]))
	for i := range c {
		if n < 0 && l-n > 0 {
			c[i] = l + (c[i]-l)*l/(l-n)
		}
		if x > 1 && x-l > 0 {
			c[i] = l + (c[i]-l)*(1-l)/(x-l)
		}
	}
	return c
}

// readBlackWhite reads a Black & White block (a descriptor): the weights
// of reds, yellows, greens, cyans, blues and magentas in percent, and a
// tint colour when useTint is set.
func readBlackWhite(c *cursor, maxDepth int) *Adjustment {
	d, err := readDescriptor(c, maxDepth)
	if err != nil {
		return nil
	}
	var w [6]float64 // R, Y, G, C, B, M
	for i, k := range []string{"Rd  ", "Yllw", "Grn ", "Cyn ", "Bl  ", "Mgnt"} {
		v, ok := d.num(k)
		if !ok || v < -maxBWValue || v > maxBWValue {
			return nil
		}
		w[i] = v / 100
	}
	var tint *[3]float64
	if use, _ := d.get("useTint").(bool); use {
		t := d.desc("tintColor")
		if t == nil {
			return nil
		}
		var col [3]float64
		for i, k := range []string{"Rd  ", "Grn ", "Bl  "} {
			v, ok := t.num(k)
			if !ok || v < 0 || v > 255 {
				return nil
			}
			col[i] = v / 255
		}
		tint = &col
	}
	return &Adjustment{Kind: "black & white", Color: func(r, g, b uint8) (uint8, uint8, uint8) {
		return blackWhite(r, g, b, w, tint)
	}}
}

// blackWhite is Black & White's grey as its six weights define it: the
// smallest channel, plus the step to the middle one times the weight of
// the secondary colour the two largest make (yellow, cyan or magenta),
// plus the step to the largest times the weight of its primary. A tint
// then colours the grey as the Color blend mode would (the tint's hue
// and saturation at the grey's luminosity).
func blackWhite(r, g, b uint8, w [6]float64, tint *[3]float64) (uint8, uint8, uint8) {
	c := [3]float64{float64(r) / 255, float64(g) / 255, float64(b) / 255}
	hi, lo := 0, 0
	for i := range c {
		if c[i] > c[hi] {
			hi = i
		}
		if c[i] < c[lo] {
			lo = i
		}
	}
	if hi == lo {
		lo = (hi + 1) % 3
	}
	mid := 3 - hi - lo
	// Primaries R, G, B at 0, 2, 4; the secondary of two channels sits
	// between them: R+G yellow 1, G+B cyan 3, B+R magenta 5.
	primary := [3]int{0, 2, 4}[hi]
	secondary := [4]int{0, 1, 5, 3}[hi+mid]
	grey := c[lo] + (c[mid]-c[lo])*w[secondary] + (c[hi]-c[mid])*w[primary]
	grey = math.Max(0, math.Min(1, grey))
	if tint == nil {
		v := clamp8(grey * 255)
		return v, v, v
	}
	out := setLum(*tint, grey)
	return clamp8(out[0] * 255), clamp8(out[1] * 255), clamp8(out[2] * 255)
}

// readColorLookup reads a Color Lookup block: a version, then a
// descriptor whose LUT3DFileData holds the 3D LUT as a .cube file's
// text. A lookup stored only as a profile or an abstract profile has no
// table kino reads: nil.
func readColorLookup(c *cursor, maxDepth int) *Adjustment {
	if v := c.u16(); c.err != nil || v != 1 {
		return nil
	}
	d, err := readDescriptor(c, maxDepth)
	if err != nil {
		return nil
	}
	data, _ := d.get("LUT3DFileData").([]byte)
	lut := parseCube(data)
	if lut == nil {
		return nil
	}
	return &Adjustment{Kind: "color lookup", Color: lut.apply}
}

// cube is a 3D LUT: n points per side, red fastest, values 0..1.
type cube struct {
	n   int
	rgb []float32
}

// parseCube reads a .cube file's text: LUT_3D_SIZE, an optional domain
// of 0..1, then n³ lines of red, green and blue. Anything else (a 1D
// table, another domain, too few or too many lines) is nil.
func parseCube(data []byte) *cube {
	var lut *cube
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 4096), 4096)
	i := 0
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		switch f[0] {
		case "TITLE":
			continue
		case "LUT_3D_SIZE":
			n, err := strconv.Atoi(f[len(f)-1])
			// Each point takes a line of at least six bytes ("0 0 0\n"):
			// a size the text cannot hold is refused before the table
			// is made.
			if lut != nil || err != nil || n < 2 || n > maxLUTSize || n*n*n*6 > len(data) {
				return nil
			}
			lut = &cube{n: n, rgb: make([]float32, 3*n*n*n)}
			continue
		case "DOMAIN_MIN", "DOMAIN_MAX":
			want := 0.0
			if f[0] == "DOMAIN_MAX" {
				want = 1
			}
			for _, v := range f[1:] {
				if x, err := strconv.ParseFloat(v, 64); err != nil || x != want {
					return nil
				}
			}
			continue
		}
		if lut == nil || len(f) != 3 || i >= len(lut.rgb) {
			return nil
		}
		for _, v := range f {
			x, err := strconv.ParseFloat(v, 32)
			if err != nil || math.IsNaN(x) {
				return nil
			}
			lut.rgb[i] = float32(math.Max(0, math.Min(1, x)))
			i++
		}
	}
	if lut == nil || i != len(lut.rgb) {
		return nil
	}
	return lut
}

// apply looks a pixel up by trilinear interpolation.
func (l *cube) apply(r, g, b uint8) (uint8, uint8, uint8) {
	n := l.n
	var idx [3]int
	var frac [3]float64
	for i, v := range [3]uint8{r, g, b} {
		x := float64(v) / 255 * float64(n-1)
		idx[i] = min(int(x), n-2)
		frac[i] = x - float64(idx[i])
	}
	var out [3]float64
	for corner := range 8 {
		w := 1.0
		at := 0
		stride := 1
		for i := range 3 {
			bit := corner >> i & 1
			if bit == 1 {
				w *= frac[i]
			} else {
				w *= 1 - frac[i]
			}
			at += (idx[i] + bit) * stride
			stride *= n
		}
		for ch := range out {
			out[ch] += w * float64(l.rgb[3*at+ch])
		}
	}
	return clamp8(out[0] * 255), clamp8(out[1] * 255), clamp8(out[2] * 255)
}
