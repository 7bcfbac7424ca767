package composite

import (
	"image"
	"image/color"
	"math"
	"runtime"
	"testing"
)

// allocated is how many bytes fn allocates.
func allocated(fn func()) uint64 {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	fn()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// A mapping or a design of a hostile file costs what its canvas and its
// design do, not what its numbers say.
func TestHostileWarpsAreBounded(t *testing.T) {
	red := color.NRGBA{255, 0, 0, 255}
	place := Perspective([4]Point{{10, 10}, {50, 10}, {50, 50}, {10, 50}})
	t.Run("mesh of 400x400 patches", func(t *testing.T) {
		// Tessellated at 8 cells a patch it took 4 GB and a minute.
		m := Mesh(400, 400, identityPoints(400, 400))
		n := allocated(func() { Warp(solid(8, 8, red), m, 100, 100) })
		if n > 128<<20 {
			t.Fatalf("allocated %d MB", n>>20)
		}
	})
	t.Run("64x64 quilt in a 10-pixel quad", func(t *testing.T) {
		// Tessellated 512 cells a side, it took 110 MB.
		m := Then(Mesh(64, 64, identityPoints(64, 64)), Perspective([4]Point{{10, 10}, {20, 10}, {20, 20}, {10, 20}}))
		n := allocated(func() { Warp(solid(8, 8, red), m, 100, 100) })
		if n > 4<<20 {
			t.Fatalf("allocated %d MB", n>>20)
		}
	})
	t.Run("mesh folded over itself", func(t *testing.T) {
		// A 64x64 quilt whose control points are flung between the
		// quad's corners covers each pixel once per fold: drawn whole,
		// it took 27 s on 1000x1000 pixels (about 5 min on 3000x3000).
		const n = 64
		pts := identityPoints(n, n)
		for i := range pts {
			x, y := i%(3*n+1), i/(3*n+1)
			pts[i] = Point{float64(x % 2), float64(y % 2)}
			if (x/2+y/2)%2 == 1 {
				pts[i].X = 1 - pts[i].X
			}
		}
		m := Then(Mesh(n, n, pts), Perspective([4]Point{{0, 0}, {1000, 0}, {1000, 1000}, {0, 1000}}))
		var visits int64
		var box image.Rectangle
		hook := func(v int64, b image.Rectangle) { visits, box = v, b }
		visitsHook.Store(&hook)
		defer visitsHook.Store(nil)
		Warp(solid(64, 64, red), m, 1000, 1000)
		if limit := maxOverdraw * int64(box.Dx()) * int64(box.Dy()); visits == 0 || visits > limit {
			t.Fatalf("the triangles visit %d pixels of a %v box, want 1 to %d", visits, box, limit)
		}
	})
	for _, d := range []struct {
		name string
		w, h int
	}{{"design 1x2000000", 1, 2_000_000}, {"design 2000000x1", 2_000_000, 1}} {
		t.Run(d.name, func(t *testing.T) {
			// Shrunk by Catmull-Rom, its kernel's weights (16 bytes an
			// input pixel along the long side) were 8 times the design.
			src := solid(d.w, d.h, red)
			n := allocated(func() { Warp(src, place, 100, 100) })
			if size := uint64(4 * d.w * d.h); n > 5*size {
				t.Fatalf("allocated %d MB for a design of %d MB", n>>20, size>>20)
			}
		})
	}
	t.Run("group as a clipping base", func(t *testing.T) {
		// The group's own picture takes the clipped layers: no copy.
		g := &Layer{Mode: Multiply, Opacity: 1, FillOpacity: 1, Children: []*Layer{{Fill: &red, Mode: Normal, Opacity: 1, FillOpacity: 1}}}
		c := &Layer{Fill: &color.NRGBA{0, 0, 255, 128}, Mode: Normal, Opacity: 1, FillOpacity: 1, Clipped: true}
		n := allocated(func() { Flatten(500, 500, []*Layer{g, c}) })
		if canvas := uint64(4 * 500 * 500); n > canvas*5/2 {
			t.Fatalf("allocated %.1f canvases", float64(n)/float64(canvas))
		}
	})
}

func TestThenFoldsPerspectives(t *testing.T) {
	a := Perspective([4]Point{{0.25, 0.1}, {0.75, 0.1}, {0.75, 0.9}, {0.25, 0.9}})
	b := Perspective([4]Point{{100, 50}, {900, 120}, {800, 700}, {150, 600}})
	m := Then(a, b)
	if _, ok := m.(*homography); !ok {
		t.Fatalf("Then of two perspectives is a %T", m)
	}
	mesh := Mesh(1, 1, identityPoints(1, 1))
	if tm, ok := Then(a, Then(mesh, b)).(then); !ok || tm.second != b {
		t.Fatalf("the perspective is not kept last")
	}
	for _, p := range []Point{{0, 0}, {1, 0}, {0.3, 0.7}, {1, 1}} {
		want, got := b.Map(a.Map(p)), m.Map(p)
		if math.Abs(want.X-got.X) > 1e-9 || math.Abs(want.Y-got.Y) > 1e-9 {
			t.Fatalf("at %v: %v, want %v", p, got, want)
		}
	}
}

// A quad reaching far past the canvas on every side covers all of it.
func TestQuadFarPastTheCanvas(t *testing.T) {
	red := color.NRGBA{255, 0, 0, 255}
	for _, far := range []float64{1e6, 1e20, 1e100} {
		out := Warp(solid(8, 8, red), Perspective([4]Point{{-far, -far}, {far, -far}, {far, far}, {-far, far}}), 100, 100)
		if out.Rect != image.Rect(0, 0, 100, 100) || out.NRGBAAt(50, 50) != red || out.NRGBAAt(0, 99) != red {
			t.Errorf("quad of ±%g: bounds %v, %v at the centre", far, out.Rect, out.NRGBAAt(50, 50))
		}
	}
}
