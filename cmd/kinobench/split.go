package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/kinohq/kino/server/engine"
	"github.com/kinohq/kino/server/ffmpeg"
	"github.com/kinohq/kino/server/meter"
	"github.com/kinohq/kino/server/typeset"
)

// The split benchmark: 60 s of 1280x720 at 30 fps, mp4, rendered whole and
// split, the worker's ffmpeg commands run directly one after the other
// (what any number of workers would run, without the queue around them).
const splitDuration = 60

// splitComposition is the colour clip video made a minute long, with a
// video playing across the whole timeline (so every part but the first
// cuts it) and the title fading in over the first part.
func splitComposition(dir string) (*engine.Scene, map[string]engine.Media, error) {
	comp := map[string]any{
		"width": benchWidth, "height": benchHeight, "fps": benchFPS, "duration": splitDuration,
		"layers": []any{
			map[string]any{"type": "color", "color": "#1d3557", "start": 0, "duration": splitDuration},
			map[string]any{"type": "video", "src": "clip", "start": 0, "duration": splitDuration, "x": 700, "y": 80, "width": 480, "height": 270, "volume": 0.3},
			map[string]any{"type": "image", "src": "photo", "start": 1, "duration": splitDuration - 1, "x": 100, "y": 100, "width": 400, "height": 300, "fadeIn": 1},
			map[string]any{"type": "text", "text": "kino benchmark", "fontSize": 64, "color": "#ffffff", "x": "center", "y": 560, "start": 0, "duration": splitDuration, "fadeIn": 0.5},
			map[string]any{"type": "audio", "src": "music", "start": 0, "duration": splitDuration, "volume": 0.8, "loop": true},
		},
	}
	raw, err := json.Marshal(comp)
	if err != nil {
		return nil, nil, err
	}
	urls := map[string]string{"clip": "https://bench.test/clip.mp4", "photo": "https://bench.test/photo.png", "music": "https://bench.test/music.wav"}
	s, err := engine.Compile("provider_a", raw, urls, engine.DefaultLimits())
	if err != nil {
		return nil, nil, err
	}
	media := map[string]engine.Media{}
	for _, src := range s.Sources() {
		path := filepath.Join(dir, filepath.Base(src.URL))
		info, err := ffmpeg.Probe(context.Background(), ffmpeg.Limits{}, path)
		if err != nil {
			return nil, nil, err
		}
		media[src.Key] = engine.MediaFromInfo(path, info)
	}
	return s, media, nil
}

// step is one ffmpeg run: its wall time and the CPU time it used.
type step struct{ wall, cpu time.Duration }

func runStep(dir string, cmd *engine.Command) (step, error) {
	if err := cmd.WriteFiles(dir); err != nil {
		return step{}, err
	}
	ctx, m := meter.With(context.Background())
	t := time.Now()
	if err := ffmpeg.Run(ctx, cmd.Args, ffmpeg.RunOptions{Dir: dir}); err != nil {
		return step{}, err
	}
	return step{wall: time.Since(t), cpu: m.Used().CPU}, nil
}

// splitRun is one split render: each part, the sound, the join.
type splitRun struct {
	parts       []step
	sound, join step
}

func (r splitRun) cpu() time.Duration {
	d := r.sound.cpu + r.join.cpu
	for _, p := range r.parts {
		d += p.cpu
	}
	return d
}

// projected is the wall time of the render on w workers, each a machine
// like this one: the parts and the sound, longest first, each to the
// worker that frees first (as idle workers claim them), then the join.
func (r splitRun) projected(w int) time.Duration {
	var tasks []time.Duration
	for _, p := range r.parts {
		tasks = append(tasks, p.wall)
	}
	tasks = append(tasks, r.sound.wall)
	slices.SortFunc(tasks, func(a, b time.Duration) int { return int(b - a) })
	free := make([]time.Duration, w)
	for _, t := range tasks {
		i := slices.Index(free, slices.Min(free))
		free[i] += t
	}
	return slices.Max(free) + r.join.wall
}

func benchSplit(runs int, partSeconds []float64) error {
	dir, err := os.MkdirTemp("", "kinobench-split-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := makeAssets(dir); err != nil {
		return err
	}
	// A minute of 640x360 video, the clip playing across the timeline.
	err = ffmpeg.Run(context.Background(), []string{"-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30",
		"-t", fmt.Sprint(splitDuration + 1), "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", "clip.mp4"}, ffmpeg.RunOptions{Dir: dir})
	if err != nil {
		return fmt.Errorf("make clip: %w", err)
	}
	s, media, err := splitComposition(dir)
	if err != nil {
		return err
	}
	font := typeset.SystemFont()
	fmt.Printf("## Split render: %d s, 1280x720, 30 fps, mp4, %d runs each\n\n", splitDuration, runs)
	var wholes []step
	results := map[float64][]splitRun{}
	for i := range runs {
		// Alternate whole and split, so drift in the machine's load hits both.
		cmd, err := engine.Plan(context.Background(), s, benchInputs(media, font), dir, filepath.Join(dir, "whole.mp4"))
		if err != nil {
			return err
		}
		w, err := runStep(dir, cmd)
		if err != nil {
			return fmt.Errorf("whole: %w", err)
		}
		wholes = append(wholes, w)
		for _, per := range partSeconds {
			r, err := runSplit(dir, s, media, font, int(per*benchFPS))
			if err != nil {
				return fmt.Errorf("split in %v s parts: %w", per, err)
			}
			results[per] = append(results[per], r)
		}
		fmt.Fprintf(os.Stderr, "run %d done\n", i+1)
	}
	wholeCPU := medianOf(wholes, func(s step) time.Duration { return s.cpu })
	wholeWall := medianOf(wholes, func(s step) time.Duration { return s.wall })
	fmt.Printf("Unsplit: CPU %s, wall %s (medians; every run: %s).\n\n", wholeCPU.Round(time.Millisecond), wholeWall.Round(time.Millisecond), steps(wholes))
	fmt.Println("| parts of | parts | CPU, split | split ÷ unsplit CPU | join (wall) | wall, 1 worker | 2 workers | 4 | 8 | 16 |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|")
	for _, per := range partSeconds {
		rs := results[per]
		cpu := medianOf(rs, splitRun.cpu)
		join := medianOf(rs, func(r splitRun) time.Duration { return r.join.wall })
		row := fmt.Sprintf("| %g s | %d | %s | %.3f | %s |", per, len(rs[0].parts), cpu.Round(time.Millisecond),
			cpu.Seconds()/wholeCPU.Seconds(), join.Round(time.Millisecond))
		for _, w := range []int{1, 2, 4, 8, 16} {
			row += fmt.Sprintf(" %s |", medianOf(rs, func(r splitRun) time.Duration { return r.projected(w) }).Round(100*time.Millisecond))
		}
		fmt.Println(row)
	}
	fmt.Println()
	for _, per := range partSeconds {
		for i, r := range results[per] {
			fmt.Printf("- %g s parts, run %d: parts %s; sound %s; join %s\n", per, i+1, steps(r.parts), steps([]step{r.sound}), steps([]step{r.join}))
		}
	}
	fmt.Println()
	return nil
}

func runSplit(dir string, s *engine.Scene, media map[string]engine.Media, font string, per int) (splitRun, error) {
	var r splitRun
	ranges := s.Ranges(per)
	var parts []string
	for i, rg := range ranges {
		out := filepath.Join(dir, fmt.Sprintf("part-%03d.ts", i))
		part := s.Part(rg, i == len(ranges)-1)
		for _, sk := range part.Seeks(media) {
			first, err := ffmpeg.FirstFrameAfter(context.Background(), ffmpeg.Limits{}, sk.Path, sk.Format, sk.Trim)
			if err != nil {
				return r, err
			}
			part.Seeked(sk, first)
		}
		cmd, err := engine.PlanPart(context.Background(), part, benchInputs(media, font), dir, out)
		if err != nil {
			return r, err
		}
		st, err := runStep(dir, cmd)
		if err != nil {
			return r, err
		}
		r.parts = append(r.parts, st)
		parts = append(parts, out)
	}
	sound := filepath.Join(dir, "sound.mp4")
	cmd, err := engine.PlanSound(context.Background(), s, benchInputs(media, font), dir, sound)
	if err != nil {
		return r, err
	}
	if r.sound, err = runStep(dir, cmd); err != nil {
		return r, err
	}
	r.join, err = runStep(dir, engine.PlanJoin(s, ffmpeg.Limits{}, parts, sound, dir, filepath.Join(dir, "split.mp4")))
	return r, err
}

func medianOf[T any](xs []T, f func(T) time.Duration) time.Duration {
	var ds []time.Duration
	for _, x := range xs {
		ds = append(ds, f(x))
	}
	return median(ds)
}

func steps(ss []step) string {
	var out []string
	for _, s := range ss {
		out = append(out, fmt.Sprintf("%s CPU/%s wall", s.cpu.Round(10*time.Millisecond), s.wall.Round(10*time.Millisecond)))
	}
	return strings.Join(out, ", ")
}
