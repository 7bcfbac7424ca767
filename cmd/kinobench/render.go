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
	"slices"
	"strings"
	"time"

	"github.com/kinohq/kino/server/engine"
	"github.com/kinohq/kino/server/ffmpeg"
	"github.com/kinohq/kino/server/glyphs"
	"github.com/kinohq/kino/server/typeset"
)

// The benchmark videos: 10 s of 1280x720 at 30 fps, mp4, each with a
// picture, a line of text and an audio track.
const (
	benchWidth    = 1280
	benchHeight   = 720
	benchFPS      = 30
	benchDuration = 10
)

// renderCase is one benchmark composition and the ffmpeg command a person
// would write for the same video.
type renderCase struct {
	name string
	// layers go below the picture, the text and the music every case has.
	background string
	layers     []any
	// raw is the hand-written command's arguments, without the output.
	raw func(dir, font string) []string
}

func (c renderCase) composition(assets string) map[string]any {
	layers := append(append([]any{}, c.layers...),
		map[string]any{"type": "image", "src": "photo", "start": 1, "duration": 9, "x": 100, "y": 100, "width": 400, "height": 300, "fadeIn": 1},
		map[string]any{"type": "text", "text": "kino benchmark", "fontSize": 64, "color": "#ffffff", "x": "center", "y": 560, "start": 0, "duration": 10},
		map[string]any{"type": "audio", "src": "music", "start": 0, "duration": 10, "volume": 0.8},
	)
	return map[string]any{
		"provider": "provider_a",
		"composition": map[string]any{
			"width": benchWidth, "height": benchHeight, "fps": benchFPS, "duration": benchDuration,
			"background": c.background, "layers": layers,
		},
		"assetUrls": map[string]any{"photo": assets + "/photo.png", "music": assets + "/music.wav"},
	}
}

// x264Args are kino's mp4 encoder settings, written out by hand.
var x264Args = []string{"-c:v", "libx264", "-preset", "veryfast", "-crf", "20", "-pix_fmt", "yuv420p", "-r", fmt.Sprint(benchFPS),
	"-c:a", "aac", "-b:a", "128k", "-ar", "48000", "-movflags", "+faststart"}

// expertPicture is the picture as someone who knows ffmpeg's filters
// writes it: read once, scaled once to YUV with alpha, repeated by the loop
// filter (no per-frame decode), faded in on its alpha plane from 1 s.
const expertPicture = "[1:v]scale=400:300,format=yuva420p,loop=loop=269:size=1:start=0,settb=1/30,setpts=N+30,fade=t=in:st=1:d=1:alpha=1[img];"

// renderCases are the benchmark videos:
//
//   - background: the first benchmark, hand-written the way most people
//     write it (-loop 1 decodes and scales the picture for every frame);
//   - colour clip: what most users start with, a full-frame colour clip
//     under the picture, the title and the music;
//   - colour band: a smaller, half-transparent colour layer that fades in
//     and out, on a background.
//
// The two colour cases are hand-written the way an expert would, so kino is
// compared with the cheapest command for the same video.
func renderCases() []renderCase {
	title := func(dir, font, in string) string {
		return "[" + in + "]drawtext=fontfile=" + font + ":textfile=" + filepath.Join(dir, "text.txt") +
			":fontsize=64:fontcolor=white:x=(w-text_w)/2:y=560[v];[2:a]atrim=0:10,volume=0.8[a]"
	}
	inputs := func(dir, base string, loopPicture bool) []string {
		args := []string{"-f", "lavfi", "-i", fmt.Sprintf("color=c=%s:s=%dx%d:r=%d:d=%d", base, benchWidth, benchHeight, benchFPS, benchDuration)}
		if loopPicture {
			args = append(args, "-loop", "1", "-framerate", fmt.Sprint(benchFPS), "-t", "9")
		}
		return append(args, "-i", filepath.Join(dir, "photo.png"), "-i", filepath.Join(dir, "music.wav"))
	}
	out := func(graph string) []string {
		return append([]string{"-filter_complex", graph, "-map", "[v]", "-map", "[a]", "-t", fmt.Sprint(benchDuration)}, x264Args...)
	}
	return []renderCase{
		{
			name: "background", background: "#101820",
			raw: func(dir, font string) []string {
				return append(inputs(dir, "0x101820", true), out(
					"[1:v]scale=400:300,format=rgba,fade=t=in:st=0:d=1:alpha=1,setpts=PTS-STARTPTS+1/TB[img];"+
						"[0:v][img]overlay=x=100:y=100:eof_action=pass[bg];"+title(dir, font, "bg"))...)
			},
		},
		{
			name: "colour clip", background: "#000000",
			layers: []any{map[string]any{"type": "color", "color": "#1d3557", "start": 0, "duration": 10}},
			raw: func(dir, font string) []string {
				return append(inputs(dir, "0x1d3557", false), out(
					expertPicture+"[0:v][img]overlay=x=100:y=100:eof_action=pass[bg];"+title(dir, font, "bg"))...)
			},
		},
		{
			name: "colour band", background: "#101820",
			layers: []any{map[string]any{"type": "color", "color": "#e63946", "x": 0, "y": 520, "width": 1280, "height": 160,
				"opacity": 0.8, "start": 0, "duration": 10, "fadeIn": 1, "fadeOut": 1}},
			raw: func(dir, font string) []string {
				return append(inputs(dir, "0x101820", false), out(
					"color=c=0xe63946cc:s=1280x160:r=30:d=10,format=yuva420p,fade=t=in:st=0:d=1:alpha=1,fade=t=out:st=9:d=1:alpha=1[band];"+
						"[0:v][band]overlay=x=0:y=520[b];"+expertPicture+"[b][img]overlay=x=100:y=100:eof_action=pass[bg];"+title(dir, font, "bg"))...)
			},
		},
	}
}

func benchRender(ctx context.Context, runs int, only string) error {
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
	font := typeset.SystemFont()

	fmt.Printf("## Render: 10 s, 1280x720, 30 fps, mp4 (picture with fade, text, audio), %d runs each\n\n", runs)
	fmt.Println("| video | hand-written ffmpeg | kino's command, run by hand | kino, submit to completed | kino / hand-written | kino / its command |")
	fmt.Println("|---|---|---|---|---|---|")
	var details []string
	for n, c := range renderCases() {
		if only != "" && !strings.Contains(c.name, only) {
			continue
		}
		body, err := json.Marshal(c.composition(assets.URL))
		if err != nil {
			return err
		}
		planned, err := kinoCommand(ctx, dir, fmt.Sprintf("planned-%d", n), body, font)
		if err != nil {
			return err
		}
		var kinoTimes, rawTimes, plannedTimes []time.Duration
		for i := range runs {
			// Alternate the sides so that drift in the machine's load hits both.
			t := time.Now()
			out := filepath.Join(dir, fmt.Sprintf("raw-%d-%d.mp4", n, i))
			if err := ffmpeg.Run(ctx, append(c.raw(dir, font), out), ffmpeg.RunOptions{Dir: dir, Duration: benchDuration}); err != nil {
				return fmt.Errorf("%s: hand-written ffmpeg: %w", c.name, err)
			}
			rawTimes = append(rawTimes, time.Since(t))

			t = time.Now()
			if err := ffmpeg.Run(ctx, planned.Args, ffmpeg.RunOptions{Dir: dir, Duration: benchDuration}); err != nil {
				return fmt.Errorf("%s: kino's ffmpeg command: %w", c.name, err)
			}
			plannedTimes = append(plannedTimes, time.Since(t))

			t = time.Now()
			if err := renderThroughKino(ctx, "http://"+a.HTTPAddr, body); err != nil {
				return fmt.Errorf("%s: %w", c.name, err)
			}
			kinoTimes = append(kinoTimes, time.Since(t))
		}
		k, r, p := median(kinoTimes), median(rawTimes), median(plannedTimes)
		fmt.Printf("| %s | %s | %s | %s | %.3f | %.3f |\n", c.name, r.Round(time.Millisecond), p.Round(time.Millisecond),
			k.Round(time.Millisecond), k.Seconds()/r.Seconds(), k.Seconds()/p.Seconds())
		details = append(details, fmt.Sprintf("- %s: hand-written %v; kino's command %v; kino %v", c.name, rounded(rawTimes), rounded(plannedTimes), rounded(kinoTimes)),
			fmt.Sprintf("  - hand-written: `ffmpeg %s OUT`", strings.Join(c.raw("DIR", "FONT"), " ")),
			fmt.Sprintf("  - kino's graph: `%s`", filterGraph(planned.Args)))
	}
	fmt.Printf("\nTarget: kino / hand-written at most 1.10. Every run:\n\n%s\n\n", strings.Join(details, "\n"))
	return nil
}

// filterGraph is the -filter_complex argument of a command.
func filterGraph(args []string) string {
	for i, a := range args {
		if a == "-filter_complex" && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
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
		if err := ffmpeg.Run(context.Background(), args, ffmpeg.RunOptions{Dir: dir}); err != nil {
			return fmt.Errorf("make assets: %w", err)
		}
	}
	return os.WriteFile(filepath.Join(dir, "text.txt"), []byte("kino benchmark"), 0o644)
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
func kinoCommand(ctx context.Context, dir, name string, body []byte, font string) (*engine.Command, error) {
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
		info, err := ffmpeg.Probe(ctx, ffmpeg.Limits{}, path)
		if err != nil {
			return nil, err
		}
		media[src.Key] = engine.MediaFromInfo(path, info)
	}
	work := filepath.Join(dir, name)
	if err := os.MkdirAll(work, 0o755); err != nil {
		return nil, err
	}
	cmd, err := engine.Plan(ctx, scene, benchInputs(media, font), work, filepath.Join(work, "out.mp4"))
	if err != nil {
		return nil, err
	}
	if err := cmd.WriteFiles(work); err != nil {
		return nil, err
	}
	return cmd, nil
}

// benchInputs are what the benchmarks' plans read: local media and the
// default font and the machine's fallback fonts, within the default
// ffmpeg limits (no mockup layers).
func benchInputs(media map[string]engine.Media, font string) engine.Inputs {
	return engine.Inputs{Media: media, DefaultFont: font, Fonts: benchFonts}
}

// benchFonts are the machine's fallback fonts, read once a bench run.
var benchFonts = glyphs.NewMachine(glyphs.DefaultDirs()...)
