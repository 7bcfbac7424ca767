package app_test

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/store/storetest"
)

// grayFrame decodes the frame at second at of a file as 8-bit gray pixels.
func grayFrame(t *testing.T, path string, at string, w, h int) []byte {
	t.Helper()
	out, err := exec.Command("ffmpeg", "-hide_banner", "-loglevel", "error", "-ss", at, "-i", path,
		"-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "gray", "-").Output()
	require.NoError(t, err)
	require.Len(t, out, w*h)
	return out
}

// meanDiff is the mean absolute difference of two frames inside a rectangle.
func meanDiff(a, b []byte, w, x0, y0, x1, y1 int) float64 {
	sum, n := 0, 0
	for y := y0; y < y1; y++ {
		for x := x0; x < x1; x++ {
			d := int(a[y*w+x]) - int(b[y*w+x])
			if d < 0 {
				d = -d
			}
			sum += d
			n++
		}
	}
	return float64(sum) / float64(n)
}

func TestWatermarkChangesOnlyItsCorner(t *testing.T) {
	t.Parallel()
	media := serveMedia(t)
	k := start(t, storetest.SQLite(t), nil)
	id := k.createJob(t, map[string]any{
		"type":   "watermark.apply",
		"inputs": map[string]any{"source": media.URL + "/clip.mp4"},
		"params": map[string]any{"watermarks": []any{
			map[string]any{"type": "image", "url": media.URL + "/image.png", "position": "bottom-right", "scale": 0.25, "margin": 4},
			map[string]any{"type": "text", "text": "it's: %{pts}", "position": "top-left", "fontSize": 10, "margin": 2, "color": "#FF0000"},
		}},
	})
	j := k.waitJob(t, id)
	require.Equal(t, "complete", j["status"], "%v", j)

	info := download(t, j["outputUrl"].(string))
	v := info.Video()
	require.NotNil(t, v)
	assert.Equal(t, 96, v.Width)
	assert.Equal(t, 64, v.Height)
	assert.InDelta(t, 3.0, info.Duration, 0.15)
	require.NotNil(t, info.Audio(), "the source's sound is kept")

	out := filepath.Join(t.TempDir(), "out.mp4")
	resp, err := http.Get(j["outputUrl"].(string))
	require.NoError(t, err)
	f, err := os.Create(out)
	require.NoError(t, err)
	_, err = f.ReadFrom(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	f.Close()

	src := grayFrame(t, filepath.Join(media.dir, "clip.mp4"), "1", 96, 64)
	got := grayFrame(t, out, "1", 96, 64)
	// The image: 24 px wide, 4 px from the bottom-right corner.
	marked := meanDiff(src, got, 96, 68, 46, 92, 60)
	// The text: from (2, 2).
	texted := meanDiff(src, got, 96, 2, 2, 40, 10)
	// Untouched: the middle-left.
	untouched := meanDiff(src, got, 96, 10, 25, 50, 40)
	t.Logf("mean difference: watermark %.1f, text %.1f, elsewhere %.1f", marked, texted, untouched)
	assert.Greater(t, marked, 8.0)
	assert.Greater(t, texted, 8.0)
	assert.Less(t, untouched, 4.0)
}
