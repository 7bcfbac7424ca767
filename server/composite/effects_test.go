package composite

import (
	"image"
	"testing"
)

// square is a 20×20 shape with a crisp 10×10 square in its middle.
func square() Shape {
	s := Shape{Rect: image.Rect(0, 0, 20, 20), A: make([]float32, 400)}
	for y := 5; y < 15; y++ {
		for x := 5; x < 15; x++ {
			s.A[y*20+x] = 1
		}
	}
	return s
}

// TestStrokeCoversWholePixels: a one-pixel stroke of a square on whole
// pixels covers the ring of pixels beside its edge, outside or inside,
// fully, as Photoshop draws it (pt-double-stroke.psd): the grown edge
// lies half a pixel past the covered pixels' centres.
func TestStrokeCoversWholePixels(t *testing.T) {
	s := square()
	for _, c := range []struct {
		position string
		ring     int // the ring's x along row 10, left side
		want     float32
	}{
		{"outside", 4, 1}, {"outside", 3, 0}, {"outside", 5, 0},
		{"inside", 5, 1}, {"inside", 6, 0}, {"inside", 4, 0},
	} {
		if got := Stroke(s, 1, c.position).A[10*20+c.ring]; got != c.want {
			t.Errorf("%s stroke at x=%d: coverage %.2f, want %.0f", c.position, c.ring, got, c.want)
		}
	}
	// Three pixels outside reach x=2 and not x=1.
	if o := Stroke(s, 3, "outside"); o.A[10*20+2] != 1 || o.A[10*20+1] != 0 {
		t.Errorf("3 px outside: %.2f at x=2, %.2f at x=1", o.A[10*20+2], o.A[10*20+1])
	}
}

// bigSquare is a 60×60 shape with a crisp 30×30 square in its middle.
func bigSquare() Shape {
	s := Shape{Rect: image.Rect(0, 0, 60, 60), A: make([]float32, 3600)}
	for y := 15; y < 45; y++ {
		for x := 15; x < 45; x++ {
			s.A[y*60+x] = 1
		}
	}
	return s
}

// TestBevelLitFromItsAngle: a bevel lit from above (90°) highlights the
// square's top edge and shades its bottom one, left and right alike, and
// leaves its flat middle alone; lit from below, the other way round; and
// sunk (Down), the other way round again.
func TestBevelLitFromItsAngle(t *testing.T) {
	s := bigSquare()
	at := func(sh Shape, x, y int) float32 { return sh.A[y*60+x] }
	for _, tech := range []string{"smooth", "chisel hard", "chisel soft"} {
		for _, style := range []string{"inner", "emboss", "pillow", "outer"} {
			b := BevelStyle{Style: style, Technique: tech, Size: 6, Depth: 1, Angle: 90, Altitude: 30}
			hi, lo := Bevel(s, b)
			top, bottom := 16, 43
			if style == "outer" {
				top, bottom = 13, 46
			}
			if style == "pillow" && at(lo, 30, 13) <= at(hi, 30, 13) {
				// The edge sinks: just outside the top edge faces down.
				t.Errorf("%s pillow: above the top edge %.2f/%.2f (highlight/shadow)", tech, at(hi, 30, 13), at(lo, 30, 13))
			}
			if at(hi, 30, top) <= at(lo, 30, top) || at(lo, 30, bottom) <= at(hi, 30, bottom) {
				t.Errorf("%s %s: top %.2f/%.2f, bottom %.2f/%.2f (highlight/shadow)", tech, style,
					at(hi, 30, top), at(lo, 30, top), at(hi, 30, bottom), at(lo, 30, bottom))
			}
			if d := at(hi, 17, 30) - at(hi, 42, 30); d > 0.05 || d < -0.05 {
				t.Errorf("%s %s: left and right highlighted %.2f and %.2f", tech, style, at(hi, 17, 30), at(hi, 42, 30))
			}
			if at(hi, 30, 30)+at(lo, 30, 30) > 0.01 {
				t.Errorf("%s %s: the flat middle shaded", tech, style)
			}
			b.Angle = -90
			if hi2, _ := Bevel(s, b); at(hi2, 30, bottom) <= at(hi2, 30, top) {
				t.Errorf("%s %s lit from below: bottom %.2f, top %.2f", tech, style, at(hi2, 30, bottom), at(hi2, 30, top))
			}
			b.Angle, b.Down = 90, true
			if hi3, _ := Bevel(s, b); at(hi3, 30, bottom) <= at(hi3, 30, top) {
				t.Errorf("%s %s sunk: bottom %.2f, top %.2f", tech, style, at(hi3, 30, bottom), at(hi3, 30, top))
			}
		}
	}
}

// TestSatin: copies moved apart differ near the edges across the move,
// not in the middle; inverted, the other way round; nothing outside the
// shape.
func TestSatin(t *testing.T) {
	s := bigSquare()
	sat := Satin(s, 4, 0, 4, false, nil)
	if sat.A[30*60+17] < 0.3 || sat.A[30*60+30] > 0.05 || sat.A[30*60+5] != 0 {
		t.Errorf("satin: edge %.2f, middle %.2f, outside %.2f", sat.A[30*60+17], sat.A[30*60+30], sat.A[30*60+5])
	}
	inv := Satin(s, 4, 0, 4, true, nil)
	if inv.A[30*60+30] < 0.95 || inv.A[30*60+17] > 0.7 {
		t.Errorf("inverted satin: edge %.2f, middle %.2f", inv.A[30*60+17], inv.A[30*60+30])
	}
}

// TestOffChannels: a layer that leaves blue out of its blending paints
// red and green over the backdrop and keeps the backdrop's blue.
func TestOffChannels(t *testing.T) {
	bg := image.NewNRGBA(image.Rect(0, 0, 4, 4))
	top := image.NewNRGBA(bg.Rect)
	for i := 0; i < len(bg.Pix); i += 4 {
		copy(bg.Pix[i:i+4], []uint8{10, 20, 200, 255})
		copy(top.Pix[i:i+4], []uint8{250, 240, 30, 255})
	}
	out := Flatten(4, 4, []*Layer{
		{Image: bg, Mode: Normal, Opacity: 1, FillOpacity: 1},
		{Image: top, Mode: Normal, Opacity: 1, FillOpacity: 1, OffChannels: 1 << 2},
	})
	if got := out.NRGBAAt(1, 1); got.R != 250 || got.G != 240 || got.B != 200 {
		t.Errorf("got %v, want red and green from the layer, blue from the backdrop", got)
	}
}

// TestInsideStrokeEdgeWithinThePixel: a shape whose right edge lies
// within a pixel (covered 0.49) has its four-pixel inside stroke end
// within a pixel four to the left, half covered, as Photoshop draws
// pt-shape-fx2.psd's; a crisp edge keeps whole pixels.
func TestInsideStrokeEdgeWithinThePixel(t *testing.T) {
	s := square()
	for y := 5; y < 15; y++ {
		s.A[y*20+15] = 0.49
	}
	got := Stroke(s, 4, "inside")
	if v := got.A[10*20+11]; v < 0.4 || v > 0.6 {
		t.Errorf("inside stroke at x=11: %.2f, want about half", v)
	}
	if v := got.A[10*20+12]; v < 0.99 {
		t.Errorf("inside stroke at x=12: %.2f, want whole", v)
	}
	crisp := Stroke(square(), 4, "inside")
	if crisp.A[10*20+11] != 1 || crisp.A[10*20+10] != 0 {
		t.Errorf("crisp square, inside stroke at x=10, 11: %.2f, %.2f, want none, whole", crisp.A[10*20+10], crisp.A[10*20+11])
	}
}
