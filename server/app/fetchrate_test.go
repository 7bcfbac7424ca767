package app_test

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/app"
	"github.com/kinohq/kino/server/store/storetest"
)

// trickle serves a picture that never arrives: its headers and one byte,
// then nothing until the client leaves. It counts its requests.
func trickle(t *testing.T) (string, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "image/png")
		w.Header().Set("Content-Length", "100000")
		w.Write([]byte{0x89})
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	// Connections first: the handlers above wait for their client.
	t.Cleanup(func() { srv.CloseClientConnections(); srv.Close() })
	return srv.URL, &hits
}

// TestSlowSourceFailsAsTheSourcesFault: a source slower than
// --fetch-min-rate over --fetch-rate-window fails a render at once,
// ASSET_FETCH_FAILED naming the source and the rate, without another
// attempt, as it fails a media job; a preview of it is a 400 naming the
// layer.
func TestSlowSourceFailsAsTheSourcesFault(t *testing.T) {
	t.Parallel()
	slow, hits := trickle(t)
	k := start(t, storetest.SQLite(t), func(c *app.Config) {
		c.FetchMinRate = 1000
		c.FetchRateWindow = 200 * time.Millisecond
		c.JobRetryDelay = time.Millisecond
	})
	body := map[string]any{"provider": "provider_a", "composition": map[string]any{
		"width": 160, "height": 90, "fps": 10, "duration": 1,
		"layers": []any{map[string]any{"type": "image", "src": slow + "/logo.png", "start": 0, "duration": 1}}}}

	job := k.waitStatus(t, k.submit(t, body), "failed", time.Minute)
	e := job["error"].(map[string]any)
	assert.Equal(t, "ASSET_FETCH_FAILED", e["code"])
	assert.Contains(t, e["message"], slow+"/logo.png")
	assert.Contains(t, e["message"], "slower than the minimum of 1000 bytes/s")
	assert.Equal(t, int32(1), hits.Load(), "the source is not tried again")

	j := k.waitJob(t, k.createJob(t, map[string]any{"type": "image.resize", "inputs": map[string]any{"source": slow + "/media.png"},
		"params": map[string]any{"width": 16}}))
	assert.Equal(t, "failed", j["status"])
	assert.Equal(t, "ASSET_FETCH_FAILED", j["errorCode"])
	assert.Contains(t, j["errorMessage"], "slower than the minimum of 1000 bytes/s")
	assert.Equal(t, 0.0, j["retryCount"])
	assert.Equal(t, int32(2), hits.Load(), "one request by the render, one by the media job")

	r := k.do(t, http.MethodPost, "/api/render/preview", withFields(body, "time", 0.5))
	require.Equal(t, http.StatusBadRequest, r.status, "%s", r.body)
	assert.Equal(t, "VALIDATION_ERROR", r.errorCode(t))
	assert.Contains(t, string(r.body), "composition.layers[0].src")
	assert.Contains(t, string(r.body), "slower than the minimum of 1000 bytes/s")
}
