package yuva

import "math"

// Scaled is p resized to w×h (at least 1×1) as ffmpeg's scale filter
// resizes a yuva420p picture with its default scaler: each plane on its
// own (alpha straight, chroma at half the size), by the bicubic of
// swscale (the cubic with B = 0, C = 0.6), widened when shrinking so that
// every pixel of p counts.
func (p *Picture) Scaled(w, h int) *Picture {
	var s Scaler
	out := s.Scale(p, w, h)
	c := *out
	return &c
}

// Scaler scales pictures as Scaled does, keeping the weights it works out
// and its buffers for the next: kino scales each word that zooms on
// every frame. A Scaler is for one goroutine.
type Scaler struct {
	kernels map[[2]int]taps
	mid     []int32
	acc     []int32
	flat    []int
	out     Picture
}

// Scale is p resized to w×h as Scaled resizes it, in a picture that the
// next Scale reuses.
func (s *Scaler) Scale(p *Picture, w, h int) *Picture {
	w, h = max(w, 1), max(h, 1)
	o := &s.out
	o.W, o.H = w, h
	cw, ch := o.cw(), o.ch()
	o.Y = s.resize(grow(o.Y, w*h), p.Y, p.W, p.H, w, h)
	o.A = s.resize(grow(o.A, w*h), p.A, p.W, p.H, w, h)
	o.U = s.resize(grow(o.U, cw*ch), p.U, p.cw(), p.ch(), cw, ch)
	o.V = s.resize(grow(o.V, cw*ch), p.V, p.cw(), p.ch(), cw, ch)
	return o
}

// grow is b with n elements, reallocated when too short.
func grow[T any](b []T, n int) []T {
	if cap(b) < n {
		return make([]T, n)
	}
	return b[:n]
}

// kernel is kernel(n, m), worked out once.
func (s *Scaler) kernel(n, m int) taps {
	if s.kernels == nil {
		s.kernels = map[[2]int]taps{}
	}
	k, ok := s.kernels[[2]int{n, m}]
	if !ok {
		k = kernel(n, m)
		s.kernels[[2]int{n, m}] = k
	}
	return k
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

// taps are the weights that take one length of samples to another: the
// i-th output sample is the sum of n weights, w[i*n:(i+1)*n] in 1/2¹⁴,
// over the n input samples from first[i]. Every sample has as many
// weights (the widest's count, zeros padding the others), so that the
// loops that apply them run the same short length each time.
type taps struct {
	n     int
	first []int
	w     []int32
	// sum is each sample's weights added up: what they make of samples
	// all alike.
	sum []int32
}

// kernel is the weights that take n samples to m, centres aligned;
// taps past an edge fold onto the edge sample.
func kernel(n, m int) taps {
	type one struct {
		first int
		w     []int32
	}
	each := make([]one, m)
	scale := float64(n) / float64(m)
	wide := math.Max(scale, 1)
	var ws []float64
	most := 1
	for i := range each {
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
		each[i] = one{first: first, w: iw}
		most = max(most, len(iw))
	}
	most = min(most, n)
	t := taps{n: most, first: make([]int, m), w: make([]int32, m*most), sum: make([]int32, m)}
	for i, o := range each {
		for _, v := range o.w {
			t.sum[i] += v
		}
		// Padded with zeros after the weights, or before them where
		// that would pass the last sample.
		first := min(o.first, n-most)
		t.first[i] = first
		copy(t.w[i*most+o.first-first:], o.w)
	}
	return t
}

// uniform reports whether every sample of row is the first's.
func uniform(row []uint8) bool {
	for _, v := range row {
		if v != row[0] {
			return false
		}
	}
	return true
}

// sameRows is the first of the rows weighed (those of a weight not 0)
// when they are all flat and of one value, so that they were resized
// alike; -1 when they are not.
func sameRows(flat []int, ws []int32) int {
	first := -1
	for j, wt := range ws {
		if wt == 0 {
			continue
		}
		if first < 0 {
			first = j
		}
		if flat[j] < 0 || flat[j] != flat[first] {
			return -1
		}
	}
	return first
}

// resize scales a plane sw×sh to w×h into out: rows first, into samples
// of 15 bits, then columns.
func (s *Scaler) resize(out, src []uint8, sw, sh, w, h int) []uint8 {
	if sw == 0 || sh == 0 {
		clear(out)
		return out
	}
	kx, ky := s.kernel(sw, w), s.kernel(sh, h)
	s.mid = grow(s.mid, w*sh)
	mid := s.mid
	// flat[y] is the value of source row y when all its samples have it,
	// -1 when they differ.
	s.flat = grow(s.flat, sh)
	flat := s.flat
	for y := 0; y < sh; y++ {
		row := src[y*sw : (y+1)*sw]
		o := mid[y*w : (y+1)*w]
		flat[y] = -1
		if uniform(row) {
			// A row all of one value (a word's picture above and below
			// its glyphs, where it is transparent): the same sums, at
			// one product a sample.
			flat[y] = int(row[0])
			v := int32(row[0])
			for x, sum := range kx.sum {
				o[x] = (v*sum + 1<<6) >> 7
			}
			continue
		}
		resizeRow(o, row, kx)
	}
	s.acc = grow(s.acc, w)
	ny := ky.n
	for y := 0; y < h; y++ {
		ws, f := ky.w[y*ny:(y+1)*ny], ky.first[y]
		o := out[y*w : (y+1)*w]
		if j := sameRows(flat[f:f+ny], ws); j >= 0 {
			// Rows alike: the same sums, at one product a sample.
			sum := ky.sum[y]
			o = o[:w]
			for x, v := range mid[(f+j)*w : (f+j+1)*w] {
				o[x] = clip8((sum*v + 1<<20) >> 21)
			}
			continue
		}
		s.resizeColumns(o, mid[f*w:(f+ny)*w], ws)
	}
	return out
}

// resizeRow is row resized by kx into o, in samples of 15 bits. Four and
// five weights a sample, what enlarging or shrinking by little takes
// (five where a sample's centre falls on a source sample), are written
// out; the sums are those of the loop, integers added in another order.
func resizeRow(o []int32, row []uint8, kx taps) {
	switch kx.n {
	case 4:
		for x := range o {
			ws, in := (*[4]int32)(kx.w[x*4:]), (*[4]uint8)(row[kx.first[x]:])
			o[x] = (ws[0]*int32(in[0]) + ws[1]*int32(in[1]) + ws[2]*int32(in[2]) + ws[3]*int32(in[3]) + 1<<6) >> 7
		}
	case 5:
		for x := range o {
			ws, in := (*[5]int32)(kx.w[x*5:]), (*[5]uint8)(row[kx.first[x]:])
			o[x] = (ws[0]*int32(in[0]) + ws[1]*int32(in[1]) + ws[2]*int32(in[2]) + ws[3]*int32(in[3]) +
				ws[4]*int32(in[4]) + 1<<6) >> 7
		}
	default:
		nx := kx.n
		for x := range o {
			ws := kx.w[x*nx : (x+1)*nx]
			in := row[kx.first[x]:]
			in = in[:len(ws)]
			var acc int32
			for j, wt := range ws {
				acc += wt * int32(in[j])
			}
			o[x] = (acc + 1<<6) >> 7
		}
	}
}

// resizeColumns is the rows of rows (len(ws) rows of len(o) samples)
// weighed by ws into o. Four and five rows are summed a sample at a
// time, in one pass; more, a row at a time into s.acc.
func (s *Scaler) resizeColumns(o []uint8, rows []int32, ws []int32) {
	w := len(o)
	switch len(ws) {
	case 4:
		r0 := rows[:w]
		r1, r2, r3 := rows[w : 2*w][:len(r0)], rows[2*w : 3*w][:len(r0)], rows[3*w : 4*w][:len(r0)]
		w0, w1, w2, w3 := ws[0], ws[1], ws[2], ws[3]
		o = o[:len(r0)]
		for x, v := range r0 {
			o[x] = clip8((w0*v + w1*r1[x] + w2*r2[x] + w3*r3[x] + 1<<20) >> 21)
		}
		return
	case 5:
		r0 := rows[:w]
		r1, r2, r3, r4 := rows[w : 2*w][:len(r0)], rows[2*w : 3*w][:len(r0)], rows[3*w : 4*w][:len(r0)], rows[4*w : 5*w][:len(r0)]
		w0, w1, w2, w3, w4 := ws[0], ws[1], ws[2], ws[3], ws[4]
		o = o[:len(r0)]
		for x, v := range r0 {
			o[x] = clip8((w0*v + w1*r1[x] + w2*r2[x] + w3*r3[x] + w4*r4[x] + 1<<20) >> 21)
		}
		return
	}
	acc := s.acc[:w]
	for x, v := range rows[:w] {
		acc[x] = ws[0] * v
	}
	for j := 1; j < len(ws); j++ {
		wt := ws[j]
		if wt == 0 {
			continue
		}
		in := rows[j*w : (j+1)*w]
		in = in[:len(acc)]
		for x, v := range in {
			acc[x] += wt * v
		}
	}
	o = o[:len(acc)]
	for x, v := range acc {
		o[x] = clip8((v + 1<<20) >> 21)
	}
}
