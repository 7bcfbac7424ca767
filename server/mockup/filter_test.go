package mockup

import (
	"image"
	"path/filepath"
	"testing"
)

// TestSmartFilterBlur puts the content embedded in a smart object with a
// Gaussian blur smart filter back into it as the design, and compares
// kino's picture with the merged image Photoshop saved: blurred, it must
// match far better than drawn sharp.
func TestSmartFilterBlur(t *testing.T) {
	t.Parallel()
	name := filepath.Join("..", "psd", "testdata", "photoshop", "ag-smart-filter-blur.psd")
	tpl, closer, err := Load(name, 50_000_000)
	if err != nil {
		t.Fatal(err)
	}
	defer closer.Close()
	l := tpl.File.Find("Ellipse 1")
	if l == nil || l.Placed == nil || len(l.Placed.Filters) != 1 {
		t.Fatalf("smart object Ellipse 1 with one filter drawn expected, got %+v", l)
	}
	design := content(t, tpl.File.Linked[l.Placed.ID])
	merged, ok := mergedImage(t, name)
	if !ok {
		t.Fatal("no merged image")
	}
	full := image.Rect(0, 0, tpl.File.Width, tpl.File.Height)
	draw := func() float64 {
		img, _, err := tpl.Render(Options{Designs: map[string]image.Image{"Ellipse 1": design}, Fit: FitFill})
		if err != nil {
			t.Fatal(err)
		}
		return psnr(merged, img, full)
	}
	blurred := draw()
	filters := l.Placed.Filters
	l.Placed.Filters = nil
	sharp := draw()
	l.Placed.Filters = filters
	t.Logf("blurred %.1f dB, sharp %.1f dB", blurred, sharp)
	if blurred < 47 || blurred < sharp+10 {
		t.Errorf("blurred design at %.1f dB (sharp %.1f): at least 47, and 10 more than sharp, expected", blurred, sharp)
	}
}
