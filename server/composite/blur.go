package composite

import (
	"context"
	"image"
	"math"
)

// GaussianBlur blurs the pixels of img within area, in place, as a
// Gaussian of standard deviation sigma: three extended box blurs each way
// (Gwosdek et al., 2011: a box whose two end taps weigh a fraction, so
// that its variance is σ²/3 exactly, where whole-pixel boxes are off by up
// to a pixel's width), each pass a running sum whose cost does not grow
// with sigma, on colours premultiplied by alpha so that transparent
// pixels lend no colour. Beyond area counts as transparent: callers pass
// the pixels to blur grown by 3σ. Rows, then bands of columns, run on
// every core.
//
// A blur of 3 pixels or more is drawn on a picture reduced f times each
// way (averages of f×f pixels), enlarged back bilinearly: a Gaussian of σ
// leaves nearly nothing of the detail that f = σ/1.5 loses (its response
// at a period of 2f pixels is under exp(-2) at most, and its square much
// less where σ is larger), so the picture is within a level or two of the
// full one, for a sixteenth of the work at f = 4. The reduced blur is
// smaller by what averaging and enlarging add (variances (f²-1)/12 and
// f²/6), so that the three together are σ.
func GaussianBlur(ctx context.Context, img *image.NRGBA, area image.Rectangle, sigma float64) {
	area = area.Intersect(img.Rect)
	if area.Empty() || !(sigma >= 0.2) {
		return
	}
	f := 1
	for f < maxBlurReduction && float64(2*f)*1.5 <= sigma {
		f *= 2
	}
	if f == 1 {
		w, h := area.Dx(), area.Dy()
		a := make([]float32, 4*w*h)
		rows(ctx, image.Rect(0, 0, w, h), func(y0, y1 int) {
			for y := y0; y < y1; y++ {
				premultiply(img.Pix[img.PixOffset(area.Min.X, area.Min.Y+y):][:4*w], a[4*w*y:])
			}
		})
		blurPlane(ctx, a, w, h, extendedBox(sigma*sigma/3))
		rows(ctx, image.Rect(0, 0, w, h), func(y0, y1 int) {
			for y := y0; y < y1; y++ {
				unpremultiply(a[4*w*y:], img.Pix[img.PixOffset(area.Min.X, area.Min.Y+y):][:4*w])
			}
		})
		return
	}
	ff := float64(f * f)
	v := (sigma*sigma - (ff-1)/12 - ff/6) / ff
	small, sw, sh := reduce(ctx, img, area, f)
	blurPlane(ctx, small, sw, sh, extendedBox(v/3))
	enlarge(ctx, small, sw, sh, f, img, area)
}

// maxBlurReduction is the most a blur's picture is reduced each way.
const maxBlurReduction = 8

// blurPlane blurs a w×h picture of premultiplied floats in place, three
// boxes each way: along the rows, each row while it is in the cache; down
// bands of columns, each pass walking down the rows so that memory is
// read in order, with a running sum per column.
func blurPlane(ctx context.Context, a []float32, w, h int, box exbox) {
	stride := 4 * w
	rows(ctx, image.Rect(0, 0, w, h), func(y0, y1 int) {
		tmp := make([]float32, stride)
		for y := y0; y < y1; y++ {
			row := a[stride*y:][:stride]
			box.row(row, tmp)
			box.row(tmp, row)
			box.row(row, tmp)
			copy(row, tmp)
		}
	})
	rows(ctx, image.Rect(0, 0, h, w), func(x0, x1 int) {
		n := 4 * (x1 - x0)
		t1 := make([]float32, n*h)
		t2 := make([]float32, n*h)
		band := a[4*x0:]
		box.cols(band, stride, t1, n, n, h)
		box.cols(t1, n, t2, n, n, h)
		box.cols(t2, n, band, stride, n, h)
	})
}

// reduce averages area of img by blocks of f×f pixels, premultiplied;
// beyond area counts as transparent.
func reduce(ctx context.Context, img *image.NRGBA, area image.Rectangle, f int) ([]float32, int, int) {
	sw, sh := (area.Dx()+f-1)/f, (area.Dy()+f-1)/f
	out := make([]float32, 4*sw*sh)
	inv := 1 / float32(f*f)
	rows(ctx, image.Rect(0, 0, sw, sh), func(y0, y1 int) {
		for sy := y0; sy < y1; sy++ {
			acc := out[4*sw*sy:][:4*sw]
			for y := area.Min.Y + sy*f; y < min(area.Min.Y+(sy+1)*f, area.Max.Y); y++ {
				src := img.Pix[img.PixOffset(area.Min.X, y):][:4*area.Dx()]
				for x := 0; x < area.Dx(); x++ {
					d, p := acc[4*(x/f):][:4], src[4*x:][:4]
					al := float32(p[3]) / 255
					d[0], d[1], d[2], d[3] = d[0]+float32(p[0])*al, d[1]+float32(p[1])*al, d[2]+float32(p[2])*al, d[3]+float32(p[3])
				}
			}
			for i := range acc {
				acc[i] *= inv
			}
		}
	})
	return out, sw, sh
}

// enlarge draws the sw×sh picture small, reduced f times from area of
// img, back into it bilinearly: each pixel's centre falls at
// (x+0.5)/f-0.5 of small.
func enlarge(ctx context.Context, small []float32, sw, sh, f int, img *image.NRGBA, area image.Rectangle) {
	w := area.Dx()
	// Each column's two neighbours and weight, the same on every row.
	x0s, x1s, wxs := make([]int, w), make([]int, w), make([]float32, w)
	for x := range w {
		x0s[x], x1s[x], wxs[x] = lerpTaps((float64(x)+0.5)/float64(f)-0.5, sw)
	}
	rows(ctx, image.Rect(0, 0, w, area.Dy()), func(y0, y1 int) {
		row := make([]float32, 4*w)
		mid := make([]float32, 4*sw)
		for y := y0; y < y1; y++ {
			// Between the two rows of small first, once for each of its
			// pixels, then along the row for each of img's.
			j0, j1, wy := lerpTaps((float64(y)+0.5)/float64(f)-0.5, sh)
			r0, r1 := small[4*sw*j0:][:4*sw], small[4*sw*j1:][:4*sw]
			for i, v := range r0 {
				mid[i] = v + wy*(r1[i]-v)
			}
			for x := range w {
				a, b, wx := mid[4*x0s[x]:][:4], mid[4*x1s[x]:][:4], wxs[x]
				d := row[4*x:][:4]
				d[0], d[1], d[2], d[3] = a[0]+wx*(b[0]-a[0]), a[1]+wx*(b[1]-a[1]), a[2]+wx*(b[2]-a[2]), a[3]+wx*(b[3]-a[3])
			}
			unpremultiply(row, img.Pix[img.PixOffset(area.Min.X, area.Min.Y+y):][:4*w])
		}
	})
}

// lerpTaps are the two samples of n around position p and the weight of the
// second, clamped to the picture.
func lerpTaps(p float64, n int) (int, int, float32) {
	i := int(math.Floor(p))
	t := float32(p - float64(i))
	i0, i1 := min(max(i, 0), n-1), min(max(i+1, 0), n-1)
	return i0, i1, t
}

// BlurWork is GaussianBlur's work on a pixel, in the units of a
// template's work budget (a pixel blended, some four to eight
// operations): six passes of four channels, a few operations each.
const BlurWork = 8

// BlurBytes is the most GaussianBlur holds a pixel while it runs: the
// picture as four float32 channels, and the bands' two copies.
const BlurBytes = 48

// premultiply writes a row of pixels as floats, colours times alpha.
func premultiply(src []uint8, row []float32) {
	row = row[:len(src)]
	for i := 0; i < len(src); i += 4 {
		al := float32(src[i+3]) / 255
		row[i], row[i+1], row[i+2], row[i+3] = float32(src[i])*al, float32(src[i+1])*al, float32(src[i+2])*al, float32(src[i+3])
	}
}

// unpremultiply writes a row of premultiplied floats back as pixels.
func unpremultiply(row []float32, dst []uint8) {
	row = row[:len(dst)]
	for i := 0; i < len(dst); i += 4 {
		al := row[i+3]
		if al < 0.5 {
			dst[i], dst[i+1], dst[i+2], dst[i+3] = 0, 0, 0, 0
			continue
		}
		k := 255 / al
		dst[i], dst[i+1], dst[i+2] = clamp8(row[i]*k), clamp8(row[i+1]*k), clamp8(row[i+2]*k)
		dst[i+3] = clamp8(al)
	}
}

// exbox is an extended box: weight 1 from -r to r, alpha at ±(r+1), all
// divided by 2r+1+2alpha.
type exbox struct {
	r          int
	alpha, inv float32
}

// extendedBox is the extended box of variance v: the widest whole box
// under it (a box of radius r has variance r(r+1)/3), and end taps
// weighing what is missing.
func extendedBox(v float64) exbox {
	r := int(math.Floor((math.Sqrt(12*v+1) - 1) / 2))
	r = max(r, 0)
	for float64((r+1)*(r+2))/3 <= v {
		r++
	}
	fr := float64(r)
	alpha := (2*fr + 1) * (fr*(fr+1)/3 - v) / (2 * (v - (fr+1)*(fr+1)))
	alpha = min(max(alpha, 0), 1)
	return exbox{r: r, alpha: float32(alpha), inv: float32(1 / (2*fr + 1 + 2*alpha))}
}

// row blurs one row of four-channel pixels, src to dst; beyond it is
// transparent.
func (b exbox) row(src, dst []float32) {
	n, r := len(src)/4, b.r
	dst = dst[:len(src)]
	var s0, s1, s2, s3 float32
	for x := 0; x <= r && x < n; x++ {
		p := src[4*x:][:4]
		s0, s1, s2, s3 = s0+p[0], s1+p[1], s2+p[2], s3+p[3]
	}
	for x := 0; x < n; x++ {
		var e0, e1, e2, e3 float32
		if j := x - r - 1; j >= 0 {
			p := src[4*j:][:4]
			e0, e1, e2, e3 = p[0], p[1], p[2], p[3]
		}
		var f0, f1, f2, f3 float32
		if j := x + r + 1; j < n {
			p := src[4*j:][:4]
			f0, f1, f2, f3 = p[0], p[1], p[2], p[3]
		}
		d := dst[4*x:][:4]
		d[0], d[1], d[2], d[3] = (s0+b.alpha*(e0+f0))*b.inv, (s1+b.alpha*(e1+f1))*b.inv, (s2+b.alpha*(e2+f2))*b.inv, (s3+b.alpha*(e3+f3))*b.inv
		// Move the window on: x+r+1 in, x-r out.
		s0, s1, s2, s3 = s0+f0, s1+f1, s2+f2, s3+f3
		if j := x - r; j >= 0 {
			p := src[4*j:][:4]
			s0, s1, s2, s3 = s0-p[0], s1-p[1], s2-p[2], s3-p[3]
		}
	}
}

// row1 blurs one row of one channel, src to dst; beyond it is 0.
func (b exbox) row1(src, dst []float32) {
	n, r := len(src), b.r
	dst = dst[:n]
	var s float32
	for x := 0; x <= r && x < n; x++ {
		s += src[x]
	}
	for x := range dst {
		var e, f float32
		if j := x - r - 1; j >= 0 {
			e = src[j]
		}
		if j := x + r + 1; j < n {
			f = src[j]
		}
		dst[x] = (s + b.alpha*(e+f)) * b.inv
		s += f
		if j := x - r; j >= 0 {
			s -= src[j]
		}
	}
}

// cols blurs down the columns of h rows n floats wide, from src (rows
// sstride apart) to dst (rows dstride apart), which must not overlap;
// beyond them is transparent.
func (b exbox) cols(src []float32, sstride int, dst []float32, dstride, n, h int) {
	r := b.r
	acc := make([]float32, n)
	for y := 0; y <= r && y < h; y++ {
		add(acc, src[sstride*y:][:n])
	}
	zero := make([]float32, n)
	line := func(y int) []float32 {
		if y < 0 || y >= h {
			return zero
		}
		return src[sstride*y:][:n]
	}
	alpha, inv := b.alpha, b.inv
	for y := 0; y < h; y++ {
		d := dst[dstride*y:][:n]
		up, down, old := line(y-r-1), line(y+r+1), line(y-r)
		up, down, old = up[:n], down[:n], old[:n]
		for i, v := range acc {
			d[i] = (v + alpha*(up[i]+down[i])) * inv
			acc[i] = v + down[i] - old[i]
		}
	}
}

// add adds row to acc, element by element.
func add(acc, row []float32) {
	row = row[:len(acc)]
	for i, v := range row {
		acc[i] += v
	}
}

func clamp8(v float32) uint8 {
	switch {
	case v <= 0:
		return 0
	case v >= 255:
		return 255
	}
	return uint8(v + 0.5)
}
