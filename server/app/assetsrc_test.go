package app_test

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/store/storetest"
)

// TestUploadedAssetsAsSources: an uploaded image is a layer's src and an
// uploaded font a text layer's font, by asset id, read from storage with
// no URL at all; ids kino cannot use are refused at submit with their path.
func TestUploadedAssetsAsSources(t *testing.T) {
	t.Parallel()
	k := start(t, storetest.SQLite(t), withKeys)
	png, err := os.ReadFile(filepath.Join(testMedia(t), "image.png"))
	require.NoError(t, err)
	font, err := os.ReadFile("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf")
	require.NoError(t, err)
	up := func(key, typ, name string, content []byte) string {
		r := k.upload(t, key, [][2]string{{"type", typ}}, name, content)
		require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
		return r.json(t)["data"].(map[string]any)["id"].(string)
	}
	image, fontID := up(keyA, "image", "logo.png", png), up(keyA, "font", "Bold.ttf", font)
	other := up(keyB, "image", "theirs.png", png)

	comp := func(src, font string) map[string]any {
		return map[string]any{"provider": "provider_a", "assetUrls": map[string]any{"brand": font},
			"composition": map[string]any{"width": 128, "height": 96, "fps": 10, "duration": 1, "layers": []any{
				map[string]any{"type": "image", "src": src, "duration": 1, "width": 128, "height": 96},
				map[string]any{"type": "text", "text": "hi", "font": "brand", "fontSize": 30, "duration": 1},
			}}}
	}
	r := k.as(t, keyA, http.MethodPost, "/api/render", comp(image, fontID))
	require.Equal(t, http.StatusAccepted, r.status, "%s", r.body)
	id := r.json(t)["jobId"].(string)
	require.Eventually(t, func() bool {
		return k.as(t, keyA, http.MethodGet, "/api/render/"+id, nil).json(t)["status"] == "completed"
	}, time.Minute, 50*time.Millisecond)

	for name, c := range map[string]struct {
		body      map[string]any
		wantField string
	}{
		"unknown id":             {comp("ast_0123abcd", fontID), "composition.layers[0].src: no asset has the id"},
		"another org's asset":    {comp(other, fontID), "composition.layers[0].src: no asset has the id"},
		"a font as a picture":    {comp(fontID, fontID), "is a font; a layer takes an image asset"},
		"a picture as the font":  {comp(image, image), "is an image, not a font"},
		"not an id, not a URL":   {comp("ast_XYZ", fontID), "not an http or https URL or an asset id"},
		"assetUrls names an id ": {comp(image, "ast_00"), "no asset has the id"},
	} {
		r := k.as(t, keyA, http.MethodPost, "/api/render", c.body)
		assert.Equal(t, http.StatusBadRequest, r.status, "%s: %s", name, r.body)
		assert.Equal(t, "VALIDATION_ERROR", r.errorCode(t), name)
		assert.Contains(t, string(r.body), c.wantField, name)
	}
}
