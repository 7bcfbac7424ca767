package mockup

import (
	"image"
	"runtime"
	"testing"

	"github.com/kinohq/kino/server/psd"
)

// rectPlaced is a smart object of content w x h placed on the canvas at
// (0,0)-(qw,qh).
func rectPlaced(w, h, qw, qh float64) *psd.Placed {
	q := [4]psd.Point{{X: 0, Y: 0}, {X: qw, Y: 0}, {X: qw, Y: qh}, {X: 0, Y: qh}}
	return &psd.Placed{Transform: q, NonAffine: q, Width: w, Height: h}
}

// A design contained in a content box of another shape is placed in its
// part of the box, not padded to the box's shape: a content size of
// 10,000,000x1 padded a 20x20 design to 200,000,000x20 pixels (16 GB).
func TestContainInAnAbsurdBox(t *testing.T) {
	design := quadrants(20, 20)
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	out := Place(design, rectPlaced(1e7, 1, 200, 100), Contain, 200, 100)
	runtime.ReadMemStats(&b)
	if n := b.TotalAlloc - a.TotalAlloc; n > 1<<20 {
		t.Fatalf("allocated %d KB", n>>10)
	}
	if out.Rect.Dx() > 200 || out.Rect.Dy() > 100 {
		t.Fatalf("bounds %v", out.Rect)
	}
}

func TestContainLeavesBands(t *testing.T) {
	out := Place(quadrants(100, 100), rectPlaced(200, 100, 200, 100), Contain, 200, 100)
	for _, c := range []struct {
		x, y int
		a    uint8
		r, g uint8
	}{{25, 50, 0, 0, 0}, {175, 50, 0, 0, 0}, {75, 25, 255, 220, 30}, {125, 25, 255, 30, 200}} {
		p := out.NRGBAAt(c.x, c.y)
		if p.A != c.a || (c.a != 0 && (p.R != c.r || p.G != c.g)) {
			t.Errorf("at %d,%d: %v", c.x, c.y, p)
		}
	}
}

// Smart objects sharing a path take the design once: 50 of one name each
// converted a 1000x1000 design anew (200 MB).
func TestSmartObjectsOfOneName(t *testing.T) {
	f := &psd.File{Width: 100, Height: 100, Depth: 8, Mode: psd.RGB}
	for i := 0; i < 50; i++ {
		x := float64(2 * i)
		q := [4]psd.Point{{X: x, Y: 0}, {X: x + 2, Y: 0}, {X: x + 2, Y: 2}, {X: x, Y: 2}}
		f.Layers = append(f.Layers, &psd.Layer{Name: "Design", Path: "Design", Kind: psd.KindSmartObject, Visible: true, Opacity: 255, FillOpacity: 255, Blend: "normal",
			Placed: &psd.Placed{Transform: q, NonAffine: q, Width: 1000, Height: 1000}})
	}
	tpl, err := Open(f)
	if err != nil {
		t.Fatal(err)
	}
	design := quadrants(1000, 1000)
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	img, _, err := tpl.Render(Options{Designs: map[string]image.Image{"Design": design}})
	runtime.ReadMemStats(&b)
	if err != nil {
		t.Fatal(err)
	}
	if n := b.TotalAlloc - a.TotalAlloc; n > 20<<20 {
		t.Fatalf("allocated %d MB", n>>20)
	}
	if img.NRGBAAt(99, 1).A == 0 {
		t.Fatal("the last smart object was not drawn")
	}
}
