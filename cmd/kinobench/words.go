package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kinohq/kino/server/ffmpeg"
	"github.com/kinohq/kino/server/typeset"
)

// wordsText is the benchmark's line: 20 words.
const wordsText = "Twenty words come in one after the other, each sliding up and fading in while the rest are still moving"

// wordsComposition is a 10 s 1280x720 30 fps mp4 of five text layers of
// 20 words, one after the other, 2 s each, over a colour: plain, or
// coming in by word with enter (each word's move lasting 1.5 s, 0.025 s
// after the one before, so that on every frame almost all 20 move).
func wordsComposition(enter map[string]any) map[string]any {
	var layers []any
	for k := range 5 {
		l := map[string]any{"type": "text", "text": wordsText, "fontSize": 48, "color": "white",
			"x": 90, "y": 200 + 40*k, "width": 1100, "start": 2 * k, "duration": 2}
		if enter != nil {
			l["enter"] = enter
		}
		layers = append(layers, l)
	}
	return map[string]any{"provider": "provider_a", "composition": map[string]any{
		"width": benchWidth, "height": benchHeight, "fps": benchFPS, "duration": benchDuration, "background": "#1d3557",
		"layers": layers}}
}

// benchWords measures text animated by word against the same text plain:
// plan, files and ffmpeg, wall time, the cases alternated in every run.
func benchWords(ctx context.Context, runs int) error {
	dir, err := os.MkdirTemp("", "kinobench-words-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	font := typeset.SystemFont()
	cases := []struct {
		name  string
		enter map[string]any
	}{
		{"plain text", nil},
		{"by word, slide", map[string]any{"type": "slide", "side": "bottom", "by": "word", "stagger": 0.025, "duration": 1.5}},
		{"by word, pop", map[string]any{"type": "pop", "by": "word", "stagger": 0.025, "duration": 1.5}},
	}
	fmt.Printf("## Text by word: 10 s, 1280x720, 30 fps, mp4, five layers of 20 words, %d runs each\n\n", runs)
	times, cpus := make([][]time.Duration, len(cases)), make([][]time.Duration, len(cases))
	for i := range runs {
		for n, c := range cases {
			body, err := json.Marshal(wordsComposition(c.enter))
			if err != nil {
				return err
			}
			t, cpu := time.Now(), cpuWithChildren()
			cmd, err := kinoCommand(ctx, dir, fmt.Sprintf("words-%d-%d", n, i), body, font)
			if err != nil {
				return fmt.Errorf("%s: %w", c.name, err)
			}
			if err := ffmpeg.Run(ctx, cmd.Args, ffmpeg.RunOptions{Dir: filepath.Join(dir, fmt.Sprintf("words-%d-%d", n, i)), Duration: benchDuration}); err != nil {
				return fmt.Errorf("%s: %w", c.name, err)
			}
			times[n] = append(times[n], time.Since(t))
			cpus[n] = append(cpus[n], cpuWithChildren()-cpu)
		}
	}
	// The machine's load says how far wall times are to be trusted.
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Println("| case | wall time of the runs | median | / plain | CPU time (kino and ffmpeg) of the runs | median | / plain |")
	fmt.Println("|---|---|---|---|---|---|---|")
	for n, c := range cases {
		fmt.Printf("| %s | %v | %v | %.2f | %v | %v | %.2f |\n", c.name, rounded(times[n]), median(times[n]).Round(time.Millisecond),
			median(times[n]).Seconds()/median(times[0]).Seconds(), rounded(cpus[n]), median(cpus[n]).Round(time.Millisecond),
			median(cpus[n]).Seconds()/median(cpus[0]).Seconds())
	}
	fmt.Printf("\nLoad average after the runs: %s\n\n", strings.TrimSpace(string(load)))
	return nil
}
