package app_test

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/store/storetest"
)

// countingFiles serves the test media on 127.0.0.1 and counts, by path,
// the requests and the full downloads (200 answers) of each file.
type countingFiles struct {
	mu        sync.Mutex
	requests  map[string]int
	downloads map[string]int
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}

func serveCounted(t *testing.T) (*mediaServer, *countingFiles) {
	t.Helper()
	dir := testMedia(t)
	c := &countingFiles{requests: map[string]int{}, downloads: map[string]int{}}
	files := http.FileServer(http.Dir(dir))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		files.ServeHTTP(rec, r)
		c.mu.Lock()
		defer c.mu.Unlock()
		c.requests[r.URL.Path]++
		if rec.status == http.StatusOK {
			c.downloads[r.URL.Path]++
		}
	}))
	t.Cleanup(srv.Close)
	return &mediaServer{Server: srv, dir: dir}, c
}

func (c *countingFiles) counts() (requests, downloads map[string]int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	requests, downloads = map[string]int{}, map[string]int{}
	for k, v := range c.requests {
		requests[k] = v
	}
	for k, v := range c.downloads {
		downloads[k] = v
	}
	return requests, downloads
}

// The parts of a split render on one node share one download of each
// source: the clip, shown by all three parts and heard in the sound part,
// was downloaded four times, once a part.
func TestSplitPartsOnOneNodeDownloadEachSourceOnce(t *testing.T) {
	t.Parallel()
	media, files := serveCounted(t)
	k := start(t, storetest.SQLite(t), splitEverySecond)

	id := k.submit(t, unhooked(splitComposition(media, "")))
	k.waitStatus(t, id, "completed", 60*time.Second)
	requests, downloads := files.counts()
	want := map[string]int{"/clip.mp4": 1, "/image.png": 1, "/tone.wav": 1}
	assert.Equal(t, want, requests, "one request a source for the whole render")
	assert.Equal(t, want, downloads)

	// Another render asks the host whether each file changed, and
	// downloads none again.
	id = k.submit(t, unhooked(splitComposition(media, "")))
	k.waitStatus(t, id, "completed", 60*time.Second)
	requests, downloads = files.counts()
	assert.Equal(t, want, downloads, "the second render downloads nothing again")
	for path, n := range requests {
		require.Equal(t, 2, n, "%s: one conditional request of the second render", path)
	}
}

// unhooked is a render request without its webhook.
func unhooked(req map[string]any) map[string]any {
	delete(req, "webhook")
	return req
}
