package app_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	renderv1 "github.com/kinohq/kino/gen/kino/render/v1"
	"github.com/kinohq/kino/server/app"
	"github.com/kinohq/kino/server/ffmpeg"
	"github.com/kinohq/kino/server/store/storetest"
	"github.com/kinohq/kino/server/webhook"
)

const testSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

// hookReceiver records webhook deliveries; the first failFirst answer 500.
type hookReceiver struct {
	*httptest.Server
	mu        sync.Mutex
	calls     []hookCall
	failFirst int
}

type hookCall struct {
	header http.Header
	body   []byte
}

func receiveHooks(t *testing.T, failFirst int) *hookReceiver {
	h := &hookReceiver{failFirst: failFirst}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		h.calls = append(h.calls, hookCall{header: r.Header.Clone(), body: b})
		n := len(h.calls)
		h.mu.Unlock()
		if n <= h.failFirst {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(h.Close)
	return h
}

func (h *hookReceiver) waitCalls(t *testing.T, n int) []hookCall {
	t.Helper()
	require.Eventually(t, func() bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		return len(h.calls) >= n
	}, 20*time.Second, 20*time.Millisecond, "webhook calls")
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]hookCall(nil), h.calls...)
}

// download fetches an output URL into a file and probes it.
func download(t *testing.T, url string) *ffmpeg.Info {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	path := filepath.Join(t.TempDir(), "out")
	f, err := os.Create(path)
	require.NoError(t, err)
	_, err = io.Copy(f, resp.Body)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	info, err := ffmpeg.Probe(context.Background(), ffmpeg.Limits{}, path)
	require.NoError(t, err)
	return info
}

func TestRenderLifecycle(t *testing.T) {
	t.Parallel()
	eachSetup(t, func(t *testing.T, su setup) {
		media := serveMedia(t)
		hooks := receiveHooks(t, 1)
		k := su.start(t, func(c *app.Config) { c.WebhookSecret = testSecret })

		body := smallComposition(media)
		body["webhook"] = hooks.URL + "/done"
		r := k.do(t, http.MethodPost, "/api/render", body)
		require.Equal(t, http.StatusAccepted, r.status, "%s", r.body)
		sub := r.json(t)
		assert.Len(t, sub, 3, "submit answers jobId, status, createdAt: %s", r.body)
		assert.Equal(t, "queued", sub["status"])
		_, err := time.Parse(time.RFC3339, sub["createdAt"].(string))
		require.NoError(t, err)
		id := sub["jobId"].(string)

		// Follow it as a browser would, over Server-Sent Events.
		req, err := http.NewRequest(http.MethodGet, k.base+"/api/render/"+id+"/events", nil)
		require.NoError(t, err)
		req.Header.Set("Accept", "text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
		assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
		var records []map[string]any
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var m map[string]any
				require.NoError(t, json.Unmarshal([]byte(data), &m))
				records = append(records, m)
			}
		}
		require.NotEmpty(t, records)
		final := records[len(records)-1]
		require.Equal(t, "completed", final["status"], "last event: %v", final)
		for i := 1; i < len(records); i++ {
			assert.GreaterOrEqual(t, records[i]["progress"].(float64), records[i-1]["progress"].(float64), "progress never goes back")
		}

		job := k.get(t, id)
		assert.Equal(t, "completed", job["status"])
		assert.Equal(t, 100.0, job["progress"])
		assert.NotContains(t, job, "error")
		url := job["outputUrl"].(string)
		if su.s3 == nil {
			assert.True(t, strings.HasPrefix(url, k.base+"/files/"), url)
		} else {
			// A presigned URL of the private bucket, which refuses the
			// object's bare URL.
			assert.True(t, strings.HasPrefix(url, su.s3.Endpoint+"/"), url)
			assert.Contains(t, url, "X-Amz-Expires=86400", "valid for the default --url-lifetime")
			bare, _, _ := strings.Cut(url, "?")
			r, err := http.Get(bare)
			require.NoError(t, err)
			r.Body.Close()
			assert.Equal(t, http.StatusForbidden, r.StatusCode)
		}

		info := download(t, url)
		v, a := info.Video(), info.Audio()
		require.NotNil(t, v)
		require.NotNil(t, a)
		assert.Equal(t, "h264", v.CodecName)
		assert.Equal(t, "aac", a.CodecName)
		assert.Equal(t, 160, v.Width)
		assert.Equal(t, 90, v.Height)
		assert.InDelta(t, 10.0, v.FPS, 0.01)
		assert.InDelta(t, 2.0, info.Duration, 0.1)

		// The first delivery fails; the retry carries the same id and a valid signature.
		calls := hooks.waitCalls(t, 2)
		assert.Equal(t, calls[0].header.Get("webhook-id"), calls[1].header.Get("webhook-id"))
		require.NoError(t, webhook.Verify(testSecret, calls[1].header, calls[1].body, time.Now(), 5*time.Minute))
		var payload map[string]any
		require.NoError(t, json.Unmarshal(calls[1].body, &payload))
		assert.Equal(t, id, payload["jobId"])
		assert.Equal(t, "completed", payload["status"])
		hooked, _ := payload["outputUrl"].(string)
		assertSameObject(t, su, url, hooked)
		assert.Equal(t, 2.0, payload["duration"])
		assert.Equal(t, "mp4", payload["format"])
		assert.Equal(t, map[string]any{"width": 160.0, "height": 90.0}, payload["resolution"])

		r = k.do(t, http.MethodDelete, "/api/render/"+id, nil)
		assert.Equal(t, http.StatusBadRequest, r.status)
		assert.Equal(t, "JOB_NOT_CANCELLABLE", r.errorCode(t))
		assert.Contains(t, string(r.body), "completed")
	})
}

func TestCancelQueuedAndProcessing(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		hooks := receiveHooks(t, 0)
		k := start(t, db, nil)
		body := longComposition()
		body["webhook"] = hooks.URL
		running := k.submit(t, body)
		k.waitStatus(t, running, "processing", 20*time.Second)
		queued := k.submit(t, longComposition())
		assert.Equal(t, "queued", k.get(t, queued)["status"], "one worker: the second job waits")

		r := k.do(t, http.MethodDelete, "/api/render/"+queued, nil)
		require.Equal(t, http.StatusOK, r.status, "%s", r.body)
		assert.Equal(t, map[string]any{"jobId": queued, "status": "cancelled"}, r.json(t))

		// Cancelling the running render kills ffmpeg within a second.
		require.Eventually(t, func() bool { return k.get(t, running)["progress"].(float64) > 0 }, 20*time.Second, 50*time.Millisecond)
		r = k.do(t, http.MethodDelete, "/api/render/"+running, nil)
		require.Equal(t, http.StatusOK, r.status, "%s", r.body)
		cancelledAt := time.Now()
		require.Eventually(t, func() bool { return !ffmpegRunning(t, k.cfg.DataDir) }, time.Second, 20*time.Millisecond,
			"ffmpeg still running a second after cancel")
		t.Logf("ffmpeg gone %s after cancel", time.Since(cancelledAt))

		for _, id := range []string{queued, running} {
			job := k.get(t, id)
			assert.Equal(t, "cancelled", job["status"])
			assert.NotContains(t, job, "outputUrl")
			assert.NotContains(t, job, "error")
		}
		calls := hooks.waitCalls(t, 1)
		var payload map[string]any
		require.NoError(t, json.Unmarshal(calls[0].body, &payload))
		assert.Equal(t, "cancelled", payload["status"])
		assert.NotContains(t, payload, "outputUrl")

		// Nothing partial is left behind.
		require.Eventually(t, func() bool {
			// The process's own working folder holds nothing but its lock
			// and the node's source cache, which outlives any one job.
			left, _ := filepath.Glob(filepath.Join(k.cfg.DataDir, "tmp", "proc-*", "[^.]*"))
			left = slices.DeleteFunc(left, func(p string) bool { return filepath.Base(p) == "sources" })
			return len(left) == 0
		}, 5*time.Second, 20*time.Millisecond)
		_, err := os.Stat(filepath.Join(k.cfg.DataDir, "outputs", "renders", running+".mp4"))
		assert.True(t, os.IsNotExist(err), "no output for a cancelled job")
		r = k.do(t, http.MethodDelete, "/api/render/"+running, nil)
		assert.Equal(t, http.StatusBadRequest, r.status)
		assert.Equal(t, "JOB_NOT_CANCELLABLE", r.errorCode(t))
		assert.Contains(t, string(r.body), "cancelled")
	})
}

// ffmpegRunning reports whether an ffmpeg works in the data folder.
func ffmpegRunning(t *testing.T, dataDir string) bool {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		if strings.HasPrefix(string(b), "ffmpeg\x00") && strings.Contains(string(b), dataDir) {
			return true
		}
	}
	return false
}

func TestRenderFailures(t *testing.T) {
	t.Parallel()
	media := serveMedia(t)
	hooks := receiveHooks(t, 0)
	k := start(t, storetest.SQLite(t), func(c *app.Config) { c.Workers = 2 })

	withSrc := func(src string) map[string]any {
		return map[string]any{
			"provider": "provider_a",
			"webhook":  hooks.URL,
			"composition": map[string]any{"width": 160, "height": 90, "fps": 10,
				"layers": []any{map[string]any{"type": "video", "src": "clip", "start": 0, "duration": 1}}},
			"assetUrls": map[string]any{"clip": src},
		}
	}
	cases := []struct {
		name, src, code, inMessage string
	}{
		{"asset 404", media.URL + "/missing.mp4", "ASSET_FETCH_FAILED", "composition.layers[0].src"},
		{"corrupt media", media.URL + "/corrupt.mp4", "ASSET_INVALID", "composition.layers[0].src"},
		{"audio where video is needed", media.URL + "/tone.wav", "ASSET_INVALID", "composition.layers[0].src"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			id := k.submit(t, withSrc(tc.src))
			job := k.waitStatus(t, id, "failed", 30*time.Second)
			e := job["error"].(map[string]any)
			assert.Equal(t, tc.code, e["code"])
			assert.Contains(t, e["message"], tc.inMessage)
			assert.NotContains(t, job, "outputUrl")
		})
	}
	calls := hooks.waitCalls(t, len(cases))
	for _, c := range calls {
		var p map[string]any
		require.NoError(t, json.Unmarshal(c.body, &p))
		assert.Equal(t, "failed", p["status"])
		assert.NotEmpty(t, p["error"].(map[string]any)["code"])
	}
}

func TestRenderTimeout(t *testing.T) {
	t.Parallel()
	k := start(t, storetest.SQLite(t), func(c *app.Config) { c.RenderTimeout = 500 * time.Millisecond })
	id := k.submit(t, longComposition())
	job := k.waitStatus(t, id, "failed", 30*time.Second)
	assert.Equal(t, "RENDER_TIMEOUT", job["error"].(map[string]any)["code"])
}

func TestPrivateNetworksRefused(t *testing.T) {
	t.Parallel()
	media := serveMedia(t)
	k := start(t, storetest.SQLite(t), func(c *app.Config) { c.AllowPrivateNetworks = false })
	body := smallComposition(media)
	id := k.submit(t, body)
	job := k.waitStatus(t, id, "failed", 30*time.Second)
	e := job["error"].(map[string]any)
	assert.Equal(t, "ASSET_FETCH_FAILED", e["code"])
	assert.Contains(t, e["message"], "--allow-private-networks")
}

func TestWatchOverGRPCAndNDJSON(t *testing.T) {
	t.Parallel()
	media := serveMedia(t)
	k := start(t, storetest.SQLite(t), nil)
	id := k.submit(t, smallComposition(media))

	stream, err := k.rpc.WatchRender(context.Background(), &renderv1.WatchRenderRequest{JobId: id})
	require.NoError(t, err)
	var last *renderv1.RenderJob
	n := 0
	for {
		msg, err := stream.Recv()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		last = msg.GetJob()
		n++
	}
	require.NotNil(t, last)
	assert.Equal(t, "completed", last.GetStatus())
	assert.Equal(t, 100.0, last.GetProgress())
	assert.GreaterOrEqual(t, n, 2, "at least the first record and the final one")

	// A finished job's stream is one record, then the end.
	r := k.do(t, http.MethodGet, "/api/render/"+id+"/events", nil)
	require.Equal(t, http.StatusOK, r.status)
	lines := strings.Split(strings.TrimSpace(string(r.body)), "\n")
	require.Len(t, lines, 1)
	var line map[string]map[string]any
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &line))
	assert.Equal(t, "completed", line["result"]["status"])
}

// assertSameObject checks that two URLs of one stored object agree: equal
// for files kino signs itself, the same object presigned on S3, where each
// URL is signed when it is made and their X-Amz-Date is a second apart when
// the clock ticked between the two.
func assertSameObject(t *testing.T, su setup, want, got string) {
	t.Helper()
	if su.s3 == nil {
		assert.Equal(t, want, got)
		return
	}
	object, _, _ := strings.Cut(want, "?")
	assert.True(t, strings.HasPrefix(got, object+"?"), "%s is not %s", got, object)
	assert.Contains(t, got, "X-Amz-Signature=")
}
