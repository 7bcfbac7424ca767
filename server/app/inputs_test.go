package app_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/app"
	"github.com/kinohq/kino/server/store/storetest"
)

// hostileFiles serves, on 127.0.0.1, files an attacker would hand kino
// as media: a playlist and a concat list naming a file on the server's own
// disk, and a PNG whose header declares 16000×16000 pixels.
func hostileFiles(t *testing.T) (base string) {
	t.Helper()
	dir := t.TempDir()
	// The secret: a media file only the server's disk holds.
	secret := filepath.Join(t.TempDir(), "secret.ts")
	out, err := exec.Command("ffmpeg", "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc2=size=96x64:rate=10",
		"-t", "2", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-f", "mpegts", secret).CombinedOutput()
	require.NoError(t, err, "%s", out)
	files := map[string]string{
		"playlist": "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXTINF:2.0,\nfile://" + secret + "\n#EXT-X-ENDLIST\n",
		"concat":   "ffconcat version 1.0\nfile '" + secret + "'\n",
		"bomb.png": string(pngHeader(16000, 16000)),
	}
	for name, content := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
	}
	return serveDir(t, http.FileServer(http.Dir(dir)))
}

// pngHeader is a PNG's signature and header chunk declaring w×h pixels of
// 8-bit RGBA, then a tiny image data chunk and the end: 1.1 GB once decoded.
func pngHeader(w, h uint32) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	chunk := func(typ string, data []byte) {
		_ = binary.Write(&b, binary.BigEndian, uint32(len(data)))
		body := append([]byte(typ), data...)
		b.Write(body)
		_ = binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(body))
	}
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = 8, 6 // 8 bits, RGBA
	chunk("IHDR", ihdr)
	chunk("IDAT", []byte{0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01})
	chunk("IEND", nil)
	return b.Bytes()
}

// TestHostileInputsAreRefused sends, from outside, a playlist and a concat
// list that name a local file, and a decompression bomb, as a render's
// layers and as the inputs of every media job type: each is refused by
// kino's own probe, before ffmpeg opens it, with a message that says why.
func TestHostileInputsAreRefused(t *testing.T) {
	t.Parallel()
	base := hostileFiles(t)
	k := start(t, storetest.SQLite(t), nil)

	for _, tc := range []struct{ file, layer, inMessage string }{
		{"playlist", "video", "HLS playlist"},
		{"concat", "video", "concat list"},
		{"playlist", "audio", "HLS playlist"},
		{"bomb.png", "image", "16000×16000 pixels"},
	} {
		id := k.submit(t, map[string]any{
			"provider": "provider_a",
			"composition": map[string]any{"width": 160, "height": 90, "fps": 10, "duration": 1,
				"layers": []any{map[string]any{"type": tc.layer, "src": "x", "start": 0, "duration": 1}}},
			"assetUrls": map[string]any{"x": base + "/" + tc.file},
		})
		job := k.waitStatus(t, id, "failed", 30*time.Second)
		e := job["error"].(map[string]any)
		assert.Equal(t, "ASSET_INVALID", e["code"], "%s as %s", tc.file, tc.layer)
		assert.Contains(t, e["message"], tc.inMessage, "%s as %s", tc.file, tc.layer)
	}

	jobs := []map[string]any{
		{"type": "audio.extract"},
		{"type": "video.trim", "params": map[string]any{"start": 0, "duration": 1}},
		{"type": "image.resize", "params": map[string]any{"width": 32, "height": 32}},
		{"type": "video.thumbnail"},
		{"type": "video.transcode", "params": map[string]any{"preset": "mp4"}},
		{"type": "video.transcode", "params": map[string]any{"preset": "hls"}},
		{"type": "caption.extract"},
		{"type": "caption.burn", "inputs": map[string]any{"subtitles": base + "/playlist"}},
		{"type": "watermark.apply", "params": map[string]any{"watermarks": []any{map[string]any{"type": "text", "text": "x"}}}},
	}
	for _, file := range []string{"playlist", "concat", "bomb.png"} {
		for _, body := range jobs {
			inputs := map[string]any{"source": base + "/" + file}
			more, _ := body["inputs"].(map[string]any)
			for k, v := range more {
				inputs[k] = v
			}
			body := map[string]any{"type": body["type"], "inputs": inputs, "params": body["params"]}
			if body["params"] == nil {
				delete(body, "params")
			}
			j := k.waitJob(t, k.createJob(t, body))
			assert.Equal(t, "failed", j["status"], "%s on %s: %v", body["type"], file, j)
			assert.Equal(t, "INPUT_INVALID", j["errorCode"], "%s on %s: %v", body["type"], file, j)
			assert.Contains(t, j["errorMessage"], "inputs.", "%s on %s", body["type"], file)
		}
	}

	// A watermark picture is opened the same way.
	for file, inMessage := range map[string]string{"playlist": "HLS playlist", "bomb.png": "16000×16000 pixels"} {
		j := k.waitJob(t, k.createJob(t, map[string]any{
			"type":   "watermark.apply",
			"inputs": map[string]any{"source": serveMedia(t).URL + "/clip.mp4"},
			"params": map[string]any{"watermarks": []any{map[string]any{"type": "image", "url": base + "/" + file}}},
		}))
		assert.Equal(t, "INPUT_INVALID", j["errorCode"], "%v", j)
		assert.Contains(t, j["errorMessage"], inMessage)
		assert.Contains(t, j["errorMessage"], "params.watermarks[0]")
	}
}

// slowFiles serves the test media, each answer held back by delay (or
// until the client gives up).
func slowFiles(t *testing.T, delay time.Duration) string {
	files := http.FileServer(http.Dir(testMedia(t)))
	return serveDir(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(delay):
			files.ServeHTTP(w, r)
		case <-r.Context().Done():
		}
	}))
}

// TestAttemptDeadlineCoversDownloads: a source that never answers ends
// the attempt at its deadline, for renders and media jobs alike, not at
// the much longer download timeout.
func TestAttemptDeadlineCoversDownloads(t *testing.T) {
	t.Parallel()
	stuck := slowFiles(t, time.Hour)
	k := start(t, storetest.SQLite(t), func(c *app.Config) {
		c.RenderTimeout, c.JobTimeout = time.Second, time.Second
	})

	body := smallComposition(serveMedia(t))
	body["assetUrls"] = map[string]any{"logo": stuck + "/image.png", "tone": stuck + "/tone.wav"}
	job := k.waitStatus(t, k.submit(t, body), "failed", 30*time.Second)
	e := job["error"].(map[string]any)
	assert.Equal(t, "RENDER_TIMEOUT", e["code"])
	assert.Contains(t, e["message"], "downloads")

	j := k.waitJob(t, k.createJob(t, map[string]any{"type": "audio.extract", "inputs": map[string]any{"source": stuck + "/clip.mp4"}}))
	assert.Equal(t, "failed", j["status"])
	assert.Equal(t, "JOB_TIMEOUT", j["errorCode"])
	assert.Equal(t, 0.0, j["retryCount"], "a job that ran out of time is not retried")
}

// TestSourcesDownloadTogether: four sources that each take 2 s to answer
// fit in a 6 s attempt only when they download at once.
func TestSourcesDownloadTogether(t *testing.T) {
	t.Parallel()
	slow := slowFiles(t, 2*time.Second)
	k := start(t, storetest.SQLite(t), func(c *app.Config) { c.RenderTimeout = 6 * time.Second })
	var layers []any
	urls := map[string]any{}
	for i := range 4 {
		key := fmt.Sprintf("s%d", i)
		// Distinct URLs, so that each is its own download.
		urls[key] = fmt.Sprintf("%s/image.png?n=%d", slow, i)
		layers = append(layers, map[string]any{"type": "image", "src": key, "start": 0, "duration": 1, "width": 32, "height": 24, "x": i * 32, "y": 0})
	}
	id := k.submit(t, map[string]any{"provider": "provider_a", "assetUrls": urls,
		"composition": map[string]any{"width": 160, "height": 90, "fps": 10, "duration": 1, "layers": layers}})
	job := k.waitStatus(t, id, "completed", 30*time.Second)
	assert.True(t, strings.HasSuffix(job["outputUrl"].(string), ".mp4"))
}
