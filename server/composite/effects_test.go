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
