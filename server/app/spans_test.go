package app_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/app"
	"github.com/kinohq/kino/server/render"
	"github.com/kinohq/kino/server/store/storetest"
)

// TestRenderSpans: a text layer's spans are refused over HTTP in the
// documented envelope when they break a rule, naming the field; valid
// spans render whole and split into parts, their warnings name the
// layer's spans, and a preview of them is a picture.
func TestRenderSpans(t *testing.T) {
	t.Parallel()
	k := start(t, storetest.SQLite(t), func(c *app.Config) {
		c.Workers = 2
		c.Split = render.DefaultSplit
	})
	body := func(layer map[string]any) map[string]any {
		layer["type"], layer["fontSize"], layer["x"], layer["y"] = "text", 20, 10, 20
		return map[string]any{"provider": "provider_a", "composition": map[string]any{
			"width": 160, "height": 90, "fps": 10, "duration": 3, "background": "#203040", "layers": []any{layer}}}
	}
	span := func(text string, kv ...any) map[string]any {
		s := map[string]any{"text": text}
		for i := 0; i+1 < len(kv); i += 2 {
			s[kv[i].(string)] = kv[i+1]
		}
		return s
	}
	many := make([]any, 101)
	for i := range many {
		many[i] = span("a")
	}
	for _, tc := range []struct {
		name  string
		layer map[string]any
		want  string
	}{
		{"text and spans", map[string]any{"text": "a", "spans": []any{span("b")}}, "composition.layers[0].spans: hold the layer's text in runs: give text or spans, not both"},
		{"too many", map[string]any{"spans": many}, "composition.layers[0].spans: has 101 entries; at most 100 are allowed"},
		{"a span's field", map[string]any{"spans": []any{span("a"), span("b", "fontSize", 0)}}, "composition.layers[0].spans[1].fontSize"},
	} {
		r := k.do(t, http.MethodPost, "/api/render", body(tc.layer))
		assert.Equal(t, http.StatusBadRequest, r.status, "%s: %s", tc.name, r.body)
		assert.Equal(t, "VALIDATION_ERROR", r.errorCode(t), tc.name)
		msg := r.json(t)["error"].(map[string]any)["message"].(string)
		assert.Contains(t, msg, tc.want, tc.name)
	}

	rich := func() map[string]any {
		return body(map[string]any{"color": "white", "spans": []any{
			span("kino "), span("rich \ue000", "color", "#ffd166", "fontSize", 30, "backgroundColor", "#e63946"), span(" text")}})
	}
	const want = "composition.layers[0].spans: no font has U+E000"
	rec := k.waitStatus(t, k.submit(t, rich()), "completed", time.Minute)
	require.Len(t, rec["warnings"], 1, "%v", rec)
	assert.Contains(t, rec["warnings"].([]any)[0], want)

	split := rich()
	split["split"] = map[string]any{"part": 1}
	rec = k.waitStatus(t, k.submit(t, split), "completed", time.Minute)
	require.Len(t, rec["warnings"], 1, "%v", rec)
	assert.Contains(t, rec["warnings"].([]any)[0], want)

	r := k.do(t, http.MethodPost, "/api/render/preview", withFields(rich(), "time", 1))
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	assert.True(t, strings.HasPrefix(r.header.Get("Content-Type"), "image/"), r.header.Get("Content-Type"))
}
