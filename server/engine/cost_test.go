package engine

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/ffmpeg"
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

// TestTurnedColourDrawsWhatShows: a colour layer at scale 100 with a fixed
// rotation on a 320×180 output turned a 7140×4016 picture every frame. It
// draws only the part of it that can reach the frame, and the frame looks
// as it did: compared with the same layer drawn whole (a keyframed x that
// holds still draws it whole).
func TestTurnedColourDrawsWhatShows(t *testing.T) {
	if testing.Short() {
		t.Skip("renders with ffmpeg")
	}
	t.Parallel()
	colourSizes := func(cmd *Command) [][2]int {
		var out [][2]int
		for _, m := range regexp.MustCompile(`color=c=0x00FF00[0-9A-F]{2}:s=(\d+)x(\d+)`).FindAllStringSubmatch(filterGraph(cmd), -1) {
			w, _ := strconv.Atoi(m[1])
			h, _ := strconv.Atoi(m[2])
			out = append(out, [2]int{w, h})
		}
		return out
	}
	comp := func(layer map[string]any) map[string]any {
		return map[string]any{"width": 320, "height": 180, "fps": 10, "duration": 0.2, "format": "mov", "layers": []any{
			map[string]any{"type": "color", "color": "blue"}, layer}}
	}
	t.Run("scale 100 covers the frame", func(t *testing.T) {
		t.Parallel()
		r := render(t, "provider_a", comp(map[string]any{"type": "color", "color": "lime", "scale": 100, "rotation": 30}))
		sizes := colourSizes(r.cmd)
		require.Len(t, sizes, 1)
		assert.LessOrEqual(t, sizes[0][0]*sizes[0][1], 380*380, "pixels of the colour drawn: %v", sizes)
		frame := decodeRGBA(t, r.out, 320, 180)[0]
		for _, at := range [][2]int{{0, 0}, {312, 0}, {0, 172}, {312, 172}, {156, 86}} {
			got := meanRGBA(frame, 320, at[0], at[1], 8, 8)
			assert.InDelta(t, 255, got[1], 12, "lime at %v: %v", at, got)
			assert.InDelta(t, 0, got[2], 12, "lime at %v: %v", at, got)
		}
	})
	t.Run("a turned corner looks as drawn whole", func(t *testing.T) {
		t.Parallel()
		layer := map[string]any{"type": "color", "color": "lime", "width": 100, "height": 60, "x": 250, "y": 140, "scale": 2, "rotation": 45, "opacity": 0.8}
		cut := render(t, "provider_a", comp(layer))
		whole := map[string]any{}
		for k, v := range layer {
			whole[k] = v
		}
		whole["x"] = []any{map[string]any{"time": 0, "value": 250}, map[string]any{"time": 0.1, "value": 250}}
		ref := render(t, "provider_a", comp(whole))
		cs, ws := colourSizes(cut.cmd), colourSizes(ref.cmd)
		require.Len(t, cs, 1)
		require.Len(t, ws, 1)
		assert.Less(t, cs[0][0]*cs[0][1], ws[0][0]*ws[0][1], "the cut part is smaller than the layer: %v, %v", cs, ws)
		a, b := decodeRGBA(t, cut.out, 320, 180)[0], decodeRGBA(t, ref.out, 320, 180)[0]
		differ := 0
		for i := 0; i < len(a); i += 4 {
			for c := range 3 {
				if d := int(a[i+c]) - int(b[i+c]); d > 40 || d < -40 {
					differ++
					break
				}
			}
		}
		assert.Less(t, differ, 320*180/200, "pixels that differ from the layer drawn whole")
		lime := meanRGBA(a, 320, 300, 165, 6, 6)
		assert.Greater(t, lime[1], 150.0, "the layer shows at its centre: %v", lime)
	})
}

// TestPlanCaptionsBoundedOverLayers: the captions bounds were a layer's,
// so one render of 99 layers with the same overlapping captions held
// 4.56 GB in kino and 2.4 GB of scripts. The scripts of a render are
// bounded together, and the layer that passes the bound is named.
func TestPlanCaptionsBoundedOverLayers(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := range 9 {
		fmt.Fprintf(&b, "%d\n00:00:00,%03d --> 00:00:50,000\n%s\n\n", i+1, i, strings.Repeat("a ", 160))
	}
	layer := map[string]any{"type": "captions", "text": b.String(), "highlightColor": "yellow"}
	comp := func(n int) []byte {
		var layers []any
		for range n {
			layers = append(layers, layer)
		}
		return mustJSON(t, map[string]any{"width": 320, "height": 180, "fps": 10, "duration": 60, "layers": layers})
	}
	s, err := Compile("provider_a", comp(1), nil, DefaultLimits())
	require.NoError(t, err)
	one, err := Plan(context.Background(), s, inputs(nil, testFont), "/work", "/work/out.mp4")
	require.NoError(t, err, "one layer is within the bound")
	size := len(one.Files["captions-0.ass"])
	require.Less(t, size, maxCaptionScript/4)
	n := maxCaptionScript/size + 1
	require.LessOrEqual(t, n, maxCaptionsLayers)

	s, err = Compile("provider_a", comp(n), nil, DefaultLimits())
	require.NoError(t, err)
	_, err = Plan(context.Background(), s, inputs(nil, testFont), "/work", "/work/out.mp4")
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, fmt.Sprintf("composition.layers[%d]", n-1), ve.Field)
	assert.Contains(t, ve.Message, "with the captions layers before it")
	assert.Contains(t, ve.Message, "subtitle scripts of more than 32 MiB in the render")
}

// TestScaledPictureCutToTheFrame: a picture held still but scaled or
// turned past the frame is cut to what can show before it is repeated,
// and the frame looks as when it is drawn whole.
func TestScaledPictureCutToTheFrame(t *testing.T) {
	if testing.Short() {
		t.Skip("renders with ffmpeg")
	}
	t.Parallel()
	for _, layer := range []map[string]any{
		{"type": "image", "src": "gradient", "x": 10, "y": 20, "scale": 3, "rotation": 20},
		{"type": "image", "src": "picture", "x": 0, "y": -30, "scale": 100, "rotation": 30},
		{"type": "image", "src": "gradient", "x": -50, "y": 100, "width": 200, "height": 100, "scale": 2},
	} {
		t.Run(fmt.Sprint(layer["src"], layer["scale"]), func(t *testing.T) {
			t.Parallel()
			comp := func(layer map[string]any) map[string]any {
				return map[string]any{"width": 320, "height": 180, "fps": 10, "duration": 0.2, "format": "mov", "layers": []any{
					map[string]any{"type": "color", "color": "blue"}, layer}}
			}
			cut := render(t, "provider_a", comp(layer))
			assert.Contains(t, filterGraph(cut.cmd), "crop=w=")
			m := regexp.MustCompile(`crop=w=(\d+):h=(\d+)`).FindStringSubmatch(filterGraph(cut.cmd))
			require.NotNil(t, m)
			w, _ := strconv.Atoi(m[1])
			h, _ := strconv.Atoi(m[2])
			assert.LessOrEqual(t, w, 324)
			assert.LessOrEqual(t, h, 184)
			whole := map[string]any{}
			for k, v := range layer {
				whole[k] = v
			}
			// Keyframes that hold still: drawn whole, placed by expressions.
			whole["x"] = []any{map[string]any{"time": 0, "value": layer["x"]}, map[string]any{"time": 0.1, "value": layer["x"]}}
			ref := render(t, "provider_a", comp(whole))
			assert.NotContains(t, filterGraph(ref.cmd), "crop=w=")
			a, b := decodeRGBA(t, cut.out, 320, 180), decodeRGBA(t, ref.out, 320, 180)
			for n := range a {
				differ := 0
				for i := 0; i < len(a[n]); i += 4 {
					for c := range 3 {
						if d := int(a[n][i+c]) - int(b[n][i+c]); d > 6 || d < -6 {
							differ++
							break
						}
					}
				}
				assert.Zero(t, differ, "frame %d: pixels that differ from the layer drawn whole", n)
			}
		})
	}
}

// TestStillOfAVideoIsItsFrame: a still cut from the scene shows the frame
// the whole scene shows at frameTime, with a video layer (which skips the
// frames before the still) and a moving one.
func TestStillOfAVideoIsItsFrame(t *testing.T) {
	if testing.Short() {
		t.Skip("renders with ffmpeg")
	}
	t.Parallel()
	comp := map[string]any{"width": 80, "height": 60, "fps": 10, "duration": 2, "format": "png", "frameTime": 1.5, "layers": []any{
		map[string]any{"type": "video", "src": "clip", "start": 0.3, "duration": 1.7, "trimStart": 0.1},
		map[string]any{"type": "color", "color": "red", "width": 10, "height": 10, "y": 0,
			"x": []any{map[string]any{"time": 0, "value": 0}, map[string]any{"time": 2, "value": 70}}},
	}}
	still := render(t, "provider_a", comp)
	assert.Less(t, baseFrames(t, still.cmd, 10), 2.0)

	// The reference: the whole scene composed, and its frame kept.
	files := testMedia(t)
	s, err := Compile("provider_a", mustJSON(t, comp), testAssets, DefaultLimits())
	require.NoError(t, err)
	s.stillCut = true
	media := map[string]Media{}
	for _, src := range s.Sources() {
		media[src.Key] = files[filepath.Base(src.URL)]
	}
	work := t.TempDir()
	out := filepath.Join(work, "out.png")
	cmd, err := Plan(context.Background(), s, inputs(media, testFont), work, out)
	require.NoError(t, err)
	assert.Greater(t, baseFrames(t, cmd, 10), 15.0)
	require.NoError(t, cmd.WriteFiles(work))
	require.NoError(t, ffmpeg.Run(context.Background(), cmd.Args, ffmpeg.RunOptions{Dir: work, Duration: s.Duration}))

	got, want := decodeRGBA(t, still.out, 80, 60)[0], decodeRGBA(t, out, 80, 60)[0]
	assert.Equal(t, want, got, "the still is the frame of the whole scene")
}

// TestStillSeeksItsVideo: a still's video layer was decoded from its trim
// up to frameTime (frameTime 30 of a 60 s video: 900 frames decoded and
// dropped to keep one). Seeking its input to the still's frame, a still
// decodes the same few frames at any frameTime, and is still the frame the
// whole scene shows then. Counted from ffmpeg's own figures, not timed.
func TestStillSeeksItsVideo(t *testing.T) {
	if testing.Short() {
		t.Skip("renders with ffmpeg")
	}
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	// 60 s at 30 fps, a keyframe every 2 s, as a camera's might be.
	long := filepath.Join(dir, "long")
	mk := exec.Command("ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=64x36:rate=30",
		"-t", "60", "-c:v", "libx264", "-preset", "ultrafast", "-g", "60", "-pix_fmt", "yuv420p", "-f", "mp4", long)
	out, err := mk.CombinedOutput()
	require.NoError(t, err, "%s", out)
	info, err := ffmpeg.Probe(ctx, ffmpeg.Limits{}, long)
	require.NoError(t, err)

	comp := map[string]any{"width": 64, "height": 36, "fps": 60, "format": "png", "frameTime": 30, "layers": []any{
		map[string]any{"type": "video", "src": "long", "trimStart": 0.5, "duration": 59},
	}}
	s, err := Compile("provider_a", mustJSON(t, comp), map[string]string{"long": "https://x.test/long"}, DefaultLimits())
	require.NoError(t, err)
	require.Len(t, s.Sources(), 1)
	media := map[string]Media{s.Sources()[0].Key: MediaFromInfo(long, info)}

	// draw runs a plan of sc with ffmpeg, and counts the frames it decoded.
	draw := func(sc *Scene, name string) (string, *Command, int) {
		t.Helper()
		work := t.TempDir()
		path := filepath.Join(work, name)
		cmd, err := Plan(context.Background(), sc, inputs(media, testFont), work, path)
		require.NoError(t, err)
		require.NoError(t, cmd.WriteFiles(work))
		run := exec.Command("ffmpeg", append([]string{"-hide_banner", "-nostdin", "-y", "-v", "verbose"}, cmd.Args...)...)
		run.Dir = work
		log, err := run.CombinedOutput()
		require.NoError(t, err, "%s", log)
		m := regexp.MustCompile(`\(video\): \d+ packets read \(\d+ bytes\); (\d+) frames decoded`).FindSubmatch(log)
		require.NotNil(t, m, "no decoder figures in %s", log)
		n, err := strconv.Atoi(string(m[1]))
		require.NoError(t, err)
		return path, cmd, n
	}

	// Unprobed, the cut video plays from its trim: what the still cost.
	_, _, fromTrim := draw(s.StillFrame(), "trim.png")
	assert.Greater(t, fromTrim, 850, "frames decoded from the trim")

	still := s.StillFrame()
	seekVideos(t, still, media)
	got, cmd, sought := draw(still, "still.png")
	assert.Less(t, sought, 150, "frames decoded once sought")
	t.Logf("frames decoded for a still at frameTime 30: %d from the trim, %d sought", fromTrim, sought)
	ss := -1.0
	for i, a := range cmd.Args {
		if a == "-i" && strings.Contains(cmd.Args[i+1], "long") {
			for j := i - 1; j > 0; j-- {
				if cmd.Args[j-1] == "-ss" {
					ss, err = strconv.ParseFloat(cmd.Args[j], 64)
					require.NoError(t, err)
					break
				}
				if cmd.Args[j-1] == "-i" {
					break
				}
			}
		}
	}
	assert.InDelta(t, 29.5, ss, 0.01, "the video's input seeks a second before the still's frame: %v", cmd.Args)

	// The reference: the whole scene composed, and its frame kept.
	whole := *s
	whole.stillCut = true
	want, _, _ := draw(&whole, "whole.png")
	assert.Equal(t, decodeRGBA(t, want, 64, 36)[0], decodeRGBA(t, got, 64, 36)[0], "the still is the frame of the whole scene")
}
