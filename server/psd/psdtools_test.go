package psd

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// psdToolsKinds maps this package's kinds to psd-tools' layer kinds.
var psdToolsKinds = map[Kind][]string{
	KindPixel:       {"pixel"},
	KindGroup:       {"group"},
	KindSmartObject: {"smartobject"},
	KindText:        {"type"},
	KindShape:       {"shape"},
	KindFill:        {"solidcolorfill", "gradientfill", "patternfill"},
	KindAdjustment: {"brightnesscontrast", "curves", "exposure", "levels", "vibrance", "huesaturation", "colorbalance",
		"blackandwhite", "photofilter", "channelmixer", "colorlookup", "invert", "posterize", "threshold", "selectivecolor", "gradientmap"},
}

// psdToolsWrong lists where psd-tools 1.9 (Debian's) is known wrong: a
// layer record with a section divider of type 0 ("any other layer") goes
// down its group branch and loses its smart object ("Divider 0 found");
// ag-psd reads it as a placed layer, as this package does.
var psdToolsWrong = map[string]bool{
	"ag-placed-transform.psd:Layer 1": true,
	"ag-mesh-transform.psd:transform": true,
	// A layer with a vector mask and a vector stroke but no fill colour
	// is a shape to psd-tools; its pixels are what is drawn.
	"ag-group-drop-shadows.psd:Group 1/Rectangle 1": true,
	"ag-group-drop-shadows.psd:Group 1/Ellipse 1":   true,
	"pt-double-stroke.psd:Rectangle 1":              true,
	// A legacy brightness/contrast layer (brit without CgEd) is a pixel
	// layer to psd-tools 1.9.
	"pt-brightnesscontrast-legacy-grey.psd:Brightness/Contrast 1": true,
	"ag-masks.psd:Brightness/Contrast 1":                          true,
	"pt-brightnesscontrast-legacy-rgb.psd:Brightness/Contrast 1":  true,
	"adjustments.psd:brit":                                        true,
}

// TestPsdToolsAgrees reads every fixture and Photoshop file with Debian's
// python3-psd-tools too (testdata/psdtools.py) and compares layer paths,
// kinds, rectangles, blend modes, visibility, opacity, clipping and smart
// objects' quads. It skips when /usr/bin/python3 cannot import psd_tools,
// unless KINO_REQUIRE_PSD_TOOLS=1.
func TestPsdToolsAgrees(t *testing.T) {
	const python = "/usr/bin/python3"
	if err := exec.Command(python, "-c", "import psd_tools").Run(); err != nil {
		if os.Getenv("KINO_REQUIRE_PSD_TOOLS") == "1" {
			t.Fatalf("psd_tools cannot be imported by %s: %v", python, err)
		}
		t.Skipf("psd_tools cannot be imported by %s (apt-get install python3-psd-tools)", python)
	}
	files, _ := filepath.Glob("testdata/*.ps?")
	more, _ := filepath.Glob("testdata/photoshop/*.ps?")
	files = append(files, more...)
	out, err := exec.Command(python, append([]string{"testdata/psdtools.py"}, files...)...).Output()
	if err != nil {
		t.Fatalf("psdtools.py: %v", err)
	}
	type rec struct {
		Kind      string
		Bbox      [4]int
		Blend     string
		Visible   bool
		Opacity   int
		Clipping  bool
		Transform []float64
		NonAffine []float64
		ID        string
	}
	var theirs map[string]struct {
		Width, Height, Depth int
		Layers               map[string]rec
	}
	if err := json.Unmarshal(out, &theirs); err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		t.Run(filepath.Base(name), func(t *testing.T) {
			want := theirs[name]
			f := open(t, name)
			if f.Width != want.Width || f.Height != want.Height || f.Depth != want.Depth {
				t.Errorf("%dx%d depth %d; psd-tools %dx%d depth %d", f.Width, f.Height, f.Depth, want.Width, want.Height, want.Depth)
			}
			// psd-tools' layers are keyed by path: layers of one path
			// (pt-stroke-descriptors-hsb's eight unnamed shapes) count once.
			paths := map[string]bool{}
			f.Walk(func(l *Layer) error {
				paths[l.Path] = true
				w, ok := want.Layers[l.Path]
				if !ok {
					t.Errorf("%s: psd-tools has no such layer", l.Path)
					return nil
				}
				if psdToolsWrong[filepath.Base(name)+":"+l.Path] {
					return nil
				}
				kindOK := false
				for _, k := range psdToolsKinds[l.Kind] {
					kindOK = kindOK || k == w.Kind
				}
				if !kindOK {
					t.Errorf("%s: kind %v; psd-tools %s", l.Path, l.Kind, w.Kind)
				}
				// psd-tools gives a group the union of its children, and a
				// fill or shape the box of its vector mask: compare pixel
				// rectangles of the others.
				if l.Kind != KindGroup && l.Kind != KindFill && l.Kind != KindShape {
					if r := l.Rect; [4]int{r.Min.X, r.Min.Y, r.Max.X, r.Max.Y} != w.Bbox && !(r.Empty() && w.Bbox == [4]int{}) {
						t.Errorf("%s: rect %v; psd-tools %v", l.Path, r, w.Bbox)
					}
				}
				if string(l.Blend) != w.Blend || l.Visible != w.Visible || int(l.Opacity) != w.Opacity || l.Clipped != w.Clipping {
					t.Errorf("%s: %q visible %v opacity %d clipped %v; psd-tools %q %v %d %v", l.Path, l.Blend, l.Visible, l.Opacity, l.Clipped, w.Blend, w.Visible, w.Opacity, w.Clipping)
				}
				if l.Placed != nil {
					if l.Placed.ID != w.ID {
						t.Errorf("%s: id %s; psd-tools %s", l.Path, l.Placed.ID, w.ID)
					}
					if !sameQuad(l.Placed.Transform, w.Transform) || !sameQuad(l.Placed.NonAffine, w.NonAffine) {
						t.Errorf("%s: quads %v %v; psd-tools %v %v", l.Path, l.Placed.Transform, l.Placed.NonAffine, w.Transform, w.NonAffine)
					}
				}
				return nil
			})
			if len(paths) != len(want.Layers) {
				t.Errorf("%d layer paths; psd-tools %d", len(paths), len(want.Layers))
			}
		})
	}
}

func sameQuad(q [4]Point, v []float64) bool {
	if len(v) != 8 {
		return false
	}
	for i, p := range q {
		if math.Abs(p.X-v[2*i]) > 1e-9 || math.Abs(p.Y-v[2*i+1]) > 1e-9 {
			return false
		}
	}
	return true
}
