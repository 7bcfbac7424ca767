package psd

import (
	"image"
	"image/color"
	"math"
	"testing"
)

// vmskBlock is a vmsk block: one closed subpath through points given as
// fractions of the canvas (x, y), each knot's control points on its
// anchor.
func vmskBlock(op int16, pts ...[2]float64) []byte {
	var b builder
	b.u32(3)
	b.u32(0)
	b.u16(6) // path fill rule record
	b.Write(make([]byte, 24))
	b.u16(0) // closed subpath length record
	b.u16(uint16(len(pts)))
	b.u16(uint16(op))
	b.Write(make([]byte, 20))
	fixed := func(v float64) uint32 { return uint32(int32(math.Round(v * (1 << 24)))) }
	for _, p := range pts {
		b.u16(2)
		for range 3 {
			b.u32(fixed(p[1]))
			b.u32(fixed(p[0]))
		}
	}
	return block("vmsk", b.Bytes())
}

// socoBlock is a SoCo block of an RGB colour.
func socoBlock(r, g, bl float64) []byte {
	var b builder
	b.u32(16)
	b.u32(0) // class name: empty unicode
	b.u32(0)
	b.s("null")
	b.u32(1)
	b.u32(0)
	b.s("Clr ")
	b.s("Objc")
	b.u32(0)
	b.u32(0)
	b.s("RGBC")
	b.u32(3)
	for _, c := range []struct {
		k string
		v float64
	}{{"Rd  ", r}, {"Grn ", g}, {"Bl  ", bl}} {
		b.u32(0)
		b.s(c.k)
		b.s("doub")
		b.u64(math.Float64bits(c.v))
	}
	return block("SoCo", b.Bytes())
}

func TestShapeWithoutPixels(t *testing.T) {
	tri := vmskBlock(1, [2]float64{0.25, 0.25}, [2]float64{0.75, 0.25}, [2]float64{0.5, 0.75})
	f, err := decodeBytes(psdFile(40, 40, RGB, []testLayer{
		{name: "shape", blocks: append(socoBlock(255, 0, 0), tri...)},
		{name: "grey shape", blocks: append(block("GdFl", make([]byte, 4)), tri...)},
	}), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	l := f.Find("shape")
	if l.Kind != KindShape || l.Vector == nil || len(l.Vector.Subpaths) != 1 || len(l.Vector.Subpaths[0].Knots) != 3 || len(l.Unsupported) != 0 {
		t.Fatalf("shape: %+v", l)
	}
	if k := l.Vector.Subpaths[0].Knots[1].Anchor; k != (Point{X: 30, Y: 10}) {
		t.Errorf("second knot at %v, want (30,10)", k)
	}
	if r := l.PathRect(); r != image.Rect(9, 9, 31, 31) {
		t.Errorf("PathRect %v", r)
	}
	if f.Pixels() < 22*22 {
		t.Errorf("Pixels %d: the shape's box is not counted", f.Pixels())
	}
}

// TestVectorMaskBounded: a vector mask of more knots than maxKnots is
// dropped and named, and its points may lie far off the canvas.
func TestVectorMaskBounded(t *testing.T) {
	pts := make([][2]float64, maxKnots+1)
	for i := range pts {
		pts[i] = [2]float64{float64(i%2)*200 - 100, float64(i%3)*200 - 100}
	}
	f, err := decodeBytes(psdFile(40, 40, RGB, []testLayer{{name: "many", blocks: append(socoBlock(0, 0, 0), vmskBlock(1, pts...)...)}}), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	l := f.Find("many")
	if l.Vector != nil || len(l.Unsupported) == 0 {
		t.Errorf("%d knots: vector %v, unsupported %q", len(pts), l.Vector != nil, l.Unsupported)
	}
}

// TestVectorStrokeStyle reads a vstk's caps, joins, dashes and a width
// in points (at the stroke's resolution), as Photoshop writes them.
func TestVectorStrokeStyle(t *testing.T) {
	d := &decoder{f: &File{Width: 4, Height: 4}}
	enum := func(v string) enumValue { return enumValue{Type: "x", Value: v} }
	s := d.vectorStroke(&descriptor{
		Keys: []string{"strokeStyleLineWidth", "strokeStyleResolution", "strokeStyleLineCapType", "strokeStyleLineJoinType", "strokeStyleMiterLimit", "strokeStyleLineDashSet", "strokeStyleLineDashOffset", "strokeStyleLineAlignment", "strokeStyleContent"},
		Vals: []any{unitFloat{"#Pnt", 6}, 300.0, enum("strokeStyleRoundCap"), enum("strokeStyleBevelJoin"), 1.5, []any{unitFloat{"#Nne", 4}, 2.0}, 1.0, enum("strokeStyleAlignOutside"),
			&descriptor{Keys: []string{"Clr "}, Vals: []any{&descriptor{Keys: []string{"H   ", "Strt", "Brgh"}, Vals: []any{unitFloat{"#Ang", 120}, 100.0, 50.0}}}}},
	})
	if s.Width != 25 || s.Cap != "round" || s.Join != "bevel" || s.MiterLimit != 1.5 || len(s.Dashes) != 2 || s.Dashes[0] != 4 || s.Dashes[1] != 2 || s.DashOffset != 1 || s.Alignment != "outside" {
		t.Errorf("stroke %+v", s)
	}
	if s.Color == nil || *s.Color != (color.NRGBA{0, 128, 0, 255}) {
		t.Errorf("HSB 120°, 100%%, 50%%: %v, want (0,128,0)", s.Color)
	}
	// Photoshop's defaults: butt caps, miter joins, a pixel wide, solid.
	s = d.vectorStroke(&descriptor{})
	if s.Width != 1 || s.Cap != "butt" || s.Join != "miter" || len(s.Dashes) != 0 || s.Alignment != "inside" {
		t.Errorf("default stroke %+v", s)
	}
	// A pattern is named, a dash list is bounded.
	many := make([]any, 1000)
	for i := range many {
		many[i] = 1.0
	}
	s = d.vectorStroke(&descriptor{Keys: []string{"strokeStyleLineDashSet", "strokeStyleContent"}, Vals: []any{many, &descriptor{Keys: []string{"Ptrn"}, Vals: []any{&descriptor{}}}}})
	if len(s.Dashes) != maxDashes || !s.Pattern || s.Color != nil {
		t.Errorf("%d dashes, pattern %v", len(s.Dashes), s.Pattern)
	}
}

// TestVectorStrokeNotes: of a shape drawn from its path, a stroke in a
// pattern and one in a blend mode other than normal are named; a dashed
// stroke along an open path, in a colour, is drawn and not named.
func TestVectorStrokeNotes(t *testing.T) {
	d := &decoder{f: &File{Width: 4, Height: 4}}
	red := &color.NRGBA{255, 0, 0, 255}
	shape := func(s *VectorStroke) []string {
		l := &Layer{Kind: KindShape, FillColor: red, Stroke: s,
			Vector: &VectorMask{Subpaths: []Subpath{{Op: 1, Knots: []Knot{{Anchor: Point{1, 1}}, {Anchor: Point{3, 3}}}}}}}
		d.vectorNotes(l)
		return l.Unsupported
	}
	base := VectorStroke{Enabled: true, FillEnabled: true, Width: 1, Blend: "normal", Color: red, Dashes: []float64{2, 1}, Cap: "round", Join: "round"}
	if got := shape(&base); len(got) != 0 {
		t.Errorf("dashed stroke along an open path named: %v", got)
	}
	pattern := base
	pattern.Color, pattern.Pattern = nil, true
	if got := shape(&pattern); len(got) != 1 || got[0] != "vector stroke with a pattern" {
		t.Errorf("pattern stroke: %v", got)
	}
	multiply := base
	multiply.Blend = "multiply"
	if got := shape(&multiply); len(got) != 1 || got[0] != "vector stroke blend mode" {
		t.Errorf("multiply stroke: %v", got)
	}
}

// TestMaskOfPath: a shape saved by an older Photoshop keeps its outline's
// rendering both as its transparency and as its mask channel, and the
// mask says so (kino then cuts the pixels once, not twice); a real user
// mask beside a vector mask is not the path's.
func TestMaskOfPath(t *testing.T) {
	t.Parallel()
	f := decodeFile(t, "testdata/photoshop/uv-placemarker.psd")
	var shapes int
	for _, l := range f.Layers {
		if l.Kind != KindShape {
			continue
		}
		shapes++
		if l.Mask == nil || !l.Mask.OfPath() {
			t.Errorf("%s: mask %+v is not its path's rendering", l.Name, l.Mask)
		}
	}
	if shapes != 3 {
		t.Errorf("%d shapes, want 3", shapes)
	}
	g := decodeFile(t, "testdata/photoshop/pt-mask-density-layervectormask.psd")
	var users int
	for _, l := range g.Layers {
		if l.Mask != nil && l.Vector != nil {
			users++
			if l.Mask.OfPath() {
				t.Errorf("%s: user mask taken for its path's rendering", l.Name)
			}
		}
	}
	if users == 0 {
		t.Error("no layer with a user mask and a vector mask")
	}
}
