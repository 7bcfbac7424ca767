package mockup

import (
	"os"
	"path/filepath"
	"testing"
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
