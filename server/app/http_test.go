package app_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/kinohq/kino/server/store/storetest"
)

// TestJSONBodyIsOneUTF8Value: a JSON body is one value and nothing after it,
// in UTF-8; anything else is refused before it reaches a service, on the
// render API and the media API alike.
func TestJSONBodyIsOneUTF8Value(t *testing.T) {
	t.Parallel()
	k := start(t, storetest.SQLite(t), nil)
	render := `{"provider":"provider_a","composition":{"width":160,"height":90,"fps":10,"layers":[{"type":"color","color":"#000000","start":0,"duration":1}]}}`
	pipeline := `{"name":"p","nodes":[{"id":"a","type":"audio.extract","params":{"format":"mp3"}}]}`

	refused := []struct {
		name, path, body, contentType, inMessage string
	}{
		{"render: trailing garbage", "/api/render", render + ` garbage`, "application/json", "after the JSON value"},
		{"render: a second object", "/api/render", render + render, "application/json", "after the JSON value"},
		{"render: utf-16", "/api/render", render, "application/json; charset=utf-16", "charset"},
		{"render: latin-1", "/api/render", render, "application/json; charset=iso-8859-1", "charset"},
		{"jobs: trailing garbage", "/jobs", `{"type":"audio.extract"} x`, "application/json", "after the JSON value"},
		{"jobs: utf-16", "/jobs", `{"type":"audio.extract"}`, "application/json; charset=UTF-16LE", "charset"},
		{"pipelines: trailing garbage", "/pipelines", pipeline + `]`, "application/json", "after the JSON value"},
		{"pipeline runs: utf-16", "/pipelines/p1/runs", `{}`, "application/json;charset=utf-16", "charset"},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			r := k.do(t, http.MethodPost, tc.path, tc.body, "Content-Type", tc.contentType)
			assert.Equal(t, http.StatusBadRequest, r.status, "%s", r.body)
			assert.Equal(t, "VALIDATION_ERROR", r.errorCode(t))
			assert.Contains(t, r.json(t)["error"].(map[string]any)["message"], tc.inMessage)
		})
	}

	for _, ct := range []string{"application/json", "application/json; charset=utf-8", "application/json; charset=UTF-8"} {
		r := k.do(t, http.MethodPost, "/api/render", render+" \n\t", "Content-Type", ct)
		assert.Equal(t, http.StatusAccepted, r.status, "%s: %s", ct, r.body)
	}
}
