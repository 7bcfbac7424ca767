package mockup

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// benchDesign is a 2000x2000 photo-like design, PNG-encoded.
func benchDesign(tb testing.TB) string {
	img := image.NewNRGBA(image.Rect(0, 0, 2000, 2000))
	for y := 0; y < 2000; y++ {
		for x := 0; x < 2000; x++ {
			n := uint8((x*7 + y*13) % 17)
			img.SetNRGBA(x, y, color.NRGBA{uint8(128+100*math.Sin(float64(x)/300)) + n, uint8(128+100*math.Cos(float64(y)/250)) + n, uint8((x + y) / 16 % 256), 255})
		}
	}
	path := filepath.Join(tb.TempDir(), "design.png")
	f, _ := os.Create(path)
	_ = png.Encode(f, img)
	f.Close()
	return path
}

// TestStageTimes logs what each stage of one benchmark mockup costs.
func TestStageTimes(t *testing.T) {
	if os.Getenv("MOCKUP_STAGES") == "" {
		t.Skip("set MOCKUP_STAGES=1")
	}
	path := benchDesign(t)
	for range 2 {
		t0 := time.Now()
		tpl, c, err := Load("testdata/bench.psd", 50_000_000)
		if err != nil {
			t.Fatal(err)
		}
		t1 := time.Now()
		d, err := DecodeDesign(path, 50_000_000)
		if err != nil {
			t.Fatal(err)
		}
		t2 := time.Now()
		so := tpl.Manifest.SmartObjects[0].Path
		img, _, err := tpl.Render(Options{Designs: map[string]image.Image{so: d}})
		if err != nil {
			t.Fatal(err)
		}
		t3 := time.Now()
		var b bytes.Buffer
		if err := EncodePNG(&b, img); err != nil {
			t.Fatal(err)
		}
		t4 := time.Now()
		img2, _, _ := tpl.Render(Options{Designs: map[string]image.Image{so: d}})
		t5 := time.Now()
		_ = EncodeJPEG(io.Discard, img2, 90)
		t6 := time.Now()
		c.Close()
		t.Logf("load %v, design decode %v, render %v, png %v (%d KB), render again %v, jpeg %v",
			t1.Sub(t0), t2.Sub(t1), t3.Sub(t2), t4.Sub(t3), b.Len()>>10, t5.Sub(t4), t6.Sub(t5))
	}
}

// BenchmarkRender draws the benchmark template with a 2000x2000 design.
func BenchmarkRender(b *testing.B) { benchRender(b, "testdata/bench.psd", false) }

// BenchmarkRenderFX draws bench-fx.psd (the smart object with a drop
// shadow, a Gaussian blur smart filter and a curves adjustment clipped to
// it) with a 2000x2000 design, and encodes the PNG as a job does.
func BenchmarkRenderFX(b *testing.B) { benchRender(b, "testdata/bench-fx.psd", true) }

func benchRender(b *testing.B, template string, encode bool) {
	tpl, c, err := Load(template, 50_000_000)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	d, err := DecodeDesign(benchDesign(b), 50_000_000)
	if err != nil {
		b.Fatal(err)
	}
	so := tpl.Manifest.SmartObjects[0].Path
	// Once first, as kino keeps a template decoded between jobs: each
	// timed drawing is a warm one.
	if _, _, err := tpl.Render(Options{Designs: map[string]image.Image{so: d}}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		img, _, err := tpl.Render(Options{Designs: map[string]image.Image{so: d}})
		if err != nil {
			b.Fatal(err)
		}
		if !encode {
			continue
		}
		if err := EncodePNG(io.Discard, img); err != nil {
			b.Fatal(err)
		}
	}
}
