package app_test

import (
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/ent/job"
	"github.com/kinohq/kino/server/app"
	"github.com/kinohq/kino/server/render"
	"github.com/kinohq/kino/server/storage/s3test"
	"github.com/kinohq/kino/server/store/storetest"
)

// TestCancelOfASplitRenderDoesNotWaitForItsPartsRemoval: removing a split
// render's parts from storage (up to a minute) happens after the cancel
// is answered, not inside the DELETE request: here the bucket holds every
// delete until the test lets it go, and the DELETE is answered meanwhile.
func TestCancelOfASplitRenderDoesNotWaitForItsPartsRemoval(t *testing.T) {
	t.Parallel()
	if !s3test.Available() {
		t.Skip("versitygw is not installed")
	}
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	target, err := url.Parse(srv.Endpoint)
	require.NoError(t, err)
	proxy := httputil.NewSingleHostReverseProxy(target)
	held, release := make(chan struct{}, 1), make(chan struct{})
	var once sync.Once
	t.Cleanup(func() { once.Do(func() { close(release) }) })
	front := serveDir(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodDelete || (r.Method == http.MethodPost && r.URL.Query().Has("delete")) {
			select {
			case held <- struct{}{}:
			default:
			}
			select {
			case <-release:
			case <-r.Context().Done():
				return
			}
		}
		proxy.ServeHTTP(w, r)
	}))
	db := storetest.SQLite(t)
	k := start(t, db, func(c *app.Config) {
		c.StorageURL = strings.Replace(bucket, url.QueryEscape(srv.Endpoint), url.QueryEscape(front), 1)
		c.Workers = 2
		c.Split = render.SplitConfig{After: time.Second, Part: 2 * time.Second}
	})
	id := k.submit(t, longComposition())
	require.Eventually(t, func() bool {
		for _, p := range partsOf(t, db, id) {
			if p.State == job.StateCompleted {
				return true
			}
		}
		return false
	}, 120*time.Second, 50*time.Millisecond, "a part is stored")

	answered := make(chan response, 1)
	go func() { answered <- k.do(t, http.MethodDelete, "/api/render/"+id, nil) }()
	var r response
	select {
	case r = <-answered:
	case <-time.After(30 * time.Second):
		t.Fatal("the DELETE waits for the parts' removal")
	}
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	assert.Equal(t, "cancelled", r.json(t)["status"])
	<-held // the removal runs, in the background
	once.Do(func() { close(release) })
}
