package composite

import (
	"image"
	"image/color"
	"math"
)

// Shape is a layer's coverage, 0 to 1 a pixel, over Rect (canvas
// coordinates): what Photoshop's layer effects are drawn from. Outside
// Rect it is 0.
type Shape struct {
	Rect image.Rectangle
	A    []float32
}

// ShapeOf is the coverage of img's alpha, cut by mask (MaskDefault def
// outside it; nil for none), over img's bounds grown by pad pixels each
// way and cut to within.
func ShapeOf(img *image.NRGBA, mask *image.Gray, def uint8, pad int, within image.Rectangle) Shape {
	r := img.Rect.Inset(-pad).Intersect(within)
	s := Shape{Rect: r, A: make([]float32, r.Dx()*r.Dy())}
	in := img.Rect.Intersect(r)
	for y := in.Min.Y; y < in.Max.Y; y++ {
		row := img.Pix[img.PixOffset(in.Min.X, y):]
		o := (y-r.Min.Y)*r.Dx() + in.Min.X - r.Min.X
		for x := 0; x < in.Dx(); x++ {
			a := float32(row[4*x+3]) / 255
			if mask != nil {
				a *= float32(maskAt(mask, def, in.Min.X+x, y)) / 255
			}
			s.A[o+x] = a
		}
	}
	return s
}

func (s Shape) clone() Shape { return Shape{Rect: s.Rect, A: append([]float32(nil), s.A...)} }

// Invert is 1 − the coverage.
func (s Shape) Invert() Shape {
	o := s.clone()
	for i, v := range o.A {
		o.A[i] = 1 - v
	}
	return o
}

// Times multiplies two shapes of the same rectangle, pixel by pixel.
func (s Shape) Times(t Shape) Shape {
	o := s.clone()
	for i := range o.A {
		o.A[i] *= t.A[i]
	}
	return o
}

// Shift moves the shape by dx, dy pixels (bilinear), keeping its
// rectangle; what comes in from outside is fill.
func (s Shape) Shift(dx, dy float64, fill float32) Shape {
	if dx == 0 && dy == 0 {
		return s.clone()
	}
	w, h := s.Rect.Dx(), s.Rect.Dy()
	o := Shape{Rect: s.Rect, A: make([]float32, len(s.A))}
	ix, iy := math.Floor(dx), math.Floor(dy)
	fx, fy := float32(dx-ix), float32(dy-iy)
	get := func(x, y int) float32 {
		if x < 0 || y < 0 || x >= w || y >= h {
			return fill
		}
		return s.A[y*w+x]
	}
	for y := 0; y < h; y++ {
		sy := y - int(iy)
		for x := 0; x < w; x++ {
			sx := x - int(ix)
			a := get(sx, sy)*(1-fx) + get(sx-1, sy)*fx
			b := get(sx, sy-1)*(1-fx) + get(sx-1, sy-1)*fx
			o.A[y*w+x] = a*(1-fy) + b*fy
		}
	}
	return o
}

// Dilate grows the shape by r pixels: a pixel within r of one at least
// half covered is covered, with a one-pixel soft edge. The covered
// pixels' edge lies half a pixel past their centres, so the grown edge
// lies r + 1/2 past them: a pixel whose centre is d away is covered over
// r + 1 − d (r − d + 1/2 drew a one-pixel stroke at half strength,
// pt-double-stroke.psd at 16 dB against Photoshop's picture, 74 now).
func (s Shape) Dilate(r float64) Shape {
	if r <= 0 {
		return s.clone()
	}
	d := distance(s)
	o := s.clone()
	for i, v := range d {
		c := float32(math.Min(math.Max(r-math.Sqrt(float64(v))+1, 0), 1))
		if c > o.A[i] {
			o.A[i] = c
		}
	}
	return o
}

// Erode shrinks the shape by r pixels.
func (s Shape) Erode(r float64) Shape { return s.Invert().Dilate(r).Invert() }

// Blur blurs the shape over a radius of size pixels, as Photoshop's
// effects soften: three box blurs, close to a Gaussian of σ = size/2.
func (s Shape) Blur(size float64) Shape {
	o := s.clone()
	if size < 0.5 {
		return o
	}
	sigma := size / 2
	if f := shapeReduction(sigma); f > 1 {
		return o.blurReduced(sigma, f)
	}
	// Box widths for three passes approximating σ (Kovesi).
	wIdeal := math.Sqrt(12*sigma*sigma/3 + 1)
	wl := int(math.Floor(wIdeal))
	if wl%2 == 0 {
		wl--
	}
	m := math.Round((12*sigma*sigma - 3*float64(wl*wl) - 12*float64(wl) - 9) / (-4*float64(wl) - 4))
	w, h := s.Rect.Dx(), s.Rect.Dy()
	tmp := make([]float32, len(o.A))
	for i := 0; i < 3; i++ {
		bw := wl
		if float64(i) >= m {
			bw = wl + 2
		}
		r := (bw - 1) / 2
		boxH(o.A, tmp, w, h, r)
		boxV(tmp, o.A, w, h, r)
	}
	return o
}

// shapeReduction is how many times a shape's picture is reduced each way
// to blur it by sigma: the largest power of two up to 8 no more than σ/3,
// where what the reduction loses is far under what the blur removes
// (see GaussianBlur).
func shapeReduction(sigma float64) int {
	f := 1
	for f < maxBlurReduction && float64(2*f)*3 <= sigma {
		f *= 2
	}
	return f
}

// blurReduced blurs o in place by sigma on a picture reduced f times
// each way (averages of f×f pixels), enlarged back bilinearly; the blur
// is reduced by the variance the two add, as GaussianBlur's.
func (o Shape) blurReduced(sigma float64, f int) Shape {
	w, h := o.Rect.Dx(), o.Rect.Dy()
	sw, sh := (w+f-1)/f, (h+f-1)/f
	small := make([]float32, sw*sh)
	inv := 1 / float32(f*f)
	for y := 0; y < h; y++ {
		acc := small[(y/f)*sw:][:sw]
		for x, v := range o.A[y*w : (y+1)*w] {
			acc[x/f] += v * inv
		}
	}
	ff := float64(f * f)
	box := extendedBox((sigma*sigma - (ff-1)/12 - ff/6) / ff / 3)
	tmp := make([]float32, sw*sh)
	for y := 0; y < sh; y++ {
		row, t := small[y*sw:][:sw], tmp[y*sw:][:sw]
		box.row1(row, t)
		box.row1(t, row)
		box.row1(row, t)
	}
	box.cols(tmp, sw, small, sw, sw, sh)
	box.cols(small, sw, tmp, sw, sw, sh)
	box.cols(tmp, sw, small, sw, sw, sh)
	x0s, x1s, wxs := make([]int, w), make([]int, w), make([]float32, w)
	for x := range w {
		x0s[x], x1s[x], wxs[x] = lerpTaps((float64(x)+0.5)/float64(f)-0.5, sw)
	}
	for y := 0; y < h; y++ {
		j0, j1, wy := lerpTaps((float64(y)+0.5)/float64(f)-0.5, sh)
		r0, r1 := small[j0*sw:][:sw], small[j1*sw:][:sw]
		d := o.A[y*w : (y+1)*w]
		for x := range d {
			a, b, wx := x0s[x], x1s[x], wxs[x]
			top := r0[a] + wx*(r0[b]-r0[a])
			bottom := r1[a] + wx*(r1[b]-r1[a])
			d[x] = top + wy*(bottom-top)
		}
	}
	return o
}

func boxH(src, dst []float32, w, h, r int) {
	if r < 1 {
		copy(dst, src)
		return
	}
	inv := 1 / float32(2*r+1)
	for y := 0; y < h; y++ {
		row := src[y*w : (y+1)*w]
		var acc float32
		for x := -r; x <= r; x++ {
			if x >= 0 && x < w {
				acc += row[x]
			}
		}
		for x := 0; x < w; x++ {
			dst[y*w+x] = acc * inv
			if x+r+1 < w {
				acc += row[x+r+1]
			}
			if x-r >= 0 {
				acc -= row[x-r]
			}
		}
	}
}

func boxV(src, dst []float32, w, h, r int) {
	if r < 1 {
		copy(dst, src)
		return
	}
	// Down the columns a row at a time, a running sum per column, so that
	// memory is read in order (a column at a time missed the cache on
	// every pixel of a large shape); each column adds the same values in
	// the same order as before.
	inv := 1 / float32(2*r+1)
	acc := make([]float32, w)
	for y := 0; y <= r && y < h; y++ {
		for x, v := range src[y*w : (y+1)*w] {
			acc[x] += v
		}
	}
	for y := 0; y < h; y++ {
		d := dst[y*w : (y+1)*w]
		for x, v := range acc {
			d[x] = v * inv
		}
		if j := y + r + 1; j < h {
			for x, v := range src[j*w : (j+1)*w] {
				acc[x] += v
			}
		}
		if j := y - r; j >= 0 {
			for x, v := range src[j*w : (j+1)*w] {
				acc[x] -= v
			}
		}
	}
}

// distance is the squared Euclidean distance of each pixel of s to the
// nearest one at least half covered.
func distance(s Shape) []float32 {
	d64 := SquaredDistance(s.A, s.Rect.Dx(), s.Rect.Dy())
	d := make([]float32, len(d64))
	for i, v := range d64 {
		d[i] = float32(v)
	}
	return d
}

// SquaredDistance is the squared Euclidean distance of each pixel of a
// w×h coverage a to the nearest pixel at least half covered
// (Felzenszwalb and Huttenlocher's exact transform, a column pass then a
// row pass): the one transform behind layer strokes and glows and text
// strokes.
func SquaredDistance(a []float32, w, h int) []float64 {
	const inf = 1e20
	d := make([]float64, w*h)
	for i, v := range a {
		if v >= 0.5 {
			d[i] = 0
		} else {
			d[i] = inf
		}
	}
	n := max(w, h)
	f, z := make([]float64, n+1), make([]float64, n+1)
	v, out := make([]int, n), make([]float64, n)
	for x := 0; x < w; x++ {
		for y := 0; y < h; y++ {
			f[y] = d[y*w+x]
		}
		dt1(f[:h], out[:h], v, z)
		for y := 0; y < h; y++ {
			d[y*w+x] = out[y]
		}
	}
	for y := 0; y < h; y++ {
		copy(f, d[y*w:(y+1)*w])
		dt1(f[:w], out[:w], v, z)
		copy(d[y*w:], out[:w])
	}
	return d
}

// dt1 is the one-dimensional squared distance transform of f into out.
func dt1(f, out []float64, v []int, z []float64) { dt1arg(f, out, nil, v, z) }

// Paint is a picture of the shape's rectangle in colour c, its alpha the
// coverage times c's alpha.
func (s Shape) Paint(c color.NRGBA) *image.NRGBA {
	img := image.NewNRGBA(s.Rect)
	for i, v := range s.A {
		a := float32(c.A) * v
		if a < 0.5 {
			continue
		}
		p := img.Pix[4*i : 4*i+4 : 4*i+4]
		p[0], p[1], p[2], p[3] = c.R, c.G, c.B, uint8(math.Min(float64(a)+0.5, 255))
	}
	return img
}

// DropShadow is the coverage of a drop shadow: the shape moved by dx,
// dy, grown by spread × size and blurred over the rest of size.
func DropShadow(s Shape, dx, dy, spread, size float64) Shape {
	return s.Shift(dx, dy, 0).Dilate(spread * size).Blur((1 - spread) * size)
}

// OuterGlow is the coverage of an outer glow: whole over spread × size
// from the edge, then fading to nothing over half the rest, softened by
// a blur of that half. Fitted to Photoshop's pictures: the shape blurred
// over the rest, half covered at the edge, drew pt-layer-effects.psd's
// white glow and ag-effects.psd's at 28 and 32 dB over their boxes, 33
// and 37 so (ag-blend-mode.psd went from 33 to 41 dB).
func OuterGlow(s Shape, spread, size float64) Shape {
	fade := (1 - spread) * size / 2
	return EdgeRamp(s.Dilate(spread*size), fade).Blur(fade)
}

// InnerShadow is the coverage of an inner shadow: the outside of the
// shape moved by dx, dy, grown by choke × size, blurred over the rest,
// seen through the shape.
func InnerShadow(s Shape, dx, dy, choke, size float64) Shape {
	out := s.Invert().Shift(dx, dy, 1).Dilate(choke * size).Blur((1 - choke) * size)
	return out.Times(s)
}

// InnerGlow is the coverage of an inner glow from the edges, as an
// outer glow of the shape's outside seen through the shape (the blurred
// outside, half covered at the edge, drew pt-layer-effects.psd's inner
// glow at 22 dB over its box, 28 so); with center, from the middle
// outwards: the outside blurred over the size, inverted.
func InnerGlow(s Shape, choke, size float64, center bool) Shape {
	if center {
		return s.Invert().Dilate(choke * size).Blur((1 - choke) * size).Invert().Times(s)
	}
	return OuterGlow(s.Invert(), choke, size).Times(s)
}

// EdgeRamp is 1 on the shape and falls linearly to 0 at reach pixels
// outside its edge.
func EdgeRamp(s Shape, reach float64) Shape {
	d := SquaredDistance(s.A, s.Rect.Dx(), s.Rect.Dy())
	o := Shape{Rect: s.Rect, A: make([]float32, len(s.A))}
	reach = math.Max(reach, 0.5)
	for i, v := range d {
		o.A[i] = float32(math.Min(math.Max(1-(math.Sqrt(v)-0.5)/reach, 0), 1))
	}
	return o
}

// Stroke is the coverage of a stroke of size pixels outside the shape,
// inside it or centred on its edge ("outside", "inside", "center").
// Inside, the edge is placed within the pixels that hold it
// (erodeEdge): pt-shape-fx2.psd's inside stroke along slanted sides,
// 28 dB with the edge half a pixel past the centres, 37 so. Outside it is
// not: ag-strokes.psd's strokes round a soft-edged brush stroke fall to
// 35 dB from 37 with it.
func Stroke(s Shape, size float64, position string) Shape {
	switch position {
	case "inside":
		return s.Times(s.erodeEdge(size).Invert())
	case "center":
		return s.Dilate(size / 2).Times(s.erodeEdge(size / 2).Invert())
	}
	return s.Dilate(size).Times(s.Invert())
}

// dilateEdge is Dilate with the edge placed within the pixels that
// hold it: past the nearest covered pixel's centre by its coverage less
// a half, and further by the coverage of its neighbour on the way (a
// pixel only just over half covered, beside an empty one, puts the edge
// at its centre, not half a pixel past it).
func (s Shape) dilateEdge(r float64) Shape {
	if r <= 0 {
		return s.clone()
	}
	w, h := s.Rect.Dx(), s.Rect.Dy()
	d, site := nearestSites(s.A, w, h)
	o := s.clone()
	for i, v := range d {
		if site[i] < 0 {
			continue
		}
		// The edge lies past the site's centre by its coverage less a
		// half, and by the coverage of its neighbour towards the pixel.
		q := site[i]
		nx, ny := q%w+sign(i%w-q%w), q/w+sign(i/w-q/w)
		off := float64(s.A[q]) - 0.5 + float64(s.A[ny*w+nx])
		c := float32(math.Min(math.Max(r+0.5-math.Sqrt(v)+off, 0), 1))
		if c > o.A[i] {
			o.A[i] = c
		}
	}
	return o
}

func (s Shape) erodeEdge(r float64) Shape { return s.Invert().dilateEdge(r).Invert() }

// nearestSites is SquaredDistance with, for each pixel, the index of the
// nearest pixel at least half covered (-1 when there is none).
func nearestSites(a []float32, w, h int) ([]float64, []int) {
	const inf = 1e20
	d := make([]float64, w*h)
	row := make([]int, w*h) // the nearest site's row, after the column pass
	for i, v := range a {
		if v >= 0.5 {
			d[i], row[i] = 0, i/w
		} else {
			d[i], row[i] = inf, -1
		}
	}
	n := max(w, h)
	f, z := make([]float64, n+1), make([]float64, n+1)
	v, out, arg := make([]int, n), make([]float64, n), make([]int, n)
	for x := 0; x < w; x++ {
		for y := 0; y < h; y++ {
			f[y] = d[y*w+x]
		}
		dt1arg(f[:h], out[:h], arg[:h], v, z)
		for y := 0; y < h; y++ {
			d[y*w+x] = out[y]
			if out[y] < inf/2 {
				row[y*w+x] = arg[y]
			}
		}
	}
	site := make([]int, w*h)
	for y := 0; y < h; y++ {
		copy(f, d[y*w:(y+1)*w])
		dt1arg(f[:w], out[:w], arg[:w], v, z)
		for x := 0; x < w; x++ {
			d[y*w+x] = out[x]
			site[y*w+x] = -1
			if out[x] < inf/2 {
				if ry := row[y*w+arg[x]]; ry >= 0 {
					site[y*w+x] = ry*w + arg[x]
				}
			}
		}
	}
	return d, site
}

// dt1arg is dt1 that also gives, for each point, where its minimum is
// (in arg, when not nil).
func dt1arg(f, out []float64, arg []int, v []int, z []float64) {
	n := len(f)
	if n == 0 {
		return
	}
	k := 0
	v[0] = 0
	z[0], z[1] = math.Inf(-1), math.Inf(1)
	for q := 1; q < n; q++ {
		var s float64
		for {
			p := v[k]
			s = ((f[q] + float64(q*q)) - (f[p] + float64(p*p))) / float64(2*q-2*p)
			if s > z[k] || k == 0 {
				break
			}
			k--
		}
		k++
		v[k] = q
		z[k], z[k+1] = s, math.Inf(1)
	}
	k = 0
	for q := 0; q < n; q++ {
		for z[k+1] < float64(q) {
			k++
		}
		dq := float64(q - v[k])
		out[q] = dq*dq + f[v[k]]
		if arg != nil {
			arg[q] = v[k]
		}
	}
}

func sign(v int) int {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}
