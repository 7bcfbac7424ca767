package app_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/app"
	"github.com/kinohq/kino/server/store/storetest"
)

// demoTalk is the demo talk as the README and the examples name it.
const demoTalk = "http://localhost:8080/demo/talk.mp4"

// TestExamplesRunAnywhere: every file of examples/ and the README's
// requests complete on a kino that may not reach private networks and
// reaches nothing else either: their media are kino's own demo files,
// read in-process. A render file is submitted as written; a pipeline is
// created and run on the demo talk, as the README runs it.
func TestExamplesRunAnywhere(t *testing.T) {
	t.Parallel()
	k := start(t, storetest.SQLite(t), func(c *app.Config) {
		c.AllowPrivateNetworks = false
		c.Workers = 2
	})
	files, err := filepath.Glob("../../examples/*.json")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, path := range files {
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.NotContains(t, string(b), "example.com", "%s names media kino does not ship", path)
		var req map[string]any
		require.NoError(t, json.Unmarshal(b, &req), path)
		if _, ok := req["nodes"]; ok {
			r := k.do(t, http.MethodPost, "/pipelines", req)
			require.Equal(t, http.StatusCreated, r.status, "%s: %s", path, r.body)
			pid := r.json(t)["data"].(map[string]any)["id"].(string)
			r = k.do(t, http.MethodPost, "/pipelines/"+pid+"/runs", map[string]any{"inputs": map[string]any{
				"extract": map[string]any{"source": demoTalk}}})
			require.Equal(t, http.StatusAccepted, r.status, "%s: %s", path, r.body)
			run := k.waitRun(t, pid, r.json(t)["data"].(map[string]any)["id"].(string))
			assert.Equal(t, "complete", run["status"], "%s: %v", path, run)
			continue
		}
		id := k.submit(t, req)
		job := k.waitStatus(t, id, "completed", 2*time.Minute)
		if filepath.Base(path) == "demo.json" {
			previewMatchesRender(t, k, req, job)
		}
	}

	// The README's requests with a body (-d '…'), media jobs and renders.
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	assert.NotContains(t, string(readme), "https://example.com/talk.mp4")
	bodies := readmeRequests(t, string(readme))
	require.GreaterOrEqual(t, len(bodies), 3, "the README's requests")
	for _, rq := range bodies {
		r := k.do(t, http.MethodPost, rq.path, rq.body)
		switch rq.path {
		case "/api/render":
			require.Equal(t, http.StatusAccepted, r.status, "%s", r.body)
			k.waitStatus(t, r.json(t)["jobId"].(string), "completed", 2*time.Minute)
		case "/api/render/preview":
			require.Equal(t, http.StatusOK, r.status, "%s", r.body)
			assert.Equal(t, "image/jpeg", r.header.Get("Content-Type"))
		case "/jobs":
			require.Equal(t, http.StatusAccepted, r.status, "%s", r.body)
			j := k.waitJob(t, r.json(t)["data"].(map[string]any)["id"].(string))
			assert.Equal(t, "complete", j["status"], "%s: %v", rq.body, j)
		}
	}
}

// previewMatchesRender checks that the preview of the demo example at 5 s
// (the talk playing under its captions and the logo, music beneath) is
// the frame its render shows then: a video layer's frame, sought as a
// still's is.
func previewMatchesRender(t *testing.T, k *kino, req map[string]any, job map[string]any) {
	t.Helper()
	dir := t.TempDir()
	video := filepath.Join(dir, "demo.mp4")
	fetchBody(t, job["outputUrl"].(string), video)
	r := k.do(t, http.MethodPost, "/api/render/preview", withFields(req, "time", 5.0, "format", "png"))
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	pic := filepath.Join(dir, "preview.png")
	require.NoError(t, os.WriteFile(pic, r.body, 0o644))
	same := psnrAgainstFrame(t, video, 125, pic)
	t.Logf("demo.json at 5 s: preview against frame 125 of the MP4: luma PSNR %.1f dB", same)
	assert.GreaterOrEqual(t, same, 35.0, "the preview is the render's frame (less the MP4's losses)")
	assert.Less(t, psnrAgainstFrame(t, video, 40, pic), same-3, "and not another one")
}

// readmeRequest is a POST of the README with its JSON body.
type readmeRequest struct {
	path string
	body string
}

// readmeCurl finds the README's POSTs with a JSON body: the path, then
// the body between the quotes of -d '…', one line or many.
var readmeCurl = regexp.MustCompile(`(?s)curl -s -X POST localhost:8080(/api/render(?:/preview)?|/jobs) -H 'Content-Type: application/json'\s*(?:\\\s*)?-d '(\{.*?\})'`)

// readmeRequests are the README's render, preview and job requests whose
// bodies are whole (placeholders such as TEMPLATE_ID left out).
func readmeRequests(t *testing.T, readme string) []readmeRequest {
	var out []readmeRequest
	for _, m := range readmeCurl.FindAllStringSubmatch(readme, -1) {
		if strings.Contains(m[2], "_ID") {
			continue
		}
		require.True(t, json.Valid([]byte(m[2])), "a README body is JSON: %s", m[2])
		out = append(out, readmeRequest{path: m[1], body: m[2]})
	}
	return out
}
