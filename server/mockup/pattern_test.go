package mockup

import (
	"image"
	"image/color"
	"os"
	"path/filepath"
	"testing"

	"github.com/kinohq/kino/server/psd"
)

// A pattern overlay's drawing counts in the budget: the pattern decoded
// and each pixel of the layer's box sampled from it; and what drawing
// the file allocates stays within the estimate.
func TestPatternsCountInTheBudget(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "psd", "testdata", "photoshop", "ag-pattern.psd"))
	if err != nil {
		t.Fatal(err)
	}
	tpl, err := openBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	with := Estimate(tpl.File)
	for _, l := range tpl.File.Layers {
		if l.Effects != nil {
			l.Effects.PatternOverlays = nil
		}
	}
	without := Estimate(tpl.File)
	// The layer's box is 191x90; the pattern 64x64.
	if d := with.Work - without.Work; d < 4*191*90+64*64 {
		t.Errorf("the pattern overlay adds %d to the work", d)
	}
	if d := with.PerDrawing - without.PerDrawing; d < 4*64*64 {
		t.Errorf("the pattern overlay adds %d bytes a drawing", d)
	}
	tpl, _ = openBytes(b)
	if alloc, _ := drawn(t, tpl); alloc > uint64(with.Held+with.PerDrawing) {
		t.Errorf("allocated %d bytes, over the estimate of %d", alloc, with.Held+with.PerDrawing)
	}
}

func TestTile(t *testing.T) {
	src := image.NewNRGBA(image.Rect(0, 0, 2, 2))
	copy(src.Pix, []uint8{0, 0, 0, 255, 200, 0, 0, 255, 0, 200, 0, 255, 0, 0, 200, 255})
	at := func(img *image.NRGBA, x, y int) color.NRGBA { return img.NRGBAAt(x, y) }
	// At its size, from the origin (1, 0): the tile shifted one pixel.
	img := tile(src, psd.PatternFill{Scale: 1}, psd.Point{X: 1}, image.Rect(0, 0, 4, 4))
	if got, want := at(img, 0, 0), src.NRGBAAt(1, 0); got != want {
		t.Errorf("(0, 0): %v, want %v", got, want)
	}
	if got, want := at(img, 3, 1), src.NRGBAAt(0, 1); got != want {
		t.Errorf("(3, 1): %v, want %v (wrapped)", got, want)
	}
	// Twice its size: every other pixel is the tile's, those between
	// are mixed.
	img = tile(src, psd.PatternFill{Scale: 2}, psd.Point{}, image.Rect(0, 0, 4, 4))
	if got, want := at(img, 2, 0), src.NRGBAAt(1, 0); got != want {
		t.Errorf("(2, 0) at 200 %%: %v, want %v", got, want)
	}
	if got := at(img, 1, 0); got.R != 100 {
		t.Errorf("(1, 0) at 200 %%: %v, want half way between black and red", got)
	}
	// Turned a quarter counter-clockwise: the tile's x runs up the screen.
	img = tile(src, psd.PatternFill{Scale: 1, Angle: 90}, psd.Point{}, image.Rect(0, -4, 4, 4))
	if got, want := at(img, 0, -1), src.NRGBAAt(1, 0); got != want {
		t.Errorf("(0, -1) turned: %v, want %v", got, want)
	}
}
