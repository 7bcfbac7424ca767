package psd

import (
	"bytes"
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
				if len(pair.a) != 1 || len(pair.b) != 1 || slices.Contains(e.Unread, pair.what+" in a gradient") {
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
