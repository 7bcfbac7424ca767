package composite

import (
	"image"
	"math"
	"testing"
)

// line is an open straight path from a to b.
func line(a, b Point) Subpath {
	return Subpath{Op: 1, Knots: []Knot{{a, a, a}, {b, b, b}}}
}

// poly is a closed path through pts.
func poly(pts ...Point) Subpath {
	p := Subpath{Closed: true, Op: 1}
	for _, q := range pts {
		p.Knots = append(p.Knots, Knot{q, q, q})
	}
	return p
}

// cov is the coverage of s at pixel (x, y).
func cov(s Shape, x, y int) float32 {
	return s.A[(y-s.Rect.Min.Y)*s.Rect.Dx()+x-s.Rect.Min.X]
}

// runs are the covered stretches [start, end) of row y, in pixels,
// with partial pixels counted by their coverage.
func runs(s Shape, y int) [][2]float64 {
	var out [][2]float64
	in := false
	for x := s.Rect.Min.X; x < s.Rect.Max.X; x++ {
		c := float64(cov(s, x, y))
		switch {
		case c > 0.01 && !in:
			out = append(out, [2]float64{float64(x) + 1 - c, 0})
			in = true
		case c <= 0.01 && in:
			prev := float64(cov(s, x-1, y))
			out[len(out)-1][1] = float64(x-1) + prev
			in = false
		}
	}
	return out
}

// TestDashLengths strokes a horizontal line 2 px wide with dashes of 3
// and gaps of 1 widths: dashes 6 px long every 8 px from the start, and
// with an offset of one width the pattern starts 2 px in.
func TestDashLengths(t *testing.T) {
	r := image.Rect(0, 0, 40, 10)
	st := LineStyle{Width: 2, Align: "center", Cap: "butt", Join: "miter", MiterLimit: 4, Dashes: []float64{3, 1}}
	s := PathStroke([]Subpath{line(Point{2, 5}, Point{34, 5})}, false, false, st, r)
	got := runs(s, 5)
	want := [][2]float64{{2, 8}, {10, 16}, {18, 24}, {26, 32}}
	if len(got) != len(want) {
		t.Fatalf("dashes %v, want %v", got, want)
	}
	for i := range want {
		if math.Abs(got[i][0]-want[i][0]) > 0.02 || math.Abs(got[i][1]-want[i][1]) > 0.02 {
			t.Errorf("dash %d: %v, want %v", i, got[i], want[i])
		}
	}
	// Rows 4 and 5 are covered, 3 and 6 not: the line is 2 px wide.
	if cov(s, 4, 4) < 0.99 || cov(s, 4, 3) > 0.01 || cov(s, 4, 6) > 0.01 {
		t.Errorf("width: rows 3..6 at x=4 covered %v %v %v %v", cov(s, 4, 3), cov(s, 4, 4), cov(s, 4, 5), cov(s, 4, 6))
	}
	st.DashOffset = 1
	s = PathStroke([]Subpath{line(Point{2, 5}, Point{34, 5})}, false, false, st, r)
	if got := runs(s, 5); len(got) == 0 || math.Abs(got[0][0]-2) > 0.02 || math.Abs(got[0][1]-6) > 0.02 {
		t.Errorf("offset by a width: first dash %v, want [2 6]", got)
	}
}

// TestCaps measures how far each cap reaches past the end of a line
// 4 px wide along y=6 and ending at x=20: butt not at all, square by
// half the width, round by the disc of radius 2 around the end (about
// 1.94 px within row 5, whose centre is half a pixel off the axis, and
// sqrt(4-2.25) within row 4, 1.5 off).
func TestCaps(t *testing.T) {
	r := image.Rect(0, 0, 30, 12)
	for _, c := range []struct {
		cap        string
		row5, row4 float64
		tolerance  float64
	}{
		{"butt", 20, 20, 0.02},
		{"square", 22, 22, 0.02},
		{"round", 20 + math.Sqrt(4-0.25), 20 + math.Sqrt(4-2.25), 0.3},
	} {
		st := LineStyle{Width: 4, Align: "center", Cap: c.cap, Join: "miter", MiterLimit: 4}
		s := PathStroke([]Subpath{line(Point{5, 6}, Point{20, 6})}, false, false, st, r)
		for _, row := range []struct {
			y    int
			want float64
		}{{5, c.row5}, {4, c.row4}} {
			got := runs(s, row.y)
			if len(got) != 1 || math.Abs(got[0][1]-row.want) > c.tolerance {
				t.Errorf("%s cap: row %d covered %v, want its end at %.2f", c.cap, row.y, got, row.want)
			}
		}
		if cov(s, 10, 3) > 0.01 || cov(s, 10, 4) < 0.99 {
			t.Errorf("%s cap: the line is not 4 px wide", c.cap)
		}
	}
}

// TestJoins strokes a right-angled corner 4 px wide, outside: a miter
// fills the outer square corner, a bevel cuts it along the diagonal and
// a round join rounds it; a miter limit under 1.414 bevels a right angle.
func TestJoins(t *testing.T) {
	r := image.Rect(0, 0, 30, 30)
	square := poly(Point{10, 10}, Point{20, 10}, Point{20, 20}, Point{10, 20})
	corner := func(join string, limit float64) float32 {
		st := LineStyle{Width: 4, Align: "outside", Cap: "butt", Join: join, MiterLimit: limit}
		s := PathStroke([]Subpath{square}, false, false, st, r)
		if cov(s, 15, 7) < 0.99 || cov(s, 15, 11) > 0.01 {
			t.Errorf("%s: an outside stroke covers 6..10 above the square's top edge, not inside: %v %v", join, cov(s, 15, 7), cov(s, 15, 11))
		}
		return cov(s, 23, 23) // (23.5, 23.5): 3.5 px each way from the corner (20, 20)
	}
	if c := corner("miter", 10); c < 0.99 {
		t.Errorf("miter corner coverage %v, want 1", c)
	}
	if c := corner("bevel", 10); c > 0.01 {
		t.Errorf("bevel corner coverage %v, want 0 (past the diagonal)", c)
	}
	if c := corner("round", 10); c > 0.01 {
		t.Errorf("round corner coverage %v, want 0 (4.9 px from the corner)", c)
	}
	if c := corner("miter", 1.3); c > 0.01 {
		t.Errorf("miter over its limit: corner coverage %v, want 0 (bevelled)", c)
	}
}

// TestStrokeAlignment checks an inside stroke covers only the inside of
// a closed outline, an outside one only the outside, a centred one both.
func TestStrokeAlignment(t *testing.T) {
	r := image.Rect(0, 0, 30, 30)
	square := poly(Point{10, 10}, Point{20, 10}, Point{20, 20}, Point{10, 20})
	for _, c := range []struct {
		align        string
		inner, outer float32 // coverage at x 11 (inside) and 8 (outside), row 15
	}{
		{"inside", 1, 0},
		{"outside", 0, 1},
		{"center", 1, 1},
	} {
		st := LineStyle{Width: 4, Align: c.align, Cap: "butt", Join: "miter", MiterLimit: 4}
		s := PathStroke([]Subpath{square}, false, false, st, r)
		if math.Abs(float64(cov(s, 11, 15)-c.inner)) > 0.01 || math.Abs(float64(cov(s, 8, 15)-c.outer)) > 0.01 {
			t.Errorf("%s: inside %v outside %v, want %v %v", c.align, cov(s, 11, 15), cov(s, 8, 15), c.inner, c.outer)
		}
	}
}

// TestDashesStartAtLowestKnot: a closed outline's dashes start at its
// lowest knot, whichever knot the path lists first.
func TestDashesStartAtLowestKnot(t *testing.T) {
	r := image.Rect(0, 0, 40, 40)
	st := LineStyle{Width: 2, Align: "center", Cap: "butt", Join: "miter", MiterLimit: 4, Dashes: []float64{2, 2}}
	a := PathStroke([]Subpath{poly(Point{5, 5}, Point{31, 5}, Point{31, 27}, Point{5, 27})}, false, false, st, r)
	b := PathStroke([]Subpath{poly(Point{31, 27}, Point{5, 27}, Point{5, 5}, Point{31, 5})}, false, false, st, r)
	for i := range a.A {
		if math.Abs(float64(a.A[i]-b.A[i])) > 1e-3 {
			t.Fatalf("pixel %d: %v listed from the top left, %v from the bottom right", i, a.A[i], b.A[i])
		}
	}
	// From (31, 27) leftwards: a dash 4 px long, then a gap.
	if cov(a, 29, 27) < 0.99 || cov(a, 25, 27) > 0.01 || cov(a, 21, 27) < 0.99 {
		t.Errorf("bottom edge from the lowest knot: %v %v %v, want dash, gap, dash", cov(a, 29, 27), cov(a, 25, 27), cov(a, 21, 27))
	}
}

// TestStrokeBudget: dashes a thousandth of a pixel long along a 4,000
// pixel outline would be two million pieces; the stroke stops at its
// budget, with the outline's start (its lowest knot, the bottom right
// corner, leftwards) drawn and its end not.
func TestStrokeBudget(t *testing.T) {
	r := image.Rect(0, 0, 1010, 1010)
	st := LineStyle{Width: 1, Align: "center", Cap: "square", Join: "round", MiterLimit: 4, Dashes: []float64{0.001, 0.001}}
	s := PathStroke([]Subpath{poly(Point{5, 5}, Point{1005, 5}, Point{1005, 1005}, Point{5, 1005})}, false, false, st, r)
	if c := cov(s, 1000, 1004) + cov(s, 1000, 1005); c < 0.9 {
		t.Errorf("the outline's start is not drawn: %v", c)
	}
	if cov(s, 5, 500) > 0 {
		t.Errorf("past the budget, the outline's last edge is drawn: %v", cov(s, 5, 500))
	}
}

// TestOddStrokeOnPixelEdges: a centred stroke 1 px wide along a square
// on pixel edges covers whole pixels, half a pixel right of and below
// the path, as Photoshop draws it; off pixel edges it lies half each
// side.
func TestOddStrokeOnPixelEdges(t *testing.T) {
	r := image.Rect(0, 0, 20, 20)
	st := LineStyle{Width: 1, Align: "center", Cap: "butt", Join: "miter", MiterLimit: 4}
	s := PathStroke([]Subpath{poly(Point{4, 3}, Point{12, 3}, Point{12, 11}, Point{4, 11})}, false, false, st, r)
	for _, c := range []struct {
		x, y int
		want float32
	}{{8, 2, 0}, {8, 3, 1}, {8, 10, 0}, {8, 11, 1}, {3, 7, 0}, {4, 7, 1}, {12, 7, 1}, {13, 7, 0}} {
		if got := cov(s, c.x, c.y); math.Abs(float64(got-c.want)) > 0.01 {
			t.Errorf("on pixel edges: (%d,%d) covered %v, want %v", c.x, c.y, got, c.want)
		}
	}
	s = PathStroke([]Subpath{poly(Point{4, 3.25}, Point{12, 3.25}, Point{12, 11}, Point{4, 11})}, false, false, st, r)
	if got := cov(s, 8, 2); math.Abs(float64(got)-0.25) > 0.02 {
		t.Errorf("off pixel edges: row 2 covered %v, want 0.25", got)
	}
}

// TestStrokeHostile: points that are not numbers or lie far off, and a
// style out of range, draw something bounded or nothing, never panic.
func TestStrokeHostile(t *testing.T) {
	r := image.Rect(0, 0, 16, 16)
	nan := math.NaN()
	for _, p := range []Subpath{
		line(Point{nan, 2}, Point{8, nan}),
		poly(Point{-1e9, -1e9}, Point{1e9, 3}, Point{3, 1e9}),
		{Closed: true, Knots: []Knot{{Point{0, 0}, Point{4, 4}, Point{1e12, -1e12}}, {Point{nan, 0}, Point{8, 8}, Point{8, 8}}}},
	} {
		for _, st := range []LineStyle{
			{Width: 3, Align: "center", Cap: "round", Join: "round", Dashes: []float64{0, 1}},
			{Width: 2, Align: "outside", Cap: "square", Join: "miter", MiterLimit: 1000, Dashes: []float64{1e-9, 1e9}, DashOffset: -3},
		} {
			s := PathStroke([]Subpath{p}, false, false, st, r)
			for _, v := range s.A {
				if !(v >= 0 && v <= 1) {
					t.Fatalf("coverage %v", v)
				}
			}
		}
	}
}

// TestOddDashPattern: dashes 1, 2, 3 widths are taken twice (dash 1, gap
// 2, dash 3, gap 1, dash 2, gap 3), so that dashes and gaps alternate.
func TestOddDashPattern(t *testing.T) {
	r := image.Rect(0, 0, 40, 6)
	st := LineStyle{Width: 2, Align: "center", Cap: "butt", Join: "miter", MiterLimit: 4, Dashes: []float64{1, 2, 3}}
	s := PathStroke([]Subpath{line(Point{0, 3}, Point{40, 3})}, false, false, st, r)
	got := runs(s, 3)
	want := [][2]float64{{0, 2}, {6, 12}, {14, 18}, {24, 26}}
	if len(got) < len(want) {
		t.Fatalf("dashes %v, want %v first", got, want)
	}
	for i := range want {
		if math.Abs(got[i][0]-want[i][0]) > 0.02 || math.Abs(got[i][1]-want[i][1]) > 0.02 {
			t.Errorf("dash %d: %v, want %v", i, got[i], want[i])
		}
	}
}
