package app_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/store/storetest"
)

// TestJobLogShowsNoServerDetails: the ffmpeg log a job's logsRef serves is
// the tenant's to read: it names the job's inputs and outputs by their
// own names, never the server's data folder, and holds no build
// configuration of ffmpeg (a map of the server for an attacker).
func TestJobLogShowsNoServerDetails(t *testing.T) {
	t.Parallel()
	media := serveMedia(t)
	dir := t.TempDir()
	speechVideo(t, dir)
	speech := serveDir(t, http.FileServer(http.Dir(dir)))
	k := start(t, storetest.SQLite(t), nil)
	for _, body := range []map[string]any{
		{"type": "caption.extract", "inputs": map[string]any{"source": speech + "/speech.mp4"}},
		{"type": "audio.extract", "inputs": map[string]any{"source": media.URL + "/clip.mp4"}, "params": map[string]any{"format": "mp3"}},
		{"type": "video.trim", "inputs": map[string]any{"source": media.URL + "/clip.mp4"}, "params": map[string]any{"start": 0, "duration": 1}},
		{"type": "video.trim", "inputs": map[string]any{"source": media.URL + "/zeroed.mp4"}, "params": map[string]any{"start": 0, "duration": 1}},
	} {
		id := k.createJob(t, body)
		j := k.waitJob(t, id)
		ref, ok := j["logsRef"].(string)
		require.True(t, ok, "logsRef: %v", j)
		logs := string(fetchBody(t, ref, ""))
		assert.Contains(t, logs, "[info]")
		assert.NotContains(t, logs, k.cfg.DataDir)
		if msg, failed := j["errorMessage"].(string); failed {
			assert.Contains(t, msg, "ffmpeg could not process the input")
			assert.NotContains(t, msg, k.cfg.DataDir)
		}
		for _, s := range []string{"configuration:", "built with", "cpu capabilities", "264 - core", "/tmp/", " @ 0x"} {
			assert.NotContains(t, logs, s, "%s", body["type"])
		}
	}
}
