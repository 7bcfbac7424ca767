// Package yuva holds pictures in YUV 4:2:0 with alpha (ffmpeg's
// yuva420p), the format ffmpeg's overlay blends onto a frame, and draws
// with them as ffmpeg's filters would: converted from RGBA, blurred,
// scaled, their alpha multiplied, placed one over another. kino composes
// the frames of text whose words move (package engine) itself, in this
// format, and hands them to ffmpeg as raw video: one overlay a frame,
// where ffmpeg's filters cost about ten a moving word.
//
// The conversions follow ffmpeg 5.1's closely, not to the bit: a colour
// converts to the same YUV within one level, a scaled picture differs
// from swscale's by its rounding.
package yuva

import (
	"image"
	"image/color"
	"io"
)

// Picture is a picture in YUV 4:2:0 with alpha: Y and A hold W×H samples,
// U and V one for each 2×2 block of pixels, (W+1)/2 × (H+1)/2. Colour is
// BT.601 in limited range and alpha straight, as ffmpeg's yuva420p holds
// them.
type Picture struct {
	W, H       int
	Y, U, V, A []uint8
}

// New is a transparent picture w×h, its colour black.
func New(w, h int) *Picture {
	cw, ch := (w+1)/2, (h+1)/2
	p := &Picture{W: w, H: h, Y: make([]uint8, w*h), A: make([]uint8, w*h), U: make([]uint8, cw*ch), V: make([]uint8, cw*ch)}
	p.Fill(color.NRGBA{})
	return p
}

// cw and ch are the size of the chroma planes.
func (p *Picture) cw() int { return (p.W + 1) / 2 }
func (p *Picture) ch() int { return (p.H + 1) / 2 }

// Fill sets every pixel to c.
func (p *Picture) Fill(c color.NRGBA) {
	y, u, v := YUV(c.R, c.G, c.B)
	fill(p.Y, y)
	fill(p.A, c.A)
	fill(p.U, u)
	fill(p.V, v)
}

func fill(s []uint8, v uint8) {
	if len(s) == 0 {
		return
	}
	s[0] = v
	for n := 1; n < len(s); n *= 2 {
		copy(s[n:], s[:n])
	}
}

// Size is how many bytes a w×h picture takes as raw video (WriteTo).
func Size(w, h int) int64 {
	return int64(w)*int64(h)*2 + 2*int64((w+1)/2)*int64((h+1)/2)
}

// WriteTo writes the picture as one frame of raw yuva420p video: its Y,
// U, V and A planes, in that order, without padding.
func (p *Picture) WriteTo(w io.Writer) (int64, error) {
	var n int64
	for _, plane := range [][]uint8{p.Y, p.U, p.V, p.A} {
		k, err := w.Write(plane)
		n += int64(k)
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// YUV is the limited-range BT.601 colour of r, g, b, as ffmpeg converts
// RGB to YUV: 16 to 235 for Y, 16 to 240 for U and V.
func YUV(r, g, b uint8) (y, u, v uint8) {
	return lumaOf(int32(r), int32(g), int32(b), 1), chromaU(int32(r), int32(g), int32(b), 1), chromaV(int32(r), int32(g), int32(b), 1)
}

// The coefficients of BT.601 in limited range, in 1/2¹⁶; n is how many
// pixels r, g, b add up (1, or 4 for a 2×2 block's chroma).
func lumaOf(r, g, b, n int32) uint8 {
	return clip8((16<<16 + (16829*r+33039*g+6416*b)/n + 1<<15) >> 16)
}

func chromaU(r, g, b, n int32) uint8 {
	return clip8((128<<16 + (-9714*r-19070*g+28784*b)/n + 1<<15) >> 16)
}

func chromaV(r, g, b, n int32) uint8 {
	return clip8((128<<16 + (28784*r-24103*g-4681*b)/n + 1<<15) >> 16)
}

func clip8(v int32) uint8 {
	switch {
	case v < 0:
		return 0
	case v > 255:
		return 255
	}
	return uint8(v)
}

// FromNRGBA converts img, as ffmpeg's format=yuva420p converts a picture
// with straight alpha: luma and alpha per pixel, chroma of each 2×2 block
// from the mean of its colours (alpha plays no part, so pixels with no
// alpha must hold the colour around them, as kino's pictures of text
// do). A block past an odd edge takes the edge's pixels.
func FromNRGBA(img *image.NRGBA) *Picture {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	p := New(w, h)
	for y := 0; y < h; y++ {
		row := img.Pix[y*img.Stride:]
		for x := 0; x < w; x++ {
			px := row[4*x : 4*x+4 : 4*x+4]
			p.Y[y*w+x] = lumaOf(int32(px[0]), int32(px[1]), int32(px[2]), 1)
			p.A[y*w+x] = px[3]
		}
	}
	cw := p.cw()
	for cy := 0; cy < p.ch(); cy++ {
		y0, y1 := 2*cy, min(2*cy+1, h-1)
		for cx := 0; cx < cw; cx++ {
			x0, x1 := 2*cx, min(2*cx+1, w-1)
			var r, g, bl int32
			for _, at := range [4][2]int{{x0, y0}, {x1, y0}, {x0, y1}, {x1, y1}} {
				px := img.Pix[at[1]*img.Stride+4*at[0]:]
				r, g, bl = r+int32(px[0]), g+int32(px[1]), bl+int32(px[2])
			}
			p.U[cy*cw+cx] = chromaU(r, g, bl, 4)
			p.V[cy*cw+cx] = chromaV(r, g, bl, 4)
		}
	}
	return p
}

// Draw places src over p with its top left at x, y (even, as overlay
// places a 4:2:0 picture), its alpha first multiplied by alpha/255 as
// ffmpeg's blend multiplies it (rounded down). Where src is transparent p
// is left as it is; where p is transparent src is copied; elsewhere src
// goes over p, straight alpha. What falls outside p is cut.
func (p *Picture) Draw(src *Picture, x, y int, alpha uint8) {
	if alpha == 0 {
		return
	}
	var scale [256]uint8
	for v := range scale {
		scale[v] = uint8(v * int(alpha) / 255)
	}
	// Chroma first: it weighs each block by the alpha of p before src
	// lands on it.
	cx0, cy0 := x/2, y/2
	cw, scw := p.cw(), src.cw()
	for sy := 0; sy < src.ch(); sy++ {
		dy := cy0 + sy
		if dy < 0 || dy >= p.ch() {
			continue
		}
		// The rows of alpha of the blocks of this row, in src and in p.
		s0, s1 := src.A[2*sy*src.W:], src.A[min(2*sy+1, src.H-1)*src.W:]
		d0, d1 := p.A[2*dy*p.W:], p.A[min(2*dy+1, p.H-1)*p.W:]
		for sx := max(0, -cx0); sx < scw && cx0+sx < cw; sx++ {
			dx := cx0 + sx
			a, b := 2*sx, min(2*sx+1, src.W-1)
			if s0[a]|s0[b]|s1[a]|s1[b] == 0 {
				continue
			}
			di, si := dy*cw+dx, sy*scw+sx
			c, e := 2*dx, min(2*dx+1, p.W-1)
			if d0[c]|d0[e]|d1[c]|d1[e] == 0 {
				p.U[di], p.V[di] = src.U[si], src.V[si]
				continue
			}
			sa := int(scale[s0[a]]) + int(scale[s0[b]]) + int(scale[s1[a]]) + int(scale[s1[b]])
			if sa == 4*255 {
				p.U[di], p.V[di] = src.U[si], src.V[si]
				continue
			}
			// The share of p that shows through src, of all that shows.
			da := int(d0[c]) + int(d0[e]) + int(d1[c]) + int(d1[e])
			under := da * (4*255 - sa) / (4 * 255)
			if sa+under == 0 {
				continue
			}
			p.U[di] = uint8((int(src.U[si])*sa + int(p.U[di])*under + (sa+under)/2) / (sa + under))
			p.V[di] = uint8((int(src.V[si])*sa + int(p.V[di])*under + (sa+under)/2) / (sa + under))
		}
	}
	for sy := 0; sy < src.H; sy++ {
		dy := y + sy
		if dy < 0 || dy >= p.H {
			continue
		}
		x0, x1 := max(0, -x), min(src.W, p.W-x)
		if x0 >= x1 {
			return
		}
		srow, sa := src.Y[sy*src.W:][x0:x1], src.A[sy*src.W:][x0:x1]
		at := dy*p.W + x + x0
		drow, da := p.Y[at:at+x1-x0], p.A[at:at+x1-x0]
		for k, s := range sa {
			a := int(scale[s])
			switch {
			case a == 0:
			case a == 255 || da[k] == 0:
				drow[k], da[k] = srow[k], uint8(a)
			default:
				under := int(da[k]) * (255 - a) / 255
				drow[k] = uint8((int(srow[k])*a + int(drow[k])*under + (a+under)/2) / (a + under))
				da[k] = uint8(a + under)
			}
		}
	}
}
