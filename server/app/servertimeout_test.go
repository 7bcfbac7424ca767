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

// TestPreviewOutOfTimeIs503: a preview that runs out of its own time (its
// source never answers) is the node's slowness: 503 UNAVAILABLE with
// Retry-After, not 408 (the client was not slow) nor 500.
func TestPreviewOutOfTimeIs503(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	var once sync.Once
	t.Cleanup(func() { once.Do(func() { close(release) }) })
	stuck := serveDir(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	k := start(t, storetest.SQLite(t), func(c *app.Config) { c.Workers = 0; c.PreviewTimeout = 300 * time.Millisecond })
	r := k.do(t, http.MethodPost, "/api/render/preview", withFields(slideshow(stuck, 320, 180), "time", 0.2))
	require.Equal(t, http.StatusServiceUnavailable, r.status, "%s", r.body)
	assert.Equal(t, "UNAVAILABLE", r.errorCode(t))
	assert.NotEmpty(t, r.header.Get("Retry-After"))
	assert.Contains(t, string(r.body), "took longer than 300ms")
}
