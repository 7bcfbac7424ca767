package engine

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/ffmpeg"
)

// redThenBlue is red on the frames before 0.5 s and blue from 0.5 s on,
// at 10 fps: frames 0 to 4 red, 5 to 9 blue.
var redThenBlue = []any{
	map[string]any{"type": "color", "color": "red", "start": 0, "duration": 0.5},
	map[string]any{"type": "color", "color": "blue", "start": 0.5, "duration": 0.5},
}

// TestRenderGIF renders a GIF of a gradient of 32 blues: with one palette
// computed from the frames every blue is kept, where a fixed 256-colour
// palette (3 bits of red, 3 of green, 2 of blue) keeps 4.
func TestRenderGIF(t *testing.T) {
	if testing.Short() {
		t.Skip("renders with ffmpeg")
	}
	t.Parallel()
	var gradient []any
	for i := range 32 {
		gradient = append(gradient, map[string]any{"type": "color", "color": fmt.Sprintf("#0000%02x", i*8), "x": 2 * i, "y": 0, "width": 2, "height": 16})
	}
	r := render(t, "provider_a", map[string]any{"width": 64, "height": 16, "fps": 10, "duration": 1.25, "format": "gif", "layers": gradient})
	v := r.info.Video()
	require.NotNil(t, v)
	assert.Nil(t, r.info.Audio(), "a GIF has no sound")
	assert.Equal(t, "gif", r.info.FormatName)
	assert.Equal(t, "gif", v.CodecName)
	assert.Equal(t, "bgra", v.PixFmt)
	assert.Equal(t, 64, v.Width)
	assert.Equal(t, 16, v.Height)
	assert.Equal(t, 13, v.NbFrames, "1.25 s at 10 fps")
	// The last frame shows for a whole frame, as in a video.
	assert.InDelta(t, 1.25, r.info.Duration, 0.1+0.01)
	assert.Contains(t, filterGraph(r.cmd), "palettegen")

	frames := decodeRGBA(t, r.out, 64, 16)
	require.Len(t, frames, 13)
	for n, frame := range frames {
		blues := map[byte]bool{}
		for i := range 32 {
			c := meanRGBA(frame, 64, 2*i, 4, 2, 8)
			assert.InDelta(t, float64(i*8), c[2], 4, "frame %d, stripe %d", n, i)
			assert.InDelta(t, 0, c[0]+c[1], 4, "frame %d, stripe %d", n, i)
			assert.Equal(t, 255.0, c[3], "an opaque GIF")
			blues[frame[4*(8*64+2*i)+2]] = true
		}
		assert.GreaterOrEqual(t, len(blues), 30, "frame %d: distinct blues", n)
	}
}

// TestRenderStills renders the one frame on screen at frameTime, as PNG
// and JPEG, in both formats.
func TestRenderStills(t *testing.T) {
	if testing.Short() {
		t.Skip("renders with ffmpeg")
	}
	t.Parallel()
	text := map[string]any{"type": "text", "text": "██", "fontSize": 16, "color": "white", "x": 0, "y": 0, "start": 0, "duration": 1}
	cases := []struct {
		name, provider string
		comp           map[string]any
		codec, pixFmt  string
		want           [3]float64
	}{
		{"png of frame 7", "provider_a", map[string]any{"width": 48, "height": 32, "fps": 10, "format": "png", "frameTime": 0.7,
			"layers": append(append([]any{}, redThenBlue...), text)}, "png", "rgb24", [3]float64{0, 0, 255}},
		{"jpg of frame 4", "provider_a", map[string]any{"width": 48, "height": 32, "fps": 10, "format": "jpg", "frameTime": 0.45,
			"layers": append(append([]any{}, redThenBlue...), text)}, "mjpeg", "yuvj420p", [3]float64{255, 0, 0}},
		{"unified png of frame 5", "unified", map[string]any{"output": map[string]any{"width": 48, "height": 32, "fps": 10, "format": "png", "frameTime": 0.5},
			"tracks": []any{map[string]any{"clips": []any{map[string]any{"asset": map[string]any{"type": "text", "text": "██", "fontSize": 16}, "position": map[string]any{"x": 0, "y": 0}, "length": 1}}},
				map[string]any{"clips": []any{
					map[string]any{"asset": map[string]any{"type": "color", "color": "red"}, "length": 0.5},
					map[string]any{"asset": map[string]any{"type": "color", "color": "blue"}, "start": 0.5, "length": 0.5}}}}},
			"png", "rgb24", [3]float64{0, 0, 255}},
		{"unified jpg of the first frame", "unified", map[string]any{"output": map[string]any{"width": 48, "height": 32, "fps": 10, "format": "jpg"},
			"tracks": []any{map[string]any{"clips": []any{
				map[string]any{"asset": map[string]any{"type": "color", "color": "red"}, "length": 0.5},
				map[string]any{"asset": map[string]any{"type": "color", "color": "blue"}, "start": 0.5, "length": 0.5}}}}},
			"mjpeg", "yuvj420p", [3]float64{255, 0, 0}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := render(t, tc.provider, tc.comp)
			v := r.info.Video()
			require.NotNil(t, v)
			assert.Nil(t, r.info.Audio())
			assert.Len(t, r.info.Streams, 1)
			assert.Equal(t, tc.codec, v.CodecName)
			assert.Equal(t, tc.pixFmt, v.PixFmt)
			assert.Equal(t, 1, v.NbFrames, "one frame")
			assert.Equal(t, 48, v.Width)
			assert.Equal(t, 32, v.Height)
			frames := decodeRGBA(t, r.out, 48, 32)
			require.Len(t, frames, 1)
			got := meanRGBA(frames[0], 48, 36, 20, 8, 8)
			for i := range 3 {
				assert.InDelta(t, tc.want[i], got[i], 12, "the colour of the frame: %v", got)
			}
		})
	}
	t.Run("the text is on the still", func(t *testing.T) {
		t.Parallel()
		r := render(t, "provider_a", map[string]any{"width": 48, "height": 32, "fps": 10, "format": "png", "frameTime": 0.2, "layers": []any{text}})
		got := meanRGBA(decodeRGBA(t, r.out, 48, 32)[0], 48, 2, 4, 6, 6)
		assert.Greater(t, got[0]+got[1]+got[2], 600.0, "white text: %v", got)
	})
}

// TestRenderAudioOnly renders MP3 and WAV: the mix alone, the sound of
// audio and video layers placed as in a video, and no picture.
func TestRenderAudioOnly(t *testing.T) {
	if testing.Short() {
		t.Skip("renders with ffmpeg")
	}
	t.Parallel()
	layers := []any{
		map[string]any{"type": "color", "color": "red", "duration": 2},
		map[string]any{"type": "text", "text": "not drawn", "duration": 2},
		// sound from 0.25 s to 0.75 s, and from 1 s to 1.5 s
		map[string]any{"type": "audio", "src": "tone", "start": 0.25, "duration": 0.5},
		map[string]any{"type": "video", "src": "clip", "start": 1, "duration": 0.5, "volume": 1},
	}
	for _, format := range []string{"wav", "mp3"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			r := render(t, "provider_a", map[string]any{"width": 64, "height": 64, "fps": 10, "duration": 2, "format": format, "layers": layers})
			assert.Nil(t, r.info.Video(), "no picture")
			require.Len(t, r.info.Streams, 1)
			a := r.info.Audio()
			require.NotNil(t, a)
			codec, format, slack := "pcm_s16le", "wav", 0.001
			if r.scene.Format == "mp3" {
				// An MP3 ends on a whole frame of 1152 samples.
				codec, format, slack = "mp3", "mp3", 0.05
			}
			assert.Equal(t, codec, a.CodecName)
			assert.Equal(t, format, r.info.FormatName)
			assert.Equal(t, 48000, a.SampleRate)
			assert.Equal(t, 2, a.Channels)
			assert.InDelta(t, 2.0, r.info.Duration, slack)
			assert.NotContains(t, strings.Join(r.cmd.Args, " "), "drawtext", "nothing is drawn")

			samples := decodeMono(t, r.out)
			loud := func(from, to float64) float64 { return rms(samples[int(from*48000):int(to*48000)]) }
			for _, span := range [][2]float64{{0, 0.23}, {0.77, 0.98}, {1.52, 1.95}} {
				assert.Less(t, loud(span[0], span[1]), 0.002, "silence from %v s to %v s", span[0], span[1])
			}
			for _, span := range [][2]float64{{0.27, 0.73}, {1.02, 1.48}} {
				assert.Greater(t, loud(span[0], span[1]), 0.05, "sound from %v s to %v s", span[0], span[1])
			}
		})
	}
}

// TestRenderTransparent renders a transparent background in every format
// that keeps alpha, and reads the alpha of decoded frames: 0 where no
// layer is, the layer's opacity where a colour is, 255 under a picture and
// the text; colours are not darkened by the transparency under them.
func TestRenderTransparent(t *testing.T) {
	if testing.Short() {
		t.Skip("renders with ffmpeg")
	}
	t.Parallel()
	layers := []any{
		map[string]any{"type": "color", "color": "red", "x": 0, "y": 0, "width": 16, "height": 32, "opacity": 0.5},
		map[string]any{"type": "image", "src": "thin", "x": 32, "y": 0, "width": 16, "height": 16},
		map[string]any{"type": "text", "text": "██", "fontSize": 16, "color": "#00ff00", "x": 32, "y": 16},
	}
	cases := []struct {
		format, codec, pixFmt string
		// decoder reads the alpha: ffmpeg's own VP9 decoder drops it.
		decoder []string
		// slack for lossy codecs.
		slack float64
	}{
		{"webm", "vp9", "yuv420p", []string{"-c:v", "libvpx-vp9"}, 12},
		// ffmpeg decodes ProRes 4444 at 12 bits, whatever was encoded.
		{"mov", "prores", "yuva444p12le", nil, 6},
		{"png", "png", "rgba", nil, 6},
		{"gif", "gif", "bgra", nil, 6},
	}
	for _, tc := range cases {
		t.Run(tc.format, func(t *testing.T) {
			t.Parallel()
			r := render(t, "provider_a", map[string]any{"width": 64, "height": 32, "fps": 10, "duration": 1, "format": tc.format,
				"background": "transparent", "layers": layers})
			v := r.info.Video()
			require.NotNil(t, v)
			assert.Equal(t, tc.codec, v.CodecName)
			assert.Equal(t, tc.pixFmt, v.PixFmt)
			frames := 10
			switch tc.format {
			case "webm":
				assert.Equal(t, "1", streamEntry(t, r.out, "stream_tags=alpha_mode"), "WebM marks its alpha")
			case "mov":
				assert.Equal(t, "4444", streamEntry(t, r.out, "stream=profile"))
				require.NotNil(t, r.info.Audio())
				assert.Equal(t, "pcm_s16le", r.info.Audio().CodecName)
			case "png":
				frames = 1
			}
			assert.Equal(t, frames, v.NbFrames)
			decoded := decodeRGBA(t, r.out, 64, 32, tc.decoder...)
			require.Len(t, decoded, frames)
			for n, frame := range decoded {
				for _, p := range []struct {
					what string
					x, y int
					want [4]float64
				}{
					{"nothing", 20, 4, [4]float64{-1, -1, -1, 0}},
					{"red at half opacity, still red", 4, 8, [4]float64{255, 0, 0, 128}},
					{"the white picture", 36, 4, [4]float64{255, 255, 255, 255}},
					{"the green text", 36, 22, [4]float64{0, 255, 0, 255}},
				} {
					got := meanRGBA(frame, 64, p.x, p.y, 4, 4)
					slack := tc.slack
					if tc.format == "gif" && p.want[3] == 128 {
						// One bit of alpha: half opacity is opaque or transparent.
						assert.Contains(t, []float64{0, 255}, got[3], "frame %d, %s: %v", n, p.what, got)
						continue
					}
					for i, want := range p.want {
						if want >= 0 {
							assert.InDelta(t, want, got[i], slack, "frame %d, %s at %d,%d: got %.0f", n, p.what, p.x, p.y, got)
						}
					}
				}
			}
		})
	}
}

// TestRenderPosterAndThumbnail renders a video with a poster and a
// thumbnail in one ffmpeg run: each is the frame on screen at its capture
// time, the poster at the video's size, the thumbnail scaled; the video is
// the same as without them.
func TestRenderPosterAndThumbnail(t *testing.T) {
	if testing.Short() {
		t.Skip("renders with ffmpeg")
	}
	t.Parallel()
	t.Run("mp4", func(t *testing.T) {
		t.Parallel()
		r := render(t, "provider_a", map[string]any{"width": 64, "height": 32, "fps": 10, "duration": 1, "layers": redThenBlue,
			"poster": map[string]any{"capture": 0.7}, "thumbnail": map[string]any{"capture": 0.2, "scale": 0.5}})
		checkOutput(t, r, "mp4")
		require.Len(t, r.cmd.Pictures, 2)
		for _, tc := range []struct {
			pic  Picture
			w, h int
			want [3]float64
		}{
			{r.cmd.Pictures[0], 64, 32, [3]float64{0, 0, 255}},
			{r.cmd.Pictures[1], 32, 16, [3]float64{255, 0, 0}},
		} {
			assert.Equal(t, "jpg", tc.pic.Format)
			info := probeFrames(t, tc.pic.Path)
			v := info.Video()
			require.NotNil(t, v, tc.pic.Name)
			assert.Len(t, info.Streams, 1)
			assert.Equal(t, "mjpeg", v.CodecName, tc.pic.Name)
			assert.Equal(t, 1, v.NbFrames, tc.pic.Name)
			assert.Equal(t, tc.w, v.Width, tc.pic.Name)
			assert.Equal(t, tc.h, v.Height, tc.pic.Name)
			got := meanRGBA(decodeRGBA(t, tc.pic.Path, tc.w, tc.h)[0], tc.w, tc.w/4, tc.h/4, tc.w/2, tc.h/2)
			for i := range 3 {
				assert.InDelta(t, tc.want[i], got[i], 12, "%s: %v", tc.pic.Name, got)
			}
		}
	})
	t.Run("unified transparent webm", func(t *testing.T) {
		t.Parallel()
		r := render(t, "unified", map[string]any{"output": map[string]any{"width": 64, "height": 32, "fps": 10, "format": "webm", "background": "transparent",
			"poster": map[string]any{"capture": 0.5}},
			"tracks": []any{map[string]any{"clips": []any{
				map[string]any{"asset": map[string]any{"type": "color", "color": "blue"},
					"start": 0.5, "length": 0.5, "size": map[string]any{"width": 32, "height": 32}, "position": map[string]any{"x": 0, "y": 0}},
				// A file among the inputs: with none, ffmpeg 5.1 hands
				// libopus a first frame larger than Opus frames, and
				// any WebM fails ("more samples than frame size").
				map[string]any{"asset": map[string]any{"type": "image", "src": "thin"}, "length": 1,
					"size": map[string]any{"width": 2, "height": 2}, "position": map[string]any{"x": 62, "y": 30}},
			}}}})
		require.Len(t, r.cmd.Pictures, 1)
		pic := r.cmd.Pictures[0]
		assert.Equal(t, Picture{Name: "poster", Format: "png", Path: pic.Path}, pic)
		info := probeFrames(t, pic.Path)
		require.NotNil(t, info.Video())
		assert.Equal(t, "png", info.Video().CodecName)
		assert.Equal(t, "rgba", info.Video().PixFmt)
		frame := decodeRGBA(t, pic.Path, 64, 32)[0]
		blue := meanRGBA(frame, 64, 8, 8, 8, 8)
		for i, want := range []float64{0, 0, 255, 255} {
			assert.InDelta(t, want, blue[i], 4, "the blue layer: %v", blue)
		}
		assert.Equal(t, 0.0, meanRGBA(frame, 64, 40, 8, 8, 8)[3], "transparent beside it")
	})
}

// decodeRGBA decodes every frame of a file as 8-bit RGBA; decoder names
// input options such as the decoder to use.
func decodeRGBA(t *testing.T, path string, w, h int, decoder ...string) [][]byte {
	t.Helper()
	args := append(append([]string{"-hide_banner", "-loglevel", "error"}, decoder...), "-i", path, "-map", "0:v", "-f", "rawvideo", "-pix_fmt", "rgba", "-")
	out, err := exec.Command("ffmpeg", args...).Output()
	require.NoError(t, err)
	size := 4 * w * h
	require.Zero(t, len(out)%size)
	var frames [][]byte
	for i := 0; i < len(out); i += size {
		frames = append(frames, out[i:i+size])
	}
	return frames
}

// meanRGBA is the mean colour and alpha of the w×h rectangle at x, y of
// an RGBA frame stride pixels wide.
func meanRGBA(frame []byte, stride, x, y, w, h int) [4]float64 {
	var sum [4]float64
	for row := y; row < y+h; row++ {
		for col := x; col < x+w; col++ {
			for i := range sum {
				sum[i] += float64(frame[4*(row*stride+col)+i])
			}
		}
	}
	for i := range sum {
		sum[i] /= float64(w * h)
	}
	return sum
}

// streamEntry is what ffprobe shows of the first video stream for entry,
// such as stream=profile or stream_tags=alpha_mode.
func streamEntry(t *testing.T, path, entry string) string {
	t.Helper()
	out, err := exec.Command("ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", entry,
		"-of", "default=noprint_wrappers=1:nokey=1", path).Output()
	require.NoError(t, err)
	return strings.TrimSpace(string(out))
}

// probeFrames probes a file, counting its frames.
func probeFrames(t *testing.T, path string) *ffmpeg.Info {
	t.Helper()
	info, err := ffmpeg.ProbeFrames(context.Background(), ffmpeg.Limits{}, path)
	require.NoError(t, err)
	return info
}
