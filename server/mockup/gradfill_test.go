package mockup

import (
	"image"
	"image/color"
	"math"
	"testing"

	"github.com/kinohq/kino/server/composite"
	"github.com/kinohq/kino/server/psd"
)

// TestGradientSpan: a linear gradient runs between where its line
// through the box's centre leaves the box; a fill layer's ends are
// moved out to whole pixels.
func TestGradientSpan(t *testing.T) {
	for _, tc := range []struct {
		angle, w, h    float64
		snap           bool
		ux, uy, length float64
	}{
		{0, 200, 100, false, 1, 0, 200},
		{90, 200, 100, false, 0, -1, 100},
		{-90, 200, 100, true, 0, 1, 100},
		{45, 100, 100, false, math.Sqrt2 / 2, -math.Sqrt2 / 2, 100 * math.Sqrt2},
		// The line leaves the 600 × 60 box through its top and bottom.
		{87, 600, 60, false, math.Cos(87 * math.Pi / 180), -math.Sin(87 * math.Pi / 180), 60 / math.Sin(87*math.Pi/180)},
		// pt-32bit-rgb.psd's 30° on 4 × 4 pixels: the end (2, -1.15)
		// from the centre moves to the corner (2, -2).
		{30, 4, 4, true, math.Sqrt2 / 2, -math.Sqrt2 / 2, 4 * math.Sqrt2},
		{30, 4, 4, false, math.Cos(math.Pi / 6), -0.5, 4 / math.Cos(math.Pi/6)},
	} {
		ux, uy, length := gradientSpan(tc.angle*math.Pi/180, tc.w, tc.h, tc.snap)
		if math.Abs(ux-tc.ux) > 1e-9 || math.Abs(uy-tc.uy) > 1e-9 || math.Abs(length-tc.length) > 1e-9 {
			t.Errorf("%v° over %v × %v (snap %v): (%.4f, %.4f) × %.4f, want (%.4f, %.4f) × %.4f",
				tc.angle, tc.w, tc.h, tc.snap, ux, uy, length, tc.ux, tc.uy, tc.length)
		}
	}
}

// TestVectorBox: a gradient aligned with a fill layer spans its vector
// mask's points, rounded outwards; nothing when the mask covers all.
func TestVectorBox(t *testing.T) {
	v := &psd.VectorMask{Subpaths: []psd.Subpath{{Closed: true, Knots: []psd.Knot{
		{Anchor: psd.Point{X: 10.5, Y: 20}}, {Anchor: psd.Point{X: 30, Y: 20}}, {Anchor: psd.Point{X: 30, Y: 40.2}},
	}}}}
	if got, want := vectorBox(v), image.Rect(10, 20, 30, 41); got != want {
		t.Errorf("box %v, want %v", got, want)
	}
	v.Invert = true
	if got := vectorBox(v); !got.Empty() {
		t.Errorf("inverted: box %v, want none", got)
	}
	if got := vectorBox(nil); !got.Empty() {
		t.Errorf("no mask: box %v, want none", got)
	}
}

// TestShapeGradient: a shape without pixels filled with a gradient is
// drawn with it inside its path, aligned with the path's box.
func TestShapeGradient(t *testing.T) {
	sq := []psd.Knot{}
	for _, p := range []psd.Point{{X: 10, Y: 10}, {X: 30, Y: 10}, {X: 30, Y: 30}, {X: 10, Y: 30}} {
		sq = append(sq, psd.Knot{In: p, Anchor: p, Out: p})
	}
	l := &psd.Layer{Kind: psd.KindShape, Vector: &psd.VectorMask{Subpaths: []psd.Subpath{{Closed: true, Op: 1, Knots: sq}}},
		FillGradient: &psd.GradientFill{Aligned: true, GradientOverlay: psd.GradientOverlay{Style: "linear", Scale: 1, Opacity: 1,
			Gradient: psd.Gradient{Method: "classic", Colors: []psd.GradientStop{
				{Location: 0, Color: color.NRGBA{0, 0, 0, 255}, Midpoint: 0.5},
				{Location: 1, Color: color.NRGBA{255, 255, 255, 255}, Midpoint: 0.5},
			}}}}}
	r := image.Rect(9, 9, 31, 31)
	img := shape(l, r, image.Rect(0, 0, 40, 40))
	for _, tc := range []struct {
		x, y       int
		lo, hi, al uint8
	}{
		{10, 20, 0, 10, 255},    // the left edge of the box: black
		{29, 20, 245, 255, 255}, // the right: white
		{20, 20, 120, 136, 255}, // half way
		{9, 20, 0, 255, 0},      // outside the path: transparent
	} {
		c := img.NRGBAAt(tc.x, tc.y)
		if c.A != tc.al || (c.A > 0 && (c.R < tc.lo || c.R > tc.hi)) {
			t.Errorf("(%d,%d): %v, want alpha %d and red %d to %d", tc.x, tc.y, c, tc.al, tc.lo, tc.hi)
		}
	}
}

// TestShapeGradientStroke: a shape's vector stroke in a gradient is
// drawn with it along the path (here 2 px outside, over no fill),
// aligned with the path's box as a gradient fill is.
func TestShapeGradientStroke(t *testing.T) {
	sq := []psd.Knot{}
	for _, p := range []psd.Point{{X: 10, Y: 10}, {X: 30, Y: 10}, {X: 30, Y: 30}, {X: 10, Y: 30}} {
		sq = append(sq, psd.Knot{In: p, Anchor: p, Out: p})
	}
	grad := &psd.GradientFill{Aligned: true, GradientOverlay: psd.GradientOverlay{Style: "linear", Scale: 1, Opacity: 1,
		Gradient: psd.Gradient{Method: "classic", Colors: []psd.GradientStop{
			{Location: 0, Color: color.NRGBA{0, 0, 0, 255}, Midpoint: 0.5},
			{Location: 1, Color: color.NRGBA{255, 255, 255, 255}, Midpoint: 0.5},
		}}}}
	l := &psd.Layer{Kind: psd.KindShape, Vector: &psd.VectorMask{Subpaths: []psd.Subpath{{Closed: true, Op: 1, Knots: sq}}},
		Stroke: &psd.VectorStroke{Enabled: true, Width: 2, Alignment: "outside", Opacity: 1, Cap: "butt", Join: "miter", MiterLimit: 4, Gradient: grad}}
	r := image.Rect(7, 7, 33, 33)
	img := shape(l, r, image.Rect(0, 0, 40, 40))
	for _, tc := range []struct {
		x, y       int
		lo, hi, al uint8
	}{
		{8, 20, 0, 10, 255},     // left of the box, in the stroke: black
		{31, 20, 245, 255, 255}, // right: white
		{20, 8, 120, 136, 255},  // above the middle: grey
		{20, 20, 0, 255, 0},     // inside the path: no fill
		{8, 8, 0, 10, 255},      // the mitred corner
	} {
		c := img.NRGBAAt(tc.x, tc.y)
		if c.A != tc.al || (c.A > 0 && (c.R < tc.lo || c.R > tc.hi)) {
			t.Errorf("(%d,%d): %v, want alpha %d and red %d to %d", tc.x, tc.y, c, tc.al, tc.lo, tc.hi)
		}
	}
}

// TestGlowGradientFromTable: a glow in a gradient takes each pixel's
// colour from the gradient's table, as overlays do. Mixing the stops at
// each pixel cost a search through up to 1,000 stops a pixel, hundreds of
// times the work the estimate counts for a glow.
func TestGlowGradientFromTable(t *testing.T) {
	var g psd.Gradient
	for i := range 1000 {
		v := uint8(255 * (i % 2))
		g.Colors = append(g.Colors, psd.GradientStop{Location: float64(i) / 999, Color: color.NRGBA{v, v, v, 255}, Midpoint: 0.5})
	}
	cover := composite.Shape{Rect: image.Rect(0, 0, 100, 100), A: make([]float32, 100*100)}
	for i := range cover.A {
		cover.A[i] = float32(i+1) / float32(len(cover.A))
	}
	img := glow(cover, psd.Glow{Gradient: &g})
	lut := g.Table(gradientSteps)
	for i, v := range cover.A {
		want := lut[int((1-float64(v))*(gradientSteps-1)+0.5)]
		if got := (color.NRGBA{img.Pix[4*i], img.Pix[4*i+1], img.Pix[4*i+2], img.Pix[4*i+3]}); got != want {
			t.Fatalf("coverage %v: %v, the table's %v", v, got, want)
		}
	}
}
