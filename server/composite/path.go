package composite

import (
	"image"
	"image/draw"
	"math"

	"golang.org/x/image/vector"
)

// Knot is one anchor of a Bezier path with its incoming and outgoing
// control points, in canvas pixels.
type Knot struct{ In, Anchor, Out Point }

// Subpath is one outline of a path: segments run from each knot's Out to
// the next knot's In and Anchor, and back to the first when Closed.
type Subpath struct {
	Closed bool
	// Op combines the outline with what the subpaths before it cover, as
	// Photoshop's path operations do: 0 exclude, 1 combine, 2 subtract,
	// 3 intersect; -1 adds it to the previous one's shape.
	Op    int
	Knots []Knot
}

// PathShape is the antialiased coverage of subpaths over r (canvas
// pixels): each shape (a subpath and those joined to it with Op -1)
// filled by the non-zero rule, the shapes combined by their operations
// in order, starting from nothing (or everything with fillAll), then
// inverted with invert. A subtract or intersect first starts from
// everything, as Photoshop draws it.
func PathShape(paths []Subpath, fillAll, invert bool, r image.Rectangle) Shape {
	s := Shape{Rect: r, A: make([]float32, r.Dx()*r.Dy())}
	if r.Empty() {
		return s
	}
	if fillAll && len(paths) == 0 {
		for i := range s.A {
			s.A[i] = 1
		}
	}
	plane := image.NewAlpha(image.Rect(0, 0, r.Dx(), r.Dy()))
	z := vector.NewRasterizer(r.Dx(), r.Dy())
	z.DrawOp = draw.Src
	first := true
	for i := 0; i < len(paths); {
		j := i + 1
		for j < len(paths) && paths[j].Op == -1 {
			j++
		}
		z.Reset(r.Dx(), r.Dy())
		drawn := false
		for _, p := range paths[i:j] {
			drawn = trace(z, p, r.Min, max(r.Dx(), r.Dy())) || drawn
		}
		if drawn {
			z.Draw(plane, plane.Rect, image.Opaque, image.Point{})
		} else {
			clear(plane.Pix)
		}
		op := paths[i].Op
		if first && (op == 2 || op == 3) {
			for k := range s.A {
				s.A[k] = 1 - s.A[k]
			}
		}
		for k, v := range plane.Pix {
			m, p := s.A[k], float32(v)/255
			switch op {
			case 0:
				m = m + p - 2*m*p
			case 2:
				m = max(0, m-p)
			case 3:
				m *= p
			default:
				m = m + p - m*p
			}
			s.A[k] = m
		}
		first = false
		i = j
	}
	if invert {
		for k := range s.A {
			s.A[k] = 1 - s.A[k]
		}
	}
	return s
}

// trace adds one outline to z, moved by -origin; false when it has too
// few knots to enclose anything.
func trace(z *vector.Rasterizer, p Subpath, origin image.Point, size int) bool {
	if len(p.Knots) < 2 {
		return false
	}
	ox, oy := float64(origin.X), float64(origin.Y)
	// Points far off the picture are brought within a margin of it: a
	// hostile path swinging ±128 canvases each way would cost the
	// rasteriser thousands of lines a segment. An outline crossing the
	// picture between two points so far away is bent slightly; no
	// Photoshop shape seen reaches so far.
	lo, hi := -margin*float64(size), (margin+1)*float64(size)
	pt := func(q Point) (float32, float32) {
		return float32(clampF(q.X-ox, lo, hi)), float32(clampF(q.Y-oy, lo, hi))
	}
	x, y := pt(p.Knots[0].Anchor)
	z.MoveTo(x, y)
	seg := func(a, b Knot) {
		bx, by := pt(a.Out)
		cx, cy := pt(b.In)
		dx, dy := pt(b.Anchor)
		z.CubeTo(bx, by, cx, cy, dx, dy)
	}
	for i := 1; i < len(p.Knots); i++ {
		seg(p.Knots[i-1], p.Knots[i])
	}
	// An open path is filled as if closed by a straight line, as
	// Photoshop fills one.
	if p.Closed {
		seg(p.Knots[len(p.Knots)-1], p.Knots[0])
	}
	z.ClosePath()
	return true
}

// margin is how many picture sizes off the picture a path's points may
// lie before they are clamped.
const margin = 4

// clampF is v within [lo, hi]; lo when v is not a number, which the
// rasteriser cannot take.
func clampF(v, lo, hi float64) float64 {
	if math.IsNaN(v) {
		return lo
	}
	return math.Min(math.Max(v, lo), hi)
}
