package mockup

import (
	"fmt"
	"image"
	"math"

	"github.com/kinohq/kino/server/composite"
	"github.com/kinohq/kino/server/psd"
)

// tiled draws the pattern p tiles over area, for layer l (a pattern
// overlay's or a pattern fill's); nil, with a warning, when the pattern
// cannot be decoded. Each pattern is decoded once a render.
func (r *renderer) tiled(l *psd.Layer, p psd.PatternFill, area image.Rectangle) *image.NRGBA {
	src, ok := r.patterns[p.Pattern]
	if !ok {
		var err error
		if pt := r.t.File.Pattern(p.Pattern); pt != nil {
			if src, err = pt.Image(); err != nil {
				r.warnings = append(r.warnings, fmt.Sprintf("layer %q: pattern %q not drawn: %v", l.Path, p.Name, err))
				src = nil
			}
		}
		if r.patterns == nil {
			r.patterns = map[string]*image.NRGBA{}
		}
		r.patterns[p.Pattern] = src
	}
	if src == nil {
		return nil
	}
	origin := p.Phase
	if p.Linked {
		origin.X += l.Reference.X
		origin.Y += l.Reference.Y
	}
	return tile(src, p, origin, area)
}

// patternFill draws a pattern fill layer over the canvas into cl; false
// when its pattern cannot be decoded (it is then drawn from its own
// pixels).
func (r *renderer) patternFill(l *psd.Layer, p psd.PatternFill, cl *composite.Layer) bool {
	img := r.tiled(l, p, image.Rect(0, 0, r.t.File.Width, r.t.File.Height))
	if img == nil {
		return false
	}
	cl.Image = img
	return true
}

// tile repeats src over area from origin, scaled and turned as p says.
// At its own size and unturned it is copied pixel for pixel (from the
// origin rounded); otherwise each pixel samples it bilinearly at
// (x/scale, y/scale) from the origin when enlarged, half a pattern pixel
// further when shrunk. Both are fitted on Photoshop's pictures: at 81 %
// (ag-pattern.psd) the half pixel draws 50.8 dB against 41.5 without and
// 37 for the nearest pixel; at 200 % (psd-tools' patterns.psd) no
// offset draws its overlays exactly, half a pixel 16 dB.
func tile(src *image.NRGBA, p psd.PatternFill, origin psd.Point, area image.Rectangle) *image.NRGBA {
	img := image.NewNRGBA(area)
	w, h := src.Rect.Dx(), src.Rect.Dy()
	if w == 0 || h == 0 {
		return img
	}
	if p.Scale == 1 && p.Angle == 0 {
		ox, oy := int(math.Round(origin.X)), int(math.Round(origin.Y))
		for y := area.Min.Y; y < area.Max.Y; y++ {
			sy := mod(y-oy, h)
			row := img.Pix[img.PixOffset(area.Min.X, y):]
			for x := area.Min.X; x < area.Max.X; x++ {
				sx := mod(x-ox, w)
				copy(row[4*(x-area.Min.X):4*(x-area.Min.X)+4], src.Pix[src.PixOffset(sx, sy):])
			}
		}
		return img
	}
	a := p.Angle * math.Pi / 180
	cos, sin := math.Cos(a)/p.Scale, math.Sin(a)/p.Scale
	off := 0.0
	if p.Scale < 1 {
		off = 0.5
	}
	for y := area.Min.Y; y < area.Max.Y; y++ {
		dy := float64(y) - origin.Y
		row := img.Pix[img.PixOffset(area.Min.X, y):]
		for x := area.Min.X; x < area.Max.X; x++ {
			dx := float64(x) - origin.X
			// The pattern turned counter-clockwise on the screen (y
			// down): the inverse turn finds the pattern's point.
			u := dx*cos - dy*sin + off
			v := dx*sin + dy*cos + off
			bilinear(src, u, v, row[4*(x-area.Min.X):4*(x-area.Min.X)+4])
		}
	}
	return img
}

// bilinear samples the tile src at (u, v), wrapping around, into px
// (non-premultiplied: colours weighted by their alpha).
func bilinear(src *image.NRGBA, u, v float64, px []byte) {
	w, h := src.Rect.Dx(), src.Rect.Dy()
	fu, fv := math.Floor(u), math.Floor(v)
	x0, y0 := mod(int(fu), w), mod(int(fv), h)
	x1, y1 := (x0+1)%w, (y0+1)%h
	fx, fy := u-fu, v-fv
	var c [4]float64
	for _, s := range [4]struct {
		x, y int
		k    float64
	}{{x0, y0, (1 - fx) * (1 - fy)}, {x1, y0, fx * (1 - fy)}, {x0, y1, (1 - fx) * fy}, {x1, y1, fx * fy}} {
		q := src.Pix[src.PixOffset(s.x, s.y):]
		wa := s.k * float64(q[3])
		c[0] += wa * float64(q[0])
		c[1] += wa * float64(q[1])
		c[2] += wa * float64(q[2])
		c[3] += wa
	}
	if c[3] <= 0 {
		px[0], px[1], px[2], px[3] = 0, 0, 0, 0
		return
	}
	px[0] = uint8(c[0]/c[3] + 0.5)
	px[1] = uint8(c[1]/c[3] + 0.5)
	px[2] = uint8(c[2]/c[3] + 0.5)
	px[3] = uint8(c[3] + 0.5)
}

// mod is a modulo n, 0 to n-1 for any a.
func mod(a, n int) int {
	if a %= n; a < 0 {
		a += n
	}
	return a
}
