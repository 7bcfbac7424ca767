package app_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/store/storetest"
)

// TestRenderCaptionsBoundedOverLayers: the captions bounds were a
// layer's, so one render naming the same overlapping SRT in 99 captions
// layers held 4.56 GB in kino, wrote 2.4 GB of scripts and failed in
// ffmpeg. What the request tells is refused at submit (more than 8
// captions layers, more than 5,000 inline cues in all); the scripts of
// a render's URL captions are bounded together when planned.
func TestRenderCaptionsBoundedOverLayers(t *testing.T) {
	t.Parallel()
	var srt strings.Builder
	for i := range 9 {
		fmt.Fprintf(&srt, "%d\n00:00:00,%03d --> 00:00:50,000\n%s\n\n", i+1, i, strings.Repeat("a ", 160))
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(srt.String()))
	}))
	t.Cleanup(srv.Close)
	k := start(t, storetest.SQLite(t), nil)
	render := func(layers []any) string {
		b, err := json.Marshal(map[string]any{"provider": "provider_a", "composition": map[string]any{
			"width": 160, "height": 90, "fps": 10, "duration": 60, "layers": layers}})
		require.NoError(t, err)
		return string(b)
	}
	repeat := func(n int, layer map[string]any) []any {
		var out []any
		for range n {
			out = append(out, layer)
		}
		return out
	}

	r := k.do(t, http.MethodPost, "/api/render", render(repeat(99, map[string]any{"type": "captions", "src": srv.URL + "/talk.srt", "highlightColor": "yellow"})))
	require.Equal(t, http.StatusBadRequest, r.status, "%s", r.body)
	e := r.json(t)["error"].(map[string]any)
	assert.Equal(t, "VALIDATION_ERROR", e["code"])
	assert.Contains(t, e["message"], "composition.layers[8]: is captions layer 9; a render has at most 8 captions layers")

	var inline strings.Builder
	for i := range 2600 {
		fmt.Fprintf(&inline, "%d\n00:00:%02d,%03d --> 00:00:%02d,%03d\nw\n\n", i+1, i/100, i%100*10, i/100, i%100*10+5)
	}
	r = k.do(t, http.MethodPost, "/api/render", render(repeat(2, map[string]any{"type": "captions", "text": inline.String()})))
	require.Equal(t, http.StatusBadRequest, r.status, "%s", r.body)
	e = r.json(t)["error"].(map[string]any)
	assert.Equal(t, "VALIDATION_ERROR", e["code"])
	assert.Contains(t, e["message"], "composition.layers[1]: brings the cues of the render's inline captions to 5200; at most 5000 are allowed in all")

	// Each script about 5 MiB, under the bound alone: the seventh passes
	// the render's 32 MiB.
	r = k.do(t, http.MethodPost, "/api/render", render(repeat(8, map[string]any{"type": "captions", "src": srv.URL + "/talk.srt", "highlightColor": "yellow"})))
	require.Equal(t, http.StatusAccepted, r.status, "%s", r.body)
	job := k.waitStatus(t, r.json(t)["jobId"].(string), "failed", 3*time.Minute)
	e = job["error"].(map[string]any)
	assert.Equal(t, "RENDER_FAILED", e["code"])
	assert.Contains(t, e["message"], "with the captions layers before it, makes subtitle scripts of more than 32 MiB in the render")
}
