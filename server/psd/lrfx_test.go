package psd

import (
	"bytes"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// withoutDescriptorEffects renames a file's lfx2, lfxs and lmfx blocks
// (same lengths, so nothing moves): only its lrFX blocks are left, as an
// old Photoshop would have written it.
func withoutDescriptorEffects(b []byte) []byte {
	b = bytes.Clone(b)
	for _, k := range []string{"lfx2", "lfxs", "lmfx"} {
		b = bytes.ReplaceAll(b, []byte("8BIM"+k), []byte("8BIMxxxx"))
	}
	return b
}

// TestLegacyEffectsMatchDescriptors reads the lrFX blocks Photoshop
// writes beside lfx2 in the test files, alone, and finds in them the
// effects the descriptors hold, read into the same structures: shadows,
// glows and colour overlays, their colours, blend modes, sizes, angles
// and opacities. (Spread and choke came after Photoshop 5: lrFX has none,
// and its effects are drawn without.)
func TestLegacyEffectsMatchDescriptors(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob("testdata/photoshop/*.psd")
	compared := 0
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := decodeBytes(b, Limits{})
		if err != nil {
			continue
		}
		old, err := decodeBytes(withoutDescriptorEffects(b), Limits{})
		if err != nil {
			t.Fatalf("%s without lfx2: %v", name, err)
		}
		want, got := f.allLayers(), old.allLayers()
		for i, l := range want {
			e, o := l.Effects, got[i].Effects
			if e == nil || o == nil {
				continue
			}
			for _, pair := range []struct {
				what string
				a, b []Shadow
			}{{"drop shadow", e.DropShadows, o.DropShadows}, {"inner shadow", e.InnerShadows, o.InnerShadows}} {
				if len(pair.a) != 1 || len(pair.b) != 1 {
					continue
				}
				compared++
				a, b := pair.a[0], pair.b[0]
				if a.Color != b.Color || a.Blend != b.Blend || !near(a.Size, b.Size, 0.01) || !near(a.Distance, b.Distance, 0.01) || !near(a.Angle, b.Angle, 0.01) || !near(a.Opacity, b.Opacity, 0.003) {
					t.Errorf("%s %q %s: lrFX %+v, lfx2 %+v", filepath.Base(name), l.Name, pair.what, b, a)
				}
			}
			for _, pair := range []struct {
				what string
				a, b []Glow
			}{{"outer glow", e.OuterGlows, o.OuterGlows}, {"inner glow", e.InnerGlows, o.InnerGlows}} {
				if len(pair.a) != 1 || len(pair.b) != 1 || pair.a[0].Gradient != nil || slices.Contains(e.Unread, pair.what+" in a gradient") {
					continue // lrFX holds a glow's colour, not its gradient
				}
				compared++
				a, b := pair.a[0], pair.b[0]
				if a.Color != b.Color || a.Blend != b.Blend || !near(a.Size, b.Size, 0.01) || !near(a.Opacity, b.Opacity, 0.003) {
					t.Errorf("%s %q %s: lrFX %+v, lfx2 %+v", filepath.Base(name), l.Name, pair.what, b, a)
				}
			}
			if len(e.ColorOverlays) == 1 && len(o.ColorOverlays) == 1 {
				compared++
				a, b := e.ColorOverlays[0], o.ColorOverlays[0]
				if a.Color != b.Color || a.Blend != b.Blend || !near(a.Opacity, b.Opacity, 0.003) {
					t.Errorf("%s %q colour overlay: lrFX %+v, lfx2 %+v", filepath.Base(name), l.Name, b, a)
				}
			}
		}
	}
	if compared < 8 {
		t.Errorf("%d effects compared, the test files hold more", compared)
	}
	t.Logf("%d effects compared", compared)
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// allLayers lists the file's layers depth first, groups included.
func (f *File) allLayers() []*Layer {
	var out []*Layer
	var walk func([]*Layer)
	walk = func(ls []*Layer) {
		for _, l := range ls {
			out = append(out, l)
			walk(l.Children)
		}
	}
	walk(f.Layers)
	return out
}

// lrfxBlock builds an lrFX block as Adobe's specification lays it out:
// common state, then a drop shadow (RGB), inner shadow (CMYK), outer glow
// (HSB), inner glow (greyscale), bevel and solid fill, all version 2,
// each switched on when on is.
func lrfxBlock(on bool) []byte {
	var b builder
	sw := uint8(0)
	if on {
		sw = 1
	}
	fixed := func(v float64) { b.u32(uint32(int32(v * 65536))) }
	colour := func(space uint16, v ...uint16) {
		b.u16(space)
		for i := 0; i < 4; i++ {
			if i < len(v) {
				b.u16(v[i])
			} else {
				b.u16(0)
			}
		}
	}
	entry := func(key string, size uint32) {
		b.s("8BIM" + key)
		b.u32(size)
		b.u32(2) // version
	}
	b.u16(0)
	b.u16(7)
	entry("cmnS", 7)
	b.u8(1)
	b.u16(0)
	shadow := func(key string, angle float64, global uint8, space uint16, c ...uint16) {
		entry(key, 51)
		fixed(7)     // blur
		fixed(0)     // intensity
		fixed(angle) // angle
		fixed(12)    // distance
		colour(space, c...)
		b.s("8BIMmul ")
		b.u8(sw)
		b.u8(global)
		b.u8(128)
		colour(space, c...)
	}
	shadow("dsdw", 30, 0, 0, 0xffff, 0, 0)              // red
	shadow("isdw", 45, 1, 2, 0, 0xffff, 0xffff, 0xffff) // cyan: no ink but C
	entry("oglw", 42)
	fixed(9)
	fixed(0)
	colour(1, 0x5555, 0xffff, 0xffff) // HSB: hue 120°, green
	b.s("8BIMscrn")
	b.u8(sw)
	b.u8(255)
	colour(1, 0x5555, 0xffff, 0xffff)
	entry("iglw", 43)
	fixed(3)
	fixed(0)
	colour(8, 2500) // a quarter black
	b.s("8BIMnorm")
	b.u8(sw)
	b.u8(64)
	b.u8(0) // invert
	colour(8, 2500)
	entry("bevl", 78)
	fixed(120)
	fixed(3)
	fixed(5)
	b.s("8BIMscrn8BIMmul ")
	colour(0, 0xffff, 0xffff, 0xffff)
	colour(0)
	b.Write([]byte{1, 191, 191, sw, 1, 0})
	colour(0, 0xffff, 0xffff, 0xffff)
	colour(0)
	entry("sofi", 34)
	b.s("8BIMnorm")
	colour(0, 0, 0, 0xffff)
	b.u8(255)
	b.u8(sw)
	colour(0, 0, 0, 0xffff)
	return b.Bytes()
}

// TestLegacyEffectsFromSpec reads an lrFX block built per the
// specification: every entry, each colour space, the global angle, and
// nothing when switched off or hidden by the common state.
func TestLegacyEffectsFromSpec(t *testing.T) {
	t.Parallel()
	hidden := lrfxBlock(true)
	hidden[4+4+4+4+4] = 0 // cmnS's visible byte
	f, err := decodeBytes(psdFile(4, 4, RGB, []testLayer{
		{name: "on", rect: image4, blocks: block("lrFX", lrfxBlock(true))},
		{name: "off", rect: image4, blocks: block("lrFX", lrfxBlock(false))},
		{name: "hidden", rect: image4, blocks: block("lrFX", hidden)},
		{name: "cut", rect: image4, blocks: block("lrFX", lrfxBlock(true)[:100])},
	}), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	e := f.Find("on").Effects
	if e == nil || len(e.DropShadows) != 1 || len(e.InnerShadows) != 1 || len(e.OuterGlows) != 1 || len(e.InnerGlows) != 1 || len(e.ColorOverlays) != 1 {
		t.Fatalf("effects %+v", e)
	}
	ds, is := e.DropShadows[0], e.InnerShadows[0]
	if ds.Color != (color.NRGBA{255, 0, 0, 255}) || ds.Blend != "multiply" || ds.Angle != 30 || ds.Size != 7 || ds.Distance != 12 || !near(ds.Opacity, 128.0/255, 1e-9) {
		t.Errorf("drop shadow %+v", ds)
	}
	if is.Color != (color.NRGBA{0, 255, 255, 255}) || is.Angle != 120 { // the document's light
		t.Errorf("inner shadow %+v", is)
	}
	if g := e.OuterGlows[0]; g.Color != (color.NRGBA{0, 255, 0, 255}) || g.Blend != "screen" || g.Size != 9 || g.Opacity != 1 {
		t.Errorf("outer glow %+v", g)
	}
	if g := e.InnerGlows[0]; g.Color != (color.NRGBA{191, 191, 191, 255}) || g.Size != 3 {
		t.Errorf("inner glow %+v", g)
	}
	if o := e.ColorOverlays[0]; o.Color != (color.NRGBA{0, 0, 255, 255}) || o.Opacity != 1 || o.Blend != "normal" {
		t.Errorf("solid fill %+v", o)
	}
	if !slices.Equal(e.Unread, []string{"bevel and emboss"}) || !slices.Equal(f.Find("on").Unsupported, []string{"layer effect: bevel and emboss"}) {
		t.Errorf("bevel: unread %q, unsupported %q", e.Unread, f.Find("on").Unsupported)
	}
	for _, name := range []string{"off", "hidden"} {
		if l := f.Find(name); l.Effects != nil || len(l.Unsupported) > 0 {
			t.Errorf("%s: effects %+v, unsupported %q", name, l.Effects, l.Unsupported)
		}
	}
	// Cut inside the inner shadow: the drop shadow before it is kept.
	if e := f.Find("cut").Effects; e == nil || len(e.DropShadows) != 1 || len(e.InnerShadows) != 0 {
		t.Errorf("cut: %+v", e)
	}
}
