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
func GaussianBlur(ctx context.Context, img *image.NRGBA, area image.Rectangle, sigma float64) {
	area = area.Intersect(img.Rect)
	if area.Empty() || !(sigma >= 0.2) {
		return
	}
	box := extendedBox(sigma * sigma / 3)
	w, h := area.Dx(), area.Dy()
	a := make([]float32, 4*w*h)
	premultiply(ctx, img, area, a)
	rows(ctx, image.Rect(0, 0, w, h), func(y0, y1 int) {
		tmp := make([]float32, 4*w)
		for y := y0; y < y1; y++ {
			row := a[4*w*y:][:4*w]
			box.row(row, tmp)
			box.row(tmp, row)
			box.row(row, tmp)
			copy(row, tmp)
		}
	})
	// Bands of columns, each pass walking down the rows so that memory is
	// read in order, with a running sum per column; a band's passes go
	// through a picture of its own.
	rows(ctx, image.Rect(0, 0, h, w), func(x0, x1 int) {
		n := 4 * (x1 - x0)
		band := make([]float32, n*h)
		tmp := make([]float32, n*h)
		for y := 0; y < h; y++ {
			copy(band[n*y:][:n], a[4*w*y+4*x0:][:n])
		}
		box.cols(band, tmp, n, h)
		box.cols(tmp, band, n, h)
		box.cols(band, tmp, n, h)
		for y := 0; y < h; y++ {
			copy(a[4*w*y+4*x0:][:n], tmp[n*y:][:n])
		}
	})
	unpremultiply(ctx, img, area, a)
}

// BlurWork is GaussianBlur's work on a pixel, in the units of a
// template's work budget (a pixel blended, some four to eight
// operations): six passes of four channels, a few operations each.
const BlurWork = 8

// BlurBytes is the most GaussianBlur holds a pixel while it runs: the
// picture as four float32 channels, and a band's two copies.
const BlurBytes = 48

// premultiply copies area of img into a, colours times alpha.
func premultiply(ctx context.Context, img *image.NRGBA, area image.Rectangle, a []float32) {
	w := area.Dx()
	rows(ctx, image.Rect(0, 0, w, area.Dy()), func(y0, y1 int) {
		for y := y0; y < y1; y++ {
			src := img.Pix[img.PixOffset(area.Min.X, area.Min.Y+y):][:4*w]
			row := a[4*w*y:][:4*w]
			for i := 0; i < len(src); i += 4 {
				al := float32(src[i+3]) / 255
				row[i], row[i+1], row[i+2], row[i+3] = float32(src[i])*al, float32(src[i+1])*al, float32(src[i+2])*al, float32(src[i+3])
			}
		}
	})
}

// unpremultiply writes a back into area of img.
func unpremultiply(ctx context.Context, img *image.NRGBA, area image.Rectangle, a []float32) {
	w := area.Dx()
	rows(ctx, image.Rect(0, 0, w, area.Dy()), func(y0, y1 int) {
		for y := y0; y < y1; y++ {
			dst := img.Pix[img.PixOffset(area.Min.X, area.Min.Y+y):][:4*w]
			row := a[4*w*y:][:4*w]
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
	})
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

// cols blurs down the columns of an h-row picture of rows n floats wide,
// src to dst; beyond it is transparent.
func (b exbox) cols(src, dst []float32, n, h int) {
	r := b.r
	acc := make([]float32, n)
	for y := 0; y <= r && y < h; y++ {
		add(acc, src[n*y:][:n])
	}
	zero := make([]float32, n)
	line := func(y int) []float32 {
		if y < 0 || y >= h {
			return zero
		}
		return src[n*y:][:n]
	}
	alpha, inv := b.alpha, b.inv
	for y := 0; y < h; y++ {
		d := dst[n*y:][:n]
		up, down, old := line(y-r-1), line(y+r+1), line(y-r)
		up, down, old = up[:n], down[:n], old[:n]
		for i, v := range acc {
			d[i] = (v + alpha*(up[i]+down[i])) * inv
			acc[i] = v + down[i] - old[i]
		}
	}
}

func add(acc, row []float32) {
	row = row[:len(acc)]
	for i, v := range row {
		acc[i] += v
	}
}

func sub(acc, row []float32) {
	row = row[:len(acc)]
	for i, v := range row {
		acc[i] -= v
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
