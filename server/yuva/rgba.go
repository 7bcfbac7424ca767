package yuva

import (
	"image"
	"math"
)

// Blur blurs every channel of img in place, as ffmpeg's gblur (one step,
// sigma pixels both ways) blurs a gbrap picture: Alvarez and Mazorra's
// recursive filter, one pass each way along the rows, then the columns,
// the edges held, in single precision, the result cut to 0 to 255 and
// rounded (within a level of ffmpeg's, whose vector code rounds its own
// way).
func Blur(img *image.NRGBA, sigma float64) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	if sigma <= 0 || w == 0 || h == 0 {
		return
	}
	// set_params of gblur: sigma is a float option.
	s := float32(sigma)
	lambda := float64(s*s) / 2
	dnu := (1 + 2*lambda - math.Sqrt(1+4*lambda)) / (2 * lambda)
	post := float32(dnu / lambda)
	post *= post
	bscale, nu := float32(1/(1-dnu)), float32(dnu)
	buf := make([]float32, w*h)
	for c := range 4 {
		for y := 0; y < h; y++ {
			row := img.Pix[y*img.Stride:]
			for x := 0; x < w; x++ {
				buf[y*w+x] = float32(row[4*x+c])
			}
		}
		for y := 0; y < h; y++ {
			p := buf[y*w : (y+1)*w]
			p[0] *= bscale
			for x := 1; x < w; x++ {
				p[x] += nu * p[x-1]
			}
			p[w-1] *= bscale
			for x := w - 1; x > 0; x-- {
				p[x-1] += nu * p[x]
			}
		}
		for x := 0; x < w; x++ {
			buf[x] *= bscale
			for i := x + w; i < w*h; i += w {
				buf[i] += nu * buf[i-w]
			}
			i := (h-1)*w + x
			buf[i] *= bscale
			for ; i >= w; i -= w {
				buf[i-w] += nu * buf[i]
			}
		}
		for y := 0; y < h; y++ {
			row := img.Pix[y*img.Stride:]
			for x := 0; x < w; x++ {
				v := min(max(buf[y*w+x]*post, 0), 255)
				row[4*x+c] = uint8(math.RoundToEven(float64(v)))
			}
		}
	}
}

// Over draws top over img (the same size) as ffmpeg's overlay in RGB
// draws one picture with straight alpha over another that has alpha of
// its own.
func Over(img, top *image.NRGBA) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	for y := 0; y < h; y++ {
		d, s := img.Pix[y*img.Stride:], top.Pix[y*top.Stride:]
		for x := 0; x < w; x++ {
			dp, sp := d[4*x:4*x+4:4*x+4], s[4*x:4*x+4:4*x+4]
			alpha := int(sp[3])
			if alpha != 0 && alpha != 255 {
				// The straight alpha of top over what img holds.
				ad := int(dp[3])
				alpha = ((alpha << 16) - (alpha << 9) + alpha) / (((alpha + ad) << 8) - (alpha + ad) - ad*alpha)
			}
			switch alpha {
			case 0:
			case 255:
				dp[0], dp[1], dp[2] = sp[0], sp[1], sp[2]
			default:
				for c := range 3 {
					dp[c] = div255(int(dp[c])*(255-alpha) + int(sp[c])*alpha)
				}
			}
			switch alpha {
			case 0:
			case 255:
				dp[3] = sp[3]
			default:
				dp[3] += div255((255 - int(dp[3])) * int(sp[3]))
			}
		}
	}
}

// div255 divides by 255, rounded, as ffmpeg's FAST_DIV255.
func div255(v int) uint8 { return uint8(((v + 128) * 257) >> 16) }
