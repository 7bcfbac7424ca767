package engine

import (
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The tests here pin the work a render does against what it asks for
// (issue 16, items 4 and 5): they measure what the graph draws, never
// the wall clock.

// baseFrames is how many frames the base of a command's graph generates:
// every one of them is composed with every layer on it.
func baseFrames(t *testing.T, cmd *Command, fps int) float64 {
	t.Helper()
	m := regexp.MustCompile(`color=c=[^:]+:s=\d+x\d+:r=\d+:d=([0-9.]+)(?:,setpts=N\+\d+)?\[base\]`).FindStringSubmatch(filterGraph(cmd))
	require.NotNil(t, m, "no base in %s", filterGraph(cmd))
	d, err := strconv.ParseFloat(m[1], 64)
	require.NoError(t, err)
	return d * float64(fps)
}

// TestStillComposesOnlyItsFrame: a png at frameTime 30 of a 60 fps
// composition composed the 1,800 frames before it to keep one (29 s
// against 2 s at frameTime 1). It composes its frame alone, and that
// frame is the one on screen at frameTime, moving layers and all.
func TestStillComposesOnlyItsFrame(t *testing.T) {
	if testing.Short() {
		t.Skip("renders with ffmpeg")
	}
	t.Parallel()
	comp := map[string]any{"width": 64, "height": 32, "fps": 60, "format": "png", "frameTime": 30,
		"layers": []any{
			map[string]any{"type": "color", "color": "red", "start": 0, "duration": 30},
			map[string]any{"type": "color", "color": "blue", "start": 30, "duration": 1},
			// Keyframed: keeps its own clock, and is at x 0 at 30 s.
			map[string]any{"type": "color", "color": "lime", "width": 16, "height": 16, "y": 0, "start": 0, "duration": 31,
				"x": []any{map[string]any{"time": 0, "value": 48}, map[string]any{"time": 30, "value": 0}}},
			map[string]any{"type": "image", "src": "picture", "x": 32, "y": 16, "width": 16, "height": 16, "start": 1, "duration": 30, "fadeIn": 0.5},
		}}
	r := render(t, "provider_a", comp)
	assert.Less(t, baseFrames(t, r.cmd, 60), 2.0, "frames composed for one still")
	frames := decodeRGBA(t, r.out, 64, 32)
	require.Len(t, frames, 1)
	blue := meanRGBA(frames[0], 64, 20, 20, 8, 8)
	assert.InDelta(t, 255, blue[2], 12, "the frame of 30 s is blue: %v", blue)
	lime := meanRGBA(frames[0], 64, 4, 4, 8, 8)
	assert.InDelta(t, 255, lime[1], 12, "the moving layer has reached x 0: %v", lime)
	assert.InDelta(t, 0, lime[0], 12, "the moving layer has reached x 0: %v", lime)
}

// TestManyLayersRender: 60 picture layers of 320×180 on a 1280×720
// composition at 1 fps, within --max-layers, failed with "Resource
// temporarily unavailable": every decoder and every scaler of the graph
// started as many threads as the machine has CPUs, and their stacks and
// arenas overran ffmpeg's address space (--ffmpeg-max-memory). The
// pictures decode in one thread and the layers share the graph's threads.
func TestManyLayersRender(t *testing.T) {
	if testing.Short() {
		t.Skip("renders with ffmpeg")
	}
	var layers []any
	for i := range 60 {
		layers = append(layers, map[string]any{"type": "image", "src": "picture", "start": 0, "duration": 2,
			"x": (i % 8) * 120, "y": (i / 8) * 80, "width": 320, "height": 180})
	}
	r := render(t, "provider_a", map[string]any{"width": 1280, "height": 720, "fps": 1, "layers": layers})
	checkOutput(t, r, "mp4")
	assert.Contains(t, r.cmd.Args, "-filter_complex_threads")
}
