package app_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/app"
	"github.com/kinohq/kino/server/org"
	"github.com/kinohq/kino/server/storage/s3test"
	"github.com/kinohq/kino/server/store/storetest"
)

// testClock is a clock a test moves; it starts at the real time.
type testClock struct{ ms atomic.Int64 }

func newTestClock() *testClock {
	c := &testClock{}
	c.ms.Store(time.Now().UnixMilli())
	return c
}

func (c *testClock) now() time.Time         { return time.UnixMilli(c.ms.Load()) }
func (c *testClock) add(d time.Duration)    { c.ms.Add(d.Milliseconds()) }
func (c *testClock) epochMs() float64       { return float64(c.ms.Load()) }
func (c *testClock) config(cfg *app.Config) { cfg.Now = c.now }
func rawPost(url string, body io.Reader) *http.Request {
	req, _ := http.NewRequest(http.MethodPost, url, body)
	return req
}

// upload posts data as a raw body with no Content-Type, as Rendobar's
// clients do, and returns the answer.
func (k *kino) uploadFile(t *testing.T, key, filename string, data []byte) response {
	t.Helper()
	req := rawPost(k.base+"/uploads?filename="+filename, bytes.NewReader(data))
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	require.Empty(t, req.Header.Get("Content-Type"))
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return response{status: resp.StatusCode, header: resp.Header, body: b}
}

// unsentBody posts to path with a declared body of size bytes of which
// none is ever sent, and returns the answer: a server that answers read
// nothing of the body first.
func (k *kino) unsentBody(t *testing.T, key, path string, size int64) response {
	t.Helper()
	pr, pw := io.Pipe()
	defer pw.Close()
	req := rawPost(k.base+path, pr)
	req.ContentLength = size
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return response{status: resp.StatusCode, header: resp.Header, body: b}
}

// waitJobAs polls a media job with key until it ends.
func (k *kino) waitJobAs(t *testing.T, key, id string) map[string]any {
	t.Helper()
	var j map[string]any
	require.Eventually(t, func() bool {
		r := k.as(t, key, http.MethodGet, "/jobs/"+id, nil)
		if r.status != http.StatusOK {
			return false
		}
		j = r.json(t)["data"].(map[string]any)
		switch j["status"] {
		case "complete", "failed", "cancelled":
			return true
		}
		return false
	}, 60*time.Second, 50*time.Millisecond)
	return j
}

func (k *kino) createJobAs(t *testing.T, key string, body map[string]any) string {
	t.Helper()
	r := k.as(t, key, http.MethodPost, "/jobs", body)
	require.Equal(t, http.StatusAccepted, r.status, "%s", r.body)
	return r.json(t)["data"].(map[string]any)["id"].(string)
}

// renderAs submits a render with key and waits for it to end.
func (k *kino) renderAs(t *testing.T, key string, body map[string]any) map[string]any {
	t.Helper()
	r := k.as(t, key, http.MethodPost, "/api/render", body)
	require.Equal(t, http.StatusAccepted, r.status, "%s", r.body)
	id := r.json(t)["jobId"].(string)
	var last map[string]any
	require.Eventually(t, func() bool {
		last = k.as(t, key, http.MethodGet, "/api/render/"+id, nil).json(t)
		return last["status"] == "completed" || last["status"] == "failed"
	}, 60*time.Second, 50*time.Millisecond)
	return last
}

// pictureRender is a small render of one picture from src.
func pictureRender(src string) map[string]any {
	return map[string]any{
		"provider": "provider_a",
		"composition": map[string]any{"width": 96, "height": 64, "fps": 10, "duration": 1, "background": "#000000",
			"layers": []any{map[string]any{"type": "image", "src": "pic", "start": 0, "duration": 1, "width": 64, "height": 48}}},
		"assetUrls": map[string]any{"pic": src},
	}
}

// videoRender is a small render of one video from src.
func videoRender(src string) map[string]any {
	return map[string]any{
		"provider": "provider_a",
		"composition": map[string]any{"width": 96, "height": 64, "fps": 10, "duration": 1, "background": "#000000",
			"layers": []any{map[string]any{"type": "video", "src": "clip", "start": 0, "duration": 1}}},
		"assetUrls": map[string]any{"clip": src},
	}
}

// TestFileUploads plays a client's uploads over real HTTP with two
// organisations' keys and no --allow-private-networks: raw bodies with no
// Content-Type, limits answered before the body is read, the downloadUrl
// read by the organisation's own media jobs and renders in-process (and
// by any HTTP client), refused to another organisation's jobs, and gone
// when it expires.
func TestFileUploads(t *testing.T) {
	t.Parallel()
	dir := testMedia(t)
	clip, err := os.ReadFile(filepath.Join(dir, "clip.mp4"))
	require.NoError(t, err)
	picture, err := os.ReadFile(filepath.Join(dir, "image.png"))
	require.NoError(t, err)
	clock := newTestClock()
	const limit = 1 << 20
	k := start(t, storetest.SQLite(t), func(c *app.Config) {
		withKeys(c)
		clock.config(c)
		c.AllowPrivateNetworks = false
		c.FileUploadBytes = limit
		// A body that never comes is waited for this long: a refusal that
		// waited on the body would not be answered within the test.
		c.BodyRateWindow = 10 * time.Minute
	})

	// A raw body, no Content-Type: the type is sniffed.
	r := k.uploadFile(t, keyA, "clip.mp4", clip)
	require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
	up := r.json(t)["data"].(map[string]any)
	assert.Regexp(t, `^upl_[0-9a-f]{32}$`, up["id"])
	assert.Equal(t, "clip.mp4", up["filename"])
	assert.Equal(t, float64(len(clip)), up["size"])
	assert.Equal(t, "video/mp4", up["contentType"])
	assert.Equal(t, clock.epochMs()+float64((24*time.Hour).Milliseconds()), up["expiresAt"])
	clipURL := up["downloadUrl"].(string)
	require.Contains(t, clipURL, "/files/uploads/org-a/")
	pic := k.uploadFile(t, keyA, "picture.png", picture)
	require.Equal(t, http.StatusCreated, pic.status, "%s", pic.body)
	picURL := pic.json(t)["data"].(map[string]any)["downloadUrl"].(string)
	assert.Equal(t, "image/png", pic.json(t)["data"].(map[string]any)["contentType"])

	// Any HTTP client downloads it, no key needed; a URL without its
	// signature is refused.
	got := k.do(t, http.MethodGet, strings.TrimPrefix(clipURL, k.base), nil)
	require.Equal(t, http.StatusOK, got.status, "%s", got.body)
	assert.Equal(t, clip, got.body)
	assert.Equal(t, "FORBIDDEN", k.do(t, http.MethodGet, strings.Split(strings.TrimPrefix(clipURL, k.base), "?")[0], nil).errorCode(t))

	t.Run("refused before the body is read", func(t *testing.T) {
		r := k.unsentBody(t, "key-that-nobody-has-0000", "/uploads?filename=a.mp4", 10<<20)
		assert.Equal(t, http.StatusUnauthorized, r.status, "%s", r.body)
		r = k.unsentBody(t, keyA, "/uploads?filename=a.mp4", limit+1)
		assert.Equal(t, http.StatusRequestEntityTooLarge, r.status, "%s", r.body)
		assert.Equal(t, "FILE_TOO_LARGE", r.errorCode(t))
		r = k.unsentBody(t, keyA, "/uploads", 10<<20)
		assert.Equal(t, http.StatusBadRequest, r.status, "%s", r.body)
		assert.Contains(t, string(r.body), "filename")
	})

	t.Run("a body over the limit, sent without a length", func(t *testing.T) {
		req := rawPost(k.base+"/uploads?filename=big.bin", io.MultiReader(bytes.NewReader(make([]byte, limit)), strings.NewReader("x")))
		req.Header.Set("Authorization", "Bearer "+keyA)
		req.ContentLength = -1
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode, "%s", b)
		assert.Equal(t, "FILE_TOO_LARGE", response{body: b}.errorCode(t))
		assert.Len(t, uploadedFiles(t, k), 2, "only the two uploads are stored")
	})

	t.Run("the organisation and its storage", func(t *testing.T) {
		r := k.as(t, keyA, http.MethodGet, "/orgs/current", nil)
		require.Equal(t, http.StatusOK, r.status, "%s", r.body)
		d := r.json(t)["data"].(map[string]any)
		assert.Equal(t, map[string]any{"id": "org-a", "name": "org-a"}, d["org"])
		assert.Equal(t, float64(limit), d["limits"].(map[string]any)["maxUploadBytes"])
		assert.Equal(t, float64(len(clip)+len(picture)), d["storage"].(map[string]any)["used"])
		d = k.as(t, keyB, http.MethodGet, "/orgs/current", nil).json(t)["data"].(map[string]any)
		assert.Equal(t, "org-b", d["org"].(map[string]any)["id"])
		assert.Equal(t, 0.0, d["storage"].(map[string]any)["used"])
	})

	var thumbnailURL string
	t.Run("the organisation's media job reads it in-process", func(t *testing.T) {
		id := k.createJobAs(t, keyA, map[string]any{"type": "video.thumbnail", "inputs": map[string]any{"source": clipURL}, "params": map[string]any{"at": 1}})
		j := k.waitJobAs(t, keyA, id)
		require.Equal(t, "complete", j["status"], "%v", j)
		thumbnailURL = j["outputUrl"].(string)
		out := j["output"].(map[string]any)
		file := out["file"].(map[string]any)
		assert.Equal(t, thumbnailURL, file["url"])
		assert.Equal(t, "outputUrl.png", file["path"])
		assert.Equal(t, "image", file["type"])
		assert.Greater(t, file["size"], 0.0)
		assert.Equal(t, map[string]any{"format": "png", "width": 96.0, "height": 64.0}, file["meta"])
		assert.Equal(t, []any{file}, out["files"])
		assert.Contains(t, out, "expiresAt")
		assert.NotContains(t, j, "error")
	})

	var renderURL string
	t.Run("the organisation's render reads it, and its own outputs, in-process", func(t *testing.T) {
		for _, src := range []string{picURL, thumbnailURL} {
			rd := k.renderAs(t, keyA, pictureRender(src))
			require.Equal(t, "completed", rd["status"], "%v", rd)
			renderURL = rd["outputUrl"].(string)
		}
		// A render's own output, as a video source of the next render.
		rd := k.renderAs(t, keyA, videoRender(renderURL))
		assert.Equal(t, "completed", rd["status"], "%v", rd)
	})

	t.Run("another organisation cannot read it that way", func(t *testing.T) {
		id := k.createJobAs(t, keyB, map[string]any{"type": "video.thumbnail", "inputs": map[string]any{"source": clipURL}, "params": map[string]any{"at": 1}})
		j := k.waitJobAs(t, keyB, id)
		require.Equal(t, "failed", j["status"], "%v", j)
		assert.Equal(t, "ASSET_FETCH_FAILED", j["errorCode"])
		assert.Contains(t, j["errorMessage"], "allow-private-networks")
		assert.Equal(t, map[string]any{"code": j["errorCode"], "message": j["errorMessage"]}, j["error"])
		assert.NotContains(t, j, "output")
		rd := k.renderAs(t, keyB, pictureRender(picURL))
		assert.Equal(t, "failed", rd["status"], "%v", rd)
		rd = k.renderAs(t, keyB, videoRender(renderURL))
		assert.Equal(t, "failed", rd["status"], "another organisation's render output: %v", rd)
	})

	t.Run("expiry", func(t *testing.T) {
		clock.add(24*time.Hour + time.Second)
		r := k.do(t, http.MethodGet, strings.TrimPrefix(clipURL, k.base), nil)
		assert.Equal(t, http.StatusForbidden, r.status, "%s", r.body)
		assert.Contains(t, string(r.body), "expired")
		id := k.createJobAs(t, keyA, map[string]any{"type": "video.thumbnail", "inputs": map[string]any{"source": clipURL}, "params": map[string]any{"at": 1}})
		j := k.waitJobAs(t, keyA, id)
		require.Equal(t, "failed", j["status"], "%v", j)
		assert.Contains(t, j["errorMessage"], "the upload has expired")
		d := k.as(t, keyA, http.MethodGet, "/orgs/current", nil).json(t)["data"].(map[string]any)
		assert.Equal(t, 0.0, d["storage"].(map[string]any)["used"], "expired uploads no longer count")

		n, err := k.app.SweepUploads(context.Background())
		require.NoError(t, err)
		assert.Equal(t, 2, n)
		assert.Empty(t, uploadedFiles(t, k), "the files are deleted")
		n, err = k.app.SweepUploads(context.Background())
		require.NoError(t, err)
		assert.Zero(t, n, "the rows are gone too")
	})
}

// TestFileUploadQuota counts live uploads against the storage quota: one
// that does not fit is refused, declared or not, and stores nothing.
func TestFileUploadQuota(t *testing.T) {
	t.Parallel()
	clock := newTestClock()
	k := start(t, storetest.SQLite(t), func(c *app.Config) {
		withKeys(c)
		clock.config(c)
		c.Orgs = orgsWithQuota(1000)
	})
	require.Equal(t, http.StatusCreated, k.uploadFile(t, keyA, "a.txt", bytes.Repeat([]byte("a"), 600)).status)
	r := k.uploadFile(t, keyA, "b.txt", bytes.Repeat([]byte("b"), 600))
	assert.Equal(t, http.StatusRequestEntityTooLarge, r.status, "%s", r.body)
	assert.Equal(t, "QUOTA_EXCEEDED", r.errorCode(t))
	assert.Equal(t, http.StatusCreated, k.uploadFile(t, keyB, "b.txt", bytes.Repeat([]byte("b"), 600)).status, "another organisation's room")
	clock.add(25 * time.Hour)
	assert.Equal(t, http.StatusCreated, k.uploadFile(t, keyA, "b.txt", bytes.Repeat([]byte("b"), 600)).status, "an expired upload frees its room")
}

// uploadedFiles are the files of kino's local bucket under uploads/,
// without their attributes.
func uploadedFiles(t *testing.T, k *kino) []string {
	var out []string
	for _, f := range storedFiles(t, k) {
		if strings.HasPrefix(filepath.ToSlash(f), "uploads/") && !strings.HasSuffix(f, ".attrs") {
			out = append(out, f)
		}
	}
	return out
}

func orgsWithQuota(bytes int64) *org.Policies {
	return org.New(org.Policy{Weight: 1, StorageQuota: bytes}, nil)
}

// TestFileUploadsOutliveARestart: uploads are rows in the database, so a
// kino started again on the same database and bucket serves them, and
// sweeps them when they expire.
func TestFileUploadsOutliveARestart(t *testing.T) {
	t.Parallel()
	db, dir := storetest.SQLite(t), t.TempDir()
	clock := newTestClock()
	same := func(c *app.Config) {
		c.DataDir = dir
		clock.config(c)
	}
	first := start(t, db, same)
	r := first.uploadFile(t, "", "note.txt", []byte("kept across a restart"))
	require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
	url := r.json(t)["data"].(map[string]any)["downloadUrl"].(string)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, first.app.Shutdown(ctx))

	again := start(t, db, same)
	got := again.do(t, http.MethodGet, strings.TrimPrefix(url, first.base), nil)
	require.Equal(t, http.StatusOK, got.status, "%s", got.body)
	assert.Equal(t, "kept across a restart", string(got.body))
	require.Len(t, uploadedFiles(t, again), 1)
	clock.add(24*time.Hour + time.Second)
	n, err := again.app.SweepUploads(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	assert.Empty(t, uploadedFiles(t, again))
}

// TestFileUploadsOnAPrivateBucket: on S3, kino still serves an upload's
// downloadUrl itself (signed by kino, read from the bucket), the
// organisation's job reads it in-process, and the sweeper deletes the
// object when it expires.
func TestFileUploadsOnAPrivateBucket(t *testing.T) {
	t.Parallel()
	srv := s3test.Start(t)
	su := setup{db: storetest.SQLite(t), storageURL: srv.Bucket(t), s3: srv}
	clock := newTestClock()
	k := su.start(t, func(c *app.Config) {
		withKeys(c)
		clock.config(c)
		c.AllowPrivateNetworks = false
	})
	picture, err := os.ReadFile(filepath.Join(testMedia(t), "image.png"))
	require.NoError(t, err)
	r := k.uploadFile(t, keyA, "picture.png", picture)
	require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
	url := r.json(t)["data"].(map[string]any)["downloadUrl"].(string)
	require.True(t, strings.HasPrefix(url, k.base+"/files/uploads/org-a/"), url)
	got := k.do(t, http.MethodGet, strings.TrimPrefix(url, k.base), nil)
	require.Equal(t, http.StatusOK, got.status, "%s", got.body)
	assert.Equal(t, picture, got.body)

	id := k.createJobAs(t, keyA, map[string]any{"type": "image.resize", "inputs": map[string]any{"source": url}, "params": map[string]any{"width": 32}})
	j := k.waitJobAs(t, keyA, id)
	assert.Equal(t, "complete", j["status"], "%v", j)

	key := strings.TrimPrefix(strings.Split(url, "?")[0], k.base+"/files/")
	require.True(t, k.stored(t, su, key))
	clock.add(25 * time.Hour)
	n, err := k.app.SweepUploads(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	assert.False(t, k.stored(t, su, key))
}
