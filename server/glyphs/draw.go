package glyphs

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"

	"github.com/go-text/typesetting/font"
	ot "github.com/go-text/typesetting/font/opentype"
	xdraw "golang.org/x/image/draw"
	"golang.org/x/image/vector"

	"github.com/kinohq/kino/server/composite"
)

// Paint is how a layout's glyphs are coloured.
type Paint struct {
	// Fill colours the glyphs' outlines.
	Fill color.NRGBA
	// StrokeWidth pixels around every glyph are Stroke, under the glyph.
	StrokeWidth float64
	Stroke      color.NRGBA
	// Flat draws everything in Fill, as one shape (colour glyphs, and
	// the stroke, whatever Stroke is): a shadow's.
	Flat bool
}

// Point is a place on a picture, in pixels from its top left corner.
type Point struct{ X, Y float64 }

// Draw paints the layout's lines over dst, line i's origin (the left end
// of its baseline) at origins[i]. Outlines are filled antialiased at
// their exact positions, colour glyphs are their bitmaps scaled to the
// glyph's size.
func (l *Layout) Draw(dst *image.NRGBA, origins []Point, p Paint) {
	l.DrawScaled(dst, origins, p, 1)
}

// DrawScaled is Draw with the glyphs, their places and the stroke k times
// as large: origins are where the scaled lines start. A picture larger
// than kino paints in full is painted smaller, then scaled up by ffmpeg.
func (l *Layout) DrawScaled(dst *image.NRGBA, origins []Point, p Paint, k float64) {
	b := dst.Bounds()
	w, h := b.Dx(), b.Dy()
	if w <= 0 || h <= 0 {
		return
	}
	ras := vector.NewRasterizer(w, h)
	var colour *image.RGBA
	var bitmaps []bitmapAt
	outlined := false
	for i, ln := range l.Lines {
		if i >= len(origins) {
			break
		}
		o := origins[i]
		for _, g := range ln.glyphs {
			if !g.ink {
				continue
			}
			gx, gy := o.X+g.x*k, o.Y+g.y*k
			bx, by, bw, bh := gx+g.bx*k, gy+g.by*k, g.bw*k, g.bh*k
			// Glyphs wholly off the picture cost nothing.
			if bx+bw < 0 || bx > float64(w) || by+bh < 0 || by > float64(h) {
				continue
			}
			if g.font.colour {
				if bm, ok := g.face.GlyphDataBitmap(g.gid); ok && bm.Format == font.PNG {
					bitmaps = append(bitmaps, bitmapAt{data: bm.Data, r: rectF{bx, by, bw, bh}})
					continue
				}
			}
			out, ok := g.face.GlyphDataOutline(g.gid)
			if !ok {
				continue
			}
			scale := float32(g.size * k / g.font.upem)
			x0, y0 := float32(gx), float32(gy)
			pt := func(q ot.SegmentPoint) (float32, float32) { return x0 + q.X*scale, y0 - q.Y*scale }
			open := false
			for _, seg := range out.Segments {
				switch seg.Op {
				case ot.SegmentOpMoveTo:
					if open {
						ras.ClosePath()
					}
					ras.MoveTo(pt(seg.Args[0]))
					open = true
				case ot.SegmentOpLineTo:
					ras.LineTo(pt(seg.Args[0]))
				case ot.SegmentOpQuadTo:
					ax, ay := pt(seg.Args[0])
					bx, by := pt(seg.Args[1])
					ras.QuadTo(ax, ay, bx, by)
				case ot.SegmentOpCubeTo:
					ax, ay := pt(seg.Args[0])
					bx, by := pt(seg.Args[1])
					cx, cy := pt(seg.Args[2])
					ras.CubeTo(ax, ay, bx, by, cx, cy)
				}
			}
			if open {
				ras.ClosePath()
				outlined = true
			}
		}
	}
	cov := image.NewAlpha(image.Rect(0, 0, w, h))
	if outlined {
		ras.Draw(cov, cov.Bounds(), image.Opaque, image.Point{})
	}
	if len(bitmaps) > 0 {
		colour = image.NewRGBA(image.Rect(0, 0, w, h))
		for _, bm := range bitmaps {
			bm.draw(colour)
		}
		if p.Flat {
			for i := range cov.Pix {
				cov.Pix[i] = max(cov.Pix[i], colour.Pix[4*i+3])
			}
			colour = nil
		}
	}
	var stroke []float32
	if p.StrokeWidth > 0 {
		stroke = dilate(cov, colour, p.StrokeWidth*k)
	}
	if p.Flat && stroke != nil {
		// One shape in one colour: the stroke and the glyphs together,
		// their overlap not counted twice.
		for i, a := range stroke {
			cov.Pix[i] = byte8(max(a, float32(cov.Pix[i])/255))
		}
		stroke = nil
	}
	fill, line := premul(p.Fill), premul(p.Stroke)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			i := y*w + x
			// Bottom to top: stroke, fill, colour glyphs.
			var px [4]float32
			if stroke != nil && stroke[i] > 0 {
				px = over(px, scale(line, stroke[i]))
			}
			if a := cov.Pix[i]; a > 0 {
				px = over(px, scale(fill, float32(a)/255))
			}
			if colour != nil && colour.Pix[4*i+3] > 0 {
				c := colour.Pix[4*i : 4*i+4]
				px = over(px, [4]float32{float32(c[0]) / 255, float32(c[1]) / 255, float32(c[2]) / 255, float32(c[3]) / 255})
			}
			if px[3] == 0 {
				continue
			}
			d := dst.Pix[dst.PixOffset(b.Min.X+x, b.Min.Y+y):]
			da := float32(d[3]) / 255
			under := [4]float32{float32(d[0]) / 255 * da, float32(d[1]) / 255 * da, float32(d[2]) / 255 * da, da}
			res := over(under, px)
			if res[3] <= 0 {
				continue
			}
			d[0], d[1], d[2], d[3] = byte8(res[0]/res[3]), byte8(res[1]/res[3]), byte8(res[2]/res[3]), byte8(res[3])
		}
	}
}

// bitmapAt is a colour glyph's PNG and where it is drawn.
type bitmapAt struct {
	data []byte
	r    rectF
}

type rectF struct{ x, y, w, h float64 }

// draw scales the bitmap into its rectangle, over dst. A bitmap that
// does not decode draws nothing.
func (bm bitmapAt) draw(dst *image.RGBA) {
	img, err := png.Decode(bytes.NewReader(bm.data))
	if err != nil || bm.r.w <= 0 || bm.r.h <= 0 {
		return
	}
	// Scaled to whole pixels: a bitmap has no outline to place finer.
	r := image.Rect(int(math.Round(bm.r.x)), int(math.Round(bm.r.y)),
		int(math.Round(bm.r.x+bm.r.w)), int(math.Round(bm.r.y+bm.r.h)))
	xdraw.CatmullRom.Scale(dst, r, img, img.Bounds(), xdraw.Over, nil)
}

// premul is c premultiplied, from 0 to 1.
func premul(c color.NRGBA) [4]float32 {
	a := float32(c.A) / 255
	return [4]float32{float32(c.R) / 255 * a, float32(c.G) / 255 * a, float32(c.B) / 255 * a, a}
}

func scale(c [4]float32, k float32) [4]float32 {
	return [4]float32{c[0] * k, c[1] * k, c[2] * k, c[3] * k}
}

// over is top over bottom, premultiplied.
func over(bottom, top [4]float32) [4]float32 {
	k := 1 - top[3]
	return [4]float32{top[0] + bottom[0]*k, top[1] + bottom[1]*k, top[2] + bottom[2]*k, top[3] + bottom[3]*k}
}

func byte8(v float32) uint8 {
	return uint8(min(max(v*255+0.5, 0), 255))
}

// dilate is the stroke's coverage: the glyphs (their outlines' coverage
// and colour glyphs' alpha) grown by width pixels, antialiased over the
// last pixel. Distances are exact Euclidean distances to the nearest
// pixel at least half covered (Felzenszwalb and Huttenlocher's transform),
// so a stroke's corners are round, as FreeType's stroker draws them.
func dilate(cov *image.Alpha, colour *image.RGBA, width float64) []float32 {
	b := cov.Bounds()
	w, h := b.Dx(), b.Dy()
	base := make([]float32, w*h)
	for i := range base {
		a := cov.Pix[i]
		if colour != nil {
			a = max(a, colour.Pix[4*i+3])
		}
		base[i] = float32(a) / 255
	}
	d := composite.SquaredDistance(base, w, h)
	s := make([]float32, w*h)
	for i := range s {
		// The edge lies about half a pixel past the centre of the
		// nearest covered pixel: the stroke ends width pixels beyond.
		a := float32(min(max(width+1-math.Sqrt(d[i]), 0), 1))
		s[i] = max(a, base[i])
	}
	return s
}
