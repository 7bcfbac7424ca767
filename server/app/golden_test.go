package app_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/store/storetest"
)

var update = flag.Bool("update", false, "rewrite the golden files")

var (
	uuidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	timeRE = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z`)
	portRE = regexp.MustCompile(`127\.0\.0\.1:\d+`)
	// Media ids, epoch milliseconds and measured durations.
	mediaIDRE = regexp.MustCompile(`(job|pl|ast)_[0-9a-f]{32}`)
	epochRE   = regexp.MustCompile(`\b1\d{12}\b`)
	msRE      = regexp.MustCompile(`("(?:api|exec)\w+Ms"|"queueWaitMs"|"consumerTotalMs"|"ms"):\d+`)
	// Signatures of signed URLs, and measured sizes.
	sigRE  = regexp.MustCompile(`(signature=)[A-Za-z0-9_-]+`)
	sizeRE = regexp.MustCompile(`("size"|\\"sizeBytes\\"|\\"ms\\"):\d+`)
	// What a job's processes cost: measured CPU time.
	costRE = regexp.MustCompile(`("infraCost"|"margin"):[0-9.e-]+`)
)

// TestGoldenResponses pins one response of each kind byte for byte (ids,
// times and ports normalised, white space compacted), so that a change of marshaller options
// cannot silently change what clients receive.
func TestGoldenResponses(t *testing.T) {
	t.Parallel()
	media := serveMedia(t)
	k := start(t, storetest.SQLite(t), nil)

	bodies := map[string][]byte{}
	r := k.do(t, http.MethodPost, "/api/render", smallComposition(media))
	require.Equal(t, http.StatusAccepted, r.status)
	bodies["submit"] = r.body
	id := r.json(t)["jobId"].(string)
	k.waitStatus(t, id, "completed", 60*time.Second)
	bodies["completed"] = k.do(t, http.MethodGet, "/api/render/"+id, nil).body

	queued := k.submit(t, longComposition())
	bodies["cancel"] = k.do(t, http.MethodDelete, "/api/render/"+queued, nil).body
	bodies["not-cancellable"] = k.do(t, http.MethodDelete, "/api/render/"+queued, nil).body
	bodies["not-found"] = k.do(t, http.MethodGet, "/api/render/"+"00000000-0000-0000-0000-000000000000", nil).body
	bodies["job"] = k.do(t, http.MethodPost, "/jobs", watermarkJob()).body
	bodies["pipeline"] = k.do(t, http.MethodPost, "/pipelines", specPipeline()).body
	bodies["jobs-empty"] = k.do(t, http.MethodGet, "/jobs?status=failed", nil).body
	// A complete job and a failed one: the output and error objects
	// beside the flat fields.
	done := k.createJob(t, map[string]any{"type": "image.resize", "inputs": map[string]any{"source": media.URL + "/image.png"},
		"params": map[string]any{"width": 32}})
	require.Equal(t, "complete", k.waitJob(t, done)["status"])
	bodies["job-complete"] = k.do(t, http.MethodGet, "/jobs/"+done, nil).body
	broken := k.createJob(t, map[string]any{"type": "image.resize", "inputs": map[string]any{"source": media.URL + "/missing.png"},
		"params": map[string]any{"width": 32}})
	require.Equal(t, "failed", k.waitJob(t, broken)["status"])
	bodies["job-failed"] = k.do(t, http.MethodGet, "/jobs/"+broken, nil).body

	for name, body := range bodies {
		// protojson adds a random space here and there on purpose, so
		// that nobody relies on its bytes; compacting removes only that.
		var compact bytes.Buffer
		require.NoError(t, json.Compact(&compact, body))
		body = compact.Bytes()
		got := portRE.ReplaceAll(timeRE.ReplaceAll(uuidRE.ReplaceAll(body, []byte("<id>")), []byte("<time>")), []byte("127.0.0.1:<port>"))
		got = msRE.ReplaceAll(epochRE.ReplaceAll(mediaIDRE.ReplaceAll(got, []byte("${1}_<id>")), []byte("<epoch-ms>")), []byte("${1}:<ms>"))
		got = sizeRE.ReplaceAll(sigRE.ReplaceAll(got, []byte("${1}<sig>")), []byte("${1}:<n>"))
		got = costRE.ReplaceAll(got, []byte("${1}:<usd>"))
		path := filepath.Join("testdata", name+".golden.json")
		if *update {
			require.NoError(t, os.WriteFile(path, got, 0o644))
			continue
		}
		want, err := os.ReadFile(path)
		require.NoError(t, err, "run go test ./server/app -run Golden -update")
		assert.Equal(t, string(want), string(got), name)
	}
}
