package psd

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"image"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"testing"
)

func open(t testing.TB, path string) *File {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fh.Close() })
	st, err := fh.Stat()
	if err != nil {
		t.Fatal(err)
	}
	f, err := Decode(fh, st.Size(), Limits{})
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return f
}

func hash(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// TestFixturesPixels decodes every layer, mask and merged image of the
// fixtures and compares them with what their writer (testdata/gen/make.js)
// put in: ag-psd's RLE, ZIP and PSB files, and 16-bit, greyscale and
// ZIP-with-prediction ones.
func TestFixturesPixels(t *testing.T) {
	raw, err := os.ReadFile("testdata/expected.json")
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]struct {
		Layers    map[string]string
		Masks     map[string]string
		Composite string
	}
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	for name, w := range want {
		t.Run(name, func(t *testing.T) {
			f := open(t, filepath.Join("testdata", name))
			seen := 0
			f.Walk(func(l *Layer) error {
				if l.Kind == KindGroup {
					return nil
				}
				seen++
				img, err := l.Image()
				if err != nil {
					t.Errorf("%s: %v", l.Path, err)
					return nil
				}
				if img.Bounds() != l.Rect {
					t.Errorf("%s: image bounds %v, rect %v", l.Path, img.Bounds(), l.Rect)
				}
				if got := hash(img.Pix); got != w.Layers[l.Path] {
					t.Errorf("%s: pixels differ from the written ones", l.Path)
				}
				if wm, ok := w.Masks[l.Path]; ok {
					if l.Mask == nil {
						t.Errorf("%s: no mask", l.Path)
						return nil
					}
					m, err := l.Mask.Image()
					if err != nil {
						t.Errorf("%s: mask: %v", l.Path, err)
					} else if hash(m.Pix) != wm {
						t.Errorf("%s: mask pixels differ from the written ones", l.Path)
					}
				} else if l.Mask != nil {
					t.Errorf("%s: a mask that was not written", l.Path)
				}
				return nil
			})
			if seen != len(w.Layers) {
				t.Errorf("%d layers, %d written", seen, len(w.Layers))
			}
			c, err := f.Composite()
			if err != nil {
				t.Fatalf("composite: %v", err)
			}
			if c.Bounds() != image.Rect(0, 0, f.Width, f.Height) {
				t.Errorf("composite bounds %v", c.Bounds())
			}
			if hash(c.Pix) != w.Composite {
				t.Errorf("composite differs from the written one")
			}
		})
	}
}

// TestTemplateRecords checks what the template's records say, in the three
// encodings ag-psd wrote it.
func TestTemplateRecords(t *testing.T) {
	for _, name := range []string{"template.psd", "template-zip.psd", "template.psb"} {
		t.Run(name, func(t *testing.T) {
			f := open(t, filepath.Join("testdata", name))
			if f.Width != 300 || f.Height != 300 || f.Depth != 8 || f.Mode != RGB || f.PSB != (filepath.Ext(name) == ".psb") {
				t.Errorf("header %dx%d depth %d %v psb %v", f.Width, f.Height, f.Depth, f.Mode, f.PSB)
			}
			var paths []string
			f.Walk(func(l *Layer) error { paths = append(paths, l.Path); return nil })
			wantPaths := []string{"Background", "Product", "Product/Design", "Product/Shading", "Product/Hidden", "Colour", "Caption", "Étiquette ✓"}
			if len(paths) != len(wantPaths) {
				t.Fatalf("paths %q, want %q", paths, wantPaths)
			}
			for i := range paths {
				if paths[i] != wantPaths[i] {
					t.Fatalf("paths %q, want %q", paths, wantPaths)
				}
			}
			group := f.Find("Product")
			if group.Kind != KindGroup || group.Blend != "pass through" || len(group.Children) != 3 {
				t.Errorf("group: kind %v blend %q %d children", group.Kind, group.Blend, len(group.Children))
			}
			so := f.Find("Product/Design")
			if so.Kind != KindSmartObject || so.Placed == nil {
				t.Fatalf("Design: kind %v", so.Kind)
			}
			p := so.Placed
			wantQuad := [4]Point{{60, 50}, {240, 70}, {230, 250}, {70, 230}}
			if p.NonAffine != wantQuad || p.Transform != [4]Point{{60, 50}, {240, 50}, {240, 250}, {60, 250}} {
				t.Errorf("quads %v / %v", p.Transform, p.NonAffine)
			}
			if p.Width != 200 || p.Height != 200 || p.Warp != nil {
				t.Errorf("content %vx%v warp %v", p.Width, p.Height, p.Warp)
			}
			lf := f.Linked[p.ID]
			if lf == nil || lf.Name != "design.png" || len(lf.Data) < 8 || string(lf.Data[1:4]) != "PNG" {
				t.Errorf("linked file %+v", lf)
			}
			sh := f.Find("Product/Shading")
			if sh.Blend != "multiply" || !sh.Clipped || sh.Opacity != 204 || sh.FillOpacity != 153 || !sh.Visible {
				t.Errorf("Shading: %q clipped %v opacity %d fill %d visible %v", sh.Blend, sh.Clipped, sh.Opacity, sh.FillOpacity, sh.Visible)
			}
			if f.Find("Product/Hidden").Visible {
				t.Errorf("Hidden is visible")
			}
			fill := f.Find("Colour")
			if fill.Kind != KindFill || fill.FillColor == nil || *fill.FillColor != (color.NRGBA{10, 120, 200, 255}) || fill.Blend != "color" || fill.Opacity != 128 {
				t.Errorf("Colour: kind %v colour %v blend %q opacity %d", fill.Kind, fill.FillColor, fill.Blend, fill.Opacity)
			}
			if m := fill.Mask; m == nil || m.Rect != image.Rect(30, 20, 280, 120) || m.DefaultColor != 0 || m.Disabled {
				t.Errorf("Colour mask %+v", m)
			}
			txt := f.Find("Caption")
			if txt.Kind != KindText || txt.Text == nil || txt.Text.Value != "Hello kino" {
				t.Errorf("Caption: kind %v text %+v", txt.Kind, txt.Text)
			}
			if l := f.Find("Étiquette ✓"); l == nil || l.Blend != "screen" {
				t.Errorf("Unicode-named layer: %+v", l)
			}
		})
	}
}

func TestWarps(t *testing.T) {
	bulge := func(x, y float64) Point { return Point{x, y + 20*math.Sin(math.Pi*x/200)} }
	for _, tc := range []struct {
		file       string
		quilt      bool
		rows, cols int
	}{
		{"warp-custom.psd", false, 1, 1},
		{"warp-quilt.psd", true, 2, 2},
	} {
		t.Run(tc.file, func(t *testing.T) {
			f := open(t, filepath.Join("testdata", tc.file))
			w := f.Find("Design").Placed.Warp
			if w == nil {
				t.Fatal("no warp")
			}
			if w.Style != "warpCustom" || w.Quilt != tc.quilt || w.Rows != tc.rows || w.Cols != tc.cols || w.Bounds != [4]float64{0, 0, 200, 200} {
				t.Fatalf("warp %+v", w)
			}
			n := 3*tc.cols + 1
			if len(w.Points) != (3*tc.rows+1)*n {
				t.Fatalf("%d points", len(w.Points))
			}
			for i, p := range w.Points {
				x, y := 200*float64(i%n)/float64(3*tc.cols), 200*float64(i/n)/float64(3*tc.rows)
				if q := bulge(x, y); math.Abs(p.X-q.X) > 1e-9 || math.Abs(p.Y-q.Y) > 1e-9 {
					t.Fatalf("point %d: %v, want %v", i, p, q)
				}
			}
			if tc.quilt && (len(w.SlicesX) != 3 || len(w.SlicesY) != 3 || w.SlicesX[1] != 100) {
				t.Errorf("slices %v %v", w.SlicesX, w.SlicesY)
			}
		})
	}
}

func TestDepthAndModes(t *testing.T) {
	for name, want := range map[string]struct {
		depth int
		mode  ColorMode
	}{
		"rgb16-zip-predict.psd": {16, RGB},
		"grey8-zip-predict.psd": {8, Grayscale},
		"grey16-raw.psd":        {16, Grayscale},
	} {
		f := open(t, filepath.Join("testdata", name))
		if f.Depth != want.depth || f.Mode != want.mode || len(f.Layers) != 2 {
			t.Errorf("%s: depth %d mode %v %d layers", name, f.Depth, f.Mode, len(f.Layers))
		}
	}
}

// TestConcurrentPictures decodes every layer of one File at once, as a
// batch of renders may (run with -race).
func TestConcurrentPictures(t *testing.T) {
	f := open(t, "testdata/template.psd")
	want := map[*Layer]string{}
	f.Walk(func(l *Layer) error {
		img, err := l.Image()
		if err != nil {
			t.Fatal(err)
		}
		want[l] = hash(img.Pix)
		return nil
	})
	errs := make(chan error, 4*len(want))
	for range 4 {
		for l, h := range want {
			go func() {
				img, err := l.Image()
				if err == nil && hash(img.Pix) != h {
					err = l.errorf("pixels differ when decoded concurrently")
				}
				errs <- err
			}()
		}
	}
	for range 4 * len(want) {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
