package psd

import (
	"os"
	"testing"
)

func decodeFile(t *testing.T, name string) *File {
	t.Helper()
	fh, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	st, _ := fh.Stat()
	f, err := Decode(fh, st.Size(), DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestBevelAndSatinRead: pt-layer-effects.psd's bevel, emboss and satin
// are read with their settings, and not named as unread.
func TestBevelAndSatinRead(t *testing.T) {
	f := decodeFile(t, "testdata/photoshop/pt-layer-effects.psd")
	for _, c := range []struct{ layer, style string }{{"Bevel", "inner"}, {"Emboss", "emboss"}} {
		e := f.Find(c.layer).Effects
		if e == nil || len(e.Bevels) != 1 || len(e.Unread) != 0 {
			t.Fatalf("%s: effects %+v, want one bevel, nothing unread", c.layer, e)
		}
		b := e.Bevels[0]
		if b.Style != c.style || b.Technique != "smooth" || b.Size != 41 || b.Depth != 1 || b.Down ||
			b.Angle != 90 || b.Altitude != 30 || b.HighlightBlend != "screen" || b.ShadowOpacity != 0.5 {
			t.Errorf("%s: %+v", c.layer, b)
		}
	}
	e := f.Find("Satin").Effects
	if e == nil || len(e.Satins) != 1 || len(e.Unread) != 0 {
		t.Fatalf("Satin: effects %+v, want one satin, nothing unread", e)
	}
	if s := e.Satins[0]; s.Blend != "multiply" || s.Angle != -60 || s.Distance != 20 || s.Size != 35 || !s.Invert || s.Contour != nil {
		t.Errorf("Satin: %+v", s)
	}
}

// TestMultiEffectsTopFirst: Photoshop lists several strokes top first;
// Effects holds them bottom first (ag-strokes.psd: the 7 px stroke in
// multiply lies over the 18 px one).
func TestMultiEffectsTopFirst(t *testing.T) {
	f := decodeFile(t, "testdata/photoshop/ag-strokes.psd")
	e := f.Find("Layer 1").Effects
	if e == nil || len(e.Strokes) != 2 {
		t.Fatalf("effects %+v, want two strokes", e)
	}
	if e.Strokes[0].Size != 18 || e.Strokes[1].Size != 7 || e.Strokes[1].Blend != "multiply" {
		t.Errorf("strokes %+v, want the 18 px one first", e.Strokes)
	}
}

func TestContourAt(t *testing.T) {
	c := Contour{{0, 0}, {0.5, 1}, {1, 0}}
	for _, p := range []struct{ in, out float64 }{{0, 0}, {0.25, 0.5}, {0.5, 1}, {0.75, 0.5}, {1, 0}} {
		if got := c.At(p.in); got != p.out {
			t.Errorf("At(%v) = %v, want %v", p.in, got, p.out)
		}
	}
	if !(Contour{{0, 0}, {1, 1}}).Linear() || c.Linear() {
		t.Error("Linear")
	}
}

// TestOuterGlowGradientRead: pt-layer-params.psd's outer glow in a
// gradient is read with its stops, and not named as unread.
func TestOuterGlowGradientRead(t *testing.T) {
	f := decodeFile(t, "testdata/photoshop/pt-layer-params.psd")
	e := f.Find("Фигура 1").Effects
	if e == nil || len(e.OuterGlows) != 1 || len(e.Unread) != 0 {
		t.Fatalf("effects %+v, want one outer glow, nothing unread", e)
	}
	g := e.OuterGlows[0].Gradient
	if g == nil || len(g.Colors) != 3 || len(g.Alphas) != 3 || g.At(1).A != 26 {
		t.Errorf("gradient %+v, want three stops fading to 10 %%", g)
	}
}

// TestOffChannelsRead: pt-layer-effects.psd's inner glow layer leaves
// blue out of its blending (brst), read, not named.
func TestOffChannelsRead(t *testing.T) {
	l := decodeFile(t, "testdata/photoshop/pt-layer-effects.psd").Find("Inner Glow")
	if l.OffChannels != 1<<2 || len(l.Unsupported) != 0 {
		t.Errorf("OffChannels %b, unsupported %v; want blue alone, nothing named", l.OffChannels, l.Unsupported)
	}
}
