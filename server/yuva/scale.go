package yuva

import "math"

// Scaled is p resized to w×h (at least 1×1) as ffmpeg's scale filter
// resizes a yuva420p picture with its default scaler: each plane on its
// own (alpha straight, chroma at half the size), by the bicubic of
// swscale (the cubic with B = 0, C = 0.6), widened when shrinking so that
// every pixel of p counts.
func (p *Picture) Scaled(w, h int) *Picture {
	w, h = max(w, 1), max(h, 1)
	out := &Picture{W: w, H: h}
	out.Y = resize(p.Y, p.W, p.H, w, h)
	out.A = resize(p.A, p.W, p.H, w, h)
	out.U = resize(p.U, p.cw(), p.ch(), out.cw(), out.ch())
	out.V = resize(p.V, p.cw(), p.ch(), out.cw(), out.ch())
	return out
}

// cubic is swscale's bicubic kernel: Mitchell and Netravali's family at
// B = 0, C = 0.6 (Keys' cubic of a = −0.6).
func cubic(x float64) float64 {
	x = math.Abs(x)
	switch {
	case x < 1:
		return (1.4*x-2.4)*x*x + 1
	case x < 2:
		return ((-0.6*x+3)*x-4.8)*x + 2.4
	}
	return 0
}

// taps are one output sample's weights over its input samples, from
// first, in 1/2¹⁴.
type taps struct {
	first   int
	weights []int32
}

// kernel is the weights that take n samples to m, centres aligned;
// taps past an edge fold onto the edge sample.
func kernel(n, m int) []taps {
	out := make([]taps, m)
	scale := float64(n) / float64(m)
	wide := math.Max(scale, 1)
	var ws []float64
	for i := range out {
		c := (float64(i)+0.5)*scale - 0.5
		lo, hi := int(math.Ceil(c-2*wide)), int(math.Floor(c+2*wide))
		ws = ws[:0]
		sum := 0.0
		for j := lo; j <= hi; j++ {
			v := cubic((float64(j) - c) / wide)
			ws = append(ws, v)
			sum += v
		}
		first, last := max(lo, 0), min(hi, n-1)
		iw := make([]int32, last-first+1)
		for j, v := range ws {
			iw[min(max(lo+j, 0), n-1)-first] += int32(math.Round(v / sum * (1 << 14)))
		}
		out[i] = taps{first: first, weights: iw}
	}
	return out
}

// resize scales a plane sw×sh to w×h: rows first, into samples of 15
// bits, then columns.
func resize(src []uint8, sw, sh, w, h int) []uint8 {
	out := make([]uint8, w*h)
	if sw == 0 || sh == 0 {
		return out
	}
	kx, ky := kernel(sw, w), kernel(sh, h)
	mid := make([]int32, w*sh)
	for y := 0; y < sh; y++ {
		row := src[y*sw : (y+1)*sw]
		o := mid[y*w : (y+1)*w]
		for x, t := range kx {
			var acc int32
			in := row[t.first:]
			for j, wt := range t.weights {
				acc += wt * int32(in[j])
			}
			o[x] = (acc + 1<<6) >> 7
		}
	}
	acc := make([]int32, w)
	for y, t := range ky {
		clear(acc)
		for j, wt := range t.weights {
			in := mid[(t.first+j)*w : (t.first+j+1)*w]
			for x, v := range in {
				acc[x] += wt * v
			}
		}
		o := out[y*w : (y+1)*w]
		for x, v := range acc {
			o[x] = clip8((v + 1<<20) >> 21)
		}
	}
	return out
}
