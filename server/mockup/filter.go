package mockup

import (
	"context"
	"image"
	"math"

	"github.com/kinohq/kino/server/composite"
	"github.com/kinohq/kino/server/psd"
)

// blurSigma is the standard deviation of the Gaussian Photoshop's
// Gaussian Blur draws for a radius in pixels: the radius itself. On
// ag-smart-filter-blur.psd (radius 3.5; TestSmartFilterBlur) σ = 0.8,
// 0.9, 1.0 and 1.1 times the radius draw at 45.8, 47.2, 47.8 and 47.6 dB
// against the merged image Photoshop saved (35.5 dB unblurred).
func blurSigma(radius float64) float64 { return radius }

// smartFilters draws a smart object's filters over the design placed on
// the canvas (img), in place, in Photoshop's order. Each filter's
// opacity mixes its result over what it was given; the filter mask, when
// painted, then mixes the filters' result over the unfiltered design
// pixel by pixel (black keeps the design as it was).
func smartFilters(ctx context.Context, img *image.NRGBA, fs []psd.SmartFilter, mask *psd.FilterMask) {
	var unfiltered *image.NRGBA
	if mask != nil {
		reach := 0
		for _, f := range fs {
			if f.ID == "GsnB" {
				reach += int(math.Ceil(3*blurSigma(f.Radius))) + 1 // blurBox's
			}
		}
		if ab := alphaBounds(img); reach > 0 && !ab.Empty() {
			unfiltered = copyRect(img, ab.Inset(-reach).Intersect(img.Rect))
		}
	}
	for _, f := range fs {
		if f.ID != "GsnB" {
			continue // the identity (a curves filter at its default)
		}
		sigma := blurSigma(f.Radius)
		box := blurBox(alphaBounds(img), sigma).Intersect(img.Rect)
		if box.Empty() {
			continue
		}
		var before *image.NRGBA
		if f.Opacity < 1 {
			before = copyRect(img, box)
		}
		composite.GaussianBlur(ctx, img, box, sigma)
		if before != nil {
			mix(img, before, func(int, int) float64 { return f.Opacity })
		}
	}
	if unfiltered != nil {
		mix(img, unfiltered, func(x, y int) float64 {
			if (image.Point{x, y}).In(mask.Image.Rect) {
				return float64(mask.Image.Pix[mask.Image.PixOffset(x, y)]) / 255
			}
			return float64(mask.Outside) / 255
		})
	}
}

// copyRect is a copy of img's pixels over r (within img).
func copyRect(img *image.NRGBA, r image.Rectangle) *image.NRGBA {
	c := image.NewNRGBA(r)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		copy(c.Pix[c.PixOffset(r.Min.X, y):][:4*r.Dx()], img.Pix[img.PixOffset(r.Min.X, y):])
	}
	return c
}

// blurBox is r grown by the reach of a blur of sigma: three standard
// deviations and a pixel.
func blurBox(r image.Rectangle, sigma float64) image.Rectangle {
	if r.Empty() {
		return r
	}
	return r.Inset(-int(math.Ceil(3*sigma)) - 1)
}

// mix sets img, over before's bounds, to before mixed with it: a filter
// drawn at opacity o(x, y), its picture over the one it was given.
func mix(img, before *image.NRGBA, o func(x, y int) float64) {
	b := before.Rect
	for y := b.Min.Y; y < b.Max.Y; y++ {
		dst := img.Pix[img.PixOffset(b.Min.X, y):][:4*b.Dx()]
		src := before.Pix[before.PixOffset(b.Min.X, y):][:4*b.Dx()]
		for i := 0; i < len(dst); i += 4 {
			o := o(b.Min.X+i/4, y)
			if o >= 1 {
				continue
			}
			fa, ba := o*float64(dst[i+3]), (1-o)*float64(src[i+3])
			a := fa + ba
			if a <= 0 {
				dst[i], dst[i+1], dst[i+2], dst[i+3] = 0, 0, 0, 0
				continue
			}
			for c := 0; c < 3; c++ {
				dst[i+c] = uint8((fa*float64(dst[i+c])+ba*float64(src[i+c]))/a + 0.5)
			}
			dst[i+3] = uint8(a + 0.5)
		}
	}
}
