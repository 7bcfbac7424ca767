package app_test

import (
	"net/http"
	"net/url"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/app"
	"github.com/kinohq/kino/server/store/storetest"
)

// TestOutputsArePrivateWithKeys: with API keys on, a local bucket's URLs
// carry a signature and an expiry; without a valid one the file is
// refused, in the error envelope.
func TestOutputsArePrivateWithKeys(t *testing.T) {
	t.Parallel()
	media := serveMedia(t)
	k := start(t, storetest.SQLite(t), func(c *app.Config) {
		withKeys(c)
		c.URLLifetime = 2 * time.Hour
	})
	waitDone := func(id string) map[string]any {
		var j map[string]any
		require.Eventually(t, func() bool {
			j = k.as(t, keyA, http.MethodGet, "/jobs/"+id, nil).json(t)["data"].(map[string]any)
			return j["status"] == "complete" || j["status"] == "failed"
		}, time.Minute, 50*time.Millisecond)
		require.Equal(t, "complete", j["status"], "%v", j)
		return j
	}
	create := func(body map[string]any) string {
		r := k.as(t, keyA, http.MethodPost, "/jobs", body)
		require.Equal(t, http.StatusAccepted, r.status, "%s", r.body)
		return r.json(t)["data"].(map[string]any)["id"].(string)
	}

	j := waitDone(create(map[string]any{"type": "image.resize", "inputs": map[string]any{"source": media.URL + "/image.png"}, "params": map[string]any{"width": 32}}))
	out := j["outputUrl"].(string)
	u, err := url.Parse(out)
	require.NoError(t, err)
	exp, err := strconv.ParseInt(u.Query().Get("expires"), 10, 64)
	require.NoError(t, err, out)
	assert.InDelta(t, time.Now().Add(2*time.Hour).Unix(), exp, 60, "the URL lives --url-lifetime")
	require.NotEmpty(t, u.Query().Get("signature"))
	r := k.do(t, http.MethodGet, strings.TrimPrefix(out, k.base), nil)
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	assert.Equal(t, "image/png", r.header.Get("Content-Type"))

	refused := func(path, inMsg string) {
		t.Helper()
		r := k.do(t, http.MethodGet, path, nil)
		assert.Equal(t, http.StatusForbidden, r.status, "%s: %s", path, r.body)
		assert.Equal(t, "FORBIDDEN", r.errorCode(t), path)
		assert.Contains(t, string(r.body), inMsg, path)
	}
	refused(u.Path, "no signature")
	// An API key does not replace the signature: the URL is the credential.
	r = k.as(t, keyA, http.MethodGet, u.Path, nil)
	assert.Equal(t, http.StatusForbidden, r.status)
	q := u.Query()
	q.Set("expires", strconv.FormatInt(exp+3600, 10))
	refused(u.Path+"?"+q.Encode(), "not valid")
	q = u.Query()
	q.Set("signature", strings.Repeat("A", len(q.Get("signature"))))
	refused(u.Path+"?"+q.Encode(), "not valid")
	// One object's signature opens no other.
	logs, err := url.Parse(j["logsRef"].(string))
	require.NoError(t, err)
	refused(logs.Path+"?"+u.RawQuery, "not valid")
	r = k.do(t, http.MethodGet, logs.Path+"?"+logs.RawQuery, nil)
	assert.Equal(t, http.StatusOK, r.status)

	// An HLS playlist names each segment by its own signed URL, so a
	// player given only the playlist's URL plays it all.
	j = waitDone(create(map[string]any{"type": "video.transcode", "inputs": map[string]any{"source": media.URL + "/clip.mp4"},
		"params": map[string]any{"preset": "hls", "width": 64}}))
	playlist := j["outputUrl"].(string)
	r = k.do(t, http.MethodGet, strings.TrimPrefix(playlist, k.base), nil)
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	assert.Equal(t, "no-store", r.header.Get("Cache-Control"))
	var segments int
	for _, l := range strings.Split(string(r.body), "\n") {
		if l != "" && !strings.HasPrefix(l, "#") {
			segments++
			assert.True(t, strings.HasPrefix(l, k.base+"/files/"), l)
			assert.Contains(t, l, "signature=")
			su, err := url.Parse(l)
			require.NoError(t, err)
			refused(su.Path, "no signature")
		}
	}
	assert.Positive(t, segments)
	probe, err := exec.Command("ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", playlist).CombinedOutput()
	require.NoError(t, err, "%s", probe)
	d, err := strconv.ParseFloat(strings.TrimSpace(string(probe)), 64)
	require.NoError(t, err, "%s", probe)
	assert.InDelta(t, 3, d, 0.2)
}
