package mockup

import (
	"bytes"
	"fmt"
	"image"
	_ "image/jpeg" // embedded JPEG contents
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kinohq/kino/server/psd"
)

// psnr is the peak signal-to-noise ratio, in dB, of b against a over the
// rectangle r: both composited on mid grey (so a white shape on a
// transparent layer still counts), RGB, 8 bits. Identical pictures
// give +Inf.
func psnr(a, b image.Image, r image.Rectangle) float64 {
	var sum float64
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			ca, cb := onWhiteRGB(a, x, y), onWhiteRGB(b, x, y)
			for c := range 3 {
				d := ca[c] - cb[c]
				sum += d * d
			}
			n += 3
		}
	}
	if n == 0 || sum == 0 {
		return math.Inf(1)
	}
	return 10 * math.Log10(255*255/(sum/float64(n)))
}

func onWhiteRGB(img image.Image, x, y int) [3]float64 {
	if !(image.Point{x, y}.In(img.Bounds())) {
		return [3]float64{127.5, 127.5, 127.5}
	}
	r, g, b, a := img.At(x, y).RGBA() // premultiplied, 16 bits
	grey := (65535 - float64(a)) / 2
	return [3]float64{(float64(r) + grey) / 257, (float64(g) + grey) / 257, (float64(b) + grey) / 257}
}

func TestPSNR(t *testing.T) {
	a := quadrants(40, 40)
	if v := psnr(a, a, a.Bounds()); !math.IsInf(v, 1) {
		t.Fatalf("a picture against itself: %v dB", v)
	}
	b := quadrants(40, 40)
	b.Pix[0] += 10 // one channel of one pixel off by 10: MSE 100/4800
	want := 10 * math.Log10(255*255/(100.0/4800))
	if v := psnr(a, b, a.Bounds()); math.Abs(v-want) > 1e-9 {
		t.Fatalf("psnr %v, want %v", v, want)
	}
}

// content decodes a smart object's embedded file: PNG, JPEG, or a PSD/PSB
// (its merged image).
func content(t *testing.T, lf *psd.LinkedFile) image.Image {
	t.Helper()
	if bytes.HasPrefix(lf.Data, []byte("8BPS")) {
		f, err := psd.Decode(bytes.NewReader(lf.Data), int64(len(lf.Data)), psd.DefaultLimits)
		if err != nil {
			t.Fatalf("embedded %s: %v", lf.Name, err)
		}
		// Drawn from its layers: a file saved without maximised
		// compatibility has no merged image to speak of.
		tpl, err := Open(f)
		if err != nil {
			t.Fatalf("embedded %s: %v", lf.Name, err)
		}
		img, _, err := tpl.Render(Options{})
		if err != nil {
			t.Fatalf("embedded %s: %v", lf.Name, err)
		}
		return img
	}
	img, _, err := image.Decode(bytes.NewReader(lf.Data))
	if err != nil {
		t.Fatalf("embedded %s: %v", lf.Name, err)
	}
	return img
}

// TestPhotoshopFidelity re-renders every smart object of the files
// Photoshop wrote with its own embedded content as the design, and
// compares the picture with Photoshop's, over the smart object's
// rectangle: the canvas Photoshop exported when there is one, else the
// layer's own pixels (Photoshop's rendering of the content through its
// quad and warp) drawn alone.
func TestPhotoshopFidelity(t *testing.T) {
	dir := filepath.Join("..", "psd", "testdata", "photoshop")
	files, _ := filepath.Glob(filepath.Join(dir, "*.psd"))
	if len(files) == 0 {
		t.Fatal("no Photoshop files")
	}
	var report []string
	for _, name := range files {
		tpl, closer, err := Load(name, 50_000_000)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		defer closer.Close()
		base := strings.TrimSuffix(filepath.Base(name), ".psd")
		for _, so := range tpl.Manifest.SmartObjects {
			l := tpl.File.Find(so.Path)
			lf := tpl.File.Linked[l.Placed.ID]
			if lf == nil || lf.Data == nil {
				continue // linked outside the file
			}
			design := content(t, lf)
			// The layer alone, as Photoshop rendered it, against kino's
			// rendering of the same content.
			want, err := l.Image()
			if err != nil {
				t.Fatal(err)
			}
			got := Place(design, l.Placed, FitFill, tpl.File.Width, tpl.File.Height)
			r := l.Rect.Intersect(image.Rect(0, 0, tpl.File.Width, tpl.File.Height))
			layerDB := psnr(want, got, r)
			min := 30.0
			if l.Placed.Warp != nil {
				min = 25
			}
			line := fmt.Sprintf("%s %q (%s, %dx%d content): layer %.1f dB", base, so.Path, so.Warp, int(so.Width), int(so.Height), layerDB)
			// The whole picture, against Photoshop's canvas export.
			if canvas, err := readPNG(filepath.Join(dir, base, "canvas.png")); err == nil && !uniform(canvas, r) {
				img, _, err := tpl.Render(Options{Designs: map[string]image.Image{so.Path: design}, Fit: FitFill})
				if err != nil {
					t.Fatal(err)
				}
				db := psnr(canvas, img, r)
				line += fmt.Sprintf(", canvas %.1f dB", db)
				if db < min {
					t.Errorf("%s: canvas PSNR %.1f dB, below %.0f", line, db, min)
				}
			}
			if layerDB < min {
				t.Errorf("%s: layer PSNR %.1f dB, below %.0f", line, layerDB, min)
			}
			report = append(report, line)
		}
	}
	for _, l := range report {
		t.Log(l)
	}
}

// uniform reports whether a picture is one colour over r: an export of a
// file saved without its merged image.
func uniform(img image.Image, r image.Rectangle) bool {
	first := img.At(r.Min.X, r.Min.Y)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if img.At(x, y) != first {
				return false
			}
		}
	}
	return true
}

func readPNG(path string) (image.Image, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return png.Decode(f)
}
