package app_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/storage/s3test"
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
	// On S3 the bucket is private: the playlist kino hands out must name
	// every segment by a URL the player can fetch with nothing else.
	for _, s := range []string{"local", "s3"} {
		t.Run(s, func(t *testing.T) {
			t.Parallel()
			su := setup{db: storetest.SQLite(t)}
			if s == "s3" {
				srv := s3test.Start(t)
				su.storageURL, su.s3 = srv.Bucket(t), srv
			}
			transcodeToHLS(t, su.start(t, nil), src, s == "s3")
		})
	}
}

func transcodeToHLS(t *testing.T, k *kino, src string, private bool) {

	id := k.createJob(t, map[string]any{"type": "video.transcode", "inputs": map[string]any{"source": src + "/nine.mp4"},
		"params": map[string]any{"preset": "hls", "width": 64}})
	j := k.waitJob(t, id)
	require.Equal(t, "complete", j["status"], "%v", j)
	playlist := j["outputUrl"].(string)
	require.True(t, strings.HasSuffix(strings.Split(playlist, "?")[0], "/outputUrl.m3u8"), playlist)
	var meta map[string]any
	require.NoError(t, json.Unmarshal([]byte(j["outputMeta"].(string)), &meta))
	assert.Equal(t, "application/vnd.apple.mpegurl", meta["contentType"])
	assert.Equal(t, "h264", meta["videoCodec"])
	assert.Equal(t, "aac", meta["audioCodec"])
	assert.Equal(t, 64.0, meta["width"])
	assert.InDelta(t, 9, meta["duration"], 0.2)
	// The output object lists the playlist, its headline, then every
	// segment, each with its URL, name, type and size.
	out := j["output"].(map[string]any)
	file := out["file"].(map[string]any)
	assert.Equal(t, playlist, file["url"])
	assert.Equal(t, "playlist", file["type"])
	files := out["files"].([]any)
	require.Len(t, files, 4, "%v", files)
	assert.Equal(t, file, files[0])
	for i, f := range files[1:] {
		f := f.(map[string]any)
		assert.Equal(t, fmt.Sprintf("hls-%03d.ts", i), f["path"])
		assert.Equal(t, "video", f["type"])
		assert.Greater(t, f["size"], 0.0)
		assert.Contains(t, f["url"], fmt.Sprintf("/hls-%03d.ts", i))
	}

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
	assert.InDelta(t, 9, total, 0.1)
	base := playlist[:strings.LastIndex(playlist, "/")+1]
	if private {
		// Each segment is named by its own signed URL; the object's bare
		// URL is refused by the private bucket.
		require.Len(t, segments, 3)
		for i, s := range segments {
			assert.Contains(t, s, fmt.Sprintf("/hls-%03d.ts?", i))
			assert.Contains(t, s, "X-Amz-Signature=")
			bare, _, _ := strings.Cut(s, "?")
			r, err := http.Get(bare)
			require.NoError(t, err)
			r.Body.Close()
			assert.Equal(t, http.StatusForbidden, r.StatusCode, "unsigned %s", bare)
		}
		// And the playlist itself is refused without kino's signature.
		bare, _, _ := strings.Cut(playlist, "?")
		r, err := http.Get(bare)
		require.NoError(t, err)
		r.Body.Close()
		assert.Equal(t, http.StatusForbidden, r.StatusCode)
		base = ""
	} else {
		assert.Equal(t, []string{"hls-000.ts", "hls-001.ts", "hls-002.ts"}, segments)
	}
	for _, s := range segments {
		if private {
			// A presigned URL is signed for GET only.
			r, err := http.Get(s)
			require.NoError(t, err)
			r.Body.Close()
			assert.Equal(t, http.StatusOK, r.StatusCode, s)
			continue
		}
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
