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
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"github.com/kinohq/kino/server/engine"
	"github.com/kinohq/kino/server/ffmpeg"
)

// The benchmark video: 10 s of 1280x720 at 30 fps with a background, an
// image that fades in, a line of text and an audio track.
const (
	benchWidth    = 1280
	benchHeight   = 720
	benchFPS      = 30
	benchDuration = 10
)

func benchComposition(assets string) map[string]any {
	return map[string]any{
		"provider": "provider_a",
		"composition": map[string]any{
			"width": benchWidth, "height": benchHeight, "fps": benchFPS, "duration": benchDuration, "background": "#101820",
			"layers": []any{
				map[string]any{"type": "image", "src": "photo", "start": 1, "duration": 9, "x": 100, "y": 100, "width": 400, "height": 300, "fadeIn": 1},
				map[string]any{"type": "text", "text": "kino benchmark", "fontSize": 64, "color": "#ffffff", "x": "center", "y": 560, "start": 0, "duration": 10},
				map[string]any{"type": "audio", "src": "music", "start": 0, "duration": 10, "volume": 0.8},
			},
		},
		"assetUrls": map[string]any{"photo": assets + "/photo.png", "music": assets + "/music.wav"},
	}
}

// handWritten is the ffmpeg command a person would write for the same
// video, with the encoder settings kino uses.
func handWritten(dir, font, out string) []string {
	return []string{
		"-f", "lavfi", "-i", fmt.Sprintf("color=c=0x101820:s=%dx%d:r=%d:d=%d", benchWidth, benchHeight, benchFPS, benchDuration),
		"-loop", "1", "-framerate", fmt.Sprint(benchFPS), "-t", "9", "-i", filepath.Join(dir, "photo.png"),
		"-i", filepath.Join(dir, "music.wav"),
		"-filter_complex",
		"[1:v]scale=400:300,format=rgba,fade=t=in:st=0:d=1:alpha=1,setpts=PTS-STARTPTS+1/TB[img];" +
			"[0:v][img]overlay=x=100:y=100:eof_action=pass[bg];" +
			"[bg]drawtext=fontfile=" + font + ":textfile=" + filepath.Join(dir, "text.txt") + ":fontsize=64:fontcolor=white:x=(w-text_w)/2:y=560[v];" +
			"[2:a]atrim=0:10,volume=0.8[a]",
		"-map", "[v]", "-map", "[a]", "-t", fmt.Sprint(benchDuration),
		"-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-r", fmt.Sprint(benchFPS),
		"-c:a", "aac", "-b:a", "128k", "-ar", "48000", "-movflags", "+faststart", out,
	}
}

func benchRender(ctx context.Context, runs int) error {
	dir, err := os.MkdirTemp("", "kinobench-render-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := makeAssets(dir); err != nil {
		return err
	}
	assets := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer assets.Close()
	a, err := startKino(ctx, filepath.Join(dir, "kino"), "", 1)
	if err != nil {
		return err
	}
	defer a.Shutdown(ctx)
	font := fontFile()
	body, err := json.Marshal(benchComposition(assets.URL))
	if err != nil {
		return err
	}

	planned, err := kinoCommand(ctx, dir, body, font)
	if err != nil {
		return err
	}
	var kinoTimes, rawTimes, plannedTimes []time.Duration
	for i := range runs {
		// Alternate the sides so that drift in the machine's load hits both.
		t := time.Now()
		out := filepath.Join(dir, fmt.Sprintf("raw-%d.mp4", i))
		if err := ffmpeg.Run(ctx, handWritten(dir, font, out), ffmpeg.RunOptions{Dir: dir, Duration: benchDuration}); err != nil {
			return fmt.Errorf("hand-written ffmpeg: %w", err)
		}
		rawTimes = append(rawTimes, time.Since(t))

		t = time.Now()
		if err := ffmpeg.Run(ctx, planned.Args, ffmpeg.RunOptions{Dir: dir, Duration: benchDuration}); err != nil {
			return fmt.Errorf("kino's ffmpeg command: %w", err)
		}
		plannedTimes = append(plannedTimes, time.Since(t))

		t = time.Now()
		if err := renderThroughKino(ctx, "http://"+a.HTTPAddr, body); err != nil {
			return err
		}
		kinoTimes = append(kinoTimes, time.Since(t))
	}
	k, r, p := median(kinoTimes), median(rawTimes), median(plannedTimes)
	fmt.Printf("## Render: 10 s, 1280x720, 30 fps, mp4 (background, image with fade, text, audio), %d runs each\n\n", runs)
	fmt.Println("| | median | runs |")
	fmt.Println("|---|---|---|")
	fmt.Printf("| hand-written ffmpeg | %s | %v |\n", r.Round(time.Millisecond), rounded(rawTimes))
	fmt.Printf("| the ffmpeg command kino plans, run by hand | %s | %v |\n", p.Round(time.Millisecond), rounded(plannedTimes))
	fmt.Printf("| kino (submit over REST to completed, download and upload included) | %s | %v |\n", k.Round(time.Millisecond), rounded(kinoTimes))
	fmt.Printf("\nkino / hand-written ffmpeg: %.3f (target at most 1.10); kino / its own command run by hand: %.3f (the service's overhead)\n\n",
		k.Seconds()/r.Seconds(), k.Seconds()/p.Seconds())
	return nil
}

func renderThroughKino(ctx context.Context, base string, body []byte) error {
	resp, err := http.Post(base+"/api/render", "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	var sub struct{ JobID string }
	err = json.NewDecoder(resp.Body).Decode(&sub)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusAccepted {
		return fmt.Errorf("submit: status %d: %v", resp.StatusCode, err)
	}
	// The event stream ends when the job does; its last record says how.
	resp, err = http.Get(base + "/api/render/" + sub.JobID + "/events")
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	resp, err = http.Get(base + "/api/render/" + sub.JobID)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var job struct {
		Status string
		Error  any
	}
	if err := json.NewDecoder(resp.Body).Decode(&job); err != nil {
		return err
	}
	if job.Status != "completed" {
		return fmt.Errorf("kino render ended %s: %v", job.Status, job.Error)
	}
	return nil
}

func makeAssets(dir string) error {
	for _, args := range [][]string{
		{"-f", "lavfi", "-i", "testsrc2=size=800x600", "-frames:v", "1", "photo.png"},
		{"-f", "lavfi", "-i", "sine=frequency=330:sample_rate=48000", "-ac", "2", "-t", "12", "music.wav"},
	} {
		cmd := exec.Command("ffmpeg", append([]string{"-hide_banner", "-loglevel", "error", "-y"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("make assets: %v: %s", err, out)
		}
	}
	return os.WriteFile(filepath.Join(dir, "text.txt"), []byte("kino benchmark"), 0o644)
}

func fontFile() string {
	out, err := exec.Command("fc-match", "-f", "%{file}", "sans-serif").Output()
	if err != nil || len(out) == 0 {
		return "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
	}
	return string(out)
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func rounded(ds []time.Duration) []time.Duration {
	out := make([]time.Duration, len(ds))
	for i, d := range ds {
		out[i] = d.Round(time.Millisecond)
	}
	return out
}

// kinoCommand plans the benchmark composition as the worker would, on the
// local files, so that kino's own ffmpeg command can be timed alone.
func kinoCommand(ctx context.Context, dir string, body []byte, font string) (*engine.Command, error) {
	var req struct {
		Provider    string            `json:"provider"`
		Composition json.RawMessage   `json:"composition"`
		AssetURLs   map[string]string `json:"assetUrls"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	scene, err := engine.Compile(req.Provider, req.Composition, req.AssetURLs, engine.DefaultLimits())
	if err != nil {
		return nil, err
	}
	media := map[string]engine.Media{}
	for _, src := range scene.Sources() {
		path := filepath.Join(dir, filepath.Base(src.URL))
		info, err := ffmpeg.Probe(ctx, path)
		if err != nil {
			return nil, err
		}
		media[src.Key] = engine.MediaFromInfo(path, info)
	}
	work := filepath.Join(dir, "planned")
	if err := os.MkdirAll(work, 0o755); err != nil {
		return nil, err
	}
	cmd, err := engine.Plan(scene, media, work, filepath.Join(work, "out.mp4"), font)
	if err != nil {
		return nil, err
	}
	for name, content := range cmd.Files {
		if err := os.WriteFile(filepath.Join(work, name), content, 0o600); err != nil {
			return nil, err
		}
	}
	return cmd, nil
}
