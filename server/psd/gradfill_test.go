package psd

import (
	"bytes"
	"encoding/binary"
	"image/color"
	"os"
	"testing"
)

// TestGradientFillRead reads the gradient fill layers of Photoshop's
// colour-mode files, stored without pixels: their settings, and their
// stops converted as Photoshop mixes them in each mode.
func TestGradientFillRead(t *testing.T) {
	for _, tc := range []struct {
		file        string
		first, last color.NRGBA // the gradient at 0 and at 1
		method      string
		inks        bool
	}{
		// Linear light (0.743, 0.0005, 113.5 of 255) through the sRGB curve.
		{"pt-32bit-rgb.psd", color.NRGBA{10, 0, 178, 255}, color.NRGBA{255, 252, 0, 255}, "linear", false},
		// 97.2 % of black is 2.8 % of white in linear light; mixed
		// along a spline, the method left as the file says.
		{"pt-32bit-grey.psd", color.NRGBA{46, 46, 46, 255}, color.NRGBA{246, 246, 246, 255}, "classic", false},
		// Inks through the file's profile: as Photoshop's merged image
		// shows the blue end.
		{"pt-cmyk-16bit.psd", color.NRGBA{20, 44, 139, 255}, color.NRGBA{}, "classic", true},
	} {
		f := decodeFile(t, "testdata/photoshop/"+tc.file)
		l := f.Find("Gradient Fill 1")
		if l == nil || l.Kind != KindFill || l.FillGradient == nil || len(l.Unsupported) != 0 {
			t.Fatalf("%s: %+v: want a gradient fill kino draws", tc.file, l)
		}
		g := l.FillGradient
		if g.Style != "reflected" || g.Angle != 30 || !g.Aligned || g.Scale != 1 || g.Gradient.Method != tc.method {
			t.Errorf("%s: %+v, want reflected at 30°, aligned, scale 1, mixed %s", tc.file, g, tc.method)
		}
		if got := g.Gradient.profile != nil; got != tc.inks {
			t.Errorf("%s: stops mixed in inks %v, want %v", tc.file, got, tc.inks)
		}
		if got := g.Gradient.At(0); got != tc.first {
			t.Errorf("%s: gradient at 0 %v, want %v", tc.file, got, tc.first)
		}
		if got := g.Gradient.At(1); tc.last.A != 0 && got != tc.last {
			t.Errorf("%s: gradient at 1 %v, want %v", tc.file, got, tc.last)
		}
	}
}

// TestGradientShapeRead: a shape filled with a gradient (vscg holding
// a gradient fill's settings; here pt-32bit-rgb.psd's, in an 8-bit
// file) keeps the gradient, and is not named.
func TestGradientShapeRead(t *testing.T) {
	b, err := os.ReadFile("testdata/photoshop/pt-32bit-rgb.psd")
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(b, []byte("8BIMGdFl"))
	if i < 0 {
		t.Fatal("no GdFl block")
	}
	n := int(binary.BigEndian.Uint32(b[i+8:]))
	vscg := block("vscg", append([]byte("GdFl"), b[i+12:i+12+n]...))
	tri := vmskBlock(1, [2]float64{0.25, 0.25}, [2]float64{0.75, 0.25}, [2]float64{0.5, 0.75})
	f, err := decodeBytes(psdFile(40, 40, RGB, []testLayer{{name: "shape", blocks: append(vscg, tri...)}}), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	l := f.Find("shape")
	if l.Kind != KindShape || l.FillGradient == nil || l.FillColor != nil || len(l.Unsupported) != 0 {
		t.Fatalf("shape: %+v, want a gradient-filled shape, nothing named", l)
	}
	// 8 bits: the stops as the descriptor gives them, mixed as stored.
	if g := l.FillGradient; g.Style != "reflected" || g.Gradient.Method != "classic" || g.Gradient.At(0) != (color.NRGBA{1, 0, 114, 255}) {
		t.Errorf("gradient %+v, at 0 %v", g, g.Gradient.At(0))
	}
}
