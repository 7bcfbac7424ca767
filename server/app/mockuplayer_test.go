package app_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/store/storetest"
)

// TestMockupLayerOverREST renders the layer over REST: a video in
// an uploaded template's smart object, by asset id, at the template's
// size; a template by URL plays in a moving layer. A smart object the
// template does not have, and an image asset as a template, are 400s at
// submit naming the layer's field.
func TestMockupLayerOverREST(t *testing.T) {
	t.Parallel()
	media := serveMedia(t)
	psd := serveBytes(t, map[string][]byte{"shirt.psd": mockupTemplate(t, "mockup.psd")})
	k := start(t, storetest.SQLite(t), nil)
	up := k.upload(t, "", [][2]string{{"type", "psd_template"}, {"category", "apparel"}}, "shirt.psd", mockupTemplate(t, "mockup.psd"))
	require.Equal(t, http.StatusCreated, up.status, "%s", up.body)
	tpl := up.json(t)["data"].(map[string]any)["id"].(string)
	img := k.upload(t, "", [][2]string{{"type", "image"}}, "design.png", quadrantsPNG(t, 64, 64))
	require.Equal(t, http.StatusCreated, img.status, "%s", img.body)
	image := img.json(t)["data"].(map[string]any)["id"].(string)

	composition := func(layer map[string]any) map[string]any {
		return map[string]any{"provider": "provider_a", "composition": map[string]any{
			"width": 600, "height": 600, "fps": 10, "layers": []any{layer}}}
	}
	id := k.submit(t, composition(map[string]any{"type": "mockup", "template": tpl, "smartObject": "Design",
		"src": media.URL + "/clip.mp4", "start": 0, "duration": 1}))
	rec := k.waitStatus(t, id, "completed", 60*time.Second)
	info := fetchOutput(t, rec["outputUrl"].(string), "video/mp4")
	require.NotNil(t, info.Video())
	assert.Equal(t, 600, info.Video().Width)
	assert.Equal(t, 10, info.Video().NbFrames)

	id = k.submit(t, composition(map[string]any{"type": "mockup", "template": psd + "/shirt.psd", "smartObject": "Front/Design",
		"src": media.URL + "/clip.mp4", "start": 0, "duration": 1, "width": 300, "height": 300, "fit": "contain",
		"enter": map[string]any{"type": "slide", "side": "left", "duration": 0.5}}))
	k.waitStatus(t, id, "completed", 60*time.Second)

	for _, c := range []struct {
		layer map[string]any
		want  string
	}{
		{map[string]any{"template": tpl, "smartObject": "Other"},
			`composition.layers[0].smartObject: "Other" is a pixel layer, not a smart object (its smart objects: "Front/Design", "Back")`},
		{map[string]any{"template": tpl},
			`composition.layers[0].smartObject: is required: the template has several smart objects (its smart objects: "Front/Design", "Back")`},
		{map[string]any{"template": image, "smartObject": "Design"},
			"composition.layers[0].template: asset " + image + " is an image; a mockup layer's template is a psd_template asset"},
	} {
		layer := map[string]any{"type": "mockup", "src": media.URL + "/clip.mp4", "start": 0, "duration": 1}
		for k, v := range c.layer {
			layer[k] = v
		}
		r := k.do(t, http.MethodPost, "/api/render", composition(layer))
		require.Equal(t, http.StatusBadRequest, r.status, "%s", r.body)
		assert.Equal(t, "VALIDATION_ERROR", r.errorCode(t))
		assert.Equal(t, c.want, r.json(t)["error"].(map[string]any)["message"])
	}
}
