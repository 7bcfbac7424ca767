package app_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/store/storetest"
)

// TestRenderCaptionsErrors: bad inline SRT is a 400 naming the field and
// the line; a captions file that is not SRT or WebVTT fails the render
// with ASSET_INVALID naming the src and the line; a good one renders.
func TestRenderCaptionsErrors(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"/bad.srt":  "1\n00:00:00,000 --> 00:00:01,000\nfine\n\n2\n00:00:01,000 --> later\nbroken\n",
		"/good.vtt": "WEBVTT\n\n00:00.000 --> 00:00.800\nhello\n",
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	k := start(t, storetest.SQLite(t), nil)
	withCaptions := func(captions map[string]any) string {
		captions["type"] = "captions"
		b, err := json.Marshal(map[string]any{"provider": "provider_a", "composition": map[string]any{
			"width": 160, "height": 90, "fps": 10, "duration": 1, "layers": []any{captions}}})
		require.NoError(t, err)
		return string(b)
	}

	r := k.do(t, http.MethodPost, "/api/render", withCaptions(map[string]any{"text": "1\n00:00:01,000\nno arrow\n"}))
	assert.Equal(t, http.StatusBadRequest, r.status)
	e := r.json(t)["error"].(map[string]any)
	assert.Equal(t, "VALIDATION_ERROR", e["code"])
	assert.Contains(t, e["message"], "composition.layers[0].text: line 2: expected a cue timing")

	r = k.do(t, http.MethodPost, "/api/render", withCaptions(map[string]any{"src": srv.URL + "/bad.srt"}))
	require.Equal(t, http.StatusAccepted, r.status, "%s", r.body)
	job := k.waitStatus(t, r.json(t)["jobId"].(string), "failed", 30*time.Second)
	e = job["error"].(map[string]any)
	assert.Equal(t, "ASSET_INVALID", e["code"])
	assert.Contains(t, e["message"], `composition.layers[0].src: the file is not SRT, WebVTT or a JSON of words that kino can read: line 6: "later" is not a time`)

	r = k.do(t, http.MethodPost, "/api/render", withCaptions(map[string]any{"src": srv.URL + "/good.vtt"}))
	require.Equal(t, http.StatusAccepted, r.status, "%s", r.body)
	k.waitStatus(t, r.json(t)["jobId"].(string), "completed", 30*time.Second)
}
