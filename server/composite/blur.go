package composite

import (
	"context"
	"image"
	"math"
)

// GaussianBlur blurs the pixels of img within area, in place, as a
// Gaussian of standard deviation sigma: three box blurs each way (a
// running sum a pass, so the cost does not grow with sigma), on colours
// premultiplied by alpha so that transparent pixels lend no colour.
// Beyond area counts as transparent: callers pass the pixels to blur
// grown by 3σ. Rows, then bands of columns, run on every core.
func GaussianBlur(ctx context.Context, img *image.NRGBA, area image.Rectangle, sigma float64) {
	area = area.Intersect(img.Rect)
	radii := boxRadii(sigma)
	if area.Empty() || !(sigma >= 0.2) {
		return
	}
	w, h := area.Dx(), area.Dy()
	a := make([]float32, 4*w*h)
	b := make([]float32, 4*w*h)
	if sigma <= maxKernelSigma {
		// A small blur's boxes are too coarse (their widths are whole
		// pixels): the Gaussian's own weights, a few taps each way.
		k := gaussKernel(sigma)
		premultiply(ctx, img, area, a)
		rows(ctx, image.Rect(0, 0, w, h), func(y0, y1 int) {
			for y := y0; y < y1; y++ {
				convRow(a[4*w*y:][:4*w], b[4*w*y:][:4*w], k)
			}
		})
		rows(ctx, image.Rect(0, 0, h, w), func(x0, x1 int) { convCols(b, a, w, h, x0, x1, k) })
		unpremultiply(ctx, img, area, a)
		return
	}
	premultiply(ctx, img, area, a)
	// Each pass goes from one buffer to the other: three along the rows
	// leave the picture in b, three down the columns bring it back to a.
	rows(ctx, image.Rect(0, 0, w, h), func(y0, y1 int) {
		for y := y0; y < y1; y++ {
			row, tmp := a[4*w*y:][:4*w], b[4*w*y:][:4*w]
			box4(row, tmp, w, radii[0])
			box4(tmp, row, w, radii[1])
			box4(row, tmp, w, radii[2])
		}
	})
	// Bands of columns: each pass walks down the rows, so it reads memory
	// in order and keeps a running sum per column.
	rows(ctx, image.Rect(0, 0, h, w), func(x0, x1 int) {
		boxCols(b, a, w, h, x0, x1, radii[0])
		boxCols(a, b, w, h, x0, x1, radii[1])
		boxCols(b, a, w, h, x0, x1, radii[2])
	})
	unpremultiply(ctx, img, area, a)
}

// maxKernelSigma is the largest blur drawn with the Gaussian's weights
// (25 taps); beyond it three box blurs cost less and their whole-pixel
// widths matter less.
const maxKernelSigma = 4

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

// gaussKernel is a Gaussian's weights from -3σ to 3σ, summing to 1.
func gaussKernel(sigma float64) []float32 {
	r := int(math.Ceil(3 * sigma))
	k := make([]float32, 2*r+1)
	var sum float64
	for i := -r; i <= r; i++ {
		sum += math.Exp(-float64(i*i) / (2 * sigma * sigma))
	}
	for i := -r; i <= r; i++ {
		k[i+r] = float32(math.Exp(-float64(i*i)/(2*sigma*sigma)) / sum)
	}
	return k
}

// convRow convolves a row of four-channel pixels with k, src to dst;
// beyond the row is transparent.
func convRow(src, dst []float32, k []float32) {
	n, r := len(src)/4, len(k)/2
	for x := 0; x < n; x++ {
		var s0, s1, s2, s3 float32
		for j := max(0, x-r); j <= min(n-1, x+r); j++ {
			wt := k[j-x+r]
			p := src[4*j:][:4]
			s0, s1, s2, s3 = s0+wt*p[0], s1+wt*p[1], s2+wt*p[2], s3+wt*p[3]
		}
		d := dst[4*x:][:4]
		d[0], d[1], d[2], d[3] = s0, s1, s2, s3
	}
}

// convCols convolves columns x0 to x1 of a w×h four-channel picture with
// k, src to dst, a row at a time so that memory is read in order.
func convCols(src, dst []float32, w, h, x0, x1 int, k []float32) {
	lo, hi, r := 4*x0, 4*x1, len(k)/2
	for y := 0; y < h; y++ {
		d := dst[4*w*y+lo : 4*w*y+hi]
		clear(d)
		for j := max(0, y-r); j <= min(h-1, y+r); j++ {
			wt := k[j-y+r]
			s := src[4*w*j+lo : 4*w*j+hi]
			for i := range d {
				d[i] += wt * s[i]
			}
		}
	}
}

// BlurWork is GaussianBlur's work on a pixel, in the units of a
// template's work budget (a pixel blended, some four to eight
// operations): six passes of four channels for the box blurs, or the
// Gaussian's taps both ways for a small blur.
func BlurWork(sigma float64) int64 {
	if sigma <= maxKernelSigma {
		return 2 * int64(math.Ceil(3*max(sigma, 0))+1)
	}
	return 6
}

// BlurBytes is what GaussianBlur holds a pixel while it runs: two
// pictures of four float32 channels.
const BlurBytes = 32

// boxRadii are the radii of three box blurs whose sum approximates a
// Gaussian of standard deviation sigma (Kovesi's widths); all zero under
// half a pixel.
func boxRadii(sigma float64) [3]int {
	var out [3]int
	if !(sigma >= 0.5) {
		return out
	}
	wIdeal := math.Sqrt(12*sigma*sigma/3 + 1)
	wl := int(math.Floor(wIdeal))
	if wl%2 == 0 {
		wl--
	}
	m := math.Round((12*sigma*sigma - 3*float64(wl*wl) - 12*float64(wl) - 9) / (-4*float64(wl) - 4))
	for i := range out {
		bw := wl
		if float64(i) >= m {
			bw = wl + 2
		}
		out[i] = (bw - 1) / 2
	}
	return out
}

// box4 is a box blur of radius r along one row of n pixels of four
// channels, src to dst; beyond the row is transparent.
func box4(src, dst []float32, n, r int) {
	if r < 1 {
		copy(dst, src)
		return
	}
	inv := 1 / float32(2*r+1)
	var s0, s1, s2, s3 float32
	for x := 0; x <= r && x < n; x++ {
		s0, s1, s2, s3 = s0+src[4*x], s1+src[4*x+1], s2+src[4*x+2], s3+src[4*x+3]
	}
	for x := 0; x < n; x++ {
		d := dst[4*x:][:4]
		d[0], d[1], d[2], d[3] = s0*inv, s1*inv, s2*inv, s3*inv
		if j := x + r + 1; j < n {
			s0, s1, s2, s3 = s0+src[4*j], s1+src[4*j+1], s2+src[4*j+2], s3+src[4*j+3]
		}
		if j := x - r; j >= 0 {
			s0, s1, s2, s3 = s0-src[4*j], s1-src[4*j+1], s2-src[4*j+2], s3-src[4*j+3]
		}
	}
}

// boxCols is a box blur of radius r down columns x0 to x1 of a w×h
// picture of four channels, src to dst; beyond it is transparent.
func boxCols(src, dst []float32, w, h, x0, x1, r int) {
	lo, hi := 4*x0, 4*x1
	if r < 1 {
		for y := 0; y < h; y++ {
			copy(dst[4*w*y+lo:4*w*y+hi], src[4*w*y+lo:4*w*y+hi])
		}
		return
	}
	inv := 1 / float32(2*r+1)
	acc := make([]float32, hi-lo)
	for y := 0; y <= r && y < h; y++ {
		add(acc, src[4*w*y+lo:4*w*y+hi])
	}
	for y := 0; y < h; y++ {
		d := dst[4*w*y+lo : 4*w*y+hi]
		for i, v := range acc {
			d[i] = v * inv
		}
		if j := y + r + 1; j < h {
			add(acc, src[4*w*j+lo:4*w*j+hi])
		}
		if j := y - r; j >= 0 {
			sub(acc, src[4*w*j+lo:4*w*j+hi])
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
