package psd

import (
	"encoding/binary"
)

// cmykProfile converts CMYK to sRGB through a file's ICC profile (image
// resource 1039): its perceptual A2B0 table (an ICC v2 lut16, "mft2", as
// Photoshop's CMYK profiles hold: U.S. Web Coated (SWOP) v2 in every test
// file) takes inks to Lab under D50, and Lab goes to sRGB by the
// Bradford-adapted matrix. Each node of the table is converted once, and
// a pixel interpolated between nodes in linear sRGB. Colours come out as
// Photoshop exports the document to RGB: psd-tools' PNGs of three of its
// CMYK adjustment files, against their merged images so converted, 49 to
// 88 dB (interpolating Lab, then converting each pixel: 50 to 85, eight
// times the work); the relative colorimetric A2B1 23 to 26 (31 to 34 with
// black point compensation); the naive conversion, cmykToRGB, 20 to 25,
// brighter and more saturated than any press prints. Version 4 tables
// ("mAB ") are not read: such a file is converted naively.
type cmykProfile struct {
	grid    int // CLUT points a side
	inCurve [4][]uint16
	clut    []uint16 // grid^4 entries of L, a, b
	out     [3][]uint16
	in      [4][256]gridPos // each stored ink byte's place in the grid
	nodes   []float32       // linear sRGB at each CLUT entry
}

// maxProfileBytes bounds the ICC profile read (held while it is parsed):
// U.S. Web Coated (SWOP) v2 takes 557 KB.
const maxProfileBytes = 8 << 20

// maxProfileGrid bounds the CLUT a side: 4 inputs make grid^4 entries,
// each kept as 3 words and 3 floats (17 is 83,521 entries, 1.5 MB); U.S.
// Web Coated (SWOP) v2 has 9. A profile with more is not read.
const maxProfileGrid = 17

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
	defer pr.tables()
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

// tables precomputes, once a file, where each stored ink byte falls in
// the grid and each node's linear sRGB.
func (pr *cmykProfile) tables() {
	g := pr.grid
	for ch := range pr.in {
		for v := 0; v < 256; v++ {
			x := curve(pr.inCurve[ch], 1-float64(v)/255) * float64(g-1)
			b := int(x)
			if b >= g-1 {
				b = g - 2
			}
			pr.in[ch][v] = gridPos{base: b, frac: x - float64(b)}
		}
	}
	pr.nodes = make([]float32, len(pr.clut))
	for idx := 0; idx < len(pr.clut)/3; idx++ {
		v := xyzToSRGB(labToXYZ(pr.nodeLab(idx)))
		pr.nodes[3*idx], pr.nodes[3*idx+1], pr.nodes[3*idx+2] = float32(v[0]), float32(v[1]), float32(v[2])
	}
}

// gridPos is where an ink falls along one axis of the CLUT.
type gridPos struct {
	base int
	frac float64
}

// nodeLab is the PCS Lab the table gives at CLUT entry idx.
func (pr *cmykProfile) nodeLab(idx int) [3]float64 {
	var out [3]float64
	for o := range out {
		out[o] = curve(pr.out[o], float64(pr.clut[3*idx+o])/65535)
	}
	// ICC v2's 16-bit Lab: L 0..100 over 0..0xff00, a and b -128..128.
	return [3]float64{out[0] * 65535 / 65280 * 100, out[1]*65535/256 - 128, out[2]*65535/256 - 128}
}

// xyzToSRGB is the Bradford-adapted matrix from XYZ under D50 to linear
// sRGB (D65).
func xyzToSRGB(xyz [3]float64) [3]float64 {
	m := [3][3]float64{
		{3.1338561, -1.6168667, -0.4906146},
		{-0.9787684, 1.9161415, 0.0334540},
		{0.0719453, -0.2289914, 1.4052427},
	}
	var out [3]float64
	for i := range out {
		out[i] = m[i][0]*xyz[0] + m[i][1]*xyz[1] + m[i][2]*xyz[2]
	}
	return out
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

// rgb converts stored CMYK bytes (255 no ink) to sRGB bytes: between
// the grid's nodes, each converted to linear sRGB once (nodes),
// tetrahedrally in C, M and Y and linearly in K, as littleCMS interpolates
// four inputs (8 nodes read, not the 16 of quadrilinear interpolation, and
// within a level of it on the test files); then through the sRGB curve.
func (pr *cmykProfile) rgb(c, m, y, k uint8) [3]uint8 {
	g := pr.grid
	pc, pm, py, pk := pr.in[0][c], pr.in[1][m], pr.in[2][y], pr.in[3][k]
	stride := [3]int{g * g * g, g * g, g}
	frac := [3]float64{pc.frac, pm.frac, py.frac}
	// The axes by falling fraction: the walk from the cell's first corner
	// to its last adds them in that order.
	a, b, d := 0, 1, 2
	if frac[a] < frac[b] {
		a, b = b, a
	}
	if frac[b] < frac[d] {
		b, d = d, b
	}
	if frac[a] < frac[b] {
		a, b = b, a
	}
	base := pc.base*stride[0] + pm.base*stride[1] + py.base*stride[2] + pk.base
	corners := [4]int{base, base + stride[a], base + stride[a] + stride[b], base + stride[a] + stride[b] + stride[d]}
	weights := [4]float64{1 - frac[a], frac[a] - frac[b], frac[b] - frac[d], frac[d]}
	var acc [3]float64
	for slab, wk := range [2]float64{1 - pk.frac, pk.frac} {
		if wk == 0 {
			continue
		}
		for i, at := range corners {
			w := wk * weights[i]
			n := pr.nodes[3*(at+slab) : 3*(at+slab)+3 : 3*(at+slab)+3]
			acc[0] += w * float64(n[0])
			acc[1] += w * float64(n[1])
			acc[2] += w * float64(n[2])
		}
	}
	return [3]uint8{toneMap(float32(acc[0])), toneMap(float32(acc[1])), toneMap(float32(acc[2]))}
}
