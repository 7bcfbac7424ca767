package mockup

import (
	"image"
	"math"
	"os"
	"path/filepath"
	"testing"

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
