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

// A noise gradient is drawn in the middle of its colours, whatever its
// seed: RGB bounds halved channel by channel, Lab ones through Lab (L 50,
// a and b 0: mid grey), alpha only when it adds transparency.
func TestNoiseGradient(t *testing.T) {
	cases := []struct {
		n    NoiseGradient
		want color.NRGBA
	}{
		{NoiseGradient{Seed: 2126732, Max: [4]float64{1, 0.5, 1, 1}}, color.NRGBA{128, 64, 128, 255}},
		{NoiseGradient{Seed: 7, Min: [4]float64{0.2, 0, 0, 0}, Max: [4]float64{1, 0.5, 1, 0.5}, Transparent: true}, color.NRGBA{153, 64, 128, 64}},
		{NoiseGradient{Seed: 43487260, Lab: true, Max: [4]float64{1, 1, 1, 1}}, color.NRGBA{119, 119, 119, 255}},
	}
	for _, c := range cases {
		g := Gradient{Noise: &c.n}
		for _, at := range []float64{0, 0.3, 1} {
			if got := g.At(at); got != c.want {
				t.Errorf("%+v at %v: %v, want %v", c.n, at, got, c.want)
			}
		}
		for i, got := range g.Table(5) {
			if got != c.want {
				t.Errorf("%+v: table entry %d %v, want %v", c.n, i, got, c.want)
			}
		}
	}
}
