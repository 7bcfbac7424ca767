package engine

import (
	"bytes"
	"context"
	"encoding/binary"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/ffmpeg"
)

const testFont = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"

var (
	mediaOnce sync.Once
	mediaDir  string
	mediaErr  error
	// probed describes each test file by name, as the worker would.
	probed = map[string]Media{}
)

// testMedia makes and probes, once, the files the render tests use, named
// as the worker names downloads: without extension, so ffmpeg finds the
// format from the content.
func testMedia(t *testing.T) map[string]Media {
	t.Helper()
	mediaOnce.Do(func() {
		if mediaDir, mediaErr = os.MkdirTemp("", "kino-engine-"); mediaErr != nil {
			return
		}
		for _, args := range [][]string{
			{"-f", "lavfi", "-i", "testsrc2=size=64x48", "-frames:v", "1", "-f", "image2", "-c:v", "png", "picture"},
			{"-f", "lavfi", "-i", "color=white:size=400x2", "-frames:v", "1", "-f", "image2", "-c:v", "png", "thin"},
			{"-f", "lavfi", "-i", "color=white:size=32x32", "-frames:v", "1", "-f", "gif", "blink"},
			{"-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100", "-t", "2", "-f", "wav", "tone"},
			{"-f", "lavfi", "-i", "testsrc2=size=80x60:rate=24", "-f", "lavfi", "-i", "sine=frequency=220", "-t", "2",
				"-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-f", "mp4", "clip"},
			{"-f", "lavfi", "-i", "sine=frequency=330", "-t", "1", "-f", "wav", "-c:a", "pcm_s16le", "notes"},
			// Grey from 0 at the left to 255 at the right: a pixel's value
			// tells which column of the picture it shows.
			{"-f", "lavfi", "-i", "nullsrc=size=256x64,format=gray,geq=lum=X", "-frames:v", "1", "-f", "image2", "-c:v", "png", "gradient"},
			// A phone video held upright: stored 80x60, turned a quarter on display.
			{"-f", "lavfi", "-i", "testsrc2=size=80x60:rate=10", "-t", "1", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-f", "mp4", "upright"},
			{"-i", "upright", "-c", "copy", "-metadata:s:v:0", "rotate=90", "-f", "mp4", "turned"},
		} {
			cmd := exec.Command("ffmpeg", append([]string{"-hide_banner", "-loglevel", "error", "-y"}, args...)...)
			cmd.Dir = mediaDir
			if out, err := cmd.CombinedOutput(); err != nil {
				mediaErr = err
				mediaDir = string(out)
				return
			}
		}
		font, err := os.ReadFile(testFont)
		if err == nil {
			err = os.WriteFile(filepath.Join(mediaDir, "font"), font, 0o600)
		}
		if err == nil {
			probed["font"], err = FontFromFile(filepath.Join(mediaDir, "font"))
		}
		for name := range testAssets {
			if name == "font" || err != nil {
				continue
			}
			path := filepath.Join(mediaDir, name)
			var info *ffmpeg.Info
			if info, err = ffmpeg.Probe(context.Background(), ffmpeg.Limits{}, path); err == nil {
				probed[name] = MediaFromInfo(path, info)
			}
		}
		mediaErr = err
	})
	require.NoError(t, mediaErr, mediaDir)
	return probed
}

// testAssets name the test media; each URL's last element is the file.
var testAssets = map[string]string{
	"picture": "https://x.test/picture", "thin": "https://x.test/thin", "blink": "https://x.test/blink",
	"tone": "https://x.test/tone", "clip": "https://x.test/clip", "notes": "https://x.test/notes", "font": "https://x.test/font",
	"gradient": "https://x.test/gradient", "turned": "https://x.test/turned",
}

const nastyText = `it's: 50% \ %{pts} %{eif\:1+1\:d} [out]; a,b 'x' "y" $(x) \n`

// rendered is the result of one real render.
type rendered struct {
	scene *Scene
	cmd   *Command
	out   string
	info  *ffmpeg.Info
}

// render compiles, plans and runs a composition as the worker does, and
// probes the output counting its frames.
func render(t *testing.T, provider string, comp map[string]any) rendered {
	t.Helper()
	files := testMedia(t)
	s, err := Compile(provider, mustJSON(t, comp), testAssets, DefaultLimits())
	require.NoError(t, err)
	media := map[string]Media{}
	for _, src := range s.Sources() {
		media[src.Key] = files[filepath.Base(src.URL)]
	}
	// A working folder whose name needs every kind of escaping.
	work := filepath.Join(t.TempDir(), `it's [a],b;c:d\e=f`)
	require.NoError(t, os.MkdirAll(work, 0o755))
	out := filepath.Join(work, "out."+s.Format)
	cmd, err := Plan(context.Background(), s, inputs(media, testFont), work, out)
	require.NoError(t, err)
	require.NoError(t, cmd.WriteFiles(work))
	require.NoError(t, ffmpeg.Run(context.Background(), cmd.Args, ffmpeg.RunOptions{Dir: work, Duration: s.Duration}))
	info, err := ffmpeg.ProbeFrames(context.Background(), ffmpeg.Limits{}, out)
	require.NoError(t, err)
	return rendered{scene: s, cmd: cmd, out: out, info: info}
}

// checkOutput checks what every render promises: the size, frame rate,
// frame count and duration asked for, yuv420p, and sound.
func checkOutput(t *testing.T, r rendered, format string) {
	t.Helper()
	s, info := r.scene, r.info
	v, a := info.Video(), info.Audio()
	require.NotNil(t, v, "video stream")
	require.NotNil(t, a, "audio stream")
	vcodec, acodec := "h264", "aac"
	if format == "webm" {
		vcodec, acodec = "vp9", "opus"
		assert.Contains(t, info.FormatName, "webm")
	} else {
		assert.Contains(t, info.FormatName, "mp4")
	}
	assert.Equal(t, vcodec, v.CodecName)
	assert.Equal(t, acodec, a.CodecName)
	assert.Equal(t, s.Width, v.Width)
	assert.Equal(t, s.Height, v.Height)
	assert.Equal(t, "yuv420p", v.PixFmt)
	assert.Equal(t, 48000, a.SampleRate)
	assert.Equal(t, 2, a.Channels)
	assert.InDelta(t, float64(s.FPS), v.FPS, 0.01)
	// Frames at 0, 1/fps, … up to but excluding the duration.
	assert.Equal(t, frameAt(s.Duration, s.FPS), v.NbFrames, "frame count")
	assert.InDelta(t, s.Duration, info.Duration, 1/float64(s.FPS)+0.03, "container duration")
}

func everyLayer() []any {
	return []any{
		map[string]any{"type": "color", "color": "#336699", "start": 0, "duration": 2, "x": 10, "y": 10, "width": 40, "height": 30, "fadeOut": 0.5},
		map[string]any{"type": "video", "src": "clip", "start": 0.5, "duration": 1.5, "x": "center", "y": 0, "width": 80, "volume": 0.5, "trimStart": 0.2},
		map[string]any{"type": "image", "src": "picture", "start": 1, "duration": 1, "x": 100, "y": 40, "fadeIn": 0.5, "opacity": 0.7},
		map[string]any{"type": "text", "text": nastyText, "fontSize": 12, "color": "yellow", "start": 0, "duration": 2, "x": 2, "y": "center", "fadeIn": 0.3},
		map[string]any{"type": "text", "text": "font", "font": "font", "start": 0.3, "duration": 1, "x": -5, "y": 80, "opacity": 0.5},
		map[string]any{"type": "audio", "src": "tone", "start": 0.25, "duration": 1.5, "volume": 0.8, "fadeIn": 0.2, "fadeOut": 0.2},
	}
}

func TestRenderProviderA(t *testing.T) {
	if testing.Short() {
		t.Skip("renders with ffmpeg")
	}
	t.Parallel()
	for _, format := range []string{"mp4", "webm"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			r := render(t, "provider_a", map[string]any{"width": 160, "height": 90, "fps": 10, "format": format, "layers": everyLayer()})
			checkOutput(t, r, format)
			assert.Equal(t, 2.0, r.scene.Duration, "the end of the last layer")
			assert.Contains(t, r.cmd.Files, "text-3.png", "the text is a picture kino drew")
			graph := filterGraph(r.cmd)
			assert.NotContains(t, graph, "pts}", "user text never reaches the filter graph")
			assert.NotContains(t, graph, "50%")
		})
	}
}

func TestRenderUnified(t *testing.T) {
	if testing.Short() {
		t.Skip("renders with ffmpeg")
	}
	t.Parallel()
	for _, format := range []string{"mp4", "webm"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			r := render(t, "unified", map[string]any{
				"output": map[string]any{"width": 128, "height": 72, "fps": 15, "format": format, "background": "navy"},
				"tracks": []any{
					map[string]any{"clips": []any{map[string]any{"asset": map[string]any{"type": "text", "text": nastyText, "fontSize": 10}, "start": 0, "length": 1.2}}},
					map[string]any{"clips": []any{
						map[string]any{"asset": map[string]any{"type": "video", "src": "clip", "volume": 1, "trim": 0.5}, "start": 0, "length": 1, "fadeOut": 0.3},
						map[string]any{"asset": map[string]any{"type": "image", "src": "picture"}, "start": 1, "length": 1.2, "size": map[string]any{"height": 40},
							"position": map[string]any{"x": 4, "y": "center"}, "opacity": 0.5},
					}},
					map[string]any{"clips": []any{map[string]any{"asset": map[string]any{"type": "audio", "src": "tone"}, "start": 0, "length": 2.2}}},
				},
			})
			checkOutput(t, r, format)
			assert.Equal(t, 2.2, r.scene.Duration)
			assert.Contains(t, r.cmd.Files, "text-3.png", "the top track is drawn last")
		})
	}
}

// TestRenderEdgeCases renders compositions at the edges of the rules:
// each compiles, so each must render exactly.
func TestRenderEdgeCases(t *testing.T) {
	if testing.Short() {
		t.Skip("renders with ffmpeg")
	}
	t.Parallel()
	comp := func(extra map[string]any, layers ...any) map[string]any {
		c := map[string]any{"width": 32, "height": 32, "fps": 10, "layers": append([]any{}, layers...)}
		for k, v := range extra {
			c[k] = v
		}
		return c
	}
	cases := map[string]map[string]any{
		"trimmed past the end of the file": comp(nil,
			map[string]any{"type": "video", "src": "clip", "trimStart": 30, "duration": 1},
			map[string]any{"type": "audio", "src": "tone", "trimStart": 30, "duration": 1}),
		"layers shorter than a frame, between frames": comp(map[string]any{"duration": 1},
			map[string]any{"type": "image", "src": "picture", "start": 0.31, "duration": 0.05},
			map[string]any{"type": "video", "src": "clip", "start": 0.41, "duration": 0.05},
			map[string]any{"type": "color", "color": "red", "start": 0.51, "duration": 0.05, "fadeIn": 0.02, "fadeOut": 0.03},
			map[string]any{"type": "text", "text": "x", "start": 0.61, "duration": 0.05},
			map[string]any{"type": "audio", "src": "tone", "start": 0.71, "duration": 0.001}),
		// 400x2 at a width of 8 would be 0.04 high, at a height of 400 80000 wide.
		"one side of a thin picture": comp(nil,
			map[string]any{"type": "image", "src": "thin", "duration": 1, "width": 8},
			map[string]any{"type": "image", "src": "thin", "duration": 1, "height": 400}),
		"fades filling the layer": comp(nil,
			map[string]any{"type": "color", "color": "white", "start": 0.1, "duration": 0.3, "fadeIn": 0.1, "fadeOut": 0.2},
			map[string]any{"type": "audio", "src": "tone", "start": 0.1, "duration": 0.3, "fadeIn": 0.1, "fadeOut": 0.2},
			map[string]any{"type": "text", "text": "y", "start": 0.1, "duration": 0.3, "fadeIn": 0.1, "fadeOut": 0.2}),
		"invisible and silent": comp(nil,
			map[string]any{"type": "video", "src": "clip", "duration": 1, "opacity": 0, "volume": 0},
			map[string]any{"type": "audio", "src": "tone", "duration": 1, "volume": 0}),
		"sound only":      comp(nil, map[string]any{"type": "audio", "src": "notes", "start": 0.5, "duration": 1}),
		"a one-frame GIF": comp(nil, map[string]any{"type": "image", "src": "blink", "duration": 1.5, "width": 16}),
		"a video given to an image layer and a picture to a video layer": comp(nil,
			map[string]any{"type": "image", "src": "clip", "duration": 1},
			map[string]any{"type": "video", "src": "picture", "duration": 1}),
		"far off screen and larger than the frame": comp(nil,
			map[string]any{"type": "color", "color": "red", "duration": 1, "x": -100000, "y": 100000, "width": 7680, "height": 2},
			map[string]any{"type": "image", "src": "picture", "duration": 1, "x": -20, "y": -20, "width": 300, "height": 300}),
		"layers under a full-frame colour, a video's sound among them": comp(nil,
			map[string]any{"type": "video", "src": "clip", "duration": 1, "volume": 1, "opacity": 0.5, "fadeIn": 0.5},
			map[string]any{"type": "text", "text": "hidden", "duration": 1},
			map[string]any{"type": "color", "color": "navy", "duration": 1},
			map[string]any{"type": "video", "src": "clip", "duration": 1, "width": 16, "opacity": 0.5, "fadeOut": 0.5}),
		"duration between frames": comp(map[string]any{"duration": 1.25, "background": "transparent"}),
		"one frame":               comp(map[string]any{"fps": 1, "duration": 1}, map[string]any{"type": "text", "text": "1", "duration": 1}),
		"the longest text":        comp(nil, map[string]any{"type": "text", "text": string(bytes.Repeat([]byte("é\n"), 2500)), "fontSize": 1, "duration": 0.5}),
		"audio longer than the video, video shorter": comp(map[string]any{"duration": 1.5},
			map[string]any{"type": "audio", "src": "notes", "duration": 1.5},
			map[string]any{"type": "video", "src": "clip", "duration": 1.5, "trimStart": 1}),
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			checkOutput(t, render(t, "provider_a", c), "mp4")
		})
	}
}

// TestRenderTiming checks on decoded frames and samples that each kind of
// layer is drawn on exactly the frames start <= t < end, and that sound
// plays exactly from start to end. The frame is split into four quadrants,
// one per visual kind, on black.
func TestRenderTiming(t *testing.T) {
	if testing.Short() {
		t.Skip("renders with ffmpeg")
	}
	t.Parallel()
	r := render(t, "provider_a", map[string]any{"width": 64, "height": 64, "fps": 10, "duration": 2, "layers": []any{
		// frames 5 to 9
		map[string]any{"type": "color", "color": "white", "start": 0.5, "duration": 0.5, "x": 0, "y": 0, "width": 32, "height": 32},
		// 0.25 s is frame 2.5: frames 3 to 7
		map[string]any{"type": "image", "src": "picture", "start": 0.25, "duration": 0.5, "x": 32, "y": 0, "width": 32, "height": 32},
		// frames 10 to 14, with its sound from 1 s to 1.5 s
		map[string]any{"type": "video", "src": "clip", "start": 1, "duration": 0.5, "x": 0, "y": 32, "width": 32, "height": 32, "volume": 1},
		// 1.21 s is after frame 12: frames 13 to 18
		map[string]any{"type": "text", "text": "██", "fontSize": 24, "start": 1.21, "duration": 0.65, "x": 32, "y": 34},
		// sound from 0.25 s to 0.75 s
		map[string]any{"type": "audio", "src": "tone", "start": 0.25, "duration": 0.5},
	}})
	checkOutput(t, r, "mp4")

	lit := map[string][2]int{"color": {5, 10}, "image": {3, 8}, "video": {10, 15}, "text": {13, 19}}
	quadrant := map[string][2]int{"color": {0, 0}, "image": {32, 0}, "video": {0, 32}, "text": {32, 32}}
	frames := decodeGray(t, r.out, 64, 64)
	require.Len(t, frames, 20)
	for kind, q := range quadrant {
		for n, frame := range frames {
			mean := meanLuma(frame, 64, q[0], q[1], 32)
			if n >= lit[kind][0] && n < lit[kind][1] {
				assert.Greater(t, mean, 40.0, "%s layer drawn on frame %d", kind, n)
			} else {
				assert.Less(t, mean, 20.0, "%s layer not drawn on frame %d", kind, n)
			}
		}
	}

	samples := decodeMono(t, r.out)
	loud := func(from, to float64) float64 { return rms(samples[int(from*48000):int(to*48000)]) }
	for _, span := range [][2]float64{{0, 0.24}, {0.76, 0.99}, {1.51, 1.99}} {
		assert.Less(t, loud(span[0], span[1]), 0.001, "silence from %v s to %v s", span[0], span[1])
	}
	for _, span := range [][2]float64{{0.26, 0.74}, {1.01, 1.49}} {
		assert.Greater(t, loud(span[0], span[1]), 0.05, "sound from %v s to %v s", span[0], span[1])
	}
}

// TestRenderOpacity checks that opacity blends: white at half opacity on
// black is mid grey.
func TestRenderOpacity(t *testing.T) {
	if testing.Short() {
		t.Skip("renders with ffmpeg")
	}
	t.Parallel()
	r := render(t, "unified", map[string]any{"output": map[string]any{"width": 32, "height": 32, "fps": 5, "duration": 1},
		"tracks": []any{map[string]any{"clips": []any{map[string]any{"asset": map[string]any{"type": "color", "color": "white"}, "opacity": 0.5}}}}})
	for n, frame := range decodeGray(t, r.out, 32, 32) {
		// Limited range: black is 16, white 235.
		assert.InDelta(t, (16+235)/2, meanLuma(frame, 32, 0, 0, 32), 6, "frame %d", n)
	}
}

// TestRenderColours checks the colours of decoded frames where layers
// blend: a full-frame colour (drawn as the base), a half-transparent
// colour, a colour fading in, a half-transparent picture and text, each
// against the colour blended by hand in RGB.
func TestRenderColours(t *testing.T) {
	if testing.Short() {
		t.Skip("renders with ffmpeg")
	}
	t.Parallel()
	r := render(t, "provider_a", map[string]any{"width": 96, "height": 64, "fps": 10, "duration": 1, "background": "yellow", "layers": []any{
		map[string]any{"type": "color", "color": "#1d3557"},
		map[string]any{"type": "color", "color": "red", "x": 0, "y": 0, "width": 32, "height": 32, "opacity": 0.5},
		map[string]any{"type": "color", "color": "#00ff00", "x": 48, "y": 0, "width": 32, "height": 32, "fadeIn": 1},
		// A white picture, 400x2, stretched to 16x16.
		map[string]any{"type": "image", "src": "thin", "x": 48, "y": 40, "width": 16, "height": 16, "opacity": 0.5},
		map[string]any{"type": "text", "text": "██", "fontSize": 24, "color": "white", "x": 4, "y": 36},
	}})
	checkOutput(t, r, "mp4")
	assert.Contains(t, filterGraph(r.cmd), "color=c=0x1D3557FF:s=96x64:r=10:d=1[base]", "the full-frame colour is the base")

	base := [3]float64{0x1d, 0x35, 0x57}
	over := func(fg [3]float64, a float64, bg [3]float64) [3]float64 {
		var c [3]float64
		for i := range c {
			c[i] = a*fg[i] + (1-a)*bg[i]
		}
		return c
	}
	red, green, white := [3]float64{255, 0, 0}, [3]float64{0, 255, 0}, [3]float64{255, 255, 255}
	frames := decodeRGB(t, r.out, 96, 64)
	require.Len(t, frames, 10)
	for n, frame := range frames {
		for _, p := range []struct {
			what string
			x, y int
			want [3]float64
		}{
			{"the full-frame colour, not the background", 88, 56, base},
			{"the full-frame colour between layers", 38, 14, base},
			{"red at half opacity", 14, 14, over(red, 0.5, base)},
			// The fade's alpha is linear in time: 0 at frame 0, n/10 at frame n.
			{"green fading in", 62, 14, over(green, float64(n)/10, base)},
			{"white picture at half opacity", 54, 46, over(white, 0.5, base)},
			{"text", 10, 50, white},
		} {
			got := meanRGB(frame, 96, p.x, p.y, 4)
			for i := range got {
				assert.InDelta(t, p.want[i], got[i], 10, "frame %d, %s at %d,%d: got %.0f, want %.0f", n, p.what, p.x, p.y, got, p.want)
			}
		}
	}
}

// decodeRGB decodes every frame of a video as 8-bit RGB.
func decodeRGB(t *testing.T, path string, w, h int) [][]byte {
	t.Helper()
	out, err := exec.Command("ffmpeg", "-hide_banner", "-loglevel", "error", "-i", path, "-map", "0:v", "-f", "rawvideo", "-pix_fmt", "rgb24", "-").Output()
	require.NoError(t, err)
	size := 3 * w * h
	require.Zero(t, len(out)%size)
	var frames [][]byte
	for i := 0; i < len(out); i += size {
		frames = append(frames, out[i:i+size])
	}
	return frames
}

// meanRGB is the mean colour of the side×side square at x, y of an RGB
// frame w wide.
func meanRGB(frame []byte, w, x, y, side int) [3]float64 {
	var sum [3]float64
	for row := y; row < y+side; row++ {
		for col := x; col < x+side; col++ {
			for i := range sum {
				sum[i] += float64(frame[3*(row*w+col)+i])
			}
		}
	}
	for i := range sum {
		sum[i] /= float64(side * side)
	}
	return sum
}

// decodeGray decodes every frame of a video as 8-bit luma.
func decodeGray(t *testing.T, path string, w, h int) [][]byte {
	t.Helper()
	out, err := exec.Command("ffmpeg", "-hide_banner", "-loglevel", "error", "-i", path, "-map", "0:v", "-f", "rawvideo", "-pix_fmt", "gray", "-").Output()
	require.NoError(t, err)
	size := w * h
	require.Zero(t, len(out)%size)
	var frames [][]byte
	for i := 0; i < len(out); i += size {
		frames = append(frames, out[i:i+size])
	}
	return frames
}

// meanLuma is the mean of the side×side square at x, y of a frame w wide.
func meanLuma(frame []byte, w, x, y, side int) float64 {
	sum := 0
	for row := y; row < y+side; row++ {
		for col := x; col < x+side; col++ {
			sum += int(frame[row*w+col])
		}
	}
	return float64(sum) / float64(side*side)
}

// decodeMono decodes a file's sound as 48 kHz mono samples in -1..1.
func decodeMono(t *testing.T, path string) []float64 {
	t.Helper()
	out, err := exec.Command("ffmpeg", "-hide_banner", "-loglevel", "error", "-i", path, "-map", "0:a", "-f", "s16le", "-ac", "1", "-ar", "48000", "-").Output()
	require.NoError(t, err)
	samples := make([]float64, len(out)/2)
	for i := range samples {
		samples[i] = float64(int16(binary.LittleEndian.Uint16(out[2*i:]))) / 32768
	}
	return samples
}

func rms(s []float64) float64 {
	sum := 0.0
	for _, v := range s {
		sum += v * v
	}
	return math.Sqrt(sum / float64(len(s)))
}

// filterGraph is the -filter_complex argument of a command, or the file
// a long graph is read from.
func filterGraph(cmd *Command) string {
	for i, a := range cmd.Args {
		if a == "-filter_complex" && i+1 < len(cmd.Args) {
			return cmd.Args[i+1]
		}
		if a == "-filter_complex_script" {
			return string(cmd.Files[graphFile])
		}
	}
	return ""
}
