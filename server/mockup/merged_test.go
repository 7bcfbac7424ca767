package mockup

import (
	"errors"
	"fmt"
	"image"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/kinohq/kino/server/psd"
)

// mergedFloor is, for each file of testdata/photoshop, the PSNR in dB
// under which kino's drawing of it against the merged image Photoshop
// stored fails TestMergedImage: what kino reached when the file was added
// or last improved, less half a decibel, so that a change that draws any
// file worse is seen (a file drawn exactly counts as 61 dB). A file
// missing here must reach 30 dB, and every file must be drawn.
//
//nolint:gochecknoglobals // read-only table of the test's thresholds
var mergedFloor = map[string]float64{
	"ag-adjustment-layers.psd":              60.0,
	"ag-blend-mode.psd":                     41.0,
	"ag-cmyk.psd":                           34.7, // CMYK blended in RGB: soft edges part
	"ag-effects.psd":                        27.7, // under 30: its Lab noise overlay (drawn in the middle of its colours) and a radial overlay 20 % smaller than the rule
	"ag-gradient-mode.psd":                  49.6,
	"ag-group-drop-shadows.psd":             45.2,
	"ag-masks.psd":                          47.1,
	"ag-mesh-transform.psd":                 60.0,
	"ag-pattern.psd":                        50.3,
	"ag-placed-transform.psd":               60.0,
	"ag-smart-filter-blur.psd":              60.0,
	"ag-smart-object.psd":                   60.0,
	"ag-strokes.psd":                        36.6,
	"ag-vector-complex.psd":                 80.8,
	"ag-werps.psd":                          60.0,
	"pt-32bit-5x5.psd":                      60.0,
	"pt-32bit-grey.psd":                     60.0,
	"pt-32bit-rgb.psd":                      60.0,
	"pt-32bit-shape.psd":                    60.0,
	"pt-adjustment-clipping.psd":            60.0,
	"pt-adjustment-nested-1.psd":            49.8,
	"pt-adjustment-nested-4.psd":            60.0,
	"pt-adjustment-nested-5.psd":            60.0,
	"pt-blend-hue.psd":                      57.9,
	"pt-blend-multiply.psd":                 60.0,
	"pt-brightnesscontrast-grey.psd":        44.5,
	"pt-brightnesscontrast-legacy-grey.psd": 35.0,
	"pt-brightnesscontrast-legacy-rgb.psd":  60.0,
	"pt-brightnesscontrast-rgb.psd":         43.7,
	"pt-clip-adjustment.psd":                60.0,
	"pt-clipping-mask4.psd":                 60.0,
	"pt-cmyk-16bit.psd":                     34.8,
	"pt-cmyk-8bit.psd":                      52.4,
	"pt-curves-grey.psd":                    60.0,
	"pt-curves-rgb.psd":                     55.6,
	"pt-double-stroke.psd":                  73.4,
	"pt-exposure-grey.psd":                  54.2,
	"pt-exposure-rgb.psd":                   60.0,
	"pt-fill-opacity.psd":                   66.5,
	"pt-huesaturation-colorize-rgb.psd":     50.0,
	"pt-huesaturation-lightness-rgb.psd":    52.0,
	"pt-huesaturation-rgb.psd":              41.8,
	"pt-huesaturation-saturation-rgb.psd":   46.8,
	"pt-invert-grey.psd":                    60.0,
	"pt-lab-16bit.psd":                      40.6,
	"pt-lab-8bit.psd":                       60.0,
	"pt-layer-effects.psd":                  36.5,
	"pt-layer-params.psd":                   32.2,
	"pt-levels-grey.psd":                    45.4,
	"pt-levels-rgb.psd":                     51.4,
	"pt-mask-density-layervectormask.psd":   64.4,
	"pt-mask-density-vectormask.psd":        60.0,
	"pt-mask-vector-density.psd":            60.0,
	"pt-passthrough-clipping-blend.psd":     60.0,
	"pt-passthrough-fill-adjustment.psd":    60.0,
	"pt-passthrough-opacity.psd":            60.0,
	"pt-placedLayer.psb":                    60.0,
	"pt-placedLayer.psd":                    60.0,
	"pt-posterize-grey.psd":                 60.0,
	"pt-shape-fx2.psd":                      36.9,
	"pt-stroke-descriptors-hsb.psd":         96.5,
	"pt-stroke-gradient.psd":                19.6, // under 30: Photoshop's noise generator is not public (its noise stroke drawn in the middle of its colours)
	"pt-stroke-transparent-shape.psd":       60.0,
	"pt-stroke.psd":                         81.0,
	"pt-threshold-grey.psd":                 60.0,
	"jsq-messages-banner.psd":               55.2, // text mixed at gamma 1.45 (43.5 dB mixed plainly)
	"uv-download.psd":                       68.2, // a stroke over a faded layer put together before the fade (46.8 dB apart)
	"uv-mobile.psd":                         72.2, // text mixed at gamma 1.45 (54.9 dB mixed plainly)
	"uv-placemarker.psd":                    60.0, // a shape's outline applied once (28.8 dB when cut twice)
	"uv-spinner.psd":                        60.0,
}

// mergedResult is one file's line of TestMergedImage's table.
type mergedResult struct {
	file     string
	kino     float64 // dB; NaN when not drawn
	psdTools float64 // dB; NaN when psd-tools could not draw it
	note     string
}

// TestMergedImage draws every Photoshop-written file of
// ../psd/testdata/photoshop (with no design: the template as it is) and
// compares kino's picture with the merged image Photoshop stored in the
// file, by PSNR over the whole canvas, and logs a table, with psd-tools'
// drawing of the same file against the same merged image where
// python3-psd-tools is installed (KINO_REQUIRE_PSD_TOOLS=1 makes it
// required). A file saved without "maximize compatibility" has no merged
// image worth the name (all white or all transparent): it is skipped.
func TestMergedImage(t *testing.T) {
	dir := filepath.Join("..", "psd", "testdata", "photoshop")
	files, _ := filepath.Glob(filepath.Join(dir, "*.ps?"))
	if len(files) == 0 {
		t.Fatal("no Photoshop files")
	}
	// KINO_MERGED_FILES narrows a run to the files whose names hold it,
	// for work on one feature; CI runs them all.
	if only := os.Getenv("KINO_MERGED_FILES"); only != "" {
		files = slices.DeleteFunc(files, func(f string) bool { return !strings.Contains(filepath.Base(f), only) })
	}
	results := mergedTable(t, files, psdToolsComposites(t, files))
	var kino, theirs []float64
	for _, r := range results {
		if !math.IsNaN(r.kino) {
			kino = append(kino, r.kino)
		}
		if !math.IsNaN(r.psdTools) {
			theirs = append(theirs, r.psdTools)
		}
		floor, ok := mergedFloor[r.file]
		if !ok {
			floor = 30
		}
		if math.IsNaN(r.kino) {
			t.Errorf("%s: not drawn (%s)", r.file, r.note)
		} else if r.kino < floor {
			t.Errorf("%s: %.1f dB against Photoshop's merged image, below %.1f", r.file, r.kino, floor)
		}
	}
	t.Logf("median: kino %.1f dB over %d files, psd-tools %.1f dB over %d", median(kino), len(kino), median(theirs), len(theirs))
}

// mergedTable draws files with kino, reads psd-tools' drawings from
// ptDir (none when ""), and logs the table.
func mergedTable(t *testing.T, files []string, ptDir string) []mergedResult {
	var out []mergedResult
	var lines []string
	for _, name := range files {
		r := mergedResult{file: filepath.Base(name), kino: math.NaN(), psdTools: math.NaN()}
		merged, ok := mergedImage(t, name)
		if !ok {
			continue
		}
		img, note := drawTemplate(name)
		r.note = note
		full := image.Rect(0, 0, merged.Bounds().Dx(), merged.Bounds().Dy())
		if img != nil {
			r.kino = psnr(merged, img, full)
		}
		if ptDir != "" {
			if pt, err := readPNG(filepath.Join(ptDir, filepath.Base(name)+".png")); err == nil {
				r.psdTools = psnr(merged, pt, full)
			}
		}
		out = append(out, r)
		lines = append(lines, fmt.Sprintf("| %s | %s | %s | %s |", r.file, dB(r.kino), dB(r.psdTools), r.note))
	}
	sort.Strings(lines)
	t.Log("\n| file | kino | psd-tools | not drawn |\n|---|---|---|---|\n" + strings.Join(lines, "\n"))
	return out
}

// mergedImage is the merged image a file stores, false when it has none
// worth comparing with (a flat file is its merged image; a file saved
// without maximised compatibility stores a blank one).
func mergedImage(t *testing.T, name string) (*image.NRGBA, bool) {
	fh, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	st, _ := fh.Stat()
	f, err := psd.Decode(fh, st.Size(), psd.DefaultLimits)
	if err != nil {
		return nil, false
	}
	if len(f.Layers) == 0 {
		return nil, false
	}
	m, err := f.Composite()
	if err != nil || uniform(m, m.Rect) {
		return nil, false
	}
	return m, true
}

// drawTemplate is kino's drawing of a template as it is, and what it
// ignored or why it drew nothing.
func drawTemplate(name string) (*image.NRGBA, string) {
	tpl, closer, err := Load(name, 100_000_000)
	if err != nil {
		if errors.Is(err, ErrRefused) {
			return nil, "refused: " + strings.TrimPrefix(err.Error(), ErrRefused.Error()+": ")
		}
		return nil, err.Error()
	}
	defer closer.Close()
	img, _, err := tpl.Render(Options{})
	if err != nil {
		return nil, err.Error()
	}
	var feats []string
	for _, f := range tpl.Manifest.Unsupported {
		if !strings.Contains(strings.Join(feats, ", "), f.Feature) {
			feats = append(feats, f.Feature)
		}
	}
	return img, strings.Join(feats, ", ")
}

// psdToolsComposites draws files with psd-tools into a temporary folder,
// "" when psd-tools is not installed.
func psdToolsComposites(t *testing.T, files []string) string {
	const python = "/usr/bin/python3"
	if err := exec.Command(python, "-c", "import psd_tools").Run(); err != nil {
		if os.Getenv("KINO_REQUIRE_PSD_TOOLS") == "1" {
			t.Fatalf("psd_tools cannot be imported by %s: %v", python, err)
		}
		t.Logf("psd-tools not installed (apt-get install python3-psd-tools): its column is empty")
		return ""
	}
	out := t.TempDir()
	cmd := exec.Command(python, append([]string{filepath.Join("..", "psd", "testdata", "psdcomposite.py"), out}, files...)...)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("psdcomposite.py: %v\n%s", err, msg)
	} else if len(msg) > 0 {
		t.Logf("psd-tools could not draw:\n%s", msg)
	}
	return out
}

func dB(v float64) string {
	switch {
	case math.IsNaN(v):
		return "–"
	case math.IsInf(v, 1):
		return "∞"
	}
	return fmt.Sprintf("%.1f dB", v)
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// TestReasonNamesWhatIsRead: a refused colour mode's message says which
// modes kino reads.
func TestReasonNamesWhatIsRead(t *testing.T) {
	t.Parallel()
	got := Reason(&psd.UnsupportedError{Feature: "duotone colour mode"}).Error()
	if !strings.Contains(got, "duotone colour mode") || !strings.Contains(got, "RGB and greyscale at 8, 16 or 32 bits, CMYK and Lab at 8 or 16") {
		t.Errorf("reason %q", got)
	}
}
