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

// An effect's gradient is read with its alignment and its noise model:
// pt-layer-params.psd's radial stroke has "align with layer" off,
// ag-effects.psd's overlays have it on, one of them in a Lab noise
// gradient; pt-stroke-gradient.psd's second stroke is in an RGB one.
func TestEffectGradientAlignAndNoise(t *testing.T) {
	t.Parallel()
	type got struct {
		canvas, noise, lab bool
	}
	read := func(file string) map[string][]got {
		b, err := os.ReadFile("testdata/photoshop/" + file)
		if err != nil {
			t.Fatal(err)
		}
		f, err := decodeBytes(b, Limits{})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string][]got{}
		add := func(name string, g GradientOverlay) {
			n := g.Gradient.Noise
			out[name] = append(out[name], got{g.Canvas, n != nil, n != nil && n.Lab})
		}
		for _, l := range f.allLayers() {
			if l.Effects == nil {
				continue
			}
			for _, g := range l.Effects.GradientOverlays {
				add(l.Name, g)
			}
			for _, s := range l.Effects.Strokes {
				if s.Gradient != nil {
					add(l.Name, *s.Gradient)
				}
			}
		}
		return out
	}
	for _, tc := range []struct {
		file, layer string
		want        got
	}{
		{"pt-layer-params.psd", "Test caption", got{canvas: true}},
		{"ag-effects.psd", "other2", got{}},
		{"ag-effects.psd", "other", got{noise: true, lab: true}},
		{"pt-stroke-gradient.psd", "Text", got{}},
		{"pt-stroke-gradient.psd", "Text 2", got{noise: true}},
	} {
		gs := read(tc.file)[tc.layer]
		if len(gs) != 1 || gs[0] != tc.want {
			t.Errorf("%s %q: %+v, want one %+v", tc.file, tc.layer, gs, tc.want)
		}
	}
}
