package psd_test

import (
	"image"
	"os"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kinohq/kino/server/mockup"
)

// TestRenderMemory measures the heap of one mockup of the benchmark
// template (3000x3000, a perspective smart object, a multiply layer
// clipped to it) with a 2000x2000 design, for docs/limits.md: the live
// heap's peak, sampled every millisecond, from before the template is
// read to after the picture is drawn. Run it alone, with /usr/bin/time -v
// for the process's peak RSS:
//
//	go test -c -o /tmp/psd.test ./server/psd
//	cd server/psd && PSD_RENDER_MEMORY=1 /usr/bin/time -v /tmp/psd.test -test.run TestRenderMemory -test.v
func TestRenderMemory(t *testing.T) {
	if os.Getenv("PSD_RENDER_MEMORY") == "" {
		t.Skip("set PSD_RENDER_MEMORY=1")
	}
	var peak atomic.Uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	sample := func() {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		if m.HeapAlloc > peak.Load() {
			peak.Store(m.HeapAlloc)
		}
	}
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
				sample()
			}
		}
	}()
	tpl, c, err := mockup.Load("../mockup/testdata/bench.psd", 50_000_000)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	design := image.NewNRGBA(image.Rect(0, 0, 2000, 2000))
	for i := range design.Pix {
		design.Pix[i] = uint8(i*7 + i/8000)
	}
	so := tpl.Manifest.SmartObjects[0].Path
	for range 2 { // the second with the template's layers decoded
		img, _, err := tpl.Render(mockup.Options{Designs: map[string]image.Image{so: design}})
		if err != nil {
			t.Fatal(err)
		}
		sample()
		t.Logf("picture %v, live heap peak so far %d MB", img.Rect, (peak.Load()-base.HeapAlloc)>>20)
	}
	close(stop)
	<-done
	var end runtime.MemStats
	runtime.ReadMemStats(&end)
	t.Logf("live heap peak %d MB above the start; %d MB allocated in all; heap obtained from the OS %d MB", (peak.Load()-base.HeapAlloc)>>20, (end.TotalAlloc-base.TotalAlloc)>>20, end.HeapSys>>20)
}
