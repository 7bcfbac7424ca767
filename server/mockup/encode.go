package mockup

import (
	"context"
	"image"
	"image/jpeg"
	"io"

	xdraw "golang.org/x/image/draw"
)

// Resize scales a picture to width, keeping its aspect, with a filter that
// widens as it shrinks (no aliasing); a width of 0 or the picture's own
// returns it as it is.
func Resize(img *image.NRGBA, width int) *image.NRGBA {
	b := img.Bounds()
	if width <= 0 || width == b.Dx() {
		return img
	}
	height := max(1, int(float64(b.Dy())*float64(width)/float64(b.Dx())+0.5))
	dst := image.NewNRGBA(image.Rect(0, 0, width, height))
	xdraw.BiLinear.Scale(dst, dst.Bounds(), img, b, xdraw.Src, nil)
	return dst
}

// EncodePNG writes a PNG with every core at zlib's fastest level, as RGB
// when the picture is opaque: on a 3000x3000 mockup Go's encoder at its
// default level takes several times as long (docs/benchmarks.md).
func EncodePNG(w io.Writer, img *image.NRGBA) error {
	return EncodePNGContext(context.Background(), w, img)
}

// EncodePNGContext is EncodePNG with the CPU of its goroutines added to
// ctx's meter (meter.Thread).
func EncodePNGContext(ctx context.Context, w io.Writer, img *image.NRGBA) error {
	return encodePNGParallel(ctx, w, img, !opaque(img))
}

// EncodeJPEG writes a JPEG, transparent parts on white.
func EncodeJPEG(w io.Writer, img *image.NRGBA, quality int) error {
	if !opaque(img) {
		img = onWhite(img)
	}
	return jpeg.Encode(w, rgb(img), &jpeg.Options{Quality: quality})
}

// opaque reports whether every pixel is opaque.
func opaque(img *image.NRGBA) bool {
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		row := img.Pix[img.PixOffset(b.Min.X, y):img.PixOffset(b.Max.X, y)]
		for i := 3; i < len(row); i += 4 {
			if row[i] != 0xff {
				return false
			}
		}
	}
	return true
}

func onWhite(img *image.NRGBA) *image.NRGBA {
	out := image.NewNRGBA(img.Bounds())
	for i := 0; i < len(img.Pix); i += 4 {
		a := uint32(img.Pix[i+3])
		for c := 0; c < 3; c++ {
			out.Pix[i+c] = uint8((uint32(img.Pix[i+c])*a + 255*(255-a) + 127) / 255)
		}
		out.Pix[i+3] = 0xff
	}
	return out
}

// rgb shows an opaque NRGBA picture as the RGBA picture it equals (the
// same bytes when alpha is 255), which the encoders' fast paths take and
// write as RGB.
func rgb(img *image.NRGBA) *image.RGBA {
	return &image.RGBA{Pix: img.Pix, Stride: img.Stride, Rect: img.Rect}
}
