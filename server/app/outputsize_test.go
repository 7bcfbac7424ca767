package app_test

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/app"
	"github.com/kinohq/kino/server/store/storetest"
)

// proresComposition is a ProRes mov of a moving test picture: a few MB for
// 3 s at 320×180, from a request of a few hundred bytes.
func proresComposition(media *mediaServer) map[string]any {
	return map[string]any{
		"provider": "provider_a",
		"composition": map[string]any{
			"width": 320, "height": 180, "fps": 25, "duration": 3, "format": "mov",
			"layers": []any{map[string]any{"type": "video", "src": "clip", "start": 0, "duration": 3, "width": 320}},
		},
		"assetUrls": map[string]any{"clip": media.URL + "/clip.mp4"},
	}
}

// workingBytes sums what is left in a kino's working folders.
func workingBytes(t *testing.T, k *kino) int64 {
	t.Helper()
	var n int64
	require.NoError(t, filepath.Walk(filepath.Join(k.cfg.DataDir, "tmp"), func(_ string, info os.FileInfo, err error) error {
		if err == nil && info.IsDir() && info.Name() == "sources" {
			return filepath.SkipDir // the node's cache of downloads, kept on purpose
		}
		if err == nil && !info.IsDir() {
			n += info.Size()
		}
		return nil
	}))
	return n
}

func TestRenderOutputPastMaxOutputSizeFails(t *testing.T) {
	t.Parallel()
	media := serveMedia(t)
	k := start(t, storetest.SQLite(t), func(c *app.Config) { c.MaxOutputBytes = 256 << 10 })
	id := k.submit(t, proresComposition(media))
	job := k.waitStatus(t, id, "failed", 60*time.Second)
	e := job["error"].(map[string]any)
	assert.Equal(t, "OUTPUT_TOO_LARGE", e["code"])
	assert.Contains(t, e["message"], "256 KiB")
	assert.NotContains(t, job, "outputUrl")
	assert.Zero(t, workingBytes(t, k), "nothing is left on disk")
}

func TestMediaJobOutputPastMaxOutputSizeFails(t *testing.T) {
	t.Parallel()
	media := serveMedia(t)
	k := start(t, storetest.SQLite(t), func(c *app.Config) { c.MaxOutputBytes = 16 << 10 })
	id := k.createJob(t, map[string]any{"type": "video.transcode", "inputs": map[string]any{"source": media.URL + "/clip.mp4"},
		"params": map[string]any{"preset": "mp4"}})
	j := k.waitJob(t, id)
	assert.Equal(t, "failed", j["status"], "%v", j)
	assert.Equal(t, "OUTPUT_TOO_LARGE", j["errorCode"])
	assert.Contains(t, j["errorMessage"], "16 KiB")
}

// A disk with less room than an attempt may fill refuses to start it: the
// render is tried again (on any node) and, when no attempt found room,
// fails NO_DISK_SPACE with nothing written.
func TestRenderWithoutFreeDiskFailsCleanly(t *testing.T) {
	t.Parallel()
	media := serveMedia(t)
	k := start(t, storetest.SQLite(t), func(c *app.Config) {
		c.MinFreeDisk = 1 << 62 // more than any disk holds
		c.MaxAttempts = 2
		c.JobRetryDelay = 10 * time.Millisecond
	})
	id := k.submit(t, smallComposition(media))
	job := k.waitStatus(t, id, "failed", 60*time.Second)
	assert.Equal(t, "NO_DISK_SPACE", job["error"].(map[string]any)["code"])

	jid := k.createJob(t, map[string]any{"type": "audio.extract", "inputs": map[string]any{"source": media.URL + "/clip.mp4"}})
	j := k.waitJob(t, jid)
	assert.Equal(t, "failed", j["status"], "%v", j)
	assert.Equal(t, "NO_DISK_SPACE", j["errorCode"])
	r := k.do(t, http.MethodGet, "/jobs/"+jid, nil)
	require.Equal(t, http.StatusOK, r.status)
}
