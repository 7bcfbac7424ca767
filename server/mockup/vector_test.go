package mockup

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/kinohq/kino/server/composite"
	"github.com/kinohq/kino/server/psd"
)

// TestShapeFromPath draws every shape layer of the Photoshop-written
// files that has pixels from its path instead, and compares the two:
// the pixels are Photoshop's own drawing of the path, so the mean alpha
// difference says how close kino's rasteriser comes to Photoshop's.
// Rectangles match exactly and ellipses within 1.4 levels on average
// (41 at worst, on the edge); pt-shape-fx2's polygons by 5.2, their
// stored pixels lying about half a pixel right of and below the path
// on two of their five edges.
func TestShapeFromPath(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "psd", "testdata", "photoshop", "*.ps?"))
	n := 0
	for _, name := range files {
		fh, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		st, _ := fh.Stat()
		f, err := psd.Decode(fh, st.Size(), psd.DefaultLimits)
		if err != nil {
			fh.Close()
			continue
		}
		canvas := image.Rect(0, 0, f.Width, f.Height)
		f.Walk(func(l *psd.Layer) error {
			if l.Kind != psd.KindShape || l.Vector == nil || l.Rect.Empty() || l.FillColor == nil || l.Stroke != nil {
				return nil
			}
			own, err := l.Image()
			if err != nil {
				t.Fatalf("%s %s: %v", name, l.Path, err)
			}
			r := l.Rect.Intersect(canvas)
			drawn := shape(l, r, canvas)
			var sum, worst float64
			for y := r.Min.Y; y < r.Max.Y; y++ {
				for x := r.Min.X; x < r.Max.X; x++ {
					d := math.Abs(float64(own.NRGBAAt(x, y).A) - float64(drawn.NRGBAAt(x, y).A))
					sum += d
					worst = math.Max(worst, d)
				}
			}
			mean := sum / float64(r.Dx()*r.Dy())
			t.Logf("%s %q: mean alpha difference %.2f, worst %.0f (of 255)", filepath.Base(name), l.Path, mean, worst)
			if mean > 6 {
				t.Errorf("%s %q: drawn from its path, alpha differs from Photoshop's by %.2f on average", filepath.Base(name), l.Path, mean)
			}
			n++
			return nil
		})
		fh.Close()
	}
	if n == 0 {
		t.Fatal("no shape layer compared")
	}
}

// strokeCeiling is the mean difference (of 255) over which
// TestStrokeFromPath fails for a layer ("file path"); 2.5 for the others.
// Those measured, less than half a level over: pt-stroke's dashed
// rectangle 0.08 and ag-vector-complex's dashed arrow 0.22 (dashes start
// at the lowest knot), pt-stroke-descriptors-hsb's eight open paths with
// round caps and joins 0.39 to 2.14 (widths in points at 300 dpi).
// pt-double-stroke's 1-pixel centred stroke on pixel edges exact (moved
// half a pixel, as Photoshop does). Higher: pt-stroke's ellipse of round
// dots (3.34: Photoshop's dots are darker).
//
//nolint:gochecknoglobals // read-only table of the test's thresholds
var strokeCeiling = map[string]float64{
	"ag-vector-complex.psd Shape 1":    0.7,
	"pt-stroke.psd Rectangle 1":        0.5,
	"pt-stroke.psd Ellipse 1":          3.5,
	"pt-double-stroke.psd Rectangle 1": 0.5,
}

// TestStrokeFromPath draws every stroked shape layer of the
// Photoshop-written files that has pixels, and a stroke kino draws, from
// its path instead, and compares the two over the layer's rectangle: the
// pixels are Photoshop's own drawing of the fill and the vector stroke
// (its dashes, caps, joins and alignment), so the mean difference of the
// premultiplied channels says how close kino's stroker comes.
func TestStrokeFromPath(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "psd", "testdata", "photoshop", "*.ps?"))
	n := 0
	for _, name := range files {
		fh, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		st, _ := fh.Stat()
		f, err := psd.Decode(fh, st.Size(), psd.DefaultLimits)
		if err != nil {
			fh.Close()
			continue
		}
		canvas := image.Rect(0, 0, f.Width, f.Height)
		f.Walk(func(l *psd.Layer) error {
			s := l.Stroke
			if l.Kind != psd.KindShape || l.Vector == nil || l.Rect.Empty() || s == nil || !s.Enabled || (s.Color == nil && s.Gradient == nil) {
				return nil
			}
			if s.FillEnabled && l.FillColor == nil && l.FillGradient == nil {
				return nil // a pattern fill, not drawn
			}
			own, err := l.Image()
			if err != nil {
				t.Fatalf("%s %s: %v", name, l.Path, err)
			}
			r := l.Rect.Intersect(canvas)
			drawn := shape(l, r, canvas)
			var sum float64
			for y := r.Min.Y; y < r.Max.Y; y++ {
				for x := r.Min.X; x < r.Max.X; x++ {
					a, b := own.NRGBAAt(x, y), drawn.NRGBAAt(x, y)
					pa, pb := [4]float64{float64(a.R), float64(a.G), float64(a.B), 255}, [4]float64{float64(b.R), float64(b.G), float64(b.B), 255}
					for c := range pa {
						sum += math.Abs(pa[c]*float64(a.A)-pb[c]*float64(b.A)) / 255 / 4
					}
				}
			}
			mean := sum / float64(r.Dx()*r.Dy())
			t.Logf("%s %q (%s): mean difference %.2f (of 255)", filepath.Base(name), l.Path, strokeKind(s), mean)
			ceiling, ok := strokeCeiling[filepath.Base(name)+" "+l.Path]
			if !ok {
				ceiling = 2.5
			}
			if mean > ceiling {
				t.Errorf("%s %q: drawn from its path, differs from Photoshop's pixels by %.2f on average, over %.2f", filepath.Base(name), l.Path, mean, ceiling)
			}
			n++
			return nil
		})
		fh.Close()
	}
	if n == 0 {
		t.Fatal("no stroked shape layer compared")
	}
}

func strokeKind(s *psd.VectorStroke) string {
	return fmt.Sprintf("%.2f px %s", s.Width, s.Alignment)
}

// TestStrokeOntoEdge: at a pixel the shape's edge covers 40 % of, a
// fill in red and a stroke in blue, each opaque: an inside stroke lies
// over the fill within the shape's part (alpha 40 %, blue), an outside
// one takes the other 60 % (alpha 100 %, no seam), a centred one lies
// over the fill.
func TestStrokeOntoEdge(t *testing.T) {
	r := image.Rect(0, 0, 1, 1)
	for _, c := range []struct {
		align  string
		stroke float32 // the stroke's coverage as PathStroke gives it
		want   color.NRGBA
	}{
		{"inside", 0.4, color.NRGBA{0, 0, 255, 102}},
		{"outside", 0.6, color.NRGBA{102, 0, 153, 255}},
		{"center", 1, color.NRGBA{0, 0, 255, 255}},
	} {
		cover := composite.Shape{Rect: r, A: []float32{0.4}}
		img := cover.Paint(color.NRGBA{255, 0, 0, 255})
		paint := composite.Shape{Rect: r, A: []float32{1}}.Paint(color.NRGBA{0, 0, 255, 255})
		strokeOnto(img, paint, cover, composite.Shape{Rect: r, A: []float32{c.stroke}}, c.align, 1)
		if got := img.NRGBAAt(0, 0); got != c.want {
			t.Errorf("%s: %v, want %v", c.align, got, c.want)
		}
	}
}
