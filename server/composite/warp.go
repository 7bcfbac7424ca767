package composite

import (
	"image"
	"math"
	"sync/atomic"
)

// Warp draws src through m onto a transparent canvas of width × height:
// the design's unit square goes where m says. See Texture.Warp.
func Warp(src image.Image, m Mapping, width, height int) *image.NRGBA {
	return NewTexture(src).Warp(m, width, height)
}

// Warp draws the texture through m onto a transparent canvas of width ×
// height pixels. The picture returned holds only the part of the canvas
// the design covers: its Bounds() are in canvas coordinates (a Layer's
// Image as it is), and everything outside them is transparent.
//
// Every canvas pixel is mapped back to the design: exactly for a
// Perspective, and through a fine tessellation of the unit square
// (exact at its vertices, affine inside each triangle, then exact
// through a final perspective) for a Mesh or anything composed with
// Then. The design is sampled bilinearly where it grows or shrinks by
// under √2 and from its mip levels (trilinear, by the local Jacobian)
// where it shrinks more; under a perspective alone, a design over 1.5
// times its place is first shrunk by Catmull-Rom. The outline is
// antialiased by the coverage of each pixel.
func (t *Texture) Warp(m Mapping, width, height int) *image.NRGBA {
	if t.base.w == 0 || t.base.h == 0 {
		return image.NewNRGBA(image.Rectangle{})
	}
	pre, persp := splitPerspective(m)
	t, levels := t.levelsFor(m, pre, persp)
	inv := homography{1, 0, 0, 0, 1, 0, 0, 0, 1}
	if persp != nil {
		var ok bool
		if inv, ok = persp.inverse(); !ok {
			return image.NewNRGBA(image.Rectangle{})
		}
	}
	nu, nv := gridCells(m, pre)
	grid, bounds, ok := warpGrid(pre, persp, nu, nv)
	if !ok {
		return image.NewNRGBA(image.Rectangle{})
	}
	bounds = bounds.Intersect(image.Rect(0, 0, width, height))
	out := image.NewNRGBA(bounds)
	if bounds.Empty() {
		return out
	}
	tris := withinOverdraw(triangulate(grid, nu, nv, bounds), bounds)
	t.draw(out, tris, inv, levels)
	return out
}

// splitPerspective splits m into a warp of the unit square (nil when
// none) and a final perspective (nil when none), which Warp inverts
// exactly.
func splitPerspective(m Mapping) (pre Mapping, persp *homography) {
	switch mm := m.(type) {
	case *homography:
		return nil, mm
	case then:
		if h, ok := mm.second.(*homography); ok {
			return mm.first, h
		}
	}
	return m, nil
}

// levelsFor returns the texture to sample for m (t itself, or t shrunk)
// and the levels sample reads: the base alone, or every mip level where
// the design shrinks enough to need them.
func (t *Texture) levelsFor(m, pre Mapping, persp *homography) (*Texture, []level) {
	// Under a perspective alone, a design much larger than its place is
	// first shrunk with a sharp cubic, as Photoshop's bicubic transform
	// does; the mip levels then only finish the job where it shrinks
	// more. Photoshop's warps resample softer: through a mesh the mip
	// levels alone match its pictures better (36 dB against 31 on its
	// own quilt warps), so a mesh skips this.
	w, h := t.base.w, t.base.h
	ku, kv, most := footprint(m, w, h)
	if persp != nil && pre == nil && (ku > shrinkAbove || kv > shrinkAbove) {
		nw := min(w, max(1, int(math.Ceil(float64(w)/math.Max(ku, 1)))))
		nh := min(h, max(1, int(math.Ceil(float64(h)/math.Max(kv, 1)))))
		t = t.shrunk(nw, nh)
		most /= math.Min(float64(w)/float64(nw), float64(h)/float64(nh))
	}
	// Mip levels serve only where the design shrinks by more than √2
	// (see sample); a little margin for the footprint's sampling.
	levels := []level{t.base}
	if most > 1.3 || math.IsNaN(most) {
		t.mips()
		levels = t.levels
	}
	return t, levels
}

// gridCells is how many cells across and down the unit square is cut
// into: 2×2 for a perspective alone, the mapping's own otherwise.
func gridCells(m, pre Mapping) (nu, nv int) {
	nu, nv = 2, 2
	if pre != nil {
		nu, nv = cells(pre)
		// No finer than about 2 pixels a cell over the mapping's extent:
		// a 64×64 quilt in a 10-pixel quad needs no half-million
		// triangles (110 MB and half a second).
		if e := extent(m); e < 2*float64(max(nu, nv)) {
			k := max(2, int(math.Ceil(e/2)))
			nu, nv = min(nu, k), min(nv, k)
		}
		// Even, so that the diagonals below leave each corner of the
		// outline to one triangle.
		nu, nv = nu+nu%2, nv+nv%2
	}
	return nu, nv
}

// vertex is a vertex of Warp's grid: in the design (uv), after the warp
// (q) and on the canvas (d).
type vertex struct{ uv, q, d Point }

// warpGrid maps the grid's vertices to the canvas, with the box of the
// pixels they reach; false when a vertex lands at no finite point.
func warpGrid(pre Mapping, persp *homography, nu, nv int) ([]vertex, image.Rectangle, bool) {
	grid := make([]vertex, (nu+1)*(nv+1))
	bounds := image.Rectangle{}
	for i := 0; i <= nv; i++ {
		for j := 0; j <= nu; j++ {
			uv := Point{float64(j) / float64(nu), float64(i) / float64(nv)}
			q := uv
			if pre != nil {
				q = pre.Map(uv)
			}
			d := q
			if persp != nil {
				d = persp.Map(q)
			}
			if !finite(d) {
				return nil, image.Rectangle{}, false
			}
			grid[i*(nu+1)+j] = vertex{uv, q, d}
			px := image.Rect(pixel(math.Floor(d.X))-1, pixel(math.Floor(d.Y))-1, pixel(math.Ceil(d.X))+1, pixel(math.Ceil(d.Y))+1)
			bounds = bounds.Union(px)
		}
	}
	return grid, bounds, true
}

// triangulate cuts each cell of the grid into two triangles, each knowing
// the outline segments near it, which cut the coverage of its pixels.
func triangulate(grid []vertex, nu, nv int, bounds image.Rectangle) []triangle {
	// The outline's segments, each oriented with the inside of its cell
	// positive, listed by the grid vertices they end at.
	at := func(i, j int) int { return i*(nu+1) + j }
	outline := map[int][]segment{}
	addSegment := func(v0, v1, c0, c1, c2, c3 int) {
		p0, p1 := grid[v0].d, grid[v1].d
		nx, ny := -(p1.Y - p0.Y), p1.X-p0.X
		l := math.Hypot(nx, ny)
		if l == 0 {
			return
		}
		nx, ny = nx/l, ny/l
		cx := (grid[c0].d.X + grid[c1].d.X + grid[c2].d.X + grid[c3].d.X) / 4
		cy := (grid[c0].d.Y + grid[c1].d.Y + grid[c2].d.Y + grid[c3].d.Y) / 4
		if nx*(cx-p0.X)+ny*(cy-p0.Y) < 0 {
			nx, ny = -nx, -ny
		}
		sg := segment{v0: v0, v1: v1, line: [3]float64{nx, ny, -(nx*p0.X + ny*p0.Y)}}
		outline[v0] = append(outline[v0], sg)
		outline[v1] = append(outline[v1], sg)
	}
	for j := 0; j < nu; j++ {
		addSegment(at(0, j), at(0, j+1), at(0, j), at(0, j+1), at(1, j+1), at(1, j))
		addSegment(at(nv, j), at(nv, j+1), at(nv-1, j), at(nv-1, j+1), at(nv, j+1), at(nv, j))
	}
	for i := 0; i < nv; i++ {
		addSegment(at(i, 0), at(i+1, 0), at(i, 0), at(i, 1), at(i+1, 1), at(i+1, 0))
		addSegment(at(i, nu), at(i+1, nu), at(i, nu-1), at(i, nu), at(i+1, nu), at(i+1, nu-1))
	}
	tris := make([]triangle, 0, 2*nu*nv)
	for i := 0; i < nv; i++ {
		for j := 0; j < nu; j++ {
			a, b, c, d := at(i, j), at(i, j+1), at(i+1, j+1), at(i+1, j)
			// Alternate the diagonals: each corner of the design is then
			// the corner of one triangle holding both its outline edges,
			// whose coverages multiply.
			halves := [2][3]int{{a, b, c}, {a, c, d}}
			if (i+j)%2 == 0 {
				halves = [2][3]int{{a, b, d}, {b, c, d}}
			}
			for _, h := range halves {
				v := [3]vertex{grid[h[0]], grid[h[1]], grid[h[2]]}
				tr, ok := newTriangle([3]Point{v[0].uv, v[1].uv, v[2].uv}, [3]Point{v[0].q, v[1].q, v[2].q}, [3]Point{v[0].d, v[1].d, v[2].d}, bounds)
				if !ok {
					continue
				}
				// A triangle touching the outline at a vertex only still
				// has pixels within half a pixel of it there: the outline
				// segments at that vertex cut their coverage too.
				for k, vi := range h {
					for _, sg := range outline[vi] {
						own := false
						for e := 0; e < 3; e++ {
							x, y := h[e], h[(e+1)%3]
							own = own || (x == sg.v0 && y == sg.v1) || (x == sg.v1 && y == sg.v0)
						}
						dup := false
						for _, n := range tr.near {
							dup = dup || n.line == sg.line
						}
						if !own && !dup {
							tr.near = append(tr.near, nearLine{line: sg.line, at: v[k].d})
						}
					}
				}
				tris = append(tris, tr)
			}
		}
	}
	return tris
}

// withinOverdraw keeps the triangles whose boxes, together, visit at most
// maxOverdraw times the pixels of bounds. A mesh folded over itself again
// and again (a hostile file's: a 64×64 quilt of control points flung
// between the quad's corners) covers each pixel once per fold, and
// drawing it would take minutes. An honest warp visits about twice its
// box's pixels (a triangle's box is twice its area): past that budget,
// the triangles left are not drawn.
func withinOverdraw(tris []triangle, bounds image.Rectangle) []triangle {
	budget := maxOverdraw * int64(bounds.Dx()) * int64(bounds.Dy())
	var spent int64
	for k := range tris {
		area := int64(tris[k].x1-tris[k].x0) * int64(tris[k].y1-tris[k].y0)
		if spent+area > budget {
			tris = tris[:k]
			break
		}
		spent += area
	}
	if h := visitsHook.Load(); h != nil {
		(*h)(spent, bounds)
	}
	return tris
}

// draw fills out with the texture through the triangles: each pixel is
// mapped back exactly through inv, then through its triangle's affine map
// to the design, and sampled from levels.
func (t *Texture) draw(out *image.NRGBA, tris []triangle, inv homography, levels []level) {
	bounds := out.Rect
	// cover keeps each pixel's coverage so that a pixel on a seam or an
	// outline that two triangles reach keeps the larger one, not both.
	cover := make([]uint8, bounds.Dx()*bounds.Dy())
	sw, sh := float64(t.base.w), float64(t.base.h)
	rows(t.ctx, bounds, func(y0, y1 int) {
		for k := range tris {
			tr := &tris[k]
			if tr.y1 <= y0 || tr.y0 >= y1 {
				continue
			}
			ya, yb := max(tr.y0, y0), min(tr.y1, y1)
			for y := ya; y < yb; y++ {
				cy := float64(y) + 0.5
				xa, xb := tr.span(cy, 0)
				xa, xb = max(xa, bounds.Min.X), min(xb, bounds.Max.X)
				// Inside [ia, ib) every pixel is wholly inside the
				// outline: no coverage to work out.
				ia, ib := tr.span(cy, 1)
				if tr.nearRow(cy) {
					ia, ib = 0, 0
				}
				row := out.Pix[out.PixOffset(bounds.Min.X, y):]
				crow := cover[(y-bounds.Min.Y)*bounds.Dx():]
				for x := xa; x < xb; x++ {
					cx := float64(x) + 0.5
					i := x - bounds.Min.X
					c8 := uint8(255)
					cov := uint64(256)
					if x < ia || x >= ib {
						f := tr.coverage(cx, cy)
						c8 = uint8(f*255 + 0.5)
						cov = uint64(f * 256)
					}
					if c8 == 0 || c8 <= crow[i] {
						continue
					}
					// Back to the warped unit square, exactly through the
					// perspective, with its derivatives for the footprint.
					iw := 1 / (inv[6]*cx + inv[7]*cy + inv[8])
					qx := (inv[0]*cx + inv[1]*cy + inv[2]) * iw
					qy := (inv[3]*cx + inv[4]*cy + inv[5]) * iw
					qxx, qxy := (inv[0]-qx*inv[6])*iw, (inv[1]-qx*inv[7])*iw
					qyx, qyy := (inv[3]-qy*inv[6])*iw, (inv[4]-qy*inv[7])*iw
					a := &tr.aff
					dx, dy := qx-tr.q0.X, qy-tr.q0.Y
					u := a[0]*dx + a[1]*dy + tr.uv0.X
					v := a[2]*dx + a[3]*dy + tr.uv0.Y
					ux := (a[0]*qxx + a[1]*qyx) * sw
					uy := (a[0]*qxy + a[1]*qyy) * sw
					vx := (a[2]*qxx + a[3]*qyx) * sh
					vy := (a[2]*qxy + a[3]*qyy) * sh
					s := sample(levels, clamp01(u), clamp01(v), max(ux*ux+vx*vx, uy*uy+vy*vy))
					sa := s >> 48
					alpha := (sa*cov + 128) >> 8
					if alpha == 0 {
						continue
					}
					crow[i] = c8
					p := row[4*i : 4*i+4 : 4*i+4]
					if sa == 255 {
						p[0], p[1], p[2], p[3] = uint8(s), uint8(s>>16), uint8(s>>32), uint8(alpha)
						continue
					}
					r := recip[sa]
					p[0] = uint8(min((s&0xff*r+1<<15)>>16, 255))
					p[1] = uint8(min((s>>16&0xff*r+1<<15)>>16, 255))
					p[2] = uint8(min((s>>32&0xff*r+1<<15)>>16, 255))
					p[3] = uint8(alpha)
				}
			}
		}
	})
}

// extent is the longer side, in canvas pixels, of the box of m's image
// of the unit square, from a 17×17 grid of its points and, for a mesh
// (whose patches lie within their control points' hull, which a grid may
// miss), from its control points taken to the canvas; +Inf when a point
// is not finite.
func extent(m Mapping) float64 {
	lo := Point{math.Inf(1), math.Inf(1)}
	hi := Point{math.Inf(-1), math.Inf(-1)}
	add := func(p Point) bool {
		lo.X, lo.Y = math.Min(lo.X, p.X), math.Min(lo.Y, p.Y)
		hi.X, hi.Y = math.Max(hi.X, p.X), math.Max(hi.Y, p.Y)
		return finite(p)
	}
	const n = 16
	for i := 0; i <= n; i++ {
		for j := 0; j <= n; j++ {
			if !add(m.Map(Point{float64(j) / n, float64(i) / n})) {
				return math.Inf(1)
			}
		}
	}
	var last Mapping
	pre := m
	if t, ok := m.(then); ok {
		if h, ok := t.second.(*homography); ok {
			pre, last = t.first, h
		}
	}
	if t, ok := pre.(then); ok {
		pre = t.second
	}
	if ms, ok := pre.(*mesh); ok {
		for _, p := range ms.pts {
			if last != nil {
				p = last.Map(p)
			}
			if !add(p) {
				return math.Inf(1)
			}
		}
	}
	return math.Max(hi.X-lo.X, hi.Y-lo.Y)
}

// pixel is a canvas coordinate as an int, within ±2³⁰: converting a
// float beyond an int's range gives a value Go leaves to the machine (on
// amd64 the most negative int, which ±1 wraps), so a quad reaching far
// past the canvas was drawn as nothing.
func pixel(v float64) int {
	return int(math.Max(-1<<30, math.Min(1<<30, v)))
}

func finite(p Point) bool {
	return !math.IsNaN(p.X) && !math.IsNaN(p.Y) && !math.IsInf(p.X, 0) && !math.IsInf(p.Y, 0)
}

// cells is how finely a mapping's unit square is tessellated: 64 cells a
// side for one Bézier patch (a cell of a 3000-pixel warp is then under 50
// pixels, where a cubic is straight to a small fraction of a pixel), at
// least 8 a patch for many patches.
func cells(m Mapping) (nu, nv int) {
	switch mm := m.(type) {
	case *mesh:
		// At most maxCells a side, or a patch a cell when there are more
		// patches: a 400×400 mesh took 4 GB and a minute at 8 cells a
		// patch.
		n := max(mm.rows, mm.cols)
		k := max(8, 64/n)
		if n*k > maxCells {
			k = max(1, maxCells/n)
		}
		return mm.cols * k, mm.rows * k
	case *homography:
		return 32, 32
	case then:
		au, av := cells(mm.first)
		bu, bv := cells(mm.second)
		return max(au, bu), max(av, bv)
	}
	return 64, 64
}

// visitsHook, set by tests only, is told the pixels a warp's triangles
// will visit and the box they are in: the cost of a warp, counted rather
// than timed.
//
//nolint:gochecknoglobals // a hook set only by tests, to count a warp's work; nil in production
var visitsHook atomic.Pointer[func(visits int64, box image.Rectangle)]

// maxOverdraw bounds the pixels a warp's triangles visit, in multiples
// of the pixels of the picture it returns.
const maxOverdraw = 16

// maxCells bounds the tessellation of a Mesh: 512 cells a side, a
// 64×64 quilt's 8 a patch (about 0.5 million triangles), unless its
// patches alone are more.
const maxCells = 512

// triangle is one piece of the tessellation, ready to fill.
type triangle struct {
	// edge holds each edge's line on the canvas, a·x + b·y + c: the
	// signed distance in pixels, positive inside.
	edge [3][3]float64
	// boundary marks the edges on the design's outline, which are
	// antialiased; inner edges are sampled at pixel centres and meet
	// their neighbours' without a seam.
	boundary [3]bool
	// aff takes a point of the warped square, relative to q0, to the
	// design's unit square, relative to uv0.
	aff     [4]float64
	q0, uv0 Point
	// y0, y1 and x0, x1 bound its pixels, clipped to the canvas.
	y0, y1, x0, x1 int
	// near holds outline segments meeting the triangle at a vertex only.
	near []nearLine
}

// coverage is how much of the pixel centred at cx, cy lies inside the
// design's outline: each outline line within half a pixel covers
// 0.5 + its distance. Lines at an angle (a corner) multiply; lines
// nearly parallel (neighbouring pieces of one curve) count once, the
// smallest.
func (tr *triangle) coverage(cx, cy float64) float64 {
	var parts [6]struct{ nx, ny, f float64 }
	n := 0
	add := func(l [3]float64) {
		d := l[0]*cx + l[1]*cy + l[2] + 0.5
		if d >= 1 {
			return
		}
		d = math.Max(d, 0)
		for k := 0; k < n; k++ {
			if parts[k].nx*l[0]+parts[k].ny*l[1] > 0.9 {
				parts[k].f = math.Min(parts[k].f, d)
				return
			}
		}
		if n < len(parts) {
			parts[n].nx, parts[n].ny, parts[n].f = l[0], l[1], d
			n++
		}
	}
	for e := 0; e < 3; e++ {
		if tr.boundary[e] {
			add(tr.edge[e])
		}
	}
	for _, l := range tr.near {
		if dx, dy := cx-l.at.X, cy-l.at.Y; dx*dx+dy*dy < 2.25 {
			add(l.line)
		}
	}
	cov := 1.0
	for k := 0; k < n; k++ {
		cov *= parts[k].f
	}
	return cov
}

// nearRow reports whether the row at cy passes near a vertex whose outline
// segments cut coverage.
func (tr *triangle) nearRow(cy float64) bool {
	for _, l := range tr.near {
		if math.Abs(cy-l.at.Y) < 1.5 {
			return true
		}
	}
	return false
}

// segment is a piece of the outline between grid vertices v0 and v1.
type segment struct {
	v0, v1 int
	line   [3]float64
}

// nearLine is an outline segment's line, applied to pixels within 1.5
// pixels of the vertex at.
type nearLine struct {
	line [3]float64
	at   Point
}

func newTriangle(uv, q, d [3]Point, clip image.Rectangle) (triangle, bool) {
	var tr triangle
	area := (d[1].X-d[0].X)*(d[2].Y-d[0].Y) - (d[2].X-d[0].X)*(d[1].Y-d[0].Y)
	if math.Abs(area) < 1e-12 {
		return tr, false
	}
	for e := 0; e < 3; e++ {
		p0, p1 := d[e], d[(e+1)%3]
		nx, ny := -(p1.Y - p0.Y), p1.X-p0.X
		l := math.Hypot(nx, ny)
		nx, ny = nx/l, ny/l
		if area < 0 {
			nx, ny = -nx, -ny
		}
		tr.edge[e] = [3]float64{nx, ny, -(nx*p0.X + ny*p0.Y)}
		a, b := uv[e], uv[(e+1)%3]
		tr.boundary[e] = (a.X == b.X && (a.X == 0 || a.X == 1)) || (a.Y == b.Y && (a.Y == 0 || a.Y == 1))
	}
	// The affine map q → uv from the three vertices.
	m00, m01 := q[1].X-q[0].X, q[2].X-q[0].X
	m10, m11 := q[1].Y-q[0].Y, q[2].Y-q[0].Y
	det := m00*m11 - m01*m10
	if math.Abs(det) < 1e-18 {
		return tr, false
	}
	i00, i01, i10, i11 := m11/det, -m01/det, -m10/det, m00/det
	u1, u2 := uv[1].X-uv[0].X, uv[2].X-uv[0].X
	v1, v2 := uv[1].Y-uv[0].Y, uv[2].Y-uv[0].Y
	tr.aff = [4]float64{u1*i00 + u2*i10, u1*i01 + u2*i11, v1*i00 + v2*i10, v1*i01 + v2*i11}
	tr.q0, tr.uv0 = q[0], uv[0]
	minY := math.Min(d[0].Y, math.Min(d[1].Y, d[2].Y))
	maxY := math.Max(d[0].Y, math.Max(d[1].Y, d[2].Y))
	tr.y0 = max(pixel(math.Floor(minY))-1, clip.Min.Y)
	tr.y1 = min(pixel(math.Ceil(maxY))+1, clip.Max.Y)
	minX := math.Min(d[0].X, math.Min(d[1].X, d[2].X))
	maxX := math.Max(d[0].X, math.Max(d[1].X, d[2].X))
	tr.x0 = max(pixel(math.Floor(minX))-1, clip.Min.X)
	tr.x1 = min(pixel(math.Ceil(maxX))+1, clip.Max.X)
	return tr, tr.y0 < tr.y1 && tr.x0 < tr.x1
}

// span is the pixels [xa, xb) of the row whose centres lie at cy that the
// triangle may cover: inside its inner edges, and within half a pixel
// outside its outline edges; moved by in pixels inwards from the outline
// edges (in = 1: the pixels they do not touch).
func (tr *triangle) span(cy, in float64) (int, int) {
	lo, hi := math.Inf(-1), math.Inf(1)
	for e := 0; e < 3; e++ {
		a, b, c := tr.edge[e][0], tr.edge[e][1], tr.edge[e][2]
		thr := -1e-9
		if tr.boundary[e] {
			thr = in - 0.5
		}
		r := thr - b*cy - c
		switch {
		case a > 1e-12:
			lo = math.Max(lo, r/a)
		case a < -1e-12:
			hi = math.Min(hi, r/a)
		case r > 0:
			return 0, 0
		}
	}
	// Pixel x has its centre at x + 0.5.
	xa := math.Ceil(lo - 0.5)
	xb := math.Floor(hi-0.5) + 1
	if xa < -1e9 {
		xa = -1e9
	}
	if xb > 1e9 {
		xb = 1e9
	}
	if xb <= xa {
		return 0, 0
	}
	return int(xa), int(xb)
}
