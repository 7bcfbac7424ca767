package app_test

import (
	"bufio"
	"encoding/json"
	"net/http"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/store/storetest"
)

func TestTranscodeToHLS(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out, err := exec.Command("ffmpeg", "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc2=size=128x72:rate=25",
		"-f", "lavfi", "-i", "sine=frequency=330:sample_rate=48000", "-t", "9", "-c:v", "libx264", "-preset", "ultrafast",
		"-pix_fmt", "yuv420p", "-c:a", "aac", filepath.Join(dir, "nine.mp4")).CombinedOutput()
	require.NoError(t, err, "%s", out)
	src := serveDir(t, http.FileServer(http.Dir(dir)))
	k := start(t, storetest.SQLite(t), nil)

	id := k.createJob(t, map[string]any{"type": "video.transcode", "inputs": map[string]any{"source": src + "/nine.mp4"},
		"params": map[string]any{"preset": "hls", "width": 64}})
	j := k.waitJob(t, id)
	require.Equal(t, "complete", j["status"], "%v", j)
	playlist := j["outputUrl"].(string)
	require.True(t, strings.HasSuffix(playlist, "/outputUrl.m3u8"), playlist)
	var meta map[string]any
	require.NoError(t, json.Unmarshal([]byte(j["outputMeta"].(string)), &meta))
	assert.Equal(t, "application/vnd.apple.mpegurl", meta["contentType"])
	assert.Equal(t, "h264", meta["videoCodec"])
	assert.Equal(t, "aac", meta["audioCodec"])
	assert.Equal(t, 64.0, meta["width"])
	assert.InDelta(t, 9, meta["duration"], 0.2)

	// A VOD playlist of three segments of at most 4 s, named relative to it.
	resp, err := http.Get(playlist)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "application/vnd.apple.mpegurl", resp.Header.Get("Content-Type"))
	var segments []string
	var total float64
	sc := bufio.NewScanner(resp.Body)
	var lines []string
	for sc.Scan() {
		l := sc.Text()
		lines = append(lines, l)
		if d, ok := strings.CutPrefix(l, "#EXTINF:"); ok {
			secs, err := strconv.ParseFloat(strings.TrimSuffix(d, ","), 64)
			require.NoError(t, err, l)
			assert.LessOrEqual(t, secs, 4.01, l)
			total += secs
		} else if l != "" && !strings.HasPrefix(l, "#") {
			segments = append(segments, l)
		}
	}
	assert.Contains(t, lines, "#EXT-X-PLAYLIST-TYPE:VOD")
	assert.Contains(t, lines, "#EXT-X-ENDLIST")
	assert.Equal(t, []string{"hls-000.ts", "hls-001.ts", "hls-002.ts"}, segments)
	assert.InDelta(t, 9, total, 0.1)
	base := playlist[:strings.LastIndex(playlist, "/")+1]
	for _, s := range segments {
		r, err := http.Head(base + s)
		require.NoError(t, err)
		r.Body.Close()
		assert.Equal(t, http.StatusOK, r.StatusCode, s)
		assert.Equal(t, "video/mp2t", r.Header.Get("Content-Type"), s)
	}

	// A player follows the playlist through the gateway: ffprobe reads it
	// over HTTP, segments and all.
	probe, err := exec.Command("ffprobe", "-v", "error", "-show_entries", "format=duration:stream=codec_name,width",
		"-of", "json", playlist).Output()
	require.NoError(t, err)
	var p struct {
		Format  struct{ Duration string }
		Streams []struct {
			CodecName string `json:"codec_name"`
			Width     int
		}
	}
	require.NoError(t, json.Unmarshal(probe, &p), "%s", probe)
	d, _ := strconv.ParseFloat(p.Format.Duration, 64)
	assert.InDelta(t, 9, d, 0.2)
	require.Len(t, p.Streams, 2)
	assert.Equal(t, "h264", p.Streams[0].CodecName)
	assert.Equal(t, 64, p.Streams[0].Width)
	assert.Equal(t, "aac", p.Streams[1].CodecName)
}
