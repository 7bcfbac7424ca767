package app_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/app"
	"github.com/kinohq/kino/server/store/storetest"
)

// TestMockupLayerReadsUnderTheNodesPixelBound: a render's mockup layer
// reads its template under --max-image-pixels, as uploads and
// mockup.render do, not under the PSD reader's own larger default. The
// bound is this kino's: the kinos of parallel tests keep theirs.
func TestMockupLayerReadsUnderTheNodesPixelBound(t *testing.T) {
	t.Parallel()
	media := serveMedia(t)
	psd := serveBytes(t, map[string][]byte{"bench.psd": mockupTemplate(t, "bench.psd")}) // 3000 × 3000
	k := start(t, storetest.SQLite(t), func(c *app.Config) { c.Workers = 0; c.MaxImagePixels = 1_000_000 })
	r := k.do(t, http.MethodPost, "/api/render/preview", map[string]any{"provider": "provider_a", "time": 0.5, "composition": map[string]any{
		"width": 320, "height": 320, "fps": 10, "layers": []any{map[string]any{"type": "mockup", "template": psd + "/bench.psd",
			"src": media.URL + "/image.png", "start": 0, "duration": 1}}}})
	require.Equal(t, http.StatusBadRequest, r.status, "%s", r.body)
	assert.Equal(t, "VALIDATION_ERROR", r.errorCode(t))
	assert.Contains(t, string(r.body), "composition.layers[0].template")
	assert.Contains(t, string(r.body), "1000000")
}
