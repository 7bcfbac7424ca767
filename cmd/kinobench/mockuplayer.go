package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/kinohq/kino/server/ffmpeg"
)

// benchMockupLayer measures the mockup layer: a 10 s 1280x720 30 fps
// render of one video inside the smart object "Screen" of
// server/mockup/testdata/screen.psd (a perspective quad, a multiply
// shading clipped to it, a bezel over it), next to the same video
// rendered full-frame, and in a warped smart object (Photoshop's
// ag-werps.psd, "perspective": a quilt warp in a perspective quad, drawn
// by remap), submit to complete through kino, alternately, runs times
// each.
func benchMockupLayer(ctx context.Context, runs int) error {
	dir, err := os.MkdirTemp("", "kinobench-mockup-layer-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	tpl, err := os.ReadFile(filepath.Join("server", "mockup", "testdata", "screen.psd"))
	if err != nil {
		return fmt.Errorf("run from the repository's root: %w", err)
	}
	err = ffmpeg.Run(ctx, []string{"-f", "lavfi", "-i", fmt.Sprintf("testsrc2=size=%dx%d:rate=%d", benchWidth, benchHeight, benchFPS),
		"-f", "lavfi", "-i", "sine=frequency=330:sample_rate=48000", "-t", fmt.Sprint(benchDuration),
		"-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", "app.mp4"}, ffmpeg.RunOptions{Dir: dir})
	if err != nil {
		return fmt.Errorf("make the video: %w", err)
	}
	files := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer files.Close()
	a, err := startKino(ctx, filepath.Join(dir, "kino"), "", 1)
	if err != nil {
		return err
	}
	defer a.Shutdown(ctx)
	base := "http://" + a.HTTPAddr
	id, err := uploadTemplate(base, tpl)
	if err != nil {
		return err
	}
	werps, err := os.ReadFile(filepath.Join("server", "psd", "testdata", "photoshop", "ag-werps.psd"))
	if err != nil {
		return err
	}
	warpID, err := uploadTemplate(base, werps)
	if err != nil {
		return err
	}
	src := files.URL + "/app.mp4"
	cases := []struct {
		name  string
		layer map[string]any
	}{
		{"the video full-frame", map[string]any{"type": "video", "src": src, "x": 0, "y": 0, "width": benchWidth, "height": benchHeight, "duration": benchDuration}},
		{"the video in the mockup layer", map[string]any{"type": "mockup", "template": id, "smartObject": "Screen", "src": src, "start": 0, "duration": benchDuration}},
		{"the video in a warped smart object (720x720)", map[string]any{"type": "mockup", "template": warpID, "smartObject": "perspective", "src": src,
			"hide": []string{"3x3", "4x4", "5x5", "custom (2x6)", "distort"}, "x": 280, "y": 0, "width": benchHeight, "height": benchHeight,
			"start": 0, "duration": benchDuration}},
	}
	walls, cpus := make([][]time.Duration, len(cases)), make([][]time.Duration, len(cases))
	for range runs {
		for i, c := range cases {
			body, _ := json.Marshal(map[string]any{"provider": "provider_a", "composition": map[string]any{
				"width": benchWidth, "height": benchHeight, "fps": benchFPS, "layers": []any{c.layer}}})
			t, cpu := time.Now(), childCPU()
			if err := renderThroughKino(ctx, base, body); err != nil {
				return fmt.Errorf("%s: %w", c.name, err)
			}
			walls[i], cpus[i] = append(walls[i], time.Since(t)), append(cpus[i], childCPU()-cpu)
		}
	}
	fmt.Printf("## Mockup layer (10 s, 1280x720, 30 fps, mp4; %d runs each, alternating, median)\n\n", runs)
	fmt.Println("| case | submit to complete | ffmpeg CPU | runs |")
	fmt.Println("|---|---|---|---|")
	for i, c := range cases {
		fmt.Printf("| %s | %s | %s | %v |\n", c.name, median(walls[i]).Round(time.Millisecond), median(cpus[i]).Round(time.Millisecond), rounded(walls[i]))
	}
	fmt.Printf("\nThe mockup layer takes %.2f× the wall time and %.2f× the ffmpeg CPU of the video full-frame; warped, %.2f× and %.2f×.\n\n",
		median(walls[1]).Seconds()/median(walls[0]).Seconds(), median(cpus[1]).Seconds()/median(cpus[0]).Seconds(),
		median(walls[2]).Seconds()/median(walls[0]).Seconds(), median(cpus[2]).Seconds()/median(cpus[0]).Seconds())
	return nil
}

// childCPU is the CPU time of this process's finished children (ffmpeg).
func childCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
