package sourcecache_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/fetch"
	"github.com/kinohq/kino/server/sourcecache"
)

// origin serves /a (with an ETag) and /b (none), 1 KiB each, holding
// every full answer until release is closed, and counts the requests and
// the full answers.
type origin struct {
	*httptest.Server
	requests, downloads atomic.Int32
	release             chan struct{}
	etag                atomic.Value
}

func newOrigin(t *testing.T) *origin {
	o := &origin{release: make(chan struct{})}
	o.etag.Store(`"v1"`)
	o.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o.requests.Add(1)
		if r.URL.Path == "/a" {
			tag := o.etag.Load().(string)
			if r.Header.Get("If-None-Match") == tag {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			w.Header().Set("ETag", tag)
		}
		<-o.release
		o.downloads.Add(1)
		_, _ = w.Write([]byte(strings.Repeat("x", 1024)))
	}))
	t.Cleanup(o.Close)
	return o
}

func newCache(t *testing.T, maxBytes int64) *sourcecache.Cache {
	c, err := sourcecache.New(filepath.Join(t.TempDir(), "cache"), maxBytes, fetch.New(fetch.Options{AllowPrivate: true}))
	require.NoError(t, err)
	return c
}

func TestConcurrentRequestsOfOneScopeShareOneDownload(t *testing.T) {
	t.Parallel()
	o := newOrigin(t)
	c := newCache(t, 1<<20)
	dir := t.TempDir()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			n, err := c.Download(context.Background(), "render-1", o.URL+"/b", filepath.Join(dir, string(rune('0'+i))))
			assert.NoError(t, err)
			assert.EqualValues(t, 1024, n)
		})
	}
	close(o.release)
	wg.Wait()
	assert.EqualValues(t, 1, o.requests.Load())
	for i := range 8 {
		b, err := os.ReadFile(filepath.Join(dir, string(rune('0'+i))))
		require.NoError(t, err)
		assert.Len(t, b, 1024)
	}
}

func TestAnotherScopeRevalidates(t *testing.T) {
	t.Parallel()
	o := newOrigin(t)
	close(o.release)
	c := newCache(t, 1<<20)
	dir := t.TempDir()
	get := func(scope, path string) {
		_, err := c.Download(context.Background(), scope, o.URL+path, filepath.Join(dir, "f"))
		require.NoError(t, err)
	}
	get("r1", "/a")
	get("r2", "/a") // 304
	assert.EqualValues(t, 2, o.requests.Load())
	assert.EqualValues(t, 1, o.downloads.Load())
	o.etag.Store(`"v2"`)
	get("r3", "/a") // changed
	assert.EqualValues(t, 2, o.downloads.Load())
	get("r3", "/a") // seen by r3
	assert.EqualValues(t, 3, o.requests.Load())

	get("r1", "/b")
	get("r2", "/b") // no validators: downloaded again
	assert.EqualValues(t, 4, o.downloads.Load())
}

func TestCacheIsBounded(t *testing.T) {
	t.Parallel()
	o := newOrigin(t)
	close(o.release)
	c := newCache(t, 1500) // holds one file of 1 KiB
	dir := t.TempDir()
	for _, path := range []string{"/a", "/b", "/a"} {
		_, err := c.Download(context.Background(), "r1", o.URL+path, filepath.Join(dir, strings.Trim(path, "/")))
		require.NoError(t, err)
	}
	assert.EqualValues(t, 3, o.downloads.Load(), "/a was evicted by /b")
}
