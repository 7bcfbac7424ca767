package app_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/store/storetest"
)

// TestTemplates: a composition stored with {{NAME}} placeholders in text and
// sources renders with the values a request merges in; whatever does not
// fit (a missing or unknown value, a template of another organisation) is
// refused at submit, naming the field.
func TestTemplates(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		k := start(t, db, withKeys)
		media := serveMedia(t)
		tpl := map[string]any{"name": "Title card", "provider": "unified", "composition": map[string]any{
			"output": map[string]any{"width": 128, "height": 96, "fps": 10, "duration": 1},
			"tracks": []any{
				map[string]any{"clips": []any{map[string]any{"asset": map[string]any{"type": "text", "text": "Hello {{ NAME }}!", "fontSize": 20}, "start": 0, "length": 1}}},
				map[string]any{"clips": []any{map[string]any{"asset": map[string]any{"type": "image", "src": "{{BACKGROUND}}"}, "start": 0, "length": 1,
					"size": map[string]any{"width": 128, "height": 96}}}},
			}}}
		r := k.as(t, keyA, http.MethodPost, "/api/templates", tpl)
		require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
		created := r.json(t)
		id := created["id"].(string)
		assert.Equal(t, []any{"BACKGROUND", "NAME"}, created["placeholders"])
		assert.Equal(t, "unified", created["provider"])

		assert.Equal(t, http.StatusOK, k.as(t, keyA, http.MethodGet, "/api/templates/"+id, nil).status)
		assert.Equal(t, http.StatusNotFound, k.as(t, keyB, http.MethodGet, "/api/templates/"+id, nil).status, "another organisation's")
		list := k.as(t, keyA, http.MethodGet, "/api/templates?limit=10", nil).json(t)
		assert.EqualValues(t, 1, list["total"])
		assert.EqualValues(t, 0, k.as(t, keyB, http.MethodGet, "/api/templates", nil).json(t)["total"])

		render := map[string]any{"template": id, "merge": map[string]any{"NAME": "Ada", "BACKGROUND": media.URL + "/image.png"}}
		r = k.as(t, keyA, http.MethodPost, "/api/render", render)
		require.Equal(t, http.StatusAccepted, r.status, "%s", r.body)
		job := r.json(t)["jobId"].(string)
		require.Eventually(t, func() bool {
			return k.as(t, keyA, http.MethodGet, "/api/render/"+job, nil).json(t)["status"] == "completed"
		}, time.Minute, 50*time.Millisecond)

		// The render keeps its request: the template's composition with the
		// values filled in, ready to submit again as it is.
		r = k.as(t, keyA, http.MethodGet, "/api/render/"+job+"/request", nil)
		require.Equal(t, http.StatusOK, r.status, "%s", r.body)
		again := r.json(t)
		assert.Equal(t, "unified", again["provider"])
		assert.Contains(t, string(r.body), `"Hello Ada!"`)
		assert.NotContains(t, again, "template")
		assert.Equal(t, http.StatusAccepted, k.as(t, keyA, http.MethodPost, "/api/render", again).status, "it submits as it is")
		assert.Equal(t, http.StatusNotFound, k.as(t, keyB, http.MethodGet, "/api/render/"+job+"/request", nil).status, "another organisation's")

		for name, c := range map[string]struct {
			key, path string
			body      map[string]any
			want      string
		}{
			"a value missing":        {keyA, "/api/render", map[string]any{"template": id, "merge": map[string]any{"NAME": "Ada"}}, "merge: no value for {{BACKGROUND}}"},
			"an unknown value":       {keyA, "/api/render", map[string]any{"template": id, "merge": map[string]any{"NAME": "Ada", "BACKGROUND": media.URL + "/image.png", "COLOUR": "red"}}, "merge.COLOUR: template " + id + " has no placeholder"},
			"a bad merged source":    {keyA, "/api/render", map[string]any{"template": id, "merge": map[string]any{"NAME": "Ada", "BACKGROUND": "file:///etc/passwd"}}, "composition.tracks[1].clips[0].asset.src"},
			"template and comp":      {keyA, "/api/render", map[string]any{"template": id, "provider": "unified", "composition": map[string]any{}}, "composition: give either composition or template"},
			"another provider":       {keyA, "/api/render", map[string]any{"template": id, "provider": "provider_a", "merge": map[string]any{"NAME": "x", "BACKGROUND": "https://x.test/a.png"}}, "provider: template"},
			"merge without template": {keyA, "/api/render", map[string]any{"provider": "unified", "composition": map[string]any{}, "merge": map[string]any{"A": "b"}}, "merge: fills the placeholders of a template"},
			"another org's template": {keyB, "/api/render", map[string]any{"template": id, "merge": map[string]any{"NAME": "x", "BACKGROUND": "https://x.test/a.png"}}, "template: no template has the id"},
			"an invalid template": {keyA, "/api/templates", map[string]any{"name": "bad", "provider": "provider_a", "composition": map[string]any{"width": 17, "height": 96, "fps": 10,
				"layers": []any{map[string]any{"type": "text", "text": "{{X}}", "duration": 1}}}}, "composition.width: must be an even integer"},
			"a template with no name": {keyA, "/api/templates", map[string]any{"provider": "unified", "composition": tpl["composition"]}, "name: is required"},
		} {
			r := k.as(t, c.key, http.MethodPost, c.path, c.body)
			assert.Equal(t, http.StatusBadRequest, r.status, "%s: %s", name, r.body)
			assert.Equal(t, "VALIDATION_ERROR", r.errorCode(t), name)
			assert.Contains(t, string(r.body), c.want, name)
		}

		assert.Equal(t, http.StatusOK, k.as(t, keyA, http.MethodDelete, "/api/templates/"+id, nil).status)
		assert.Equal(t, http.StatusNotFound, k.as(t, keyA, http.MethodGet, "/api/templates/"+id, nil).status)
		assert.Equal(t, "completed", k.as(t, keyA, http.MethodGet, "/api/render/"+job, nil).json(t)["status"], "renders made from it stay")
	})
}
