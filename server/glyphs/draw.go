package glyphs

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
	"slices"

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
	var colour *image.RGBA
	fills, shapes, bitmaps := l.inked(origins, p, k, w, h)
	cov := image.NewAlpha(image.Rect(0, 0, w, h))
	// filled is the outlines in their colours, premultiplied, when they
	// are of more than one: each colour's outlines are filled apart,
	// over the part of the picture they lie on, and their coverage
	// together (cov) is what the stroke grows from.
	filled := fillOutlines(cov, fills, shapes, k)
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
	if len(fills) == 1 {
		fill = premul(fills[0])
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			i := y*w + x
			// Bottom to top: stroke, fill, colour glyphs.
			var px [4]float32
			if stroke != nil && stroke[i] > 0 {
				px = over(px, scale(line, stroke[i]))
			}
			if filled != nil {
				if c := filled.Pix[4*i : 4*i+4]; c[3] > 0 {
					px = over(px, [4]float32{float32(c[0]) / 255, float32(c[1]) / 255, float32(c[2]) / 255, float32(c[3]) / 255})
				}
			} else if a := cov.Pix[i]; a > 0 {
				px = over(px, scale(fill, float32(a)/255))
			}
			if colour != nil && colour.Pix[4*i+3] > 0 {
				c := colour.Pix[4*i : 4*i+4]
				px = over(px, [4]float32{float32(c[0]) / 255, float32(c[1]) / 255, float32(c[2]) / 255, float32(c[3]) / 255})
			}
			if px[3] == 0 {
				continue
			}
			blend(dst.Pix[dst.PixOffset(b.Min.X+x, b.Min.Y+y):], px)
		}
	}
}

// inked are the glyphs of the lines that draw on a w×h picture with
// their lines at origins, scaled k times: the outlines grouped by the
// colour that fills them (the spans' own, or the paint's; one colour
// for a flat paint), and the colour glyphs' bitmaps.
func (l *Layout) inked(origins []Point, p Paint, k float64, w, h int) (fills []color.NRGBA, shapes [][]glyphAt, bitmaps []bitmapAt) {
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
			fill := p.Fill
			if st := l.styles[g.span]; st.fill != nil && !p.Flat {
				fill = *st.fill
			}
			n := slices.Index(fills, fill)
			if n < 0 {
				n = len(fills)
				fills, shapes = append(fills, fill), append(shapes, nil)
			}
			shapes[n] = append(shapes[n], glyphAt{g: g, x: gx, y: gy, box: rectF{bx, by, bw, bh}})
		}
	}
	return fills, shapes, bitmaps
}

// fillOutlines fills the outlines of shapes, scaled k times, into cov (their
// coverage together), and, when they are of more than one colour, into
// the picture it returns, each colour's outlines in their colour
// (premultiplied); nil for one colour, which the caller paints from cov.
func fillOutlines(cov *image.Alpha, fills []color.NRGBA, shapes [][]glyphAt, k float64) *image.RGBA {
	w, h := cov.Rect.Dx(), cov.Rect.Dy()
	var filled *image.RGBA
	if len(fills) == 1 {
		ras := vector.NewRasterizer(w, h)
		outlined := false
		for _, ga := range shapes[0] {
			outlined = ga.outline(ras, k, 0, 0) || outlined
		}
		if outlined {
			ras.Draw(cov, cov.Bounds(), image.Opaque, image.Point{})
		}
	} else if len(fills) > 1 {
		filled = image.NewRGBA(image.Rect(0, 0, w, h))
		var ras vector.Rasterizer
		for n, group := range shapes {
			var r bounds
			for _, ga := range group {
				r.add(ga.box)
			}
			// A pixel of margin for antialiasing, on the picture.
			x0, y0 := max(int(math.Floor(r.x0))-1, 0), max(int(math.Floor(r.y0))-1, 0)
			x1, y1 := min(int(math.Ceil(r.x1))+1, w), min(int(math.Ceil(r.y1))+1, h)
			if x1 <= x0 || y1 <= y0 {
				continue
			}
			ras.Reset(x1-x0, y1-y0)
			outlined := false
			for _, ga := range group {
				outlined = ga.outline(&ras, k, float64(x0), float64(y0)) || outlined
			}
			if !outlined {
				continue
			}
			part := image.NewAlpha(image.Rect(0, 0, x1-x0, y1-y0))
			ras.Draw(part, part.Bounds(), image.Opaque, image.Point{})
			c := premul(fills[n])
			for y := y0; y < y1; y++ {
				for x := x0; x < x1; x++ {
					a := part.Pix[(y-y0)*part.Stride+x-x0]
					if a == 0 {
						continue
					}
					i := y*w + x
					cov.Pix[i] = max(cov.Pix[i], a)
					d := filled.Pix[4*i : 4*i+4]
					px := over([4]float32{float32(d[0]) / 255, float32(d[1]) / 255, float32(d[2]) / 255, float32(d[3]) / 255}, scale(c, float32(a)/255))
					d[0], d[1], d[2], d[3] = byte8(px[0]), byte8(px[1]), byte8(px[2]), byte8(px[3])
				}
			}
		}
	}
	return filled
}

// blend puts px (premultiplied) over the NRGBA pixel d.
func blend(d []uint8, px [4]float32) {
	da := float32(d[3]) / 255
	under := [4]float32{float32(d[0]) / 255 * da, float32(d[1]) / 255 * da, float32(d[2]) / 255 * da, da}
	res := over(under, px)
	if res[3] <= 0 {
		return
	}
	d[0], d[1], d[2], d[3] = byte8(res[0]/res[3]), byte8(res[1]/res[3]), byte8(res[2]/res[3]), byte8(res[3])
}

// glyphAt is an outline glyph and where it is drawn: its origin, and its
// box.
type glyphAt struct {
	g    placed
	x, y float64
	box  rectF
}

// outline adds the glyph's outline, k times as large, to ras, whose
// pixel 0, 0 is dx, dy of the picture; false when it has none.
func (ga glyphAt) outline(ras *vector.Rasterizer, k, dx, dy float64) bool {
	g := ga.g
	out, ok := g.face.GlyphDataOutline(g.gid)
	if !ok {
		return false
	}
	scale := float32(g.size * k / g.font.upem)
	x0, y0 := float32(ga.x-dx), float32(ga.y-dy)
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
	}
	return open
}

// bounds is the smallest rectangle holding every rectangle added.
type bounds struct {
	set            bool
	x0, y0, x1, y1 float64
}

func (b *bounds) add(r rectF) {
	if !b.set {
		*b = bounds{set: true, x0: r.x, y0: r.y, x1: r.x + r.w, y1: r.y + r.h}
		return
	}
	b.x0, b.y0 = min(b.x0, r.x), min(b.y0, r.y)
	b.x1, b.y1 = max(b.x1, r.x+r.w), max(b.y1, r.y+r.h)
}

// DrawBackgrounds paints the spans' backgrounds (Span.Background) over
// dst, k times as large, line i's origin at origins[i]: on each line,
// one rectangle for each stretch of glyphs of one background, as far as
// they advance (white space at a line's end advances none), their first
// font's ascent above the baseline and descent below. Edges are
// antialiased.
func (l *Layout) DrawBackgrounds(dst *image.NRGBA, origins []Point, k float64) {
	for i, ln := range l.Lines {
		if i >= len(origins) {
			break
		}
		o := origins[i]
		if math.IsInf(o.X, 0) || math.IsInf(o.Y, 0) {
			continue
		}
		for _, bx := range ln.boxes() {
			fillRect(dst, o.X+bx.x0*k, o.X+bx.x1*k, o.Y+bx.top*k, o.Y+bx.bottom*k, bx.c)
		}
	}
}

// HasBackgrounds reports whether any span paints a background on the
// layout's lines.
func (l *Layout) HasBackgrounds() bool {
	for _, ln := range l.Lines {
		if len(ln.boxes()) > 0 {
			return true
		}
	}
	return false
}

// fillRect paints c over the rectangle from x0, y0 to x1, y1 of dst,
// each pixel by how much of it the rectangle covers.
func fillRect(dst *image.NRGBA, x0, x1, y0, y1 float64, c color.NRGBA) {
	b := dst.Bounds()
	w, h := b.Dx(), b.Dy()
	px0, px1 := max(int(math.Floor(x0)), 0), min(int(math.Ceil(x1)), w)
	py0, py1 := max(int(math.Floor(y0)), 0), min(int(math.Ceil(y1)), h)
	top := premul(c)
	for y := py0; y < py1; y++ {
		cy := min(y1, float64(y+1)) - max(y0, float64(y))
		for x := px0; x < px1; x++ {
			cx := min(x1, float64(x+1)) - max(x0, float64(x))
			if a := float32(cx * cy); a > 0 {
				blend(dst.Pix[dst.PixOffset(b.Min.X+x, b.Min.Y+y):], scale(top, min(a, 1)))
			}
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
