package psd

import (
	"image/color"
	"testing"
)

func TestGradientMethods(t *testing.T) {
	blue, orange := color.NRGBA{42, 145, 217, 255}, color.NRGBA{225, 153, 51, 255}
	stops := []GradientStop{{Location: 0, Color: blue, Midpoint: 0.5}, {Location: 1, Color: orange, Midpoint: 0.5}}
	// Photoshop's perceptual gradient between these stops, halfway
	// (ag-gradient-mode.psd, stops rounded here): about (147, 155, 155);
	// classic mixes the values, linear mixes light.
	for _, c := range []struct {
		method string
		want   color.NRGBA
	}{
		{"classic", color.NRGBA{134, 149, 134, 255}},
		{"perceptual", color.NRGBA{150, 155, 152, 255}},
		{"linear", color.NRGBA{167, 149, 162, 255}},
	} {
		g := Gradient{Colors: stops, Method: c.method}
		if got := g.At(0.5); got != c.want {
			t.Errorf("%s: %v halfway, want %v", c.method, got, c.want)
		}
	}
}

func TestGradientMidpointAndSmoothness(t *testing.T) {
	black, white := color.NRGBA{0, 0, 0, 255}, color.NRGBA{255, 255, 255, 255}
	g := Gradient{Colors: []GradientStop{{Location: 0, Color: black}, {Location: 1, Color: white, Midpoint: 0.25}}}
	if got := g.At(0.25).R; got != 128 {
		t.Errorf("at the midpoint: %d, want half way (128)", got)
	}
	if got := g.At(0.625).R; got != 191 {
		t.Errorf("half way past the midpoint: %d, want three quarters (191)", got)
	}
	g = Gradient{Colors: []GradientStop{{Location: 0, Color: black}, {Location: 1, Color: white, Midpoint: 0.5}}, Smoothness: 1}
	if got := g.At(0.25).R; got >= 64 || got < 40 {
		t.Errorf("smooth, a quarter of the way: %d, want eased under 64", got)
	}
	if got := g.At(0.5).R; got != 128 {
		t.Errorf("smooth, half way: %d, want 128", got)
	}
}

func TestNoiseGradient(t *testing.T) {
	n := &NoiseGradient{Seed: 2126732, Roughness: 0.5, Max: [4]float64{1, 0.5, 1, 1}}
	a, b := n.table(), n.table()
	other := (&NoiseGradient{Seed: 7, Roughness: 0.5, Max: [4]float64{1, 0.5, 1, 1}}).table()
	same, varies := true, false
	for i := range a {
		same = same && a[i] == other[i]
		varies = varies || a[i] != a[0]
		if a[i] != b[i] {
			t.Fatalf("entry %d: %v then %v: not deterministic", i, a[i], b[i])
		}
		if a[i].G > 128 || a[i].A != 255 {
			t.Fatalf("entry %d: %v, past Max", i, a[i])
		}
	}
	if same || !varies {
		t.Errorf("the seed changes nothing (%v), or the gradient is flat (%v)", same, !varies)
	}
}
