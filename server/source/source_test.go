package source_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	entasset "github.com/kinohq/kino/ent/asset"
	"github.com/kinohq/kino/server/fetch"
	"github.com/kinohq/kino/server/ident"
	"github.com/kinohq/kino/server/source"
	"github.com/kinohq/kino/server/sourcecache"
	"github.com/kinohq/kino/server/storage"
	"github.com/kinohq/kino/server/store"
)

type bundle struct {
	ctx     context.Context
	dir     string
	st      *store.Store
	bucket  *storage.Storage
	asked   *atomic.Int32
	host    *httptest.Server
	now     time.Time
	sources *source.Resolver
}

// setup makes a resolver over a local bucket served at 127.0.0.1:1, where
// nothing answers (a file read from it was read in-process), and a host
// on loopback that counts the requests it answers.
func setup(t *testing.T) *bundle {
	t.Helper()
	b := &bundle{ctx: context.Background(), dir: t.TempDir(), asked: new(atomic.Int32), now: time.Now()}
	var err error
	b.st, err = store.Open(b.ctx, "sqlite://"+filepath.Join(b.dir, "kino.db"))
	require.NoError(t, err)
	t.Cleanup(func() { b.st.Close() })
	b.bucket, err = storage.Open(b.ctx, "", b.dir, "http://127.0.0.1:1")
	require.NoError(t, err)
	b.bucket.SignURLs([]byte("secret"), time.Hour, true)
	b.host = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b.asked.Add(1)
		w.Header().Set("ETag", `"v1"`)
		_, _ = w.Write([]byte("from the host"))
	}))
	t.Cleanup(b.host.Close)
	fc := fetch.New(fetch.Options{AllowPrivate: true})
	cache, err := sourcecache.New(filepath.Join(b.dir, "cache"), 1<<20, fc)
	require.NoError(t, err)
	b.sources = source.New(source.Config{Store: b.st, Storage: b.bucket, Fetch: fc, Cache: cache, Now: func() time.Time { return b.now }})
	return b
}

func (b *bundle) get(t *testing.T, ref source.Ref) (string, error) {
	t.Helper()
	path := filepath.Join(b.dir, ident.New("got"))
	if _, err := b.sources.Get(b.ctx, ref, path); err != nil {
		return "", err
	}
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(data), nil
}

// TestGetReadsKinosOwnFilesInProcess: an asset, a stored key of the
// organisation's jobs and the URL of one of its outputs are read from
// storage; another organisation's asset is not.
func TestGetReadsKinosOwnFilesInProcess(t *testing.T) {
	t.Parallel()
	b := setup(t)
	require.NoError(t, b.bucket.Write(b.ctx, "jobs/org-a/job_1/output.mp4", []byte("an output"), "video/mp4"))
	id := ident.New(ident.Asset)
	require.NoError(t, b.bucket.Write(b.ctx, "assets/org-a/a.png", []byte("an asset"), "image/png"))
	_, err := b.st.Asset.Create().SetID(id).SetOrgID("org-a").SetType(entasset.TypeImage).SetName("a").SetFilename("a.png").
		SetStorageKey("assets/org-a/a.png").SetFileSize(8).SetScope(entasset.ScopeOrg).SetStatus(entasset.StatusReady).
		SetCreatedAt(1).SetUpdatedAt(1).Save(b.ctx)
	require.NoError(t, err)

	got, err := b.get(t, source.Ref{Org: "org-a", URL: id})
	require.NoError(t, err)
	assert.Equal(t, "an asset", got)
	_, err = b.get(t, source.Ref{Org: "org-b", URL: id})
	assert.EqualError(t, err, "asset "+id+" no longer exists")

	got, err = b.get(t, source.Ref{Org: "org-a", URL: "https://x.test/given", Key: "jobs/org-a/job_1/output.mp4"})
	require.NoError(t, err)
	assert.Equal(t, "an output", got, "an input a parent fed is read by its key")

	u, err := b.bucket.URL(b.ctx, "jobs/org-a/job_1/output.mp4")
	require.NoError(t, err)
	got, err = b.get(t, source.Ref{Org: "org-a", URL: u})
	require.NoError(t, err)
	assert.Equal(t, "an output", got)
	_, err = b.get(t, source.Ref{Org: "org-b", URL: u})
	assert.Error(t, err, "another organisation's output is an ordinary download, from where nothing answers")
	assert.Zero(t, b.asked.Load())
}

// TestGetRefusesAnExpiredUpload: an upload's URL is read in-process while
// it is valid, and once expired is an error, not a download.
func TestGetRefusesAnExpiredUpload(t *testing.T) {
	t.Parallel()
	b := setup(t)
	key := storage.UploadsPrefix + "org-a/upl_1/clip.mp4"
	require.NoError(t, b.bucket.Write(b.ctx, key, []byte("an upload"), "video/mp4"))
	u, err := b.bucket.URL(b.ctx, key)
	require.NoError(t, err)
	got, err := b.get(t, source.Ref{Org: "org-a", URL: u})
	require.NoError(t, err)
	assert.Equal(t, "an upload", got)
	b.now = b.now.Add(2 * time.Hour)
	_, err = b.get(t, source.Ref{Org: "org-a", URL: u})
	assert.ErrorIs(t, err, source.ErrExpired)
}

// TestGetDownloadsThroughTheCacheInAScope: other URLs are downloaded, once
// for every request of a scope; without a scope, every time.
func TestGetDownloadsThroughTheCacheInAScope(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for range 3 {
		got, err := b.get(t, source.Ref{Org: "org-a", URL: b.host.URL + "/clip.mp4", Scope: "render-1"})
		require.NoError(t, err)
		assert.Equal(t, "from the host", got)
	}
	assert.EqualValues(t, 1, b.asked.Load(), "the parts of one render share one download")
	for range 2 {
		_, err := b.get(t, source.Ref{Org: "org-a", URL: b.host.URL + "/clip.mp4"})
		require.NoError(t, err)
	}
	assert.EqualValues(t, 3, b.asked.Load(), "a media job downloads afresh")
}
