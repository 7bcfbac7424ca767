package composite

import (
	"context"
	"encoding/binary"
	"image"
	"image/draw"
	"math"
	"sync"
)

// Texture is a picture made ready to be warped: premultiplied, and, when
// a warp first needs them, its mip levels (each half the one before,
// averaged 2×2, down to 1×1) or a copy shrunk to the warp's size. Made
// once, so that several warps of the same design (a front and a back)
// pay for them once; warps of one Texture may run at the same time.
type Texture struct {
	base   level   // the picture itself
	levels []level // base and its mip levels, made by mips

	once  sync.Once
	mu    sync.Mutex
	small *Texture // the last shrunk copy (see shrunk)

	// ctx is the drawing's that made the texture (NewTextureContext): a
	// texture lives for one render, and its warps stop when it is done.
	ctx context.Context
}

// level is one mip level: premultiplied RGBA, 4 bytes a pixel.
type level struct {
	w, h int
	pix  []uint8
}

// NewTexture prepares src for Warp.
func NewTexture(src image.Image) *Texture {
	return NewTextureContext(context.Background(), src)
}

// NewTextureContext prepares src for Warp under ctx: the texture's work,
// and its warps', stop once ctx is done (leaving their pictures partly
// drawn: the caller checks ctx) and are metered as FlattenContext's.
func NewTextureContext(ctx context.Context, src image.Image) *Texture {
	b := src.Bounds()
	l0 := level{w: b.Dx(), h: b.Dy(), pix: make([]uint8, 4*b.Dx()*b.Dy())}
	switch s := src.(type) {
	case *image.NRGBA:
		rows(ctx, image.Rect(0, 0, l0.w, l0.h), func(y0, y1 int) {
			for y := y0; y < y1; y++ {
				in := s.Pix[s.PixOffset(b.Min.X, b.Min.Y+y):][:4*l0.w]
				out := l0.pix[4*l0.w*y:][:4*l0.w]
				for i := 0; i < len(in); i += 4 {
					a := uint32(in[i+3])
					switch a {
					case 255:
						out[i], out[i+1], out[i+2], out[i+3] = in[i], in[i+1], in[i+2], 255
					case 0:
					default:
						out[i] = uint8((uint32(in[i])*a + 127) / 255)
						out[i+1] = uint8((uint32(in[i+1])*a + 127) / 255)
						out[i+2] = uint8((uint32(in[i+2])*a + 127) / 255)
						out[i+3] = uint8(a)
					}
				}
			}
		})
	default:
		// A decoded JPEG (YCbCr), an RGBA PNG: the draw package's own
		// conversions, a band of rows on each core.
		rgba := &image.RGBA{Pix: l0.pix, Stride: 4 * l0.w, Rect: image.Rect(0, 0, l0.w, l0.h)}
		rows(ctx, rgba.Rect, func(y0, y1 int) {
			r := image.Rect(0, y0, l0.w, y1)
			draw.Draw(rgba, r, src, b.Min.Add(r.Min), draw.Src)
		})
	}
	return &Texture{base: l0, ctx: ctx}
}

// mips makes the mip levels, once, when a warp first needs them (a design
// shrunk first never needs its own).
func (t *Texture) mips() {
	t.once.Do(func() {
		levels := []level{t.base}
		for l := t.base; l.w > 1 || l.h > 1; {
			l = l.half(t.ctx)
			levels = append(levels, l)
		}
		t.levels = levels
	})
}

// half averages 2×2 blocks; an odd last row or column is averaged with
// itself.
func (l level) half(ctx context.Context) level {
	n := level{w: (l.w + 1) / 2, h: (l.h + 1) / 2}
	n.pix = make([]uint8, 4*n.w*n.h)
	rows(ctx, image.Rect(0, 0, n.w, n.h), func(y0, y1 int) {
		for y := y0; y < y1; y++ {
			r0 := l.pix[4*l.w*(2*y):]
			r1 := r0
			if 2*y+1 < l.h {
				r1 = l.pix[4*l.w*(2*y+1):]
			}
			out := n.pix[4*n.w*y:]
			for x := 0; x < n.w; x++ {
				i0 := 8 * x
				i1 := i0 + 4
				if 2*x+1 >= l.w {
					i1 = i0
				}
				for c := 0; c < 4; c++ {
					out[4*x+c] = uint8((uint32(r0[i0+c]) + uint32(r0[i1+c]) + uint32(r1[i0+c]) + uint32(r1[i1+c]) + 2) / 4)
				}
			}
		}
	})
	return n
}

// sample is the texture of levels at u, v of its unit square, premultiplied, its
// four channels packed in 16-bit lanes (see spread), filtered for a
// footprint of rho² (squared) source pixels per canvas pixel: bilinear
// where the design grows (rho ≤ 1), trilinear between the two mip levels
// around rho where it shrinks.
//
// Shrinking by under √2 (rho² ≤ 2) is bilinear alone, the aliasing it
// lets through being slight, and the first mip level comes in from
// there, reaching its full weight at 2×: half the work for the common
// mockup whose design is a little larger than its place.
func sample(levels []level, u, v, rho2 float64) uint64 {
	if rho2 <= 2 {
		return levels[0].bilinear(u, v)
	}
	lod := 0.5 * log2(rho2)
	i := int(lod)
	if i >= len(levels)-1 {
		return levels[len(levels)-1].bilinear(u, v)
	}
	f := lod - float64(i)
	if i == 0 {
		f = 2*f - 1
	}
	a := levels[i].bilinear(u, v)
	b := levels[i+1].bilinear(u, v)
	return lerp(a, b, uint64(f*256))
}

// log2 is log₂ x for x ≥ 1, to within 0.09: the exponent plus the
// mantissa's fraction, plenty to weigh two mip levels.
func log2(x float64) float64 {
	b := math.Float64bits(x)
	e := int(b>>52&0x7ff) - 1023
	m := math.Float64frombits(b&^(0x7ff<<52) | 1023<<52)
	return float64(e) + m - 1
}

// spread puts the four bytes of a pixel in four 16-bit lanes, so that one
// 64-bit multiply weighs all four channels.
func spread(x uint32) uint64 {
	v := uint64(x)
	v = (v | v<<16) & 0x0000FFFF0000FFFF
	return (v | v<<8) & 0x00FF00FF00FF00FF
}

// lerp mixes two spread pixels, w on 0..256 towards b.
func lerp(a, b, w uint64) uint64 {
	return ((a*(256-w) + b*w + 0x0080008000800080) >> 8) & 0x00FF00FF00FF00FF
}

// bilinear interpolates the four texels around u, v, clamped at the edges.
func (l *level) bilinear(u, v float64) uint64 {
	fx := u*float64(l.w) - 0.5
	fy := v*float64(l.h) - 0.5
	x0 := int(math.Floor(fx))
	y0 := int(math.Floor(fy))
	ax := uint64((fx - float64(x0)) * 256)
	ay := uint64((fy - float64(y0)) * 256)
	x1, y1 := x0+1, y0+1
	if x0 < 0 {
		x0 = 0
		if x1 < 0 {
			x1 = 0
		}
	}
	if y0 < 0 {
		y0 = 0
		if y1 < 0 {
			y1 = 0
		}
	}
	if x1 > l.w-1 {
		x1 = l.w - 1
		if x0 > x1 {
			x0 = x1
		}
	}
	if y1 > l.h-1 {
		y1 = l.h - 1
		if y0 > y1 {
			y0 = y1
		}
	}
	s := 4 * l.w
	p00 := spread(binary.LittleEndian.Uint32(l.pix[y0*s+4*x0:]))
	p01 := spread(binary.LittleEndian.Uint32(l.pix[y0*s+4*x1:]))
	p10 := spread(binary.LittleEndian.Uint32(l.pix[y1*s+4*x0:]))
	p11 := spread(binary.LittleEndian.Uint32(l.pix[y1*s+4*x1:]))
	return lerp(lerp(p00, p01, ax), lerp(p10, p11, ax), ay)
}

// recip holds 255·2¹⁶ / a, to unpremultiply without dividing.
//
//nolint:gochecknoglobals // read-only table computed once: reciprocals for unpremultiplying
var recip = func() (r [256]uint64) {
	for a := 1; a < 256; a++ {
		r[a] = (255<<16 + uint64(a)/2) / uint64(a)
	}
	return r
}()
