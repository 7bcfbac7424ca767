package app_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/app"
	"github.com/kinohq/kino/server/store/storetest"
)

// apiOnly runs no workers, so that jobs stay as they were created.
func apiOnly(c *app.Config) {
	withKeys(c)
	c.Workers = 0
}

// concurrently sends n copies of one request at once and returns the answers.
func (k *kino) concurrently(t *testing.T, n int, method, path string, body any, header ...string) []response {
	t.Helper()
	out := make([]response, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			out[i] = k.do(t, method, path, body, header...)
		}()
	}
	close(start)
	wg.Wait()
	return out
}

func dataID(t *testing.T, r response) string {
	t.Helper()
	id, _ := r.json(t)["data"].(map[string]any)["id"].(string)
	require.NotEmpty(t, id, "%s", r.body)
	return id
}

func TestCreateJobIdempotencyKey(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		k := start(t, db, apiOnly)
		key := func(org, v string) []string { return append(bearer(org), "Idempotency-Key", v) }

		first := k.do(t, http.MethodPost, "/jobs", watermarkJob(), key(keyA, "order-42")...)
		require.Equal(t, http.StatusAccepted, first.status, "%s", first.body)
		again := k.do(t, http.MethodPost, "/jobs", watermarkJob(), key(keyA, "order-42")...)
		require.Equal(t, http.StatusAccepted, again.status, "%s", again.body)
		assert.Equal(t, dataID(t, first), dataID(t, again), "a repeat returns the first job")

		other := watermarkJob()
		other["inputs"] = map[string]any{"source": "https://cdn.example/other.mp4"}
		r := k.do(t, http.MethodPost, "/jobs", other, key(keyA, "order-42")...)
		assert.Equal(t, http.StatusUnprocessableEntity, r.status, "%s", r.body)
		assert.Equal(t, "IDEMPOTENCY_KEY_REUSED", r.errorCode(t))

		r = k.do(t, http.MethodPost, "/jobs", watermarkJob(), key(keyA, strings.Repeat("k", 256))...)
		assert.Equal(t, http.StatusBadRequest, r.status, "%s", r.body)
		assert.Equal(t, "VALIDATION_ERROR", r.errorCode(t))
		assert.Contains(t, string(r.body), "Idempotency-Key")

		// Keys are per organisation.
		b := k.do(t, http.MethodPost, "/jobs", watermarkJob(), key(keyB, "order-42")...)
		require.Equal(t, http.StatusAccepted, b.status, "%s", b.body)
		assert.NotEqual(t, dataID(t, first), dataID(t, b))

		// Eight submits at once with one key make one job.
		rs := k.concurrently(t, 8, http.MethodPost, "/jobs", watermarkJob(), key(keyA, "burst")...)
		ids := map[string]bool{}
		for _, r := range rs {
			require.Equal(t, http.StatusAccepted, r.status, "%s", r.body)
			ids[dataID(t, r)] = true
		}
		assert.Len(t, ids, 1, "one job for one key")
		list := k.as(t, keyA, http.MethodGet, "/jobs", nil)
		assert.Equal(t, 2.0, list.json(t)["meta"].(map[string]any)["total"], "order-42 and burst: %s", list.body)
	})
}

// TestCreateJobIdempotencyKeyInBody: Rendobar's clients send the key as
// idempotencyKey in the job's body; it works as the header does, with the
// header or without, and a body key that differs from the header is a 400.
func TestCreateJobIdempotencyKeyInBody(t *testing.T) {
	t.Parallel()
	k := start(t, storetest.SQLite(t), apiOnly)
	withKey := func(v string) map[string]any {
		j := watermarkJob()
		j["idempotencyKey"] = v
		return j
	}
	first := k.as(t, keyA, http.MethodPost, "/jobs", withKey("order-7"))
	require.Equal(t, http.StatusAccepted, first.status, "%s", first.body)
	again := k.as(t, keyA, http.MethodPost, "/jobs", withKey("order-7"))
	require.Equal(t, http.StatusAccepted, again.status, "%s", again.body)
	assert.Equal(t, dataID(t, first), dataID(t, again), "a repeat returns the first job")
	header := k.do(t, http.MethodPost, "/jobs", watermarkJob(), append(bearer(keyA), "Idempotency-Key", "order-7")...)
	require.Equal(t, http.StatusAccepted, header.status, "%s", header.body)
	assert.Equal(t, dataID(t, first), dataID(t, header), "the header and the body name one key")
	both := k.do(t, http.MethodPost, "/jobs", withKey("order-7"), append(bearer(keyA), "Idempotency-Key", "order-7")...)
	require.Equal(t, http.StatusAccepted, both.status, "%s", both.body)
	assert.Equal(t, dataID(t, first), dataID(t, both))

	r := k.do(t, http.MethodPost, "/jobs", withKey("order-8"), append(bearer(keyA), "Idempotency-Key", "order-9")...)
	assert.Equal(t, http.StatusBadRequest, r.status, "%s", r.body)
	assert.Equal(t, "VALIDATION_ERROR", r.errorCode(t))
	assert.Contains(t, string(r.body), "idempotencyKey")
	r = k.as(t, keyA, http.MethodPost, "/jobs", withKey(" "))
	assert.Equal(t, http.StatusBadRequest, r.status, "%s", r.body)
	list := k.as(t, keyA, http.MethodGet, "/jobs", nil)
	assert.Equal(t, 1.0, list.json(t)["meta"].(map[string]any)["total"], "%s", list.body)
}

func TestRunPipelineIdempotencyKey(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		k := start(t, db, apiOnly)
		r := k.as(t, keyA, http.MethodPost, "/pipelines", specPipeline())
		require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
		runs := "/pipelines/" + dataID(t, r) + "/runs"
		inputs := func(src string) map[string]any {
			return map[string]any{"inputs": map[string]any{"extract": map[string]any{"source": src}}}
		}
		key := func(v string) []string { return append(bearer(keyA), "Idempotency-Key", v) }

		first := k.do(t, http.MethodPost, runs, inputs("https://cdn.example/a.mp4"), key("run-1")...)
		require.Equal(t, http.StatusAccepted, first.status, "%s", first.body)
		again := k.do(t, http.MethodPost, runs, inputs("https://cdn.example/a.mp4"), key("run-1")...)
		require.Equal(t, http.StatusAccepted, again.status, "%s", again.body)
		assert.Equal(t, dataID(t, first), dataID(t, again), "a repeat returns the first run")
		assert.Len(t, again.json(t)["data"].(map[string]any)["jobs"], 3)

		r = k.do(t, http.MethodPost, runs, inputs("https://cdn.example/b.mp4"), key("run-1")...)
		assert.Equal(t, http.StatusUnprocessableEntity, r.status, "%s", r.body)
		assert.Equal(t, "IDEMPOTENCY_KEY_REUSED", r.errorCode(t))
		// A key that made a run is not a key for a job.
		r = k.do(t, http.MethodPost, "/jobs", watermarkJob(), key("run-1")...)
		assert.Equal(t, http.StatusUnprocessableEntity, r.status, "%s", r.body)

		rs := k.concurrently(t, 8, http.MethodPost, runs, inputs("https://cdn.example/c.mp4"), key("run-burst")...)
		ids := map[string]bool{}
		for _, r := range rs {
			require.Equal(t, http.StatusAccepted, r.status, "%s", r.body)
			ids[dataID(t, r)] = true
		}
		assert.Len(t, ids, 1, "one run for one key")
		list := k.as(t, keyA, http.MethodGet, runs, nil)
		assert.Equal(t, 2.0, list.json(t)["meta"].(map[string]any)["total"], "run-1 and run-burst: %s", list.body)
		jobs := k.as(t, keyA, http.MethodGet, "/jobs", nil)
		assert.Equal(t, 6.0, jobs.json(t)["meta"].(map[string]any)["total"], "three jobs a run")
	})
}
