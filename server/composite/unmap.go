package composite

import (
	"context"
	"image"
	"math"
)

// Unmap calls fn for each pixel of r on the canvas that the design
// covers through m, with the point of the design's unit square that Warp
// samples there (clamped to the square): the inverse of m, pixel by
// pixel, for a renderer that resamples the design itself (ffmpeg's remap
// filter, given these points as maps). It reaches the pixels Warp draws,
// by the same tessellation, so a map made from it lines up with Warp's
// picture and its outline; where the mesh folds over itself, each pixel
// keeps the piece Warp keeps. fn is called from several goroutines, for
// distinct pixels, at most once a pixel.
func Unmap(m Mapping, r image.Rectangle, fn func(x, y int, u, v float64)) {
	UnmapContext(context.Background(), m, r, fn)
}

// UnmapContext is Unmap under ctx: it stops between bands of rows once
// ctx is done (the caller checks ctx), and is metered as FlattenContext.
func UnmapContext(ctx context.Context, m Mapping, r image.Rectangle, fn func(x, y int, u, v float64)) {
	pre, persp := splitPerspective(m)
	inv := homography{1, 0, 0, 0, 1, 0, 0, 0, 1}
	if persp != nil {
		var ok bool
		if inv, ok = persp.inverse(); !ok {
			return
		}
	}
	nu, nv := gridCells(m, pre)
	grid, bounds, ok := warpGrid(pre, persp, nu, nv)
	if !ok {
		return
	}
	if bounds = bounds.Intersect(r); bounds.Empty() {
		return
	}
	tris := withinOverdraw(triangulate(grid, nu, nv, bounds), bounds)
	// cover holds the coverage of the piece each pixel took, as Warp's
	// draw keeps it: the first piece with the largest.
	cover := make([]uint8, bounds.Dx()*bounds.Dy())
	type hit struct{ u, v float64 }
	hits := make([]hit, len(cover))
	rows(ctx, bounds, func(y0, y1 int) {
		for k := range tris {
			tr := &tris[k]
			if tr.y1 <= y0 || tr.y0 >= y1 {
				continue
			}
			for y := max(tr.y0, y0); y < min(tr.y1, y1); y++ {
				cy := float64(y) + 0.5
				xa, xb := tr.span(cy, 0)
				xa, xb = max(xa, bounds.Min.X), min(xb, bounds.Max.X)
				ia, ib := tr.span(cy, 1)
				if tr.nearRow(cy) {
					ia, ib = 0, 0
				}
				row := (y - bounds.Min.Y) * bounds.Dx()
				for x := xa; x < xb; x++ {
					cx := float64(x) + 0.5
					c8 := uint8(255)
					if x < ia || x >= ib {
						c8 = uint8(tr.coverage(cx, cy)*255 + 0.5)
					}
					i := row + x - bounds.Min.X
					if c8 == 0 || c8 <= cover[i] {
						continue
					}
					cover[i] = c8
					iw := 1 / (inv[6]*cx + inv[7]*cy + inv[8])
					qx := (inv[0]*cx + inv[1]*cy + inv[2]) * iw
					qy := (inv[3]*cx + inv[4]*cy + inv[5]) * iw
					a := &tr.aff
					dx, dy := qx-tr.q0.X, qy-tr.q0.Y
					hits[i] = hit{clamp01(a[0]*dx + a[1]*dy + tr.uv0.X), clamp01(a[2]*dx + a[3]*dy + tr.uv0.Y)}
				}
			}
		}
		for y := y0; y < y1; y++ {
			row := (y - bounds.Min.Y) * bounds.Dx()
			for x := bounds.Min.X; x < bounds.Max.X; x++ {
				if i := row + x - bounds.Min.X; cover[i] > 0 && !math.IsNaN(hits[i].u) && !math.IsNaN(hits[i].v) {
					fn(x, y, hits[i].u, hits[i].v)
				}
			}
		}
	})
}
