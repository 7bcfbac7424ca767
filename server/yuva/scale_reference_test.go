package yuva

import (
	"bytes"
	"image"
	"math"
	"testing"
)

// oldScaler is Scaler as first written, a tap at a time, without its
// shortcuts (every sample with as many weights, rows of one value summed
// once): what they must equal, byte for byte.
type oldScaler struct {
	kernels map[[2]int][]oldtaps
	mid     []int32
	acc     []int32
	out     Picture
}

// Scale is p resized to w×h as Scaled resizes it, in a picture that the
// next Scale reuses.
func (s *oldScaler) Scale(p *Picture, w, h int) *Picture {
	w, h = max(w, 1), max(h, 1)
	o := &s.out
	o.W, o.H = w, h
	cw, ch := o.cw(), o.ch()
	o.Y = s.resize(oldgrow(o.Y, w*h), p.Y, p.W, p.H, w, h)
	o.A = s.resize(oldgrow(o.A, w*h), p.A, p.W, p.H, w, h)
	o.U = s.resize(oldgrow(o.U, cw*ch), p.U, p.cw(), p.ch(), cw, ch)
	o.V = s.resize(oldgrow(o.V, cw*ch), p.V, p.cw(), p.ch(), cw, ch)
	return o
}

// oldgrow is b with n elements, reallocated when too short.
func oldgrow[T any](b []T, n int) []T {
	if cap(b) < n {
		return make([]T, n)
	}
	return b[:n]
}

// kernel is oldkernel(n, m), worked out once.
func (s *oldScaler) kernel(n, m int) []oldtaps {
	if s.kernels == nil {
		s.kernels = map[[2]int][]oldtaps{}
	}
	k, ok := s.kernels[[2]int{n, m}]
	if !ok {
		k = oldkernel(n, m)
		s.kernels[[2]int{n, m}] = k
	}
	return k
}

// oldcubic is swscale's bicubic kernel: Mitchell and Netravali's family at
// B = 0, C = 0.6 (Keys' cubic of a = −0.6).
func oldcubic(x float64) float64 {
	x = math.Abs(x)
	switch {
	case x < 1:
		return (1.4*x-2.4)*x*x + 1
	case x < 2:
		return ((-0.6*x+3)*x-4.8)*x + 2.4
	}
	return 0
}

// oldtaps are one output sample's weights over its input samples, from
// first, in 1/2¹⁴.
type oldtaps struct {
	first   int
	weights []int32
}

// oldkernel is the weights that take n samples to m, centres aligned;
// taps past an edge fold onto the edge sample.
func oldkernel(n, m int) []oldtaps {
	out := make([]oldtaps, m)
	scale := float64(n) / float64(m)
	wide := math.Max(scale, 1)
	var ws []float64
	for i := range out {
		c := (float64(i)+0.5)*scale - 0.5
		lo, hi := int(math.Ceil(c-2*wide)), int(math.Floor(c+2*wide))
		ws = ws[:0]
		sum := 0.0
		for j := lo; j <= hi; j++ {
			v := oldcubic((float64(j) - c) / wide)
			ws = append(ws, v)
			sum += v
		}
		first, last := max(lo, 0), min(hi, n-1)
		iw := make([]int32, last-first+1)
		for j, v := range ws {
			iw[min(max(lo+j, 0), n-1)-first] += int32(math.Round(v / sum * (1 << 14)))
		}
		out[i] = oldtaps{first: first, weights: iw}
	}
	return out
}

// resize scales a plane sw×sh to w×h into out: rows first, into samples
// of 15 bits, then columns.
func (s *oldScaler) resize(out, src []uint8, sw, sh, w, h int) []uint8 {
	if sw == 0 || sh == 0 {
		clear(out)
		return out
	}
	kx, ky := s.kernel(sw, w), s.kernel(sh, h)
	s.mid = oldgrow(s.mid, w*sh)
	mid := s.mid
	for y := 0; y < sh; y++ {
		row := src[y*sw : (y+1)*sw]
		o := mid[y*w : (y+1)*w]
		for x, t := range kx {
			var acc int32
			in := row[t.first : t.first+len(t.weights)]
			for j, wt := range t.weights {
				acc += wt * int32(in[j])
			}
			o[x] = (acc + 1<<6) >> 7
		}
	}
	s.acc = oldgrow(s.acc, w)
	acc := s.acc
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

// TestScalerAsReference: Scaler's pictures are oldScaler's, for sizes
// up and down, of a picture with rows of one value (a word's picture
// above and below its glyphs) and rows of many.
func TestScalerAsReference(t *testing.T) {
	img := image.NewNRGBA(image.Rect(0, 0, 97, 41))
	for i := range img.Pix {
		img.Pix[i] = uint8(i*7919 + i/13)
		if y := i / img.Stride; y < 9 || y > 30 || y%7 == 3 {
			img.Pix[i] = uint8(40 * (y / 12))
		}
	}
	p := FromNRGBA(img)
	var a Scaler
	var b oldScaler
	for w := 1; w < 230; w += 3 {
		for h := 1; h < 100; h += 7 {
			x, y := a.Scale(p, w, h), b.Scale(p, w, h)
			if !bytes.Equal(x.Y, y.Y) || !bytes.Equal(x.A, y.A) || !bytes.Equal(x.U, y.U) || !bytes.Equal(x.V, y.V) {
				t.Fatalf("%dx%d differs", w, h)
			}
		}
	}
}
