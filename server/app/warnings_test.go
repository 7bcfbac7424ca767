package app_test

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/app"
	"github.com/kinohq/kino/server/render"
	"github.com/kinohq/kino/server/store/storetest"
)

// TestRenderWarnings: a text layer holding a character no font has (one
// of Unicode's private use) renders, and its render's record, whole or
// split into parts, lists the warning; a preview of it says the same in
// its Kino-Warnings header, and a render with nothing amiss lists none.
func TestRenderWarnings(t *testing.T) {
	t.Parallel()
	k := start(t, storetest.SQLite(t), func(c *app.Config) {
		c.Workers = 2
		c.Split = render.DefaultSplit
	})
	body := func(text string) map[string]any {
		return map[string]any{"provider": "provider_a", "composition": map[string]any{
			"width": 160, "height": 90, "fps": 10, "duration": 3, "background": "#203040",
			"layers": []any{map[string]any{"type": "text", "text": text, "fontSize": 24, "color": "white", "x": 10, "y": 30}}}}
	}
	const want = "composition.layers[0].text: no font has U+E000"

	rec := k.waitStatus(t, k.submit(t, body("kino \ue000")), "completed", time.Minute)
	require.Len(t, rec["warnings"], 1, "%v", rec)
	assert.Contains(t, rec["warnings"].([]any)[0], want)

	split := body("kino \ue000 again")
	split["split"] = map[string]any{"part": 1}
	rec = k.waitStatus(t, k.submit(t, split), "completed", time.Minute)
	require.Len(t, rec["warnings"], 1, "the parts' one warning, once: %v", rec)
	assert.Contains(t, rec["warnings"].([]any)[0], want)

	rec = k.waitStatus(t, k.submit(t, body("kino")), "completed", time.Minute)
	assert.Equal(t, []any{}, rec["warnings"])

	preview := body("kino \ue000")
	preview["time"] = 1
	r := k.do(t, http.MethodPost, "/api/render/preview", preview)
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	require.Len(t, r.header.Values("Kino-Warnings"), 1)
	// The header is ASCII: the warning as a quoted Go string holds it.
	got, err := strconv.Unquote(`"` + r.header.Get("Kino-Warnings") + `"`)
	require.NoError(t, err)
	assert.Contains(t, got, want+` "\ue000"`)
	r = k.do(t, http.MethodPost, "/api/render/preview", withFields(body("kino"), "time", 1))
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	assert.Empty(t, r.header.Values("Kino-Warnings"))
}
