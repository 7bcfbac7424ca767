package app_test

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/app"
	"github.com/kinohq/kino/server/store/storetest"
)

// flakyFiles serves the test media, answering status to the first request
// of each path and query (to every one, for a 404), and counts them.
func flakyFiles(t *testing.T, media *mediaServer, status int) (string, func(path string) int) {
	var mu sync.Mutex
	hits := map[string]int{}
	files := http.FileServer(http.Dir(media.dir))
	url := serveDir(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits[r.URL.RequestURI()]++
		n := hits[r.URL.RequestURI()]
		mu.Unlock()
		if n == 1 || status == http.StatusNotFound {
			http.Error(w, http.StatusText(status), status)
			return
		}
		files.ServeHTTP(w, r)
	}))
	return url, func(path string) int {
		mu.Lock()
		defer mu.Unlock()
		return hits[path]
	}
}

// TestSourceThatFailsOnceIsRetried: a render whose picture answers 503
// once completes on its next attempt, as a split render's part and a
// media job with the same source do: both retry what may mend. A 404 is the caller's, and
// fails both for good with ASSET_FETCH_FAILED.
func TestSourceThatFailsOnceIsRetried(t *testing.T) {
	t.Parallel()
	media := serveMedia(t)
	db := storetest.SQLite(t)
	k := start(t, db, func(c *app.Config) { c.JobRetryDelay = 10 * time.Millisecond })

	flaky, hits := flakyFiles(t, media, http.StatusServiceUnavailable)
	body := smallComposition(media)
	body["assetUrls"].(map[string]any)["logo"] = flaky + "/image.png"
	job := k.waitStatus(t, k.submit(t, body), "completed", 60*time.Second)
	assert.NotEmpty(t, job["outputUrl"])
	assert.Equal(t, 2, hits("/image.png"), "the picture was fetched again on the next attempt")

	// A part of a split render is an attempt like any other.
	body = smallComposition(media)
	body["assetUrls"].(map[string]any)["logo"] = flaky + "/image.png?split"
	body["split"] = map[string]any{"part": 1}
	id := k.submit(t, body)
	job = k.waitStatus(t, id, "completed", 60*time.Second)
	assert.NotEmpty(t, job["outputUrl"])
	assert.NotEmpty(t, partsOf(t, db, id), "split")
	assert.GreaterOrEqual(t, hits("/image.png?split"), 2)

	j := k.waitJob(t, k.createJob(t, map[string]any{"type": "image.resize", "inputs": map[string]any{"source": flaky + "/image.png?media"},
		"params": map[string]any{"width": 16}}))
	require.Equal(t, "complete", j["status"], "%v", j)
	assert.Equal(t, 1.0, j["retryCount"])
	assert.Equal(t, 2, hits("/image.png?media"))

	gone, goneHits := flakyFiles(t, media, http.StatusNotFound)
	body = smallComposition(media)
	body["assetUrls"].(map[string]any)["logo"] = gone + "/image.png"
	job = k.waitStatus(t, k.submit(t, body), "failed", 60*time.Second)
	assert.Equal(t, "ASSET_FETCH_FAILED", job["error"].(map[string]any)["code"])
	assert.Equal(t, 1, goneHits("/image.png"), "a 404 is not tried again")

	j = k.waitJob(t, k.createJob(t, map[string]any{"type": "image.resize", "inputs": map[string]any{"source": gone + "/image.png"},
		"params": map[string]any{"width": 16}}))
	assert.Equal(t, "failed", j["status"])
	assert.Equal(t, "ASSET_FETCH_FAILED", j["errorCode"])
	assert.Equal(t, 0.0, j["retryCount"])
	assert.Equal(t, 2, goneHits("/image.png"), "one request by the render, one by the media job")
}
