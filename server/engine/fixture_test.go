package engine

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/ffmpeg"
)

// The media of the picture and sound tests, each made so that what a
// feature does shows in a few numbers.
var (
	fixtureOnce  sync.Once
	fixtureErr   error
	fixtureMedia = map[string]Media{}
)

// fixtureFiles are made with ffmpeg from these arguments, once.
var fixtureFiles = map[string][]string{
	// 256×128, eight cells of 64×64: red, blue, lime, white above yellow,
	// cyan, magenta, black. Where each cell lands shows how the picture
	// was cut, mirrored and sized.
	"cells": {"-f", "lavfi", "-i", cellsGraph, "-frames:v", "1", "-f", "image2", "-c:v", "png"},
	// One colour, #C86432: every colour filter moves it somewhere known.
	"swatch": {"-f", "lavfi", "-i", "color=0xC86432:s=16x16,format=rgb24", "-frames:v", "1", "-f", "image2", "-c:v", "png"},
	// 400×2: a fit of it must not make an enormous or an empty frame.
	"thin": {"-f", "lavfi", "-i", "color=white:s=400x2,format=rgb24", "-frames:v", "1", "-f", "image2", "-c:v", "png"},
	// Colourful, for greyscale.
	"photo": {"-f", "lavfi", "-i", "testsrc2=size=64x48", "-frames:v", "1", "-f", "image2", "-c:v", "png"},
	// 2 s at 10 fps, grey rising with time: source time reads off a
	// frame's brightness (luma 16 + 100 per second).
	"ramp": {"-f", "lavfi", "-i", "color=black:s=32x32:r=10,geq=lum='16+100*T':cb=128:cr=128", "-t", "2",
		"-c:v", "libx264", "-preset", "ultrafast", "-qp", "0", "-pix_fmt", "yuv420p", "-f", "mp4"},
	// Background music, 440 Hz for 8 s; a voice, 330 Hz for 1 s, at
	// about speech level (−21 dBFS RMS).
	"music": {"-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-t", "8", "-f", "wav"},
	"voice": {"-f", "lavfi", "-i", "sine=frequency=330:sample_rate=48000", "-t", "1", "-f", "wav"},
	// A video of someone talking, as far as sound goes: the voice, 1 s.
	"talk": {"-f", "lavfi", "-i", "color=navy:s=16x16:r=10", "-f", "lavfi", "-i", "sine=frequency=330:sample_rate=48000", "-t", "1",
		"-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-f", "mp4"},
}

// cellColors are the colours of the cells picture, rows top first.
var cellColors = [2][4][3]float64{
	{{255, 0, 0}, {0, 0, 255}, {0, 255, 0}, {255, 255, 255}},
	{{255, 255, 0}, {0, 255, 255}, {255, 0, 255}, {0, 0, 0}},
}

var cellsGraph = func() string {
	var g strings.Builder
	for r, row := range cellColors {
		for c, rgb := range row {
			fmt.Fprintf(&g, "color=0x%02X%02X%02X:s=64x64[c%d%d];", int(rgb[0]), int(rgb[1]), int(rgb[2]), r, c)
		}
		fmt.Fprintf(&g, "[c%d0][c%d1][c%d2][c%d3]hstack=inputs=4[r%d];", r, r, r, r, r)
	}
	return g.String() + "[r0][r1]vstack,format=rgb24"
}()

// fixtures makes and probes the fixture files once, named without
// extension as the worker names downloads.
func fixtures(t *testing.T) map[string]Media {
	t.Helper()
	fixtureOnce.Do(func() {
		dir, err := os.MkdirTemp("", "kino-engine-fixtures-")
		if err != nil {
			fixtureErr = err
			return
		}
		for name, args := range fixtureFiles {
			path := filepath.Join(dir, name)
			cmd := exec.Command("ffmpeg", append(append([]string{"-hide_banner", "-loglevel", "error", "-y"}, args...), path)...)
			if out, err := cmd.CombinedOutput(); err != nil {
				fixtureErr = fmt.Errorf("make %s: %v: %s", name, err, out)
				return
			}
			info, err := ffmpeg.Probe(context.Background(), ffmpeg.Limits{}, path)
			if err != nil {
				fixtureErr = fmt.Errorf("probe %s: %w", name, err)
				return
			}
			fixtureMedia[name] = MediaFromInfo(path, info)
		}
	})
	require.NoError(t, fixtureErr)
	return fixtureMedia
}

// fixtureURL is the URL a composition names a fixture by.
func fixtureURL(name string) string { return "https://fixture.test/" + name }

// renderFixtures compiles, plans and runs a composition whose sources are
// fixture URLs, as the worker does, and probes the output.
func renderFixtures(t *testing.T, provider string, comp map[string]any) rendered {
	t.Helper()
	s, err := Compile(provider, mustJSON(t, comp), nil, DefaultLimits())
	require.NoError(t, err)
	return renderScene(t, s)
}

// renderScene plans and runs a scene whose sources are fixture URLs.
func renderScene(t *testing.T, s *Scene) rendered {
	t.Helper()
	files := fixtures(t)
	media := map[string]Media{}
	for _, src := range s.Sources() {
		m, ok := files[strings.TrimPrefix(src.URL, fixtureURL(""))]
		require.True(t, ok, "no fixture at %s", src.URL)
		media[src.Key] = m
	}
	work := t.TempDir()
	out := filepath.Join(work, "out."+s.Format)
	measureLoudness(t, s, media, work)
	cmd, err := Plan(context.Background(), s, inputs(media, testFont), work, out)
	require.NoError(t, err)
	require.NoError(t, cmd.WriteFiles(work))
	require.NoError(t, ffmpeg.Run(context.Background(), cmd.Args, ffmpeg.RunOptions{Dir: work, Duration: s.Duration}), filterGraph(cmd))
	info, err := ffmpeg.ProbeFrames(context.Background(), ffmpeg.Limits{}, out)
	require.NoError(t, err)
	return rendered{scene: s, cmd: cmd, out: out, info: info}
}
