package app_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/kinohq/kino/server/app"
	"github.com/kinohq/kino/server/store/storetest"
)

// traced is a kino whose spans go to an in-memory exporter.
type traced struct {
	*kino
	spans *tracetest.InMemoryExporter
}

func startTraced(t *testing.T, db storetest.DB, mutate func(*app.Config)) *traced {
	t.Helper()
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	k := start(t, db, func(c *app.Config) {
		c.TracerProvider = tp
		if mutate != nil {
			mutate(c)
		}
	})
	return &traced{kino: k, spans: spans}
}

// trace is the ended spans of one trace.
type spanSet []tracetest.SpanStub

// trace returns the ended spans of the trace id.
func (k *traced) trace(id trace.TraceID) spanSet {
	var out spanSet
	for _, s := range k.spans.GetSpans() {
		if s.SpanContext.TraceID() == id {
			out = append(out, s)
		}
	}
	return out
}

// waitSpan waits until a span named name has ended in a trace that has a
// span for which match holds, and returns that trace.
func (k *traced) waitSpan(t *testing.T, name string, match func(tracetest.SpanStub) bool) spanSet {
	t.Helper()
	var found spanSet
	require.Eventually(t, func() bool {
		for _, s := range k.spans.GetSpans() {
			if match(s) {
				found = k.trace(s.SpanContext.TraceID())
				return len(found.named(name)) > 0
			}
		}
		return false
	}, 30*time.Second, 20*time.Millisecond, "span %s", name)
	return found
}

func (ss spanSet) named(name string) spanSet {
	var out spanSet
	for _, s := range ss {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

// one is the only span named name.
func (ss spanSet) one(t *testing.T, name string) tracetest.SpanStub {
	t.Helper()
	n := ss.named(name)
	require.Len(t, n, 1, "spans named %s in %v", name, ss.names())
	return n[0]
}

// childrenOf are the spans whose parent is s.
func (ss spanSet) childrenOf(s tracetest.SpanStub) spanSet {
	var out spanSet
	for _, c := range ss {
		if c.Parent.SpanID() == s.SpanContext.SpanID() {
			out = append(out, c)
		}
	}
	return out
}

func (ss spanSet) names() []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.Name)
	}
	return out
}

func attr(s tracetest.SpanStub, key string) string {
	for _, a := range s.Attributes {
		if string(a.Key) == key {
			return a.Value.String()
		}
	}
	return ""
}

// serverSpan is the gRPC server span of a method, the parent of the spans
// of the jobs its call inserted.
func (ss spanSet) serverSpan(t *testing.T, method string) tracetest.SpanStub {
	t.Helper()
	for _, s := range ss.named(method) {
		if s.SpanKind == trace.SpanKindServer {
			return s
		}
	}
	t.Fatalf("no server span %s in %v", method, ss.names())
	return tracetest.SpanStub{}
}

// requireParent checks that each span has parent as its parent.
func requireParent(t *testing.T, parent tracetest.SpanStub, spans ...tracetest.SpanStub) {
	t.Helper()
	for _, s := range spans {
		require.Equal(t, parent.SpanContext.SpanID(), s.Parent.SpanID(), "parent of %s is %s", s.Name, parent.Name)
	}
}

// noSecrets checks that no span holds secret: not in its attributes, its
// status or its events (a recorded error).
func noSecrets(t *testing.T, ss spanSet, secret string) {
	t.Helper()
	for _, s := range ss {
		for _, a := range s.Attributes {
			assert.NotContains(t, a.Value.String(), secret, "%s: %s", s.Name, a.Key)
		}
		assert.NotContains(t, s.Status.Description, secret, "%s: status", s.Name)
		for _, e := range s.Events {
			for _, a := range e.Attributes {
				assert.NotContains(t, a.Value.String(), secret, "%s: event %s: %s", s.Name, e.Name, a.Key)
			}
		}
	}
}

// TestTraceOfARender: a render submitted over REST with a webhook is one
// trace, from the REST request to the webhook delivery, with a span for each
// step of the job between; the receiver gets that trace's context.
func TestTraceOfARender(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		media := serveMedia(t)
		hooks := receiveHooks(t, 0)
		k := startTraced(t, db, nil)

		body := smallComposition(media)
		// Signed URLs carry credentials in their query; traces must not.
		body["assetUrls"].(map[string]any)["logo"] = media.URL + "/image.png?token=s3cr3t"
		body["webhook"] = hooks.URL + "/done?token=s3cr3t"
		id := k.submit(t, body)
		rec := k.waitStatus(t, id, "completed", 60*time.Second)
		out := download(t, rec["outputUrl"].(string))
		require.NotNil(t, out.Video())
		assert.Equal(t, 160, out.Video().Width)
		call := hooks.waitCalls(t, 1)[0]

		spans := k.waitSpan(t, "webhook.deliver", func(s tracetest.SpanStub) bool { return s.Name == "POST /api/render" })
		rest := spans.one(t, "POST /api/render")
		assert.False(t, rest.Parent.IsValid(), "the REST request starts the trace")
		assert.Equal(t, trace.SpanKindServer, rest.SpanKind)
		assert.Equal(t, "/api/render", attr(rest, "http.route"))
		submit := spans.serverSpan(t, "kino.render.v1.RenderService/SubmitRender")
		// The gateway's call is a client span of the REST request, and the
		// server span its child.
		gwCall := spans.childrenOf(rest)
		require.Len(t, gwCall, 1, "%v", spans.names())
		assert.Equal(t, trace.SpanKindClient, gwCall[0].SpanKind)
		requireParent(t, gwCall[0], submit)

		// The job's claim and attempt continue the trace of the submit.
		claim, run := spans.one(t, "job.claim"), spans.one(t, "job.run")
		requireParent(t, submit, claim, run)
		assert.Equal(t, id, attr(run, "kino.job.id"))
		assert.Equal(t, "completed", attr(run, "kino.job.outcome"))
		assert.False(t, claim.StartTime.After(run.StartTime))

		fetches := spans.named("fetch")
		require.Len(t, fetches, 2, "logo and tone: %v", spans.names())
		requireParent(t, run, fetches...)
		for _, f := range fetches {
			get := spans.childrenOf(f)
			require.Len(t, get, 1, "the HTTP request of %s", attr(f, "url.full"))
			assert.Equal(t, trace.SpanKindClient, get[0].SpanKind)
			assert.Equal(t, "200", attr(get[0], "http.response.status_code"))
		}
		assert.ElementsMatch(t, []string{media.URL + "/image.png?token=REDACTED", media.URL + "/tone.wav"},
			[]string{attr(fetches[0], "url.full"), attr(fetches[1], "url.full")})
		probes := spans.named("probe")
		require.Len(t, probes, 2, "%v", spans.names())
		requireParent(t, run, probes...)
		for _, p := range probes {
			assert.NotEmpty(t, attr(p, "kino.probe.format"))
		}
		ff := spans.one(t, "ffmpeg")
		requireParent(t, run, ff)
		assert.Equal(t, "2", attr(ff, "kino.ffmpeg.output_seconds"))
		upload := spans.one(t, "upload")
		requireParent(t, run, upload)
		assert.True(t, strings.HasPrefix(attr(upload, "kino.storage.key"), "renders/"+id))
		complete := spans.one(t, "job.complete")
		requireParent(t, run, complete)
		assert.False(t, ff.EndTime.After(upload.StartTime), "ffmpeg, then the upload")

		// The webhook is stored by the completion, and sent in its trace.
		deliver := spans.one(t, "webhook.deliver")
		requireParent(t, complete, deliver)
		assert.Equal(t, "204", attr(deliver, "http.response.status_code"))
		post := spans.childrenOf(deliver)
		require.Len(t, post, 1)
		assert.Equal(t, trace.SpanKindClient, post[0].SpanKind)
		tp := call.header.Get("traceparent")
		assert.Equal(t, "00-"+rest.SpanContext.TraceID().String()+"-"+post[0].SpanContext.SpanID().String()+"-01", tp)

		noSecrets(t, spans, "s3cr3t")

		// The gateway's own routes, such as the progress stream a browser
		// reads, are named by their route too, and still stream.
		req, err := http.NewRequest(http.MethodGet, k.base+"/api/render/"+id+"/events", nil)
		require.NoError(t, err)
		req.Header.Set("Accept", "text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		events, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode)
		assert.Contains(t, string(events), `"status":"completed"`)
		const route = "GET /api/render/{id}/events"
		watching := k.waitSpan(t, route, func(s tracetest.SpanStub) bool { return s.Name == route })
		watch := watching.one(t, route)
		assert.Equal(t, "/api/render/{id}/events", attr(watch, "http.route"))
		assert.Equal(t, "200", attr(watch, "http.response.status_code"))
		// The stream it opens is a call of its trace. Its server span ends
		// when the stream's handler returns, which can be just after the
		// gateway's span has ended: wait for it too.
		const method = "kino.render.v1.RenderService/WatchRender"
		watching = k.waitSpan(t, route, func(s tracetest.SpanStub) bool {
			return s.Name == method && s.SpanKind == trace.SpanKindServer && s.SpanContext.TraceID() == watch.SpanContext.TraceID()
		})
		watching.serverSpan(t, method)
	})
}

// TestTraceOfAFailedRenderKeepsItsSecrets: the URLs a client gives may be
// credentials, a signed asset URL in its query, a webhook URL in its path
// (as Slack's and Discord's are); a render that fails on such an asset,
// and the webhook that reports it, leave neither in any span, log line or
// metric. The failure cancels the render's other downloads, one while its
// body streams and one before its answer, with the failure as the cause;
// the asset server answers the 404 only once both are under way, so every
// run takes both paths.
func TestTraceOfAFailedRenderKeepsItsSecrets(t *testing.T) {
	t.Parallel()
	media := serveMedia(t)
	tone, err := os.ReadFile(filepath.Join(media.dir, "tone.wav"))
	require.NoError(t, err)
	streaming, waiting := make(chan struct{}), make(chan struct{})
	var streamingOnce, waitingOnce sync.Once
	mux := http.NewServeMux()
	mux.HandleFunc("/tone.wav", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(tone)))
		_, _ = w.Write(tone[:len(tone)/2])
		w.(http.Flusher).Flush()
		streamingOnce.Do(func() { close(streaming) })
		<-r.Context().Done()
	})
	mux.HandleFunc("/music.wav", func(w http.ResponseWriter, r *http.Request) {
		waitingOnce.Do(func() { close(waiting) })
		<-r.Context().Done()
	})
	mux.HandleFunc("/missing.png", func(w http.ResponseWriter, r *http.Request) {
		for _, c := range []chan struct{}{streaming, waiting} {
			select {
			case <-c:
			case <-r.Context().Done():
				return
			}
		}
		http.NotFound(w, r)
	})
	assets := serveDir(t, mux)
	hooks := receiveHooks(t, 0)
	var logs lockedBuffer
	k := startTraced(t, storetest.SQLite(t), func(c *app.Config) {
		c.Log = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
		c.MetricsAddr = "127.0.0.1:0"
	})

	body := smallComposition(media)
	layers := body["composition"].(map[string]any)["layers"].([]any)
	body["composition"].(map[string]any)["layers"] = append(layers,
		map[string]any{"type": "audio", "src": "music", "start": 0, "duration": 2})
	body["assetUrls"] = map[string]any{
		"logo":  assets + "/missing.png?token=s3cr3t",
		"tone":  assets + "/tone.wav?token=s3cr3t",
		"music": assets + "/music.wav?token=s3cr3t",
	}
	body["webhook"] = hooks.URL + "/services/T0/B0/s3cr3t"
	id := k.submit(t, body)
	rec := k.waitStatus(t, id, "failed", 60*time.Second)
	require.Contains(t, fmt.Sprint(rec["error"]), "missing.png?token=s3cr3t", "the client is told which URL failed")
	hooks.waitCalls(t, 1)

	spans := k.waitSpan(t, "webhook.deliver", func(s tracetest.SpanStub) bool { return s.Name == "POST /api/render" })
	run := spans.one(t, "job.run")
	assert.Equal(t, "failed", attr(run, "kino.job.outcome"))
	assert.Equal(t, codes.Error, run.Status.Code)
	post := spans.childrenOf(spans.one(t, "webhook.deliver"))
	require.Len(t, post, 1)
	assert.Equal(t, hooks.URL+"/REDACTED", attr(post[0], "url.full"), "the receiver's origin only")
	// The three downloads ended: one failed, two were cancelled by it.
	fetches := spans.named("fetch")
	require.Len(t, fetches, 3, "%v", spans.names())
	var gets spanSet
	for _, f := range fetches {
		gets = append(gets, spans.childrenOf(f)...)
	}
	require.Len(t, gets, 3, "the HTTP requests of the downloads")
	var statuses []string
	for _, g := range gets {
		statuses = append(statuses, g.Status.Description)
	}
	assert.Contains(t, statuses, "request cancelled", "a download cancelled while its body was read")
	noSecrets(t, spans, "s3cr3t")

	// The log tells the operator what failed, with the URL redacted.
	assert.Contains(t, logs.String(), "missing.png?token=REDACTED")
	assert.NotContains(t, logs.String(), "s3cr3t")
	r, err := http.Get("http://" + k.app.MetricsAddr + "/metrics")
	require.NoError(t, err)
	metrics, err := io.ReadAll(r.Body)
	r.Body.Close()
	require.NoError(t, err)
	assert.Contains(t, string(metrics), "kino_")
	assert.NotContains(t, string(metrics), "s3cr3t")
}

// lockedBuffer is a bytes.Buffer that a logger may write to from many
// goroutines while a test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestTraceOfACancelledRenderWebhook: a render that ends by a cancel, a
// request of its own trace, still sends its webhook in the submit's trace.
func TestTraceOfACancelledRenderWebhook(t *testing.T) {
	t.Parallel()
	hooks := receiveHooks(t, 0)
	// No workers: the job waits until it is cancelled.
	k := startTraced(t, storetest.SQLite(t), func(c *app.Config) { c.Workers = 0 })

	body := longComposition()
	body["webhook"] = hooks.URL
	id := k.submit(t, body)
	r := k.do(t, http.MethodDelete, "/api/render/"+id, nil)
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	call := hooks.waitCalls(t, 1)[0]

	spans := k.waitSpan(t, "webhook.deliver", func(s tracetest.SpanStub) bool { return s.Name == "POST /api/render" })
	requireParent(t, spans.serverSpan(t, "kino.render.v1.RenderService/SubmitRender"), spans.one(t, "webhook.deliver"))
	assert.Contains(t, call.header.Get("traceparent"), spans.one(t, "POST /api/render").SpanContext.TraceID().String())
	cancel := k.waitSpan(t, "DELETE /api/render/{job_id}", func(s tracetest.SpanStub) bool { return s.Name == "DELETE /api/render/{job_id}" })
	assert.Empty(t, cancel.named("webhook.deliver"), "the cancel's trace holds no webhook")
}

// TestTraceOfAMediaJob: a media job continues the trace context its REST
// client sent, through fetch, probe, ffmpeg and upload.
func TestTraceOfAMediaJob(t *testing.T) {
	t.Parallel()
	media := serveMedia(t)
	k := startTraced(t, storetest.SQLite(t), nil)

	const clientTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
	r := k.do(t, http.MethodPost, "/jobs", map[string]any{
		"type": "audio.extract", "inputs": map[string]any{"source": media.URL + "/clip.mp4"}, "params": map[string]any{"format": "mp3"},
	}, "traceparent", "00-"+clientTrace+"-00f067aa0ba902b7-01")
	require.Equal(t, http.StatusAccepted, r.status, "%s", r.body)
	id := r.json(t)["data"].(map[string]any)["id"].(string)
	j := k.waitJob(t, id)
	require.Equal(t, "complete", j["status"], "%v", j)
	out := download(t, j["outputUrl"].(string))
	require.NotNil(t, out.Audio())
	assert.Equal(t, "mp3", out.Audio().CodecName)

	spans := k.waitSpan(t, "job.complete", func(s tracetest.SpanStub) bool { return s.SpanContext.TraceID().String() == clientTrace })
	rest := spans.one(t, "POST /jobs")
	assert.Equal(t, "00f067aa0ba902b7", rest.Parent.SpanID().String(), "the client's span is the parent")
	run := spans.one(t, "job.run")
	requireParent(t, spans.serverSpan(t, "kino.media.v1.JobService/CreateJob"), run)
	assert.Equal(t, "audio.extract", attr(run, "kino.job.type"))
	fetch := spans.one(t, "fetch")
	requireParent(t, run, fetch)
	assert.Equal(t, media.URL+"/clip.mp4", attr(fetch, "url.full"))
	assert.NotEmpty(t, spans.named("probe"), "the input and the output are probed: %v", spans.names())
	ff := spans.one(t, "ffmpeg")
	requireParent(t, run, ff)
	uploads := spans.named("upload")
	require.NotEmpty(t, uploads)
	requireParent(t, run, uploads...)
	assert.Equal(t, "completed", attr(run, "kino.job.outcome"))
}
