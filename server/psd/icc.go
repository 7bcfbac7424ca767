package psd

import (
	"encoding/binary"
)

// cmykProfile converts CMYK to sRGB through a file's ICC profile (image
// resource 1039): its perceptual A2B0 table (an ICC v2 lut16, "mft2", as
// Photoshop's CMYK profiles hold: U.S. Web Coated (SWOP) v2 in every test
// file) takes inks to Lab under D50, and Lab goes to sRGB by the
// Bradford-adapted matrix. Colours come out as Photoshop exports the
// document to RGB (psd-tools' PNGs of its CMYK adjustment files: 50 to
// 85 dB; the relative colorimetric A2B1 23 to 26, 31 to 34 with black
// point compensation; the naive conversion, cmykToRGB, 20 to 25: brighter
// and more saturated than any press prints).
type cmykProfile struct {
	grid    int // CLUT points a side
	inCurve [4][]uint16
	clut    []uint16 // grid^4 entries of L, a, b
	out     [3][]uint16
}

// maxProfileGrid bounds the CLUT a side: 4 inputs make grid^4 entries
// (33 is 1.2 million, 7 MB); Photoshop's profiles have 9 to 17.
const maxProfileGrid = 33

// maxProfileCache bounds the colours remembered: a photo repeats few of
// its 2^32 possible CMYK values.
const maxProfileCache = 1 << 16

// parseCMYKProfile reads a profile's A2B0 (or A2B1) lut16; nil when it is
// not a CMYK-to-Lab profile with one (the naive conversion is used then).
func parseCMYKProfile(p []byte) *cmykProfile {
	if len(p) < 132 || string(p[16:20]) != "CMYK" || string(p[20:24]) != "Lab " {
		return nil
	}
	n := int(binary.BigEndian.Uint32(p[128:]))
	if n > (len(p)-132)/12 {
		return nil
	}
	var tag []byte
	for i := 0; i < n; i++ {
		e := p[132+12*i:]
		sig := string(e[:4])
		off, size := int64(binary.BigEndian.Uint32(e[4:])), int64(binary.BigEndian.Uint32(e[8:]))
		if off+size > int64(len(p)) {
			continue
		}
		if sig == "A2B0" || (sig == "A2B1" && tag == nil) {
			tag = p[off : off+size]
		}
	}
	return parseLut16(tag)
}

// parseLut16 reads an mft2 tag of 4 inputs and 3 outputs.
func parseLut16(t []byte) *cmykProfile {
	if len(t) < 52 || string(t[:4]) != "mft2" || t[8] != 4 || t[9] != 3 {
		return nil
	}
	g := int(t[10])
	nIn, nOut := int(binary.BigEndian.Uint16(t[48:])), int(binary.BigEndian.Uint16(t[50:]))
	if g < 2 || g > maxProfileGrid || nIn < 2 || nIn > 4096 || nOut < 2 || nOut > 4096 {
		return nil
	}
	cells := g * g * g * g
	if 52+2*(4*nIn+3*cells+3*nOut) > len(t) {
		return nil
	}
	words := func(at, n int) []uint16 {
		w := make([]uint16, n)
		for i := range w {
			w[i] = binary.BigEndian.Uint16(t[at+2*i:])
		}
		return w
	}
	pr := &cmykProfile{grid: g}
	at := 52
	for i := range pr.inCurve {
		pr.inCurve[i] = words(at, nIn)
		at += 2 * nIn
	}
	pr.clut = words(at, 3*cells)
	at += 2 * 3 * cells
	for i := range pr.out {
		pr.out[i] = words(at, nOut)
		at += 2 * nOut
	}
	return pr
}

// curve looks a value 0..1 up in a table of samples, linearly.
func curve(tab []uint16, x float64) float64 {
	x = clampUnit(x) * float64(len(tab)-1)
	i := int(x)
	if i >= len(tab)-1 {
		return float64(tab[len(tab)-1]) / 65535
	}
	f := x - float64(i)
	return (float64(tab[i])*(1-f) + float64(tab[i+1])*f) / 65535
}

// lab is the PCS Lab of inks 0..1 (1 full ink).
func (pr *cmykProfile) lab(ink [4]float64) [3]float64 {
	g := pr.grid
	var base [4]int
	var frac [4]float64
	for i := range ink {
		x := curve(pr.inCurve[i], ink[i]) * float64(g-1)
		b := int(x)
		if b >= g-1 {
			b = g - 2
		}
		base[i], frac[i] = b, x-float64(b)
	}
	// Quadrilinear: the 16 corners of the cell, each weighted.
	var acc [3]float64
	for corner := 0; corner < 16; corner++ {
		w, idx := 1.0, 0
		for i := 0; i < 4; i++ {
			bit := corner >> (3 - i) & 1
			if bit == 1 {
				w *= frac[i]
			} else {
				w *= 1 - frac[i]
			}
			idx = idx*g + base[i] + bit
		}
		if w == 0 {
			continue
		}
		for o := 0; o < 3; o++ {
			acc[o] += w * float64(pr.clut[3*idx+o]) / 65535
		}
	}
	var out [3]float64
	for o := range out {
		out[o] = curve(pr.out[o], acc[o])
	}
	// ICC v2's 16-bit Lab: L 0..100 over 0..0xff00, a and b -128..128.
	return [3]float64{out[0] * 65535 / 65280 * 100, out[1]*65535/256 - 128, out[2]*65535/256 - 128}
}

// labToXYZ converts Lab under D50 to XYZ (white Y = 1).
func labToXYZ(lab [3]float64) [3]float64 {
	fy := (lab[0] + 16) / 116
	fx, fz := fy+lab[1]/500, fy-lab[2]/200
	inv := func(t float64) float64 {
		if t > 6.0/29 {
			return t * t * t
		}
		return 3 * (6.0 / 29) * (6.0 / 29) * (t - 4.0/29)
	}
	return [3]float64{0.9642 * inv(fx), inv(fy), 0.8249 * inv(fz)}
}

// rgb converts stored CMYK bytes (255 no ink) to sRGB bytes, remembering
// them in cache (one a picture: a File is read from several goroutines).
func (pr *cmykProfile) rgb(cache map[uint32][3]uint8, c, m, y, k uint8) [3]uint8 {
	key := uint32(c)<<24 | uint32(m)<<16 | uint32(y)<<8 | uint32(k)
	if v, ok := cache[key]; ok {
		return v
	}
	xyz := labToXYZ(pr.lab([4]float64{1 - float64(c)/255, 1 - float64(m)/255, 1 - float64(y)/255, 1 - float64(k)/255}))
	// No black point compensation: the perceptual table maps the
	// press's black near PCS black already, and Photoshop's exports keep
	// 400% ink at (35,31,32), as this does.
	m3 := [3][3]float64{
		{3.1338561, -1.6168667, -0.4906146},
		{-0.9787684, 1.9161415, 0.0334540},
		{0.0719453, -0.2289914, 1.4052427},
	}
	var out [3]uint8
	for i := range out {
		lin := m3[i][0]*xyz[0] + m3[i][1]*xyz[1] + m3[i][2]*xyz[2]
		out[i] = toneMap(float32(lin))
	}
	if len(cache) < maxProfileCache {
		cache[key] = out
	}
	return out
}
