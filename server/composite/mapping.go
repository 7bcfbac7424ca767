package composite

import "math"

// Point is a position: on the canvas in pixels, or in a design's unit
// square (0,0 its top-left corner, 1,1 its bottom-right).
type Point struct{ X, Y float64 }

// Mapping takes a point of the design's unit square to the canvas (or,
// inside Then, to the next mapping's unit square).
type Mapping interface {
	Map(p Point) Point
}

// homography is a projective map: x = (a·u + b·v + c) / w, y = (d·u +
// e·v + f) / w, w = g·u + h·v + 1, held as a row-major 3×3 matrix.
type homography [9]float64

// Perspective maps the unit square onto quad (top-left, top-right,
// bottom-right, bottom-left) by the one homography that does so: straight
// lines stay straight, as Photoshop's perspective transform keeps them. A
// parallelogram gives an affine map.
func Perspective(quad [4]Point) Mapping {
	x0, y0 := quad[0].X, quad[0].Y
	x1, y1 := quad[1].X, quad[1].Y
	x2, y2 := quad[2].X, quad[2].Y
	x3, y3 := quad[3].X, quad[3].Y
	// Heckbert's square-to-quadrilateral: (0,0)→0, (1,0)→1, (1,1)→2,
	// (0,1)→3.
	sx, sy := x0-x1+x2-x3, y0-y1+y2-y3
	var g, h float64
	if sx != 0 || sy != 0 {
		dx1, dx2 := x1-x2, x3-x2
		dy1, dy2 := y1-y2, y3-y2
		den := dx1*dy2 - dx2*dy1
		if den != 0 {
			g = (sx*dy2 - dx2*sy) / den
			h = (dx1*sy - sx*dy1) / den
		}
	}
	return &homography{
		x1 - x0 + g*x1, x3 - x0 + h*x3, x0,
		y1 - y0 + g*y1, y3 - y0 + h*y3, y0,
		g, h, 1,
	}
}

// Map applies the homography.
func (m *homography) Map(p Point) Point {
	w := m[6]*p.X + m[7]*p.Y + m[8]
	return Point{(m[0]*p.X + m[1]*p.Y + m[2]) / w, (m[3]*p.X + m[4]*p.Y + m[5]) / w}
}

// inverse is the homography's inverse (its adjugate: the scale does not
// matter); ok is false when it has none.
func (m *homography) inverse() (inv homography, ok bool) {
	a, b, c, d, e, f, g, h, i := m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8]
	inv = homography{
		e*i - f*h, c*h - b*i, b*f - c*e,
		f*g - d*i, a*i - c*g, c*d - a*f,
		d*h - e*g, b*g - a*h, a*e - b*d,
	}
	det := a*inv[0] + b*inv[3] + c*inv[6]
	if det == 0 || math.IsNaN(det) || math.IsInf(det, 0) {
		return inv, false
	}
	return inv, true
}

// mesh is Photoshop's warp envelope: rows × cols bicubic Bézier patches.
type mesh struct {
	rows, cols int
	pts        []Point // (3·rows+1) × (3·cols+1), row major
}

// Mesh is a warp of the unit square by rows × cols bicubic Bézier
// patches, as Photoshop's custom warp and quilt: points holds
// (3·rows+1) × (3·cols+1) control points, row major, in the unit square
// the warp is applied to; patches share the points on their borders. The
// identity is points evenly spaced. Mesh panics when the count is wrong,
// a caller's mistake.
func Mesh(rows, cols int, points []Point) Mapping {
	if rows < 1 || cols < 1 || len(points) != (3*rows+1)*(3*cols+1) {
		panic("composite: Mesh needs (3·rows+1)·(3·cols+1) points") //nolint:forbidigo // programmer error: a mesh of the wrong size is the caller's mistake (documented)
	}
	return &mesh{rows: rows, cols: cols, pts: append([]Point(nil), points...)}
}

// Map evaluates the patch holding p: with s, t the position inside it,
// Σᵢ Σⱼ Bᵢ(t)·Bⱼ(s)·P[i][j], B the cubic Bernstein polynomials.
func (m *mesh) Map(p Point) Point {
	pr, s := split(p.Y, m.rows)
	pc, t := split(p.X, m.cols)
	stride := 3*m.cols + 1
	bu := bernstein(t)
	bv := bernstein(s)
	var x, y float64
	for i := 0; i < 4; i++ {
		row := m.pts[(3*pr+i)*stride+3*pc:]
		var rx, ry float64
		for j := 0; j < 4; j++ {
			rx += bu[j] * row[j].X
			ry += bu[j] * row[j].Y
		}
		x += bv[i] * rx
		y += bv[i] * ry
	}
	return Point{x, y}
}

// split finds which of n equal parts of [0, 1] holds v, and where in it.
func split(v float64, n int) (int, float64) {
	f := v * float64(n)
	i := int(math.Floor(f))
	if i < 0 {
		i = 0
	}
	if i > n-1 {
		i = n - 1
	}
	return i, f - float64(i)
}

func bernstein(t float64) [4]float64 {
	u := 1 - t
	return [4]float64{u * u * u, 3 * t * u * u, 3 * t * t * u, t * t * t}
}

// then applies first, then second.
type then struct{ first, second Mapping }

// Then is second(first(p)): a smart object's warp (in its own unit
// square) followed by its perspective onto the canvas. Two perspectives
// make one, and a perspective last stays last (Then(a, Then(b, p)) is
// Then(Then(a, b), p), and Then(Then(a, p), q) is Then(a, q·p)), where
// Warp inverts it exactly.
func Then(first, second Mapping) Mapping {
	a, ok := first.(*homography)
	if b, ok2 := second.(*homography); ok && ok2 {
		return b.times(a)
	}
	if t, ok := second.(then); ok {
		if _, last := t.second.(*homography); last {
			return then{Then(first, t.first), t.second}
		}
	}
	if t, ok := first.(then); ok {
		// A perspective after one (a warped quad drawn at another
		// scale) joins it, so that Warp still inverts it exactly.
		h, last := t.second.(*homography)
		if b, ok2 := second.(*homography); last && ok2 {
			return then{t.first, b.times(h)}
		}
	}
	return then{first, second}
}

// times is the homography m(a(p)): the matrix product m·a, scaled to
// keep its last entry 1 where it can.
func (m *homography) times(a *homography) *homography {
	var p homography
	for r := 0; r < 3; r++ {
		for c := 0; c < 3; c++ {
			p[3*r+c] = m[3*r]*a[c] + m[3*r+1]*a[3+c] + m[3*r+2]*a[6+c]
		}
	}
	if k := p[8]; k != 0 && !math.IsNaN(k) && !math.IsInf(k, 0) {
		for i := range p {
			p[i] /= k
		}
	}
	return &p
}

// Map applies both.
func (t then) Map(p Point) Point { return t.second.Map(t.first.Map(p)) }
