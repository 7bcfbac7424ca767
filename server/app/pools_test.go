package app_test

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"

	renderv1 "github.com/kinohq/kino/gen/kino/render/v1"
	"github.com/kinohq/kino/server/app"
	"github.com/kinohq/kino/server/org"
	"github.com/kinohq/kino/server/store/storetest"
)

// TestPreviewSlotsAreSharedBetweenOrganisations: organisation A fills
// both preview slots with previews whose sources do not answer; B's
// preview is drawn all the same (its share of the slots is lent at once),
// while A's next one waits for A's own and is refused 503.
func TestPreviewSlotsAreSharedBetweenOrganisations(t *testing.T) {
	t.Parallel()
	media, asked, open := heldSlides(t)
	k := start(t, storetest.SQLite(t), func(c *app.Config) {
		withKeys(c)
		c.MaxPreviews = 2
	})
	preview := func(base string) map[string]any { return withFields(slideshow(base, 320, 180), "time", 0.2) }

	held := make(chan response, 2)
	for _, h := range []string{"/held1", "/held2"} {
		go func() { held <- k.as(t, keyA, http.MethodPost, "/api/render/preview", preview(media+h)) }()
	}
	<-asked
	<-asked // both slots are A's, each waiting on its source

	r := k.as(t, keyB, http.MethodPost, "/api/render/preview", preview(media))
	require.Equal(t, http.StatusOK, r.status, "B's preview beside A's two: %s", r.body)
	assert.Equal(t, "image/jpeg", r.header.Get("Content-Type"))
	comp, err := structpb.NewStruct(preview(media)["composition"].(map[string]any))
	require.NoError(t, err)
	at := 0.2
	got, err := k.rpc.PreviewRender(metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+keyB),
		&renderv1.PreviewRenderRequest{Provider: "provider_a", Composition: comp, Time: &at})
	require.NoError(t, err, "B's preview over gRPC beside A's two")
	assert.Equal(t, "image/jpeg", got.GetContentType())

	r = k.as(t, keyA, http.MethodPost, "/api/render/preview", preview(media))
	assert.Equal(t, http.StatusServiceUnavailable, r.status, "A's third: %s", r.body)
	assert.Equal(t, "TOO_MANY_PREVIEWS", r.errorCode(t))
	assert.Contains(t, string(r.body), "2 of them your organisation's")

	open()
	for range 2 {
		r := <-held
		assert.Equal(t, http.StatusOK, r.status, "%s", r.body)
	}
}

// heldSlides serves the slides; under /heldN/ each request waits, once
// announced on asked, until open is called.
func heldSlides(t *testing.T) (base string, asked <-chan string, open func()) {
	t.Helper()
	files := http.FileServer(http.Dir(slides(t)))
	ask, release := make(chan string, 4), make(chan struct{})
	base = serveDir(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if held, rest, ok := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/"); ok && strings.HasPrefix(held, "held") {
			ask <- held
			<-release
			r.URL.Path = "/" + rest
		}
		files.ServeHTTP(w, r)
	}))
	var once sync.Once
	open = func() { once.Do(func() { close(release) }) }
	t.Cleanup(open) // before the file server closes, should the test stop early
	return base, ask, open
}

// TestPreviewsKeepTheOrganisationsCap: an organisation whose maxRunning
// (--orgs-file) is 1 draws one preview at a time on a node, though a slot
// is free: its second is refused naming the cap, while another's is drawn.
func TestPreviewsKeepTheOrganisationsCap(t *testing.T) {
	t.Parallel()
	media, asked, open := heldSlides(t)
	k := start(t, storetest.SQLite(t), func(c *app.Config) {
		withKeys(c)
		c.MaxPreviews = 2
		c.Orgs = org.New(org.Policy{Weight: 1}, map[string]org.Policy{"org-a": {Weight: 1, MaxRunning: 1}})
	})
	preview := func(base string) map[string]any { return withFields(slideshow(base, 320, 180), "time", 0.2) }
	held := make(chan response, 1)
	go func() { held <- k.as(t, keyA, http.MethodPost, "/api/render/preview", preview(media+"/held1")) }()
	<-asked

	r := k.as(t, keyA, http.MethodPost, "/api/render/preview", preview(media))
	assert.Equal(t, http.StatusServiceUnavailable, r.status, "A's second: %s", r.body)
	assert.Equal(t, "TOO_MANY_PREVIEWS", r.errorCode(t))
	assert.Contains(t, string(r.body), "its cap (maxRunning)")
	r = k.as(t, keyB, http.MethodPost, "/api/render/preview", preview(media))
	assert.Equal(t, http.StatusOK, r.status, "B's: %s", r.body)

	open()
	r = <-held
	assert.Equal(t, http.StatusOK, r.status, "%s", r.body)
}

// TestUploadWorkersAreSharedBetweenOrganisations: with both upload workers
// held by organisation A, B's picture is decoded at once and stored
// ready; A's own next upload waits for one of A's workers and is decoded
// when it is freed.
func TestUploadWorkersAreSharedBetweenOrganisations(t *testing.T) {
	t.Parallel()
	k := start(t, storetest.SQLite(t), func(c *app.Config) {
		withKeys(c)
		c.UploadWorkers = 2
	})
	png, err := os.ReadFile(filepath.Join(testMedia(t), "image.png"))
	require.NoError(t, err)
	pool := k.app.UploadPool()
	var held []func()
	for range 2 {
		rel, err := pool.TryAcquire("org-a")
		require.NoError(t, err)
		held = append(held, rel)
	}
	t.Cleanup(func() {
		for _, rel := range held {
			rel()
		}
	})

	r := k.upload(t, keyB, [][2]string{{"type", "image"}}, "b.png", png)
	require.Equal(t, http.StatusCreated, r.status, "B's upload beside A's two: %s", r.body)
	assert.Equal(t, "ready", r.json(t)["data"].(map[string]any)["status"])

	mine := make(chan response, 1)
	go func() { mine <- k.upload(t, keyA, [][2]string{{"type", "image"}}, "a.png", png) }()
	for pool.Use("org-a").Waiting == 0 {
		select {
		case r := <-mine:
			t.Fatalf("A's upload did not wait for A's workers: %d %s", r.status, r.body)
		default:
			runtime.Gosched()
		}
	}
	held[0]()
	r = <-mine
	require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
	assert.Equal(t, "ready", r.json(t)["data"].(map[string]any)["status"])
}

// TestWatchStreamsAreSharedBetweenOrganisations: organisation A opens
// every watch stream the process allows on its own render; B still
// watches its render over SSE and gRPC (its share, 2 of 4), while A's
// next stream, and B's past its share, are refused TOO_MANY_STREAMS.
func TestWatchStreamsAreSharedBetweenOrganisations(t *testing.T) {
	t.Parallel()
	k := start(t, storetest.SQLite(t), func(c *app.Config) {
		withKeys(c)
		c.Workers = 0
		c.MaxWatchStreams = 4
		c.MetricsAddr = "127.0.0.1:0"
	})
	idA := k.submit(t, longComposition(), bearer(keyA)...)
	idB := k.submit(t, longComposition(), bearer(keyB)...)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	for range 4 {
		nextRecord(t, openWatchAs(ctx, t, k, keyA, "/api/render/"+idA+"/events"))
	}
	r := watchAs(ctx, t, k, keyA, "/api/render/"+idA+"/events")
	assert.Equal(t, http.StatusServiceUnavailable, r.status, "A's fifth: %s", r.body)
	assert.Equal(t, "TOO_MANY_STREAMS", r.errorCode(t))

	assert.Equal(t, "queued", nextRecord(t, openWatchAs(ctx, t, k, keyB, "/api/render/"+idB+"/events"))["status"])
	bctx := metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+keyB)
	stream, err := k.rpc.WatchRender(bctx, &renderv1.WatchRenderRequest{JobId: idB})
	require.NoError(t, err)
	got, err := stream.Recv()
	require.NoError(t, err, "B's gRPC watch beside A's four")
	assert.Equal(t, idB, got.GetJob().GetJobId())

	over, err := k.rpc.WatchRender(bctx, &renderv1.WatchRenderRequest{JobId: idB})
	require.NoError(t, err)
	_, err = over.Recv()
	assert.Equal(t, codes.ResourceExhausted, status.Code(err), "B past its share: %v", err)

	m := k.scrape(t)
	assert.Equal(t, 4.0, m.value("kino_pool_size", "pool", "watch_streams"))
	assert.Equal(t, 4.0, m.value("kino_pool_slots", "pool", "watch_streams", "org", "org-a", "state", "held"))
	assert.Equal(t, 2.0, m.value("kino_pool_slots", "pool", "watch_streams", "org", "org-b", "state", "held"))
	assert.Equal(t, 2.0, m.value("kino_pool_size", "pool", "previews"))
}

// openWatchAs opens a watch stream with key's authorization and returns its lines.
func openWatchAs(ctx context.Context, t *testing.T, k *kino, key, path string) *bufio.Scanner {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, k.base+path, nil)
	require.NoError(t, err)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { resp.Body.Close() })
	require.Equal(t, http.StatusOK, resp.StatusCode)
	return bufio.NewScanner(resp.Body)
}

// watchAs asks for a watch stream that is expected to be refused, and
// returns the answer read whole.
func watchAs(ctx context.Context, t *testing.T, k *kino, key, path string) response {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, k.base+path, nil)
	require.NoError(t, err)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return response{status: resp.StatusCode, header: resp.Header, body: b}
}
