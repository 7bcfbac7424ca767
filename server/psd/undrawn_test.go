package psd

import (
	"os"
	"slices"
	"testing"
)

// A shadow's contour and a glow's noise, which kino does not draw, are
// named in the layer's unsupported list: pt-layer-params.psd's drop
// shadow has a contour, ag-effects.psd's inner glow noise.
func TestUndrawnContourAndNoiseNamed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ file, want string }{
		{"pt-layer-params.psd", "layer effect: drop shadow: contour (drawn linear)"},
		{"ag-effects.psd", "layer effect: inner glow: noise"},
	} {
		b, err := os.ReadFile("testdata/photoshop/" + tc.file)
		if err != nil {
			t.Fatal(err)
		}
		f, err := decodeBytes(b, Limits{})
		if err != nil {
			t.Fatal(err)
		}
		var named []string
		for _, l := range f.allLayers() {
			named = append(named, l.Unsupported...)
		}
		if !slices.Contains(named, tc.want) {
			t.Errorf("%s: %q not among %q", tc.file, tc.want, named)
		}
	}
}
