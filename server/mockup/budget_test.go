package mockup

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/kinohq/kino/server/meter"
	"github.com/kinohq/kino/server/psd"
	"github.com/kinohq/kino/server/psd/psdtest"
)

// openBytes decodes a template held in memory, as Load does a file.
func openBytes(b []byte) (*Template, error) {
	f, err := psd.Decode(bytes.NewReader(b), int64(len(b)), Limits(50_000_000))
	if err != nil {
		return nil, Reason(err)
	}
	return Open(f)
}

// drawn is what drawing a template as an upload does (Render with no
// options) cost: the bytes allocated (an upper bound of what it held at
// once) and its CPU time, measured by the meter.
func drawn(t *testing.T, tpl *Template) (allocated uint64, cpu float64) {
	t.Helper()
	ctx, m := meter.With(context.Background())
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	func() {
		defer meter.Thread(ctx)()
		if _, _, err := tpl.RenderContext(ctx, Options{}); err != nil {
			t.Fatal(err)
		}
	}()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc, m.Used().CPU.Seconds()
}

// The hostile templates, each within every other limit, are each
// refused from their structure, naming why, the same way twice, with
// nothing drawn: before the budgets they cost 3.7 GB, 4.8 GB and 27 s
// of CPU to accept.
func TestHostileTemplatesAreRefusedFromTheirStructure(t *testing.T) {
	for name, file := range psdtest.Hostile() {
		t.Run(name, func(t *testing.T) {
			var first string
			for try := range 2 {
				var a, b runtime.MemStats
				runtime.ReadMemStats(&a)
				_, err := openBytes(file)
				runtime.ReadMemStats(&b)
				if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "over kino's budget") {
					t.Fatalf("try %d: %v, want a refusal over the budget", try, err)
				}
				// Records only: a few MB, no picture decoded.
				if n := b.TotalAlloc - a.TotalAlloc; n > 64<<20 {
					t.Errorf("reading the structure allocated %d MB", n>>20)
				}
				if try == 0 {
					first = err.Error()
					t.Log(first)
				} else if err.Error() != first {
					t.Errorf("refused differently: %q, then %q", first, err)
				}
			}
		})
	}
}

// The estimate bounds what a drawing allocates, and a template just within
// the budget draws within 512 MB and 5 s of CPU: a 3500×3500 canvas with
// a smart object, a clipped shade and a group.
func TestEstimateBoundsTheDrawing(t *testing.T) {
	tpl, err := openBytes(largestTemplate())
	if err != nil {
		t.Fatal(err)
	}
	est := tpl.Cost
	alloc, cpu := drawn(t, tpl)
	t.Logf("estimate %d MB, %.2f G work; allocated %d MB, %.2f s of CPU", est.Bytes()>>20, float64(est.Work)/1e9, alloc>>20, cpu)
	if alloc > uint64(est.Held+est.PerDrawing) {
		t.Errorf("allocated %d MB, over the estimate of %d MB", alloc>>20, est.Bytes()>>20)
	}
	if alloc > MaxDrawBytes {
		t.Errorf("allocated %d MB, over the budget", alloc>>20)
	}
	if cpu <= 0 || (cpu > 5 && !raceEnabled) {
		t.Errorf("%.2f s of CPU", cpu)
	}
}

// A drawing stops when its context is done: nothing is drawn after.
func TestRenderStopsWithItsContext(t *testing.T) {
	tpl, err := openBytes(largestTemplate())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := tpl.RenderContext(ctx, Options{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want the context's error", err)
	}
}

// largestTemplate is psdtest.Largest.
func largestTemplate() []byte {
	return psdtest.Largest()
}

// A video design's template is taken apart once (Split: what lies under
// and over the smart object, its shape and shades), within the budget too.
func TestSplitWithinTheBudget(t *testing.T) {
	tpl, err := openBytes(largestTemplate())
	if err != nil {
		t.Fatal(err)
	}
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	if _, err := tpl.SplitContext(context.Background(), "Product/Design", 1280, 720, Options{}); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&b)
	alloc := b.TotalAlloc - a.TotalAlloc
	t.Logf("split allocated %d MB; estimated %d MB", alloc>>20, (tpl.Cost.Held+tpl.Cost.Split)>>20)
	if alloc > uint64(tpl.Cost.Held+tpl.Cost.Split) || alloc > MaxDrawBytes {
		t.Errorf("allocated %d MB, over the budget", alloc>>20)
	}
}

// BenchmarkWorkBudget draws a template just within the work budget: a
// 2000×2000 background under 7 colour fills in hue mode (0.85 billion
// units), to measure what a unit costs.
func BenchmarkWorkBudget(b *testing.B) {
	layers := []psdtest.Layer{{Name: "Background", Rect: image.Rect(0, 0, 2000, 2000), Value: 120}}
	for i := range 7 {
		layers = append(layers, psdtest.Layer{Name: fmt.Sprint("fill ", i), Kind: psdtest.Fill, Blend: "hue ", Value: byte(30 * i)})
	}
	benchDraw(b, psdtest.Write(2000, 2000, layers))
}

// BenchmarkLargestTemplate draws the largest template of the usual shape
// the budgets accept (psdtest.Largest) as an upload does, and reports
// the CPU of the drawing (every thread it used, as metered), the bytes
// it allocated and the estimate's figures.
func BenchmarkLargestTemplate(b *testing.B) { benchDraw(b, psdtest.Largest()) }

// benchDraw draws file as an upload does, and reports what it cost.
func benchDraw(b *testing.B, file []byte) {
	var cpu float64
	var alloc uint64
	var est Cost
	for b.Loop() {
		tpl, err := openBytes(file)
		if err != nil {
			b.Fatal(err)
		}
		est = tpl.Cost
		ctx, m := meter.With(context.Background())
		var x, y runtime.MemStats
		runtime.ReadMemStats(&x)
		func() {
			defer meter.Thread(ctx)()
			img, _, err := tpl.RenderContext(ctx, Options{})
			if err != nil {
				b.Fatal(err)
			}
			var buf bytes.Buffer
			if err := EncodePNGContext(ctx, &buf, Resize(img, 320)); err != nil {
				b.Fatal(err)
			}
		}()
		runtime.ReadMemStats(&y)
		cpu += m.Used().CPU.Seconds()
		alloc += y.TotalAlloc - x.TotalAlloc
	}
	b.ReportMetric(cpu/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(alloc)/float64(b.N)/(1<<20), "MB-alloc/op")
	b.ReportMetric(float64(est.Bytes())/(1<<20), "MB-estimated")
	b.ReportMetric(float64(est.Work)/1e9, "Gwork-estimated")
}

// A batch draws as many mockups at once as fit the budget beside the
// template's decoded layers: one at a time when a drawing with its
// design takes most of it (a batch drew one a core, 9.85 GB for 5).
func TestDrawingsAtOnce(t *testing.T) {
	c := Cost{Held: 100 << 20, PerDrawing: 100 << 20}
	for _, tc := range []struct {
		cores  int
		design int64
		want   int
	}{
		{8, 0, 4},                        // (512 − 100) / 100
		{2, 0, 2},                        // at most one a core
		{8, DesignBytes(5000, 5000), 1},  // 200 MB designs: 412 / 300
		{8, DesignBytes(10000, 5000), 1}, // over the budget alone: still one
		{8, DesignBytes(1000, 1000), 3},  // 412 / 108
	} {
		if got := c.Drawings(tc.cores, tc.design); got != tc.want {
			t.Errorf("%d cores, designs of %d MB: %d at once, want %d", tc.cores, tc.design>>20, got, tc.want)
		}
	}
}

// Hue/saturation with colour ranges costs three times the work of one
// without: its pixel was measured at three times selective colour's.
func TestHueSaturationRangesCountThrice(t *testing.T) {
	b, err := os.ReadFile("../psd/testdata/photoshop/pt-huesaturation-rgb.psd")
	if err != nil {
		t.Fatal(err)
	}
	f, err := psd.Decode(bytes.NewReader(b), int64(len(b)), psd.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	with := Estimate(f).Work
	f.Walk(func(l *psd.Layer) error {
		if a := l.Adjustment; a != nil {
			a.ColorWork = 0
		}
		return nil
	})
	without := Estimate(f).Work
	if with <= without {
		t.Errorf("work with ranges %d, without %d: the ranges are not counted", with, without)
	}
}

// TestDecodeWorkOfModes: a CMYK or 32-bit file's pixels cost more to
// decode than an 8-bit RGB one's, and its estimate says so.
func TestDecodeWorkOfModes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file string
		want int64
	}{{"ag-cmyk.psd", 20}, {"pt-32bit-shape.psd", 4}, {"pt-lab-8bit.psd", 4}, {"ag-blend-mode.psd", 1}} {
		tpl, closer, err := Load("../psd/testdata/photoshop/"+tc.file, 100_000_000)
		if err != nil {
			t.Fatal(err)
		}
		closer.Close()
		if got := decodeWork(tpl.File); got != tc.want {
			t.Errorf("%s: a pixel's decoding weighs %d, want %d", tc.file, got, tc.want)
		}
		// The background alone is decoded: canvas-sized.
		if c := Estimate(tpl.File); c.Work < tc.want*int64(tpl.File.Width*tpl.File.Height) {
			t.Errorf("%s: work %d, under %d decoded canvas pixels", tc.file, c.Work, tc.want)
		}
	}
}

// TestGradientStopsCountInTheBudget: a gradient's table counts in the
// work by its stops, which the file sets (up to 1,000 of each kind):
// counted by the pixels alone, a file of hundreds of such gradients on
// tiny layers took seconds past the budget.
func TestGradientStopsCountInTheBudget(t *testing.T) {
	b, err := os.ReadFile("../psd/testdata/photoshop/pt-layer-effects.psd")
	if err != nil {
		t.Fatal(err)
	}
	tpl, err := openBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	var g *psd.GradientOverlay
	for _, l := range tpl.File.Layers {
		if l.Effects != nil && len(l.Effects.GradientOverlays) > 0 {
			g = &l.Effects.GradientOverlays[0]
		}
	}
	if g == nil {
		t.Fatal("no gradient overlay")
	}
	few := Estimate(tpl.File)
	n := len(g.Gradient.Colors) + len(g.Gradient.Alphas)
	for i := range 1000 {
		g.Gradient.Colors = append(g.Gradient.Colors, psd.GradientStop{Location: float64(i) / 999, Midpoint: 0.5})
	}
	many := Estimate(tpl.File)
	if d := many.Work - few.Work; d < gradientSteps*1000/2 {
		t.Errorf("1,000 stops more (%d before) add %d to the work", n, d)
	}
}

// TestFadedEffectsCountInTheBudget: a layer with effects at an opacity
// under 100 % is drawn with them on a picture of their own before it is
// faded (opacityUnit), so fading it costs that picture in the estimate.
func TestFadedEffectsCountInTheBudget(t *testing.T) {
	b, err := os.ReadFile("../psd/testdata/photoshop/pt-layer-effects.psd")
	if err != nil {
		t.Fatal(err)
	}
	tpl, err := openBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	var fx *psd.Layer
	for _, l := range tpl.File.Layers {
		if l.Effects.Any() && !l.Clipped && l.Opacity == 255 {
			fx = l
			break
		}
	}
	if fx == nil {
		t.Fatal("no opaque layer with effects")
	}
	opaque := Estimate(tpl.File)
	fx.Opacity = 128
	faded := Estimate(tpl.File)
	if faded.PerDrawing <= opaque.PerDrawing || faded.Work <= opaque.Work {
		t.Errorf("faded: %d bytes, %d work; opaque: %d bytes, %d work", faded.PerDrawing, faded.Work, opaque.PerDrawing, opaque.Work)
	}
}
