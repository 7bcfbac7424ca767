package composite

import (
	"context"
	"image"
	"math"
)

// shrinkAbove is how much larger than its place a design must be
// everywhere before Warp first shrinks it with a sharp filter: mip levels
// alone (box-averaged, trilinear) blur a 2× shrink visibly against
// Photoshop's bicubic (26 dB where Catmull-Rom gives 33, measured on
// Photoshop-written mockups).
const shrinkAbove = 1.5

// shrunk is the texture resampled to w × h by Catmull-Rom (the cubic
// Photoshop's bicubic is), its kernel widened by the shrink so that it
// averages every source pixel: the last result is kept, for the next
// warp of the same design into the same place.
func (t *Texture) shrunk(w, h int) *Texture {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.small != nil && t.small.base.w == w && t.small.base.h == h {
		return t.small
	}
	tmp := resampleRows(t.ctx, t.base, w)
	out := resampleCols(t.ctx, tmp, h)
	t.small = &Texture{base: out, ctx: t.ctx}
	return t.small
}

// taps is one output pixel's weights over its input pixels, from first,
// in 1/2¹⁴.
type taps struct {
	first   int
	weights []int32
}

func catmullRom(x float64) float64 {
	x = math.Abs(x)
	switch {
	case x < 1:
		return (1.5*x-2.5)*x*x + 1
	case x < 2:
		return ((-0.5*x+2.5)*x-4)*x + 2
	}
	return 0
}

// kernel is the weights that take n input pixels to m. Shrinking, each
// output pixel has about 4·n/m taps, 4·n in all: 16 bytes an input pixel.
func kernel(n, m int) []taps {
	out := make([]taps, m)
	var ws []float64
	for i := range out {
		out[i], ws = tapsOf(n, m, i, ws, nil)
	}
	return out
}

// tapsOf is output pixel i's weights of a kernel taking n input pixels
// to m; ws and iw are reused when large enough, and the taps' weights
// are iw's.
func tapsOf(n, m, i int, ws []float64, iw []int32) (taps, []float64) {
	scale := float64(n) / float64(m)
	support := 2 * math.Max(scale, 1)
	c := (float64(i)+0.5)*scale - 0.5
	lo := int(math.Ceil(c - support))
	hi := int(math.Floor(c + support))
	ws = ws[:0]
	sum := 0.0
	for j := lo; j <= hi; j++ {
		w := catmullRom((float64(j) - c) / math.Max(scale, 1))
		ws = append(ws, w)
		sum += w
	}
	// Taps beyond the edges fold onto the edge pixel.
	first := max(lo, 0)
	last := min(hi, n-1)
	if cap(iw) < last-first+1 {
		iw = make([]int32, last-first+1)
	}
	iw = iw[:last-first+1]
	clear(iw)
	for j, w := range ws {
		k := min(max(lo+j, 0), n-1) - first
		iw[k] += int32(math.Round(w / sum * (1 << 14)))
	}
	return taps{first: first, weights: iw}, ws
}

// lazyBelow is the number of rows under which resampleRows works out
// each output pixel's weights as it goes rather than keep the kernel:
// the kernel's 16 bytes an input column would outweigh so few rows' 4
// bytes a pixel (a design 50 million pixels wide and 1 tall would hold
// 800 MB of weights).
const lazyBelow = 8

// clampByte rounds a value in 1/2¹⁴ to a byte.
func clampByte(v int32) uint8 {
	v = (v + 1<<13) >> 14
	switch {
	case v < 0:
		return 0
	case v > 255:
		return 255
	}
	return uint8(v)
}

// resampleRows scales each row of l to w pixels.
func resampleRows(ctx context.Context, l level, w int) level {
	var k []taps
	if l.h >= lazyBelow {
		k = kernel(l.w, w)
	}
	out := level{w: w, h: l.h, pix: make([]uint8, 4*w*l.h)}
	rows(ctx, image.Rect(0, 0, w, l.h), func(y0, y1 int) {
		var ws []float64
		var iw []int32
		for y := y0; y < y1; y++ {
			in := l.pix[4*l.w*y:][:4*l.w]
			o := out.pix[4*w*y:][:4*w]
			for x := 0; x < w; x++ {
				var tp taps
				if k != nil {
					tp = k[x]
				} else {
					tp, ws = tapsOf(l.w, w, x, ws, iw)
					iw = tp.weights
				}
				var r, g, b, a int32
				src := in[4*tp.first:]
				for j, wt := range tp.weights {
					p := src[4*j : 4*j+4 : 4*j+4]
					r += wt * int32(p[0])
					g += wt * int32(p[1])
					b += wt * int32(p[2])
					a += wt * int32(p[3])
				}
				writePremultiplied(o[4*x:4*x+4:4*x+4], r, g, b, a)
			}
		}
	})
	return out
}

// resampleCols scales each column of l to h pixels.
//
// Each output row's weights are worked out as it is made (each is used
// once), so a design 50 million pixels tall holds no kernel of 800 MB.
func resampleCols(ctx context.Context, l level, h int) level {
	out := level{w: l.w, h: h, pix: make([]uint8, 4*l.w*h)}
	stride := 4 * l.w
	rows(ctx, image.Rect(0, 0, l.w, h), func(y0, y1 int) {
		acc := make([]int32, stride)
		var ws []float64
		var iw []int32
		for y := y0; y < y1; y++ {
			var tp taps
			tp, ws = tapsOf(l.h, h, y, ws, iw)
			iw = tp.weights
			clear(acc)
			for j, wt := range tp.weights {
				in := l.pix[stride*(tp.first+j):][:stride]
				for i, v := range in {
					acc[i] += wt * int32(v)
				}
			}
			o := out.pix[stride*y:][:stride]
			for i := 0; i < stride; i += 4 {
				writePremultiplied(o[i:i+4:i+4], acc[i], acc[i+1], acc[i+2], acc[i+3])
			}
		}
	})
	return out
}

// writePremultiplied stores a filtered premultiplied pixel: the cubic's
// negative lobes can push colour past alpha, which premultiplied colour
// cannot hold.
func writePremultiplied(p []uint8, r, g, b, a int32) {
	pa := clampByte(a)
	p[0], p[1], p[2], p[3] = min(clampByte(r), pa), min(clampByte(g), pa), min(clampByte(b), pa), pa
}

// footprint is, over the design, the least and the most design pixels
// that fall on one canvas pixel along u and along v: how much the design
// can be shrunk before the warp without losing anything it will show, and
// whether it shrinks anywhere.
func footprint(m Mapping, w, h int) (ku, kv, most float64) {
	const n = 16
	const d = 1.0 / (4 * n)
	ku, kv = math.Inf(1), math.Inf(1)
	for i := 0; i <= n; i++ {
		for j := 0; j <= n; j++ {
			u, v := float64(j)/n, float64(i)/n
			// A step inwards, so that it stays inside the unit square.
			du, dv := d, d
			if u+du > 1 {
				du = -d
			}
			if v+dv > 1 {
				dv = -d
			}
			p := m.Map(Point{u, v})
			pu := m.Map(Point{u + du, v})
			pv := m.Map(Point{u, v + dv})
			au := float64(w) * math.Abs(du) / math.Hypot(pu.X-p.X, pu.Y-p.Y)
			av := float64(h) * math.Abs(dv) / math.Hypot(pv.X-p.X, pv.Y-p.Y)
			ku, kv = math.Min(ku, au), math.Min(kv, av)
			most = math.Max(most, math.Max(au, av))
		}
	}
	return ku, kv, most
}
