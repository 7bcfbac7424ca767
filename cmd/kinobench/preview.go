package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"syscall"
	"time"

	"github.com/kinohq/kino/server/ffmpeg"
)

// benchPreview measures POST /api/render/preview on the composition of
// docs/benchmarks.md: 1280x720, four 1920x1080 JPEG pictures with Ken
// Burns joined by crossfades, a boxed title sliding in, previewed at
// width 640. The first preview is cold (sources downloaded and probed);
// then warm previews at times spread over the composition, as a scrub
// asks for them, one at a time.
func benchPreview(ctx context.Context, runs int) error {
	dir, err := os.MkdirTemp("", "kinobench-preview-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	for i, src := range []string{"testsrc2", "smptehdbars", "mandelbrot", "rgbtestsrc"} {
		err := ffmpeg.Run(ctx, []string{"-f", "lavfi", "-i", src + "=size=1920x1080:rate=1",
			"-frames:v", "1", "-q:v", "3", filepath.Join(dir, fmt.Sprintf("slide%d.jpg", i))}, ffmpeg.RunOptions{Dir: dir})
		if err != nil {
			return fmt.Errorf("make picture: %w", err)
		}
	}
	files := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer files.Close()
	a, err := startKino(ctx, filepath.Join(dir, "kino"), "", 1)
	if err != nil {
		return err
	}
	defer a.Shutdown(ctx)
	base := "http://" + a.HTTPAddr
	req := previewRequest(files.URL)
	var cpu []time.Duration
	preview := func(at float64) (time.Duration, error) {
		req["time"] = at
		body, _ := json.Marshal(req)
		t, c := time.Now(), cpuWithChildren()
		defer func() { cpu = append(cpu, cpuWithChildren()-c) }()
		resp, err := http.Post(base+"/api/render/preview", "application/json", bytes.NewReader(body))
		if err != nil {
			return 0, err
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return 0, fmt.Errorf("preview at %v: %d %s", at, resp.StatusCode, b)
		}
		return time.Since(t), nil
	}
	cold, err := preview(1)
	if err != nil {
		return err
	}
	coldCPU := cpu[0]
	cpu = nil
	n := max(runs, 40)
	var warm []time.Duration
	for i := range n {
		d, err := preview(8.9 * float64(i) / float64(n))
		if err != nil {
			return err
		}
		warm = append(warm, d)
	}
	sorted := func(d []time.Duration) []time.Duration {
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		return d
	}
	warm, cpu = sorted(warm), sorted(cpu)
	var load [3]float64
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		fmt.Sscan(string(b), &load[0], &load[1], &load[2])
	}
	fmt.Println("## Previews (1280x720, four 1920x1080 JPEGs with Ken Burns and crossfades, a boxed title sliding in; JPEG at width 640)")
	fmt.Println()
	fmt.Printf("Load average at the end: %.1f %.1f %.1f. CPU is kino's and its ffmpeg's, user and system.\n\n", load[0], load[1], load[2])
	fmt.Println("| case | wall median | wall p90 | wall max | CPU median | CPU p90 |")
	fmt.Println("|---|---|---|---|---|---|")
	fmt.Printf("| cold: first preview (downloads, probes) | %s | | | %s | |\n", cold.Round(time.Millisecond), coldCPU.Round(time.Millisecond))
	fmt.Printf("| warm: %d previews spread over 9 s, one at a time | %s | %s | %s | %s | %s |\n\n", n, warm[n/2].Round(time.Millisecond),
		warm[n*9/10].Round(time.Millisecond), warm[n-1].Round(time.Millisecond), cpu[n/2].Round(time.Millisecond), cpu[n*9/10].Round(time.Millisecond))
	return nil
}

// cpuWithChildren is the CPU time of this process (kino runs in it) and
// of its children that ended (each preview's ffmpeg).
func cpuWithChildren() time.Duration {
	var self, children syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
	return time.Duration(self.Utime.Nano() + self.Stime.Nano() + children.Utime.Nano() + children.Stime.Nano())
}

// previewRequest is the benchmark composition, its pictures under base.
func previewRequest(base string) map[string]any {
	var layers []any
	for i := range 4 {
		l := map[string]any{"type": "image", "src": fmt.Sprintf("%s/slide%d.jpg", base, i), "x": 0, "y": 0,
			"width": 1280, "height": 720, "start": 2 * i, "duration": 3,
			"kenBurns": []string{"zoomIn", "panRight", "zoomOut", "panLeft"}[i]}
		if i < 3 {
			l["transition"] = map[string]any{"name": "fade", "duration": 1}
		}
		layers = append(layers, l)
	}
	layers = append(layers, map[string]any{"type": "text", "text": "Four pictures, one preview a frame",
		"fontSize": 40, "color": "white", "x": "center", "y": 540, "width": 860, "align": "center",
		"backgroundColor": "#000000aa", "paddingX": 24, "paddingY": 14, "borderRadius": 16, "start": 0.5, "duration": 8,
		"enter": map[string]any{"type": "slide", "side": "left", "duration": 1}})
	return map[string]any{"provider": "provider_a", "width": 640, "composition": map[string]any{
		"width": 1280, "height": 720, "fps": 30, "background": "#101820", "layers": layers}}
}
