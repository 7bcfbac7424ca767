package engine

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/ffmpeg"
)

var (
	mediaOnce sync.Once
	mediaDir  string
	mediaErr  error
)

// testMedia makes a PNG, a WAV and an MP4 with sound, once.
func testMedia(t *testing.T) string {
	t.Helper()
	mediaOnce.Do(func() {
		if mediaDir, mediaErr = os.MkdirTemp("", "kino-engine-"); mediaErr != nil {
			return
		}
		for _, args := range [][]string{
			{"-f", "lavfi", "-i", "testsrc2=size=64x48", "-frames:v", "1", "image.png"},
			{"-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100", "-t", "2", "tone.wav"},
			{"-f", "lavfi", "-i", "testsrc2=size=80x60:rate=24", "-f", "lavfi", "-i", "sine=frequency=220", "-t", "2",
				"-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "clip.mp4"},
		} {
			cmd := exec.Command("ffmpeg", append([]string{"-hide_banner", "-loglevel", "error", "-y"}, args...)...)
			cmd.Dir = mediaDir
			if out, err := cmd.CombinedOutput(); err != nil {
				mediaErr = err
				mediaDir = string(out)
				return
			}
		}
	})
	require.NoError(t, mediaErr, mediaDir)
	return mediaDir
}

const nastyText = `it's: 50% \ %{pts} %{eif\:1+1\:d} [out]; a,b 'x' "y"`

// render compiles, plans and runs a composition, and probes the output.
func render(t *testing.T, provider string, comp map[string]any) (*ffmpeg.Info, *Command) {
	t.Helper()
	dir := testMedia(t)
	assets := map[string]string{"image": "https://x.test/image.png", "tone": "https://x.test/tone.wav", "clip": "https://x.test/clip.mp4"}
	s, err := Compile(provider, mustJSON(t, comp), assets, DefaultLimits())
	require.NoError(t, err)
	media := map[string]Media{}
	for _, src := range s.Sources() {
		path := filepath.Join(dir, filepath.Base(src.URL))
		info, err := ffmpeg.Probe(context.Background(), path)
		require.NoError(t, err)
		media[src.Key] = MediaFromInfo(path, info)
	}
	// A working folder whose name needs every kind of escaping.
	work := filepath.Join(t.TempDir(), `it's [a],b;c:d`)
	require.NoError(t, os.MkdirAll(work, 0o755))
	out := filepath.Join(work, "out."+s.Format)
	cmd, err := Plan(s, media, work, out, "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
	require.NoError(t, err)
	for name, content := range cmd.Files {
		require.NoError(t, os.WriteFile(filepath.Join(work, name), content, 0o600))
	}
	require.NoError(t, ffmpeg.Run(context.Background(), cmd.Args, ffmpeg.RunOptions{Dir: work, Duration: s.Duration}))
	info, err := ffmpeg.Probe(context.Background(), out)
	require.NoError(t, err)
	return info, cmd
}

func everyLayer() []any {
	return []any{
		map[string]any{"type": "color", "color": "#336699", "start": 0, "duration": 2, "x": 10, "y": 10, "width": 40, "height": 30, "fadeOut": 0.5},
		map[string]any{"type": "video", "src": "clip", "start": 0.5, "duration": 1.5, "x": "center", "y": 0, "width": 80, "volume": 0.5, "trimStart": 0.2},
		map[string]any{"type": "image", "src": "image", "start": 1, "duration": 1, "x": 100, "y": 40, "fadeIn": 0.5, "opacity": 0.7},
		map[string]any{"type": "text", "text": nastyText, "fontSize": 12, "color": "yellow", "start": 0, "duration": 2, "x": 2, "y": "center", "fadeIn": 0.3},
		map[string]any{"type": "audio", "src": "tone", "start": 0.25, "duration": 1.5, "volume": 0.8, "fadeIn": 0.2, "fadeOut": 0.2},
	}
}

func checkOutput(t *testing.T, info *ffmpeg.Info, w, h, fps int, dur float64, vcodec, acodec string) {
	t.Helper()
	v, a := info.Video(), info.Audio()
	require.NotNil(t, v, "video stream")
	require.NotNil(t, a, "audio stream")
	assert.Equal(t, vcodec, v.CodecName)
	assert.Equal(t, acodec, a.CodecName)
	assert.Equal(t, w, v.Width)
	assert.Equal(t, h, v.Height)
	assert.Equal(t, "yuv420p", v.PixFmt)
	assert.InDelta(t, float64(fps), v.FPS, 0.01)
	assert.InDelta(t, dur, info.Duration, 1.0/float64(fps)+0.03, "container duration")
	if v.NbFrames > 0 {
		assert.Equal(t, int(dur*float64(fps)+0.5), v.NbFrames, "frame count")
	}
}

func TestRenderProviderAMP4(t *testing.T) {
	if testing.Short() {
		t.Skip("renders with ffmpeg")
	}
	t.Parallel()
	info, cmd := render(t, "provider_a", map[string]any{"width": 160, "height": 90, "fps": 10, "background": "#000000", "layers": everyLayer()})
	checkOutput(t, info, 160, 90, 10, 2, "h264", "aac")
	assert.Equal(t, 48000, info.Audio().SampleRate)
	assert.Equal(t, []byte(nastyText), cmd.Files["text-3.txt"])
	graph := cmd.Args[indexOf(cmd.Args, "-filter_complex")+1]
	assert.NotContains(t, graph, "pts}", "user text never reaches the filter graph")
	assert.NotContains(t, graph, "50%")
}

func TestRenderProviderAWebM(t *testing.T) {
	if testing.Short() {
		t.Skip("renders with ffmpeg")
	}
	t.Parallel()
	info, _ := render(t, "provider_a", map[string]any{"width": 96, "height": 64, "fps": 12, "duration": 2, "format": "webm", "layers": everyLayer()})
	checkOutput(t, info, 96, 64, 12, 2, "vp9", "opus")
	assert.Contains(t, info.FormatName, "webm")
}

func TestRenderUnified(t *testing.T) {
	if testing.Short() {
		t.Skip("renders with ffmpeg")
	}
	t.Parallel()
	for _, format := range []string{"mp4", "webm"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			info, _ := render(t, "unified", map[string]any{
				"output": map[string]any{"width": 128, "height": 72, "fps": 15, "format": format, "background": "navy"},
				"tracks": []any{
					map[string]any{"clips": []any{map[string]any{"asset": map[string]any{"type": "text", "text": nastyText, "fontSize": 10}, "start": 0, "length": 1.2}}},
					map[string]any{"clips": []any{
						map[string]any{"asset": map[string]any{"type": "video", "src": "clip", "volume": 1}, "start": 0, "length": 1},
						map[string]any{"asset": map[string]any{"type": "image", "src": "image"}, "start": 1, "length": 1.2, "size": map[string]any{"height": 40}},
					}},
					map[string]any{"clips": []any{map[string]any{"asset": map[string]any{"type": "audio", "src": "tone"}, "start": 0, "length": 2.2}}},
				},
			})
			if format == "mp4" {
				checkOutput(t, info, 128, 72, 15, 2.2, "h264", "aac")
			} else {
				checkOutput(t, info, 128, 72, 15, 2.2, "vp9", "opus")
			}
		})
	}
}

func TestPlanRejectsMediaThatDoesNotFit(t *testing.T) {
	t.Parallel()
	s, err := Compile("provider_a", mustJSON(t, map[string]any{"width": 16, "height": 16, "fps": 1, "layers": []any{
		map[string]any{"type": "audio", "src": "https://a.test/x.png", "duration": 1},
	}}), nil, DefaultLimits())
	require.NoError(t, err)
	_, err = Plan(s, map[string]Media{s.Sources()[0].Key: {Path: "/x.png", HasVideo: true, Still: true}}, "/w", "/w/o.mp4", "/f.ttf")
	var me *MediaError
	require.ErrorAs(t, err, &me)
	assert.Equal(t, "composition.layers[0].src", me.Field)
}

func indexOf(ss []string, s string) int {
	for i, v := range ss {
		if v == s {
			return i
		}
	}
	return -1
}
