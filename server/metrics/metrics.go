// Package metrics is what a kino process measures for Prometheus: jobs'
// waits and runs, ffmpeg's speed, bytes fetched and stored, webhook
// attempts, gRPC and HTTP requests. Each process (each App) has a registry
// of its own, so that two kinos in one test binary never add up; the
// figures that must agree across nodes (jobs by state, the queue) are read
// from the database on each scrape by a collector registered beside these
// (jobs.Collector).
//
// Every method is safe on a nil *Metrics, which measures nothing: packages
// take one where they are built and need no check.
package metrics

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Attempt outcomes, the outcome label of kino_job_run_seconds.
const (
	// Completed: the attempt completed the job.
	Completed = "completed"
	// Failed: the attempt failed the job.
	Failed = "failed"
	// Retried: the attempt failed and the job was put back for another.
	Retried = "retried"
	// Released: a shutdown handed the job back, uncounted.
	Released = "released"
	// Stopped: the job was cancelled or taken over while the attempt ran,
	// and its outcome was discarded.
	Stopped = "stopped"
)

// Webhook attempt outcomes, the outcome label of kino_webhook_attempts_total.
const (
	// WebhookDelivered: the receiver answered 2xx; the delivery ends.
	WebhookDelivered = "delivered"
	// WebhookRetry: the attempt failed and another one follows.
	WebhookRetry = "retry"
	// WebhookFailed: the attempt failed and the delivery is given up.
	WebhookFailed = "failed"
)

// Metrics holds one process's collectors.
type Metrics struct {
	reg *prometheus.Registry

	jobWait     *prometheus.HistogramVec
	jobRun      *prometheus.HistogramVec
	jobsEnded   *prometheus.CounterVec
	ffmpegSpeed *prometheus.HistogramVec
	fetched     prometheus.Counter
	stored      prometheus.Counter
	webhooks    *prometheus.CounterVec
	grpc        *prometheus.CounterVec
	http        *prometheus.CounterVec
	orgJobs     *prometheus.CounterVec
	orgCPU      *prometheus.CounterVec
	orgPrice    *prometheus.CounterVec
	previews    *prometheus.CounterVec
	previewTime prometheus.Histogram
}

// New returns the collectors of one process on a registry of their own,
// with Go's runtime and the process's own figures beside them.
func New() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		jobWait: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "kino_job_wait_seconds",
			Help:    "Time from a job's creation to its claim by a worker of this process (claimed_at - created_at).",
			Buckets: []float64{0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 3600},
		}, []string{"kind", "type"}),
		jobRun: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "kino_job_run_seconds",
			Help:    "Time one attempt of a job ran on this process, from its start to its outcome, by outcome (completed, failed, retried, released, stopped).",
			Buckets: []float64{0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600},
		}, []string{"kind", "type", "outcome"}),
		jobsEnded: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kino_jobs_ended_total",
			Help: "Jobs this process moved to a terminal state (completed, failed, cancelled), dependants cancelled with their parent included.",
		}, []string{"kind", "type", "state"}),
		ffmpegSpeed: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "kino_ffmpeg_speed_ratio",
			Help:    "Media seconds ffmpeg wrote per second of wall time, per successful ffmpeg run of a job (2 = twice real time).",
			Buckets: []float64{0.1, 0.25, 0.5, 1, 2, 4, 8, 16, 32, 64, 128},
		}, []string{"kind", "type"}),
		fetched: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "kino_fetched_bytes_total",
			Help: "Bytes downloaded from asset and input URLs, downloads that failed part way included.",
		}),
		stored: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "kino_stored_bytes_total",
			Help: "Bytes written to output storage: outputs, thumbnails, logs and uploaded assets.",
		}),
		webhooks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kino_webhook_attempts_total",
			Help: "Webhook delivery attempts this process made, by outcome: delivered, retry (another attempt follows) or failed (the delivery is given up).",
		}, []string{"outcome"}),
		grpc: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kino_grpc_requests_total",
			Help: "gRPC calls handled, by full method and status code; the REST gateway's calls included.",
		}, []string{"method", "code"}),
		http: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kino_http_requests_total",
			Help: "HTTP requests answered by the REST gateway, by method, route pattern and status code.",
		}, []string{"method", "route", "code"}),
		orgJobs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kino_org_jobs_total",
			Help: "Jobs this process ended completed or failed, by organisation (those named in --orgs-file or --api-keys; \"other\" for the rest) and kind; a split render's parts not counted.",
		}, []string{"org", "kind"}),
		orgCPU: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kino_org_cpu_seconds_total",
			Help: "CPU seconds (user + system) of the ffmpeg and ffprobe processes of the jobs this process ended, every attempt, by organisation and kind.",
		}, []string{"org", "kind"}),
		orgPrice: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kino_org_price_usd_total",
			Help: "Price in USD of the jobs this process ended, by organisation and kind.",
		}, []string{"org", "kind"}),
		previews: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kino_previews_total",
			Help: "Previews (POST /api/render/preview) this process answered, by organisation (as kino_org_jobs_total labels them) and outcome: drawn, failed, or refused (--max-previews).",
		}, []string{"org", "outcome"}),
		previewTime: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "kino_preview_seconds",
			Help:    "Time to answer a preview, from its arrival (its wait for a slot included) to its picture or its error.",
			Buckets: []float64{0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30},
		}),
	}
	m.reg.MustRegister(m.jobWait, m.jobRun, m.jobsEnded, m.ffmpegSpeed, m.fetched, m.stored, m.webhooks, m.grpc, m.http,
		m.orgJobs, m.orgCPU, m.orgPrice, m.previews, m.previewTime,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	// Outcomes that have not happened yet are 0, not absent, so that
	// increase() and alerts see the first one.
	for _, o := range []string{WebhookDelivered, WebhookRetry, WebhookFailed} {
		m.webhooks.WithLabelValues(o)
	}
	return m
}

// Register adds a collector of the process's own (the database's figures).
func (m *Metrics) Register(c prometheus.Collector) error {
	if m == nil {
		return nil
	}
	return m.reg.Register(c)
}

// Declare makes the job counters of a kind and type exist at 0 before its
// first job ends.
func (m *Metrics) Declare(kind, typ string) {
	if m == nil {
		return
	}
	for _, st := range []string{Completed, Failed, "cancelled"} {
		m.jobsEnded.WithLabelValues(kind, typ, st)
	}
}

// Handler serves the registry in Prometheus' text format. A collector that
// fails (the database did not answer) is logged and left out; the rest is
// served.
func (m *Metrics) Handler(log *slog.Logger) http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{
		ErrorLog:      errorLog{log},
		ErrorHandling: promhttp.ContinueOnError,
	})
}

type errorLog struct{ log *slog.Logger }

func (l errorLog) Println(v ...any) {
	if l.log != nil {
		l.log.Warn("metrics scrape", "err", v)
	}
}

// JobClaimed records that this process claimed a job that waited wait.
func (m *Metrics) JobClaimed(kind, typ string, wait time.Duration) {
	if m == nil {
		return
	}
	m.jobWait.WithLabelValues(kind, typ).Observe(max(wait, 0).Seconds())
}

// AttemptEnded records how an attempt of a job ended, and how long it ran.
func (m *Metrics) AttemptEnded(kind, typ, outcome string, took time.Duration) {
	if m == nil {
		return
	}
	m.jobRun.WithLabelValues(kind, typ, outcome).Observe(took.Seconds())
}

// JobEnded counts a job this process moved to a terminal state.
func (m *Metrics) JobEnded(kind, typ, state string) {
	if m == nil {
		return
	}
	m.jobsEnded.WithLabelValues(kind, typ, state).Inc()
}

// OrgUsed counts what a job of an organisation used when it ended: org is
// the label the caller chose (a bounded set), jobs 0 for a part of a job.
func (m *Metrics) OrgUsed(org, kind string, jobs int, cpuSeconds, price float64) {
	if m == nil {
		return
	}
	m.orgJobs.WithLabelValues(org, kind).Add(float64(jobs))
	m.orgCPU.WithLabelValues(org, kind).Add(max(cpuSeconds, 0))
	m.orgPrice.WithLabelValues(org, kind).Add(max(price, 0))
}

// Fetched counts downloaded bytes.
func (m *Metrics) Fetched(n int64) {
	if m == nil || n <= 0 {
		return
	}
	m.fetched.Add(float64(n))
}

// Stored counts bytes written to storage.
func (m *Metrics) Stored(n int64) {
	if m == nil || n <= 0 {
		return
	}
	m.stored.Add(float64(n))
}

// WebhookAttempt counts an attempt of a webhook delivery by its outcome.
func (m *Metrics) WebhookAttempt(outcome string) {
	if m == nil {
		return
	}
	m.webhooks.WithLabelValues(outcome).Inc()
}

// GRPCRequest counts a gRPC call by full method and status code name.
func (m *Metrics) GRPCRequest(method, code string) {
	if m == nil {
		return
	}
	m.grpc.WithLabelValues(method, code).Inc()
}

// HTTPRequest counts an HTTP request by method, route pattern and status.
func (m *Metrics) HTTPRequest(method, route string, code int) {
	if m == nil {
		return
	}
	m.http.WithLabelValues(method, route, strconv.Itoa(code)).Inc()
}

// Preview counts a preview of an organisation by its outcome (drawn,
// failed, refused), and how long it took.
func (m *Metrics) Preview(org, outcome string, took time.Duration) {
	if m == nil {
		return
	}
	m.previews.WithLabelValues(org, outcome).Inc()
	m.previewTime.Observe(took.Seconds())
}

// job is what a job's context carries for the figures measured deep in
// its run, where the job is not known (ffmpeg's speed).
type job struct {
	m         *Metrics
	kind, typ string
}

type jobKey struct{}

// WithJob returns ctx carrying the job being run, so that what is
// measured under it is labelled with its kind and type.
func (m *Metrics) WithJob(ctx context.Context, kind, typ string) context.Context {
	if m == nil {
		return ctx
	}
	return context.WithValue(ctx, jobKey{}, job{m: m, kind: kind, typ: typ})
}

// FFmpegSpeed records the speed of an ffmpeg run under ctx: media seconds
// written over wall seconds taken. Runs outside a job are not recorded.
func FFmpegSpeed(ctx context.Context, mediaSeconds float64, took time.Duration) {
	j, ok := ctx.Value(jobKey{}).(job)
	if !ok || mediaSeconds <= 0 || took <= 0 {
		return
	}
	j.m.ffmpegSpeed.WithLabelValues(j.kind, j.typ).Observe(mediaSeconds / took.Seconds())
}
