package app_test

import (
	"context"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	renderv1 "github.com/kinohq/kino/gen/kino/render/v1"
	"github.com/kinohq/kino/server/app"
	"github.com/kinohq/kino/server/store/storetest"
)

// scrape is one read of /metrics.
type scrape map[string]*dto.MetricFamily

func (k *kino) scrape(t *testing.T) scrape {
	t.Helper()
	require.NotEmpty(t, k.app.MetricsAddr, "metrics are served")
	resp, err := http.Get("http://" + k.app.MetricsAddr + "/metrics")
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err := p.TextToMetricFamilies(resp.Body)
	require.NoError(t, err)
	return families
}

// metric finds the series of name whose labels include labels (name=value
// pairs), or nil.
func (s scrape) metric(name string, labels ...string) *dto.Metric {
	f := s[name]
	if f == nil {
		return nil
	}
	for _, m := range f.GetMetric() {
		have := map[string]string{}
		for _, l := range m.GetLabel() {
			have[l.GetName()] = l.GetValue()
		}
		ok := true
		for i := 0; i+1 < len(labels); i += 2 {
			ok = ok && have[labels[i]] == labels[i+1]
		}
		if ok {
			return m
		}
	}
	return nil
}

// value is a counter's or gauge's value, -1 when the series is absent.
func (s scrape) value(name string, labels ...string) float64 {
	m := s.metric(name, labels...)
	switch {
	case m == nil:
		return -1
	case m.Counter != nil:
		return m.GetCounter().GetValue()
	case m.Gauge != nil:
		return m.GetGauge().GetValue()
	}
	return m.GetUntyped().GetValue()
}

// hist is a histogram's count and sum, 0 when the series is absent.
func (s scrape) hist(name string, labels ...string) (uint64, float64) {
	m := s.metric(name, labels...)
	if m == nil {
		return 0, 0
	}
	return m.GetHistogram().GetSampleCount(), m.GetHistogram().GetSampleSum()
}

// storedBytes adds up the objects of a local storage folder (its .attrs
// files are fileblob's own).
func storedBytes(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	require.NoError(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(path, ".attrs") {
			return err
		}
		info, err := d.Info()
		if err == nil {
			n += info.Size()
		}
		return err
	}))
	return n
}

// TestMetricsFollowARenderAndAMediaJob scrapes /metrics before, during and
// after a render (with a webhook) and a media job that waits for it on a
// one-worker kino: the database's figures show them queued and running and
// then gone, and the process's counters and histograms move by exactly
// what was done.
func TestMetricsFollowARenderAndAMediaJob(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		src := serveDir(t, http.FileServer(http.Dir(longVideo(t))))
		var hooks atomic.Int32
		receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			hooks.Add(1)
		}))
		t.Cleanup(receiver.Close)
		k := start(t, db, func(c *app.Config) { c.MetricsAddr = "127.0.0.1:0"; c.Workers = 1 })
		render := []string{"kind", "render", "type", "render"}
		transcode := []string{"kind", "media", "type", "video.transcode"}
		with := func(base []string, more ...string) []string { return append(append([]string{}, base...), more...) }

		before := k.scrape(t)
		for _, st := range []string{"pending", "available", "running"} {
			assert.Equal(t, 0.0, before.value("kino_jobs", with(render, "state", st)...), st)
			assert.Equal(t, 0.0, before.value("kino_jobs", with(transcode, "state", st)...), st)
		}
		assert.Equal(t, 0.0, before.value("kino_queue_depth", render...))
		assert.Equal(t, 0.0, before.value("kino_jobs_ended_total", with(render, "state", "completed")...))
		assert.Equal(t, 0.0, before.value("kino_webhook_attempts_total", "outcome", "delivered"))
		assert.Equal(t, 0.0, before.value("kino_jobs_query_failed"))
		assert.NotNil(t, before.metric("go_goroutines"), "Go's own figures are served too")

		body := colourRender(20)
		body["webhook"] = receiver.URL
		renderID := k.submit(t, body)
		gets := 0
		var during scrape
		require.Eventually(t, func() bool {
			during = k.scrape(t)
			return during.value("kino_jobs", with(render, "state", "running")...) == 1
		}, 30*time.Second, 20*time.Millisecond, "the render shows running")
		mediaID := k.createJob(t, transcodeJob(src))
		require.Eventually(t, func() bool {
			during = k.scrape(t)
			return during.value("kino_queue_oldest_age_seconds", transcode...) >= 0.3
		}, 30*time.Second, 20*time.Millisecond, "the media job waits for the one worker, and its wait grows")
		require.Equal(t, "processing", k.get(t, renderID)["status"], "the render still runs: the scrape was taken during it")
		gets++
		assert.Equal(t, 1.0, during.value("kino_jobs", with(render, "state", "running")...))
		assert.Equal(t, 1.0, during.value("kino_jobs", with(transcode, "state", "available")...))
		assert.Equal(t, 1.0, during.value("kino_queue_depth", transcode...))
		assert.Equal(t, 0.0, during.value("kino_queue_depth", render...))
		n, _ := during.hist("kino_job_wait_seconds", render...)
		assert.Equal(t, uint64(1), n, "the render's claim is measured")
		n, _ = during.hist("kino_job_run_seconds", render...)
		assert.Equal(t, uint64(0), n, "its run is measured when it ends")

		deadline := time.Now().Add(90 * time.Second)
		poll := time.NewTicker(50 * time.Millisecond)
		defer poll.Stop()
		for ; k.get(t, renderID)["status"] != "completed" && time.Now().Before(deadline); <-poll.C {
			gets++
		}
		gets++
		require.Equal(t, "complete", k.waitMediaStatus(t, mediaID, "complete", 60*time.Second)["status"])
		require.Eventually(t, func() bool { return hooks.Load() == 1 }, 10*time.Second, 20*time.Millisecond)
		_, err := k.rpc.GetRender(context.Background(), &renderv1.GetRenderRequest{JobId: renderID})
		require.NoError(t, err)
		missing := k.do(t, http.MethodGet, "/api/render/no-such-job", nil)
		require.Equal(t, http.StatusNotFound, missing.status)
		require.Equal(t, http.StatusNotFound, k.do(t, http.MethodGet, "/no/such/path", nil).status)
		events := k.do(t, http.MethodGet, "/api/render/"+renderID+"/events", nil, "Accept", "text/event-stream")
		require.Equal(t, http.StatusOK, events.status)
		require.Contains(t, string(events.body), `"status":"completed"`, "the stream flushed through the counting writer")

		var after scrape
		require.Eventually(t, func() bool {
			after = k.scrape(t)
			return after.value("kino_webhook_attempts_total", "outcome", "delivered") == 1
		}, 10*time.Second, 20*time.Millisecond, "the delivery is counted once recorded")
		for _, st := range []string{"pending", "available", "running"} {
			assert.Equal(t, 0.0, after.value("kino_jobs", with(render, "state", st)...), st)
			assert.Equal(t, 0.0, after.value("kino_jobs", with(transcode, "state", st)...), st)
		}
		assert.Equal(t, 0.0, after.value("kino_queue_depth", transcode...))
		assert.Equal(t, 0.0, after.value("kino_queue_oldest_age_seconds", transcode...))
		assert.Equal(t, 1.0, after.value("kino_jobs_ended_total", with(render, "state", "completed")...))
		assert.Equal(t, 1.0, after.value("kino_jobs_ended_total", with(transcode, "state", "completed")...))
		assert.Equal(t, 0.0, after.value("kino_jobs_ended_total", with(transcode, "state", "failed")...))

		renderWaitN, renderWait := after.hist("kino_job_wait_seconds", render...)
		mediaWaitN, mediaWait := after.hist("kino_job_wait_seconds", transcode...)
		assert.Equal(t, uint64(1), renderWaitN)
		assert.Equal(t, uint64(1), mediaWaitN)
		renderRunN, renderRun := after.hist("kino_job_run_seconds", with(render, "outcome", "completed")...)
		mediaRunN, mediaRun := after.hist("kino_job_run_seconds", with(transcode, "outcome", "completed")...)
		assert.Equal(t, uint64(1), renderRunN)
		assert.Equal(t, uint64(1), mediaRunN)
		assert.Greater(t, mediaRun, 0.0)
		// The media job waited for the render to finish: longer than the
		// render ran, less its own head start, and far longer than the
		// render waited on an idle worker.
		assert.Greater(t, mediaWait, 0.3)
		assert.Greater(t, mediaWait, renderWait)
		assert.Less(t, mediaWait, renderRun+10, "wait %.2fs, render ran %.2fs", mediaWait, renderRun)

		// ffmpeg wrote 20 s of render and 30 s of transcode; each run's
		// speed is that over its wall time, which the attempt contains.
		n, speed := after.hist("kino_ffmpeg_speed_ratio", render...)
		assert.Equal(t, uint64(1), n)
		assert.Greater(t, speed, 20/renderRun*0.99, "render speed %.2f, run %.2fs", speed, renderRun)
		n, speed = after.hist("kino_ffmpeg_speed_ratio", transcode...)
		assert.Equal(t, uint64(1), n)
		assert.Greater(t, speed, 30/mediaRun*0.99, "transcode speed %.2f, run %.2fs", speed, mediaRun)

		_, renderSpeed := after.hist("kino_ffmpeg_speed_ratio", render...)
		t.Logf("render: waited %.3fs, ran %.2fs at %.1fx; transcode: waited %.2fs, ran %.2fs at %.1fx", renderWait, renderRun, renderSpeed, mediaWait, mediaRun, speed)

		info, err := os.Stat(filepath.Join(longVideo(t), "long.mp4"))
		require.NoError(t, err)
		assert.Equal(t, float64(info.Size()), after.value("kino_fetched_bytes_total"), "the media job's one input")
		assert.Equal(t, float64(storedBytes(t, filepath.Join(k.cfg.DataDir, "outputs"))), after.value("kino_stored_bytes_total"),
			"every object in storage: both outputs and the media job's log")

		assert.Equal(t, 1.0, after.value("kino_webhook_attempts_total", "outcome", "delivered"))
		assert.Equal(t, 0.0, after.value("kino_webhook_attempts_total", "outcome", "retry"))

		assert.Equal(t, 1.0, after.value("kino_http_requests_total", "method", "POST", "route", "/api/render", "code", "202"))
		assert.Equal(t, 1.0, after.value("kino_http_requests_total", "method", "POST", "route", "/jobs", "code", "202"))
		assert.Equal(t, float64(gets), after.value("kino_http_requests_total", "method", "GET", "route", "/api/render/{job_id}", "code", "200"))
		assert.Equal(t, 1.0, after.value("kino_http_requests_total", "method", "GET", "route", "/api/render/{job_id}", "code", "404"))
		assert.Equal(t, 1.0, after.value("kino_http_requests_total", "method", "GET", "route", "unmatched", "code", "404"))
		assert.Equal(t, 1.0, after.value("kino_http_requests_total", "method", "GET", "route", "/api/render/{id}/events", "code", "200"))
		assert.Equal(t, 1.0, after.value("kino_grpc_requests_total", "method", "/kino.render.v1.RenderService/WatchRender", "code", "OK"))
		// The gateway's calls pass the gRPC server too, so GetRender was
		// called once more than over HTTP.
		assert.Equal(t, float64(gets+1), after.value("kino_grpc_requests_total", "method", "/kino.render.v1.RenderService/GetRender", "code", "OK"))
		assert.Equal(t, 1.0, after.value("kino_grpc_requests_total", "method", "/kino.render.v1.RenderService/GetRender", "code", "NotFound"))
		assert.Equal(t, 1.0, after.value("kino_grpc_requests_total", "method", "/kino.render.v1.RenderService/SubmitRender", "code", "OK"))
	})
}

// With no --metrics-addr nothing is served, and the gateway does not
// answer /metrics: the figures never share the public listener.
func TestMetricsAreOffByDefault(t *testing.T) {
	t.Parallel()
	k := start(t, storetest.SQLite(t), nil)
	assert.Empty(t, k.app.MetricsAddr)
	assert.Equal(t, http.StatusNotFound, k.do(t, http.MethodGet, "/metrics", nil).status)
}
