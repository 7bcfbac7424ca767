package app_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"

	mediav1 "github.com/kinohq/kino/gen/kino/media/v1"
	"github.com/kinohq/kino/server/app"
	"github.com/kinohq/kino/server/store/storetest"
)

const (
	keyA = "key-of-org-a-0123456789"
	keyB = "key-of-org-b-0123456789"
)

func withKeys(c *app.Config) {
	c.APIKeys = map[string]string{keyA: "org-a", keyB: "org-b"}
}

func bearer(key string) []string { return []string{"Authorization", "Bearer " + key} }

func (k *kino) as(t *testing.T, key, method, path string, body any) response {
	t.Helper()
	return k.do(t, method, path, body, bearer(key)...)
}

func watermarkJob() map[string]any {
	return map[string]any{
		"type":   "watermark.apply",
		"inputs": map[string]any{"source": "https://cdn.example/video.mp4"},
		"params": map[string]any{"watermarks": []any{map[string]any{"type": "image", "url": "https://cdn.example/logo.png", "position": "bottom-right"}}},
	}
}

// specPipeline is the example of the media interface.
func specPipeline() map[string]any {
	return map[string]any{
		"name": "caption and brand", "description": "extract captions, burn them, watermark",
		"nodes": []any{
			map[string]any{"id": "extract", "jobType": "caption.extract", "params": map[string]any{}},
			map[string]any{"id": "burn", "jobType": "caption.burn", "params": map[string]any{}},
			map[string]any{"id": "brand", "jobType": "watermark.apply", "params": map[string]any{"watermarks": []any{
				map[string]any{"type": "image", "url": "https://cdn.example/logo.png", "position": "bottom-right"}}}},
		},
		"edges": []any{
			map[string]any{"from": "extract", "to": "burn", "outputMapping": map[string]any{"sourceField": "captionsUrl", "targetField": "subtitles"}},
			map[string]any{"from": "extract", "to": "burn", "outputMapping": map[string]any{"sourceField": "outputUrl", "targetField": "source"}},
			map[string]any{"from": "burn", "to": "brand", "outputMapping": map[string]any{"sourceField": "outputUrl", "targetField": "source"}},
		},
	}
}

func TestAuthentication(t *testing.T) {
	t.Parallel()
	k := start(t, storetest.SQLite(t), withKeys)

	r := k.do(t, http.MethodGet, "/api/health", nil)
	assert.Equal(t, http.StatusOK, r.status, "health needs no key")

	for _, path := range []string{"/jobs", "/jobs/types", "/pipelines", "/api/render/x"} {
		r = k.do(t, http.MethodGet, path, nil)
		assert.Equal(t, http.StatusUnauthorized, r.status, path)
		assert.Equal(t, "UNAUTHENTICATED", r.errorCode(t), path)
		r = k.as(t, "not-a-key-0123456789", http.MethodGet, path, nil)
		assert.Equal(t, http.StatusUnauthorized, r.status, path)
	}
	r = k.do(t, http.MethodGet, "/jobs", nil, "Authorization", "Basic "+keyA)
	assert.Equal(t, http.StatusUnauthorized, r.status, "only Bearer")
	r = k.as(t, keyA, http.MethodGet, "/jobs", nil)
	assert.Equal(t, http.StatusOK, r.status, "%s", r.body)

	_, err := mediav1.NewJobServiceClient(k.conn).ListJobs(context.Background(), &mediav1.ListJobsRequest{})
	assertCode(t, err, codes.Unauthenticated, "UNAUTHENTICATED")
	ctx := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+keyB)
	_, err = mediav1.NewJobServiceClient(k.conn).ListJobs(ctx, &mediav1.ListJobsRequest{})
	require.NoError(t, err)
}

func TestJobTypes(t *testing.T) {
	t.Parallel()
	k := start(t, storetest.SQLite(t), nil)
	r := k.do(t, http.MethodGet, "/jobs/types", nil)
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	byType := map[string]map[string]any{}
	for _, e := range r.json(t)["data"].([]any) {
		m := e.(map[string]any)
		byType[m["type"].(string)] = m
	}
	for _, name := range []string{"watermark.apply", "caption.extract", "caption.burn", "video.transcode", "video.thumbnail", "video.trim", "audio.extract", "image.resize"} {
		require.Contains(t, byType, name)
		jt := byType[name]
		for _, f := range []string{"tag", "summary", "needs", "pattern", "acceptsMedia", "provider", "mediaOverrides", "inputs", "outputs", "paramsSchema"} {
			assert.Contains(t, jt, f, "%s.%s", name, f)
		}
	}
	outputs := func(jt map[string]any, key string) []string {
		var n []string
		for _, f := range jt[key].([]any) {
			n = append(n, f.(map[string]any)["name"].(string))
		}
		return n
	}
	assert.ElementsMatch(t, []string{"captionsUrl", "outputUrl", "transcript"}, outputs(byType["caption.extract"], "outputs"))
	assert.ElementsMatch(t, []string{"source", "subtitles", "font"}, outputs(byType["caption.burn"], "inputs"))
	assert.Equal(t, []any{"source"}, byType["caption.burn"]["needs"], "without subtitles, the sound is transcribed")
	schema := byType["watermark.apply"]["paramsSchema"].(map[string]any)
	assert.Equal(t, "object", schema["type"])
	assert.Equal(t, []any{"watermarks"}, schema["required"])
}

func TestJobsCreateGetListCancel(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		// An API-only node: the jobs stay as created, so lists can be checked.
		k := start(t, db, func(c *app.Config) { withKeys(c); c.Workers = 0 })

		r := k.as(t, keyA, http.MethodGet, "/jobs", nil)
		require.Equal(t, http.StatusOK, r.status)
		assert.JSONEq(t, `{"data":[],"meta":{"total":0,"page":1,"limit":50}}`, string(r.body), "data is present when empty")

		r = k.as(t, keyA, http.MethodPost, "/jobs", watermarkJob())
		require.Equal(t, http.StatusAccepted, r.status, "%s", r.body)
		job := r.json(t)["data"].(map[string]any)
		id := job["id"].(string)
		assert.Equal(t, "waiting", job["status"])
		assert.Equal(t, "org-a", job["orgId"])
		assert.Equal(t, "watermark.apply", job["type"])
		assert.IsType(t, "", job["inputs"], "inputs is JSON text")
		assert.JSONEq(t, `{"source":"https://cdn.example/video.mp4"}`, job["inputs"].(string))
		assert.IsType(t, "", job["params"])
		assert.IsType(t, 0.0, job["createdAt"], "epoch milliseconds as a number")
		assert.Greater(t, job["createdAt"].(float64), 1.7e12)
		for _, f := range []string{"apiTotalMs", "apiPrechecksMs", "apiValidationMs", "apiDbInsertMs", "apiDispatchMs"} {
			assert.IsType(t, 0.0, job[f], f)
		}
		assert.Equal(t, 0.0, job["retryCount"])
		assert.NotContains(t, job, "outputUrl")
		assert.NotContains(t, job, "errorCode")

		got := k.as(t, keyA, http.MethodGet, "/jobs/"+id, nil)
		require.Equal(t, http.StatusOK, got.status)
		assert.Equal(t, id, got.json(t)["data"].(map[string]any)["id"])

		// Newest first, paginated with totals.
		ids := []string{id}
		for i := 0; i < 4; i++ {
			body := watermarkJob()
			if i%2 == 0 {
				body = map[string]any{"type": "video.trim", "inputs": map[string]any{"source": "https://cdn.example/v.mp4"}, "params": map[string]any{"start": 1, "duration": 2}}
			}
			r := k.as(t, keyA, http.MethodPost, "/jobs", body)
			require.Equal(t, http.StatusAccepted, r.status, "%s", r.body)
			ids = append([]string{r.json(t)["data"].(map[string]any)["id"].(string)}, ids...)
		}
		r = k.as(t, keyA, http.MethodGet, "/jobs?limit=2&offset=2", nil)
		require.Equal(t, http.StatusOK, r.status, "%s", r.body)
		list := r.json(t)
		assert.Equal(t, map[string]any{"total": 5.0, "page": 2.0, "limit": 2.0}, list["meta"])
		data := list["data"].([]any)
		require.Len(t, data, 2)
		assert.Equal(t, ids[2], data[0].(map[string]any)["id"])
		assert.Equal(t, ids[3], data[1].(map[string]any)["id"])

		r = k.as(t, keyA, http.MethodGet, "/jobs?type=video.trim&status=waiting", nil)
		assert.Equal(t, 2.0, r.json(t)["meta"].(map[string]any)["total"])

		r = k.as(t, keyA, http.MethodPost, "/jobs/"+id+"/cancel", nil)
		require.Equal(t, http.StatusOK, r.status, "%s", r.body)
		assert.Equal(t, "cancelled", r.json(t)["data"].(map[string]any)["status"])
		r = k.as(t, keyA, http.MethodPost, "/jobs/"+id+"/cancel", nil)
		assert.Equal(t, http.StatusBadRequest, r.status)
		assert.Equal(t, "JOB_NOT_CANCELLABLE", r.errorCode(t))
		assert.Contains(t, string(r.body), "cancelled")
		r = k.as(t, keyA, http.MethodGet, "/jobs?status=cancelled", nil)
		assert.Equal(t, 1.0, r.json(t)["meta"].(map[string]any)["total"])

		// The watch stream of an ended job is its one record.
		r = k.as(t, keyA, http.MethodGet, "/jobs/"+id+"/events", nil)
		require.Equal(t, http.StatusOK, r.status, "%s", r.body)
		assert.Equal(t, 1, strings.Count(strings.TrimSpace(string(r.body)), "\n")+1)
		assert.Contains(t, string(r.body), `"cancelled"`)

		// Another organisation sees none of it.
		r = k.as(t, keyB, http.MethodGet, "/jobs/"+id, nil)
		assert.Equal(t, http.StatusNotFound, r.status)
		assert.Equal(t, "JOB_NOT_FOUND", r.errorCode(t))
		r = k.as(t, keyB, http.MethodPost, "/jobs/"+ids[0]+"/cancel", nil)
		assert.Equal(t, http.StatusNotFound, r.status)
		r = k.as(t, keyB, http.MethodGet, "/jobs/"+id+"/events", nil)
		assert.Equal(t, http.StatusNotFound, r.status)
		r = k.as(t, keyB, http.MethodGet, "/jobs", nil)
		assert.JSONEq(t, `{"data":[],"meta":{"total":0,"page":1,"limit":50}}`, string(r.body))
	})
}

func TestJobListParameterRules(t *testing.T) {
	t.Parallel()
	k := start(t, storetest.SQLite(t), nil)
	cases := map[string]string{
		"limit=abc": "limit", "limit=-1": "limit", "limit=1.5": "limit", "limit=101": "limit", "limit=0": "limit",
		"limit=%2B5": "limit", "limit=%205": "limit", "offset=x": "offset", "offset=-3": "offset", "offset=1e3": "offset",
		"status=done": "status", "status=WAITING": "status", "type=caption.translate": "type",
	}
	for q, param := range cases {
		r := k.do(t, http.MethodGet, "/jobs?"+q, nil)
		assert.Equal(t, http.StatusBadRequest, r.status, q)
		assert.Equal(t, "VALIDATION_ERROR", r.errorCode(t), q)
		assert.True(t, strings.HasPrefix(r.json(t)["error"].(map[string]any)["message"].(string), param+":"), "%s: %s", q, r.body)
	}
	for _, q := range []string{"limit=100", "limit=1", "offset=0", "offset=007", "status=complete", "type=caption.burn"} {
		r := k.do(t, http.MethodGet, "/jobs?"+q, nil)
		assert.Equal(t, http.StatusOK, r.status, "%s: %s", q, r.body)
	}
	r := k.do(t, http.MethodGet, "/jobs?limit=100", nil)
	assert.Equal(t, 100.0, r.json(t)["meta"].(map[string]any)["limit"])
}

func TestCreateJobValidation(t *testing.T) {
	t.Parallel()
	k := start(t, storetest.SQLite(t), nil)
	cases := []struct {
		name string
		body map[string]any
		want []string
	}{
		{"unknown type", map[string]any{"type": "video.explode"}, []string{"type: unknown job type"}},
		{"missing input", map[string]any{"type": "video.trim", "inputs": map[string]any{}, "params": map[string]any{"start": 0, "duration": 1}}, []string{"inputs.source: is required"}},
		{"unknown input", map[string]any{"type": "audio.extract", "inputs": map[string]any{"source": "https://x.example/v.mp4", "video": "https://x"}}, []string{"inputs.video: audio.extract has no input"}},
		{"input not a URL", map[string]any{"type": "audio.extract", "inputs": map[string]any{"source": "file:///etc/passwd"}}, []string{"inputs.source: must be an absolute http or https URL, or an asset id"}},
		{"unknown asset", map[string]any{"type": "audio.extract", "inputs": map[string]any{"source": "ast_0000"}}, []string{`inputs.source: no asset has the id "ast_0000"`}},
		{"bad params", map[string]any{"type": "video.trim", "inputs": map[string]any{"source": "https://x.example/v.mp4"}, "params": map[string]any{"start": -1, "speed": 2}},
			[]string{"params.start: must be between 0 and 86400", "params.duration: is required", "params.speed: unknown parameter"}},
		{"bad watermark", map[string]any{"type": "watermark.apply", "inputs": map[string]any{"source": "https://x.example/v.mp4"},
			"params": map[string]any{"watermarks": []any{map[string]any{"type": "image", "url": "https://x.example/l.png", "position": "middle"}}}},
			[]string{"params.watermarks[0].position: must be one of top-left, top-right, bottom-left, bottom-right, center"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := k.do(t, http.MethodPost, "/jobs", tc.body)
			assert.Equal(t, http.StatusBadRequest, r.status, "%s", r.body)
			assert.Equal(t, "VALIDATION_ERROR", r.errorCode(t))
			msg := r.json(t)["error"].(map[string]any)["message"].(string)
			for _, w := range tc.want {
				assert.Contains(t, msg, w)
			}
		})
	}
}

func TestPipelines(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		k := start(t, db, withKeys)

		r := k.as(t, keyA, http.MethodPost, "/pipelines", specPipeline())
		require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
		p := r.json(t)["data"].(map[string]any)
		id := p["id"].(string)
		assert.Equal(t, "org-a", p["orgId"])
		assert.IsType(t, 0.0, p["createdAt"])
		assert.Len(t, p["nodes"], 3)
		assert.Len(t, p["edges"], 3)
		assert.Equal(t, "captionsUrl", p["edges"].([]any)[0].(map[string]any)["outputMapping"].(map[string]any)["sourceField"])

		r = k.as(t, keyA, http.MethodGet, "/pipelines/"+id, nil)
		require.Equal(t, http.StatusOK, r.status)
		assert.Equal(t, p, r.json(t)["data"])
		r = k.as(t, keyA, http.MethodGet, "/pipelines", nil)
		assert.Equal(t, map[string]any{"total": 1.0, "page": 1.0, "limit": 50.0}, r.json(t)["meta"])

		r = k.as(t, keyB, http.MethodGet, "/pipelines/"+id, nil)
		assert.Equal(t, http.StatusNotFound, r.status)
		assert.Equal(t, "PIPELINE_NOT_FOUND", r.errorCode(t))
		r = k.as(t, keyB, http.MethodGet, "/pipelines", nil)
		assert.Equal(t, 0.0, r.json(t)["meta"].(map[string]any)["total"])
		assert.Equal(t, []any{}, r.json(t)["data"])

		// Every problem at once, each with its path.
		bad := specPipeline()
		nodes := bad["nodes"].([]any)
		nodes[1].(map[string]any)["jobType"] = "caption.translate"
		nodes[2].(map[string]any)["id"] = "extract"
		bad["edges"] = append(bad["edges"].([]any), map[string]any{"from": "burn", "to": "extract",
			"outputMapping": map[string]any{"sourceField": "outputUrl", "targetField": "source"}})
		r = k.as(t, keyA, http.MethodPost, "/pipelines", bad)
		require.Equal(t, http.StatusBadRequest, r.status, "%s", r.body)
		msg := r.json(t)["error"].(map[string]any)["message"].(string)
		for _, want := range []string{"nodes[1].jobType: unknown job type", "nodes[2].id:", "edges[2].to:"} {
			assert.Contains(t, msg, want)
		}

		cyclic := specPipeline()
		cyclic["edges"] = append(cyclic["edges"].([]any), map[string]any{"from": "brand", "to": "extract",
			"outputMapping": map[string]any{"sourceField": "outputUrl", "targetField": "source"}})
		r = k.as(t, keyA, http.MethodPost, "/pipelines", cyclic)
		assert.Equal(t, http.StatusBadRequest, r.status)
		assert.Contains(t, string(r.body), "extract -> burn -> brand -> extract")

		r = k.as(t, keyA, http.MethodGet, "/pipelines?limit=x", nil)
		assert.Equal(t, http.StatusBadRequest, r.status)
		assert.Equal(t, "VALIDATION_ERROR", r.errorCode(t))
	})
}

func TestRenderJobsAreScopedToTheOrganisation(t *testing.T) {
	t.Parallel()
	k := start(t, storetest.SQLite(t), func(c *app.Config) { withKeys(c); c.Workers = 0 })
	r := k.as(t, keyA, http.MethodPost, "/api/render", longComposition())
	require.Equal(t, http.StatusAccepted, r.status, "%s", r.body)
	id := r.json(t)["jobId"].(string)
	for _, m := range []string{http.MethodGet, http.MethodDelete} {
		r = k.as(t, keyB, m, "/api/render/"+id, nil)
		assert.Equal(t, http.StatusNotFound, r.status, m)
		assert.Equal(t, "JOB_NOT_FOUND", r.errorCode(t), m)
	}
	r = k.as(t, keyA, http.MethodGet, "/api/render/"+id, nil)
	assert.Equal(t, http.StatusOK, r.status)
	r = k.as(t, keyB, http.MethodGet, fmt.Sprintf("/api/render/%s/events", id), nil)
	assert.Equal(t, http.StatusNotFound, r.status)
}

// A font name that cannot reach libass is refused when the job or the
// pipeline is submitted, not when it runs.
func TestCaptionBurnFontIsCheckedAtSubmit(t *testing.T) {
	t.Parallel()
	k := start(t, storetest.SQLite(t), nil)
	for _, font := range []string{"Comic Sans'", "DejaVu Sans,Bold", "Serif;x", "Sans:style=Bold"} {
		r := k.do(t, http.MethodPost, "/jobs", map[string]any{"type": "caption.burn",
			"inputs": map[string]any{"source": "https://x.example/v.mp4", "subtitles": "https://x.example/s.vtt"},
			"params": map[string]any{"font": font}})
		assert.Equal(t, http.StatusBadRequest, r.status, "%q: %s", font, r.body)
		assert.Equal(t, "VALIDATION_ERROR", r.errorCode(t))
		assert.Contains(t, string(r.body), "params.font: ", font)

		p := specPipeline()
		p["nodes"].([]any)[1].(map[string]any)["params"] = map[string]any{"font": font}
		r = k.do(t, http.MethodPost, "/pipelines", p)
		assert.Equal(t, http.StatusBadRequest, r.status, "%q: %s", font, r.body)
		assert.Equal(t, "VALIDATION_ERROR", r.errorCode(t))
		assert.Contains(t, string(r.body), "nodes[1].params.font: ", font)
	}
	r := k.do(t, http.MethodPost, "/jobs", map[string]any{"type": "caption.burn",
		"inputs": map[string]any{"source": "https://x.example/v.mp4", "subtitles": "https://x.example/s.vtt"},
		"params": map[string]any{"font": "DejaVu Sans Mono"}})
	assert.Equal(t, http.StatusAccepted, r.status, "%s", r.body)
}
