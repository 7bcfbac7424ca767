package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kinohq/kino/server/engine"
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
	before, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("Load average before the runs: %s\n\n", strings.TrimSpace(string(before)))
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
	outs, names := make([]string, len(cases)), make([]string, len(cases))
	for n, c := range cases {
		outs[n], names[n] = filepath.Join(dir, fmt.Sprintf("words-%d-%d", n, runs-1), "out.mp4"), c.name
	}
	floorWalls, floorCPUs, err := encoderFloor(ctx, dir, outs, runs)
	if err != nil {
		return err
	}
	printFloor(names, times, cpus, floorWalls, floorCPUs)
	return nil
}

// encoderFloor times x264 alone on each case's frames: the last run's
// output decoded once to raw yuv420p (untimed), then encoded with kino's
// own mp4 settings, the cases alternated in every run. What a render
// costs beyond this is kino's (planning, drawing, compositing); this much
// any renderer of the same frames pays.
func encoderFloor(ctx context.Context, dir string, outs []string, runs int) ([][]time.Duration, [][]time.Duration, error) {
	raws := make([]string, len(outs))
	for n, out := range outs {
		raws[n] = filepath.Join(dir, fmt.Sprintf("frames-%d.yuv", n))
		args := []string{"-i", "file:" + out, "-f", "rawvideo", "-pix_fmt", "yuv420p", "file:" + raws[n]}
		if err := ffmpeg.Run(ctx, args, ffmpeg.RunOptions{Dir: dir, Duration: benchDuration}); err != nil {
			return nil, nil, fmt.Errorf("decode %s: %w", out, err)
		}
		// Every case must hand the encoder the same frames in number.
		info, err := os.Stat(raws[n])
		if err != nil {
			return nil, nil, err
		}
		if want := int64(benchWidth * benchHeight * 3 / 2 * benchFPS * benchDuration); info.Size() != want {
			return nil, nil, fmt.Errorf("decode %s: %d bytes of frames, want %d", out, info.Size(), want)
		}
	}
	walls, cpus := make([][]time.Duration, len(outs)), make([][]time.Duration, len(outs))
	for range runs {
		for n, raw := range raws {
			args := []string{"-f", "rawvideo", "-pixel_format", "yuv420p",
				"-video_size", fmt.Sprintf("%dx%d", benchWidth, benchHeight), "-framerate", fmt.Sprint(benchFPS), "-i", "file:" + raw}
			args = append(args, engine.EncoderArgs("mp4")...)
			args = append(args, "file:"+filepath.Join(dir, fmt.Sprintf("encoded-%d.mp4", n)))
			t, cpu := time.Now(), cpuWithChildren()
			if err := ffmpeg.Run(ctx, args, ffmpeg.RunOptions{Dir: dir, Duration: benchDuration}); err != nil {
				return nil, nil, fmt.Errorf("encode %s: %w", raw, err)
			}
			walls[n] = append(walls[n], time.Since(t))
			cpus[n] = append(cpus[n], cpuWithChildren()-cpu)
		}
	}
	return walls, cpus, nil
}

// printFloor prints the encoder's floor of each case beside its render:
// kino's share is the render's CPU less the encoding's, and the render's
// ratio to plain text over the floor's says how much of that ratio is
// kino's (1.00: none). The last column is the ratio a render would have
// if kino's share of it were plain text's: drawing words that move for
// no more than still ones, the best kino could do.
func printFloor(names []string, renderWalls, renderCPUs, walls, cpus [][]time.Duration) {
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Println("### The encoder's floor: each case's output decoded to raw yuv420p, encoded alone with kino's mp4 settings")
	fmt.Println()
	fmt.Println("| case | encoding alone, wall of the runs | median | / plain | CPU of the runs | median | / plain " +
		"| kino's share of CPU (render − encoding) | render's CPU ratio ÷ floor's | render's wall ratio ÷ floor's " +
		"| CPU ratio were kino's share plain text's |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|")
	ratio := func(ds [][]time.Duration, n int) float64 { return median(ds[n]).Seconds() / median(ds[0]).Seconds() }
	for n, name := range names {
		fmt.Printf("| %s | %v | %v | %.2f | %v | %v | %.2f | %v | %.2f | %.2f | %.2f |\n", name,
			rounded(walls[n]), median(walls[n]).Round(time.Millisecond), ratio(walls, n),
			rounded(cpus[n]), median(cpus[n]).Round(time.Millisecond), ratio(cpus, n),
			(median(renderCPUs[n]) - median(cpus[n])).Round(time.Millisecond),
			ratio(renderCPUs, n)/ratio(cpus, n), ratio(renderWalls, n)/ratio(walls, n),
			(median(cpus[n])+median(renderCPUs[0])-median(cpus[0])).Seconds()/median(renderCPUs[0]).Seconds())
	}
	fmt.Printf("\nLoad average after the encoding runs: %s\n\n", strings.TrimSpace(string(load)))
}
