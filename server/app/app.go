// Package app wires kino together: store, storage, queue, workers, webhook
// dispatcher, the gRPC server and the REST gateway, on real listeners. The
// binary and the end-to-end tests start kino the same way, through Start.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"entgo.io/ent/dialect"
	"github.com/google/uuid"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/reflection"
	"google.golang.org/grpc/test/bufconn"

	"github.com/kinohq/kino/gateway"
	mediav1 "github.com/kinohq/kino/gen/kino/media/v1"
	renderv1 "github.com/kinohq/kino/gen/kino/render/v1"
	"github.com/kinohq/kino/server/account"
	"github.com/kinohq/kino/server/attempt"
	"github.com/kinohq/kino/server/auth"
	"github.com/kinohq/kino/server/demo"
	"github.com/kinohq/kino/server/engine"
	"github.com/kinohq/kino/server/events"
	"github.com/kinohq/kino/server/executor"
	"github.com/kinohq/kino/server/fetch"
	"github.com/kinohq/kino/server/ffmpeg"
	"github.com/kinohq/kino/server/glyphs"
	"github.com/kinohq/kino/server/jobs"
	"github.com/kinohq/kino/server/media"
	"github.com/kinohq/kino/server/mediajob"
	"github.com/kinohq/kino/server/mediarun"
	"github.com/kinohq/kino/server/memory"
	"github.com/kinohq/kino/server/metrics"
	"github.com/kinohq/kino/server/node"
	"github.com/kinohq/kino/server/org"
	"github.com/kinohq/kino/server/quota"
	"github.com/kinohq/kino/server/redact"
	"github.com/kinohq/kino/server/render"
	"github.com/kinohq/kino/server/renderjob"
	"github.com/kinohq/kino/server/renderrun"
	"github.com/kinohq/kino/server/rpc"
	"github.com/kinohq/kino/server/scratch"
	"github.com/kinohq/kino/server/share"
	"github.com/kinohq/kino/server/source"
	"github.com/kinohq/kino/server/sourcecache"
	"github.com/kinohq/kino/server/storage"
	"github.com/kinohq/kino/server/store"
	"github.com/kinohq/kino/server/transcribe"
	"github.com/kinohq/kino/server/typeset"
	"github.com/kinohq/kino/server/upload"
	"github.com/kinohq/kino/server/usage"
	"github.com/kinohq/kino/server/webhook"
)

// Config is everything kino serve can be told.
type Config struct {
	HTTPAddr    string
	GRPCAddr    string
	DataDir     string
	DatabaseURL string
	StorageURL  string
	// PublicURL is the base of outputUrls; default http://HTTPAddr.
	PublicURL string
	// Workers is how many jobs (renders and media jobs together, so
	// ffmpeg processes) run at once; 0 makes an API-only node that queues
	// jobs for other nodes to run.
	Workers int
	// Role is what the node does: "all" (the default) serves the APIs and
	// runs jobs; "api" serves the APIs and runs nothing (Workers is then
	// 0); "worker" runs jobs and serves neither gRPC nor REST, only
	// GET /api/health on HTTPAddr and metrics.
	Role string
	// Version is recorded in the node's heartbeat.
	Version string
	// HeartbeatEvery is the time between two heartbeats of the node;
	// default node.HeartbeatEvery.
	HeartbeatEvery time.Duration
	// IdlePollEvery is how often an idle worker slot looks for work that
	// no signal announced (a retry whose backoff ended, a missed event);
	// default jobs.PoolConfig's.
	IdlePollEvery time.Duration
	// URLLifetime is how long each URL kino hands out stays valid: S3
	// presigned URLs and kino's signed /files/ URLs; default 24h.
	URLLifetime time.Duration
	// URLSecret signs the /files/ URLs; empty: a random secret kept in
	// the database, shared by every node on it.
	URLSecret            string
	AllowPrivateNetworks bool
	// RawFFmpegWithoutSandbox runs clients' own ffmpeg commands
	// (raw.ffmpeg, ffmpeg) on a kernel that lacks a wall of the sandbox
	// (network namespace, Landlock), behind the parser and what walls
	// remain (--raw-ffmpeg-without-sandbox); otherwise such jobs fail.
	RawFFmpegWithoutSandbox bool
	WebhookSecret           string
	WebhookMaxAttempts      int
	WebhookBaseDelay        time.Duration
	CORSOrigins             []string
	MaxBodyBytes            int64
	MaxAssetBytes           int64
	FetchTimeout            time.Duration
	// FetchMinRate (bytes/s) over FetchRateWindow is the slowest accepted
	// download of a source (--fetch-min-rate, --fetch-rate-window); a
	// slower one fails as the source's fault. Zero takes the defaults.
	FetchMinRate    int64
	FetchRateWindow time.Duration
	RenderTimeout   time.Duration
	// Split says which renders are split across workers (docs/split.md);
	// the zero value splits none.
	Split render.SplitConfig
	// JobTimeout caps one attempt of a media job, as RenderTimeout does
	// one of a render: downloads, probes, ffmpeg and uploads.
	JobTimeout time.Duration
	// MaxImagePixels is the largest picture or frame kino opens, read from
	// its header before any decode; MaxFFmpegMemory the address space of
	// each ffmpeg and ffprobe process. Both apply to the whole process.
	MaxImagePixels int64
	// PreviewTimeout caps one preview (--preview-timeout); 0 takes
	// renderrun.DefaultPreviewTimeout.
	PreviewTimeout time.Duration
	// MemoryLimit is the process's soft memory limit (--memory-limit);
	// 0 leaves Go's default, none. It is the process's, not one app's.
	MemoryLimit     int64
	MaxFFmpegMemory int64
	// MaxOutputBytes bounds what ffmpeg writes in one attempt of a render
	// or media job (--max-output-size); MinFreeDisk is the free space the
	// working folder's disk must have beside it for an attempt to start
	// (--min-free-disk). Zero takes the defaults.
	MaxOutputBytes int64
	MinFreeDisk    int64
	// SourceCacheBytes bounds the node's cache of downloaded render
	// sources (--source-cache-size); zero takes the default.
	SourceCacheBytes int64
	// MaxPreviews bounds the previews drawn at once (--max-previews);
	// zero takes renderrun.DefaultMaxPreviews.
	MaxPreviews int
	// Orgs is each organisation's weight and limits (--org-* flags and
	// --orgs-file); nil gives every organisation weight 1 and no limits.
	Orgs        *org.Policies
	Limits      engine.Limits
	Lease       time.Duration
	MaxAttempts int
	// JobRetryDelay is the wait before a media job's first retry.
	JobRetryDelay time.Duration
	ShutdownGrace time.Duration
	// APIKeys maps each API key to its organisation; empty runs kino in
	// single-organisation mode.
	APIKeys map[string]string
	// AdminKey manages system-scope assets; it acts as organisation "system".
	AdminKey string
	// CPUSecondCost is what one CPU second of a job's processes costs, in
	// USD: the jobs' infraCost (--cpu-second-cost).
	CPUSecondCost float64
	// Transcriber replaces the offline pocketsphinx transcriber of
	// caption.extract (a Whisper-compatible service, say).
	Transcriber transcribe.Transcriber
	// MaxUploadBytes caps an asset upload (POST /assets).
	MaxUploadBytes int64
	// FileUploadBytes caps a file upload (POST /uploads), FileUploadLifetime
	// is how long one lives; zero takes upload.DefaultMaxBytes and
	// upload.DefaultLifetime.
	FileUploadBytes    int64
	FileUploadLifetime time.Duration
	// Now is the clock uploads expire by, in the API, the file server and
	// the workers; nil is time.Now. Tests move it.
	Now func() time.Time
	// HTTPHeaderTimeout bounds reading a request's headers; HTTPIdleTimeout
	// closes a keep-alive connection left idle.
	HTTPHeaderTimeout time.Duration
	HTTPIdleTimeout   time.Duration
	// HTTPWriteTimeout bounds each write of a response (not a whole
	// response: watch streams and downloads last as long as they need).
	HTTPWriteTimeout time.Duration
	// BodyMinRate (bytes/s) over BodyRateWindow is the slowest accepted
	// request body.
	BodyMinRate    int64
	BodyRateWindow time.Duration
	// MaxWatchStreams caps the watch streams open at once, gRPC and HTTP.
	MaxWatchStreams int
	// UploadWorkers is how many uploads are probed and thumbnailed at
	// once; UploadTimeout caps that work for one upload, and the wait for
	// a free worker.
	UploadWorkers int
	UploadTimeout time.Duration
	// DefaultFont is the font of text layers that name none; found with
	// fontconfig when empty.
	DefaultFont string
	// TracerProvider records traces: requests over REST and gRPC, and
	// each job's claim, attempts and steps and its webhook, in the trace
	// of the request that submitted it. nil, tracing off, records none and
	// costs nothing; kino serve sets it from the OTEL_* variables.
	TracerProvider trace.TracerProvider
	// MetricsAddr serves Prometheus metrics at /metrics; empty: no
	// metrics are served, nor measured.
	MetricsAddr string
	Log         *slog.Logger
}

// App is a running kino.
type App struct {
	// HTTPAddr and GRPCAddr are where it listens (ports resolved);
	// MetricsAddr too, empty when metrics are off. A worker-only node
	// has no GRPCAddr.
	HTTPAddr    string
	GRPCAddr    string
	MetricsAddr string
	// NodeID names this process in leases and in the node list.
	NodeID string

	cfg Config
	log *slog.Logger

	// The infrastructure, opened first.
	store   *store.Store
	storage *storage.Storage
	bus     events.Bus
	// metrics is nil when metrics are off.
	metrics *metrics.Metrics
	fetch   *fetch.Client
	// demo is kino's demo media, served at /demo/ and read in-process
	// wherever a source names it.
	demo    *demo.Files
	scratch *scratch.Dir
	sources *sourcecache.Cache
	// publicURL is the base of the URLs the gateway serves.
	publicURL string
	// The listeners, opened before serving so that their resolved ports
	// make the public URL; grpcLis and metricsLis are nil when unused.
	httpLis, grpcLis, metricsLis net.Listener

	// The job core, its workers and the webhooks it sends.
	core  *jobs.Client
	hooks *webhook.Dispatcher
	pool  *jobs.Pool
	// env is the workers' environment, shared by the render worker, the
	// previews and the media runner.
	env *attempt.Env
	// ffmpeg are the limits of every ffmpeg and ffprobe process the node
	// starts, and memory gives back the heap its in-process drawing grew:
	// the node's own, so that apps sharing a process keep theirs.
	ffmpeg ffmpeg.Limits
	memory *memory.Releaser
	// usage records what jobs, previews and uploads used.
	usage *usage.Recorder

	// The node's pools shared between organisations by weight: preview
	// slots, upload workers, watch streams (server/share).
	previews, uploadSlots, watches *share.Pool

	// own reads the organisations' own stored files named by URL
	// in-process; uploads keeps the files of POST /uploads and sweeps
	// them when they expire.
	uploads *upload.Service

	// The APIs: the gRPC server, and the gateway reaching it in memory.
	grpcServer *grpc.Server
	authn      *auth.Authenticator
	// after runs what follows a job's end off the committing goroutine.
	after      afterWork
	inproc     *bufconn.Listener
	gwConn     *grpc.ClientConn
	httpServer *http.Server

	cancelBG context.CancelFunc
	bg       sync.WaitGroup
	// metricsServer serves /metrics; nil when metrics are off.
	metricsServer *http.Server
	heartbeat     *node.Heartbeat
}

// Start opens everything and begins serving, in five steps: the
// infrastructure (data folder, database, event bus, metrics, listeners,
// storage and its secret, downloads, working folder, node id), the job
// core, the workers, the APIs, and then the servers and loops. Whatever a
// failing step leaves open is closed before Start returns.
func Start(ctx context.Context, cfg Config) (*App, error) {
	cfg = withDefaults(cfg)
	if err := checkConfig(cfg); err != nil {
		return nil, err
	}
	a := &App{cfg: cfg, log: cfg.Log,
		ffmpeg: ffmpeg.Limits{MaxPixels: cfg.MaxImagePixels, MaxMemory: cfg.MaxFFmpegMemory}.WithDefaults(),
		memory: memory.NewReleaser(nil)}
	memory.SetLimit(cfg.MemoryLimit)
	ok := false
	defer func() {
		if !ok {
			a.closeAll()
		}
	}()
	if err := a.openInfrastructure(ctx); err != nil {
		return nil, err
	}
	a.openCore()
	a.openWorkers()
	if err := a.openAPIs(ctx); err != nil {
		return nil, err
	}
	a.serve()
	ok = true
	return a, nil
}

// checkConfig refuses what withDefaults cannot mend.
func checkConfig(cfg Config) error {
	switch {
	case cfg.Role != node.RoleAll && cfg.Role != node.RoleAPI && cfg.Role != node.RoleWorker:
		return fmt.Errorf("role %q: use all, api or worker", cfg.Role)
	case cfg.HeartbeatEvery >= node.StaleAfter:
		return fmt.Errorf("heartbeat every %s: must be shorter than %s, after which a node is listed as stale", cfg.HeartbeatEvery, node.StaleAfter)
	case cfg.Role == node.RoleWorker && cfg.Workers <= 0:
		return fmt.Errorf("role worker needs at least one worker slot (workers %d)", cfg.Workers)
	}
	return nil
}

// openInfrastructure opens what the core and the APIs stand on, in the
// order each needs the one before: the database before the metrics that
// read it, the listeners before the storage whose URLs name their
// address, the downloader before the source cache that uses it.
func (a *App) openInfrastructure(ctx context.Context) error {
	if err := a.openDataDir(); err != nil {
		return err
	}
	if err := a.openDatabase(ctx); err != nil {
		return err
	}
	if a.cfg.MetricsAddr != "" {
		m, err := newMetrics(a.store, a.log)
		if err != nil {
			return err
		}
		a.metrics = m
	}
	if err := a.listen(); err != nil {
		return err
	}
	if err := a.openStorage(ctx); err != nil {
		return err
	}
	a.demo = demo.New(a.publicURL, a.HTTPAddr)
	a.fetch = fetch.New(fetch.Options{
		Local:        a.demo.Local,
		Unknown:      a.demo.Unknown,
		AllowPrivate: a.cfg.AllowPrivateNetworks,
		MaxBytes:     a.cfg.MaxAssetBytes,
		Timeout:      a.cfg.FetchTimeout,
		MinRate:      a.cfg.FetchMinRate,
		RateWindow:   a.cfg.FetchRateWindow,
		UserAgent:    "kino/1",
		// Downloads and webhooks are spans, and carry their trace context.
		TracerProvider: a.cfg.TracerProvider,
		Metrics:        a.metrics,
	})
	if err := a.openScratch(); err != nil {
		return err
	}
	a.NodeID = fmt.Sprintf("%s-%d-%s", hostname(), os.Getpid(), uuid.NewString()[:8])
	return nil
}

// openDataDir makes the data folder and its path absolute: ffmpeg runs in
// each render's own folder, so every path kino hands it must be absolute.
func (a *App) openDataDir() error {
	dataDir, err := filepath.Abs(a.cfg.DataDir)
	if err != nil {
		return fmt.Errorf("resolve data folder %s: %w", a.cfg.DataDir, err)
	}
	a.cfg.DataDir = dataDir
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return fmt.Errorf("create data folder %s: %w", dataDir, err)
	}
	return nil
}

// openDatabase opens the database (SQLite in the data folder unless a URL
// is given) and the bus that carries its jobs' signals.
func (a *App) openDatabase(ctx context.Context) error {
	dbURL := a.cfg.DatabaseURL
	if dbURL == "" {
		dbURL = "sqlite://" + filepath.Join(a.cfg.DataDir, "kino.db")
	}
	var err error
	if a.store, err = store.Open(ctx, dbURL); err != nil {
		return err
	}
	// On PostgreSQL other nodes change jobs too; their signals arrive
	// through the database, so watchers never poll and idle workers on
	// every node hear of new work.
	if a.store.Dialect == dialect.Postgres {
		a.bus, err = events.NewPostgres(ctx, dbURL, a.log)
		return err
	}
	a.bus = events.NewLocal()
	return nil
}

// listen opens the HTTP listener, the gRPC one (a worker-only node takes
// no API calls: it has none) and the metrics one when metrics are on.
func (a *App) listen() error {
	var err error
	if a.httpLis, err = net.Listen("tcp", a.cfg.HTTPAddr); err != nil {
		return fmt.Errorf("listen for HTTP on %s: %w", a.cfg.HTTPAddr, err)
	}
	a.HTTPAddr = a.httpLis.Addr().String()
	if a.cfg.Role != node.RoleWorker {
		if a.grpcLis, err = net.Listen("tcp", a.cfg.GRPCAddr); err != nil {
			return fmt.Errorf("listen for gRPC on %s: %w", a.cfg.GRPCAddr, err)
		}
		a.GRPCAddr = a.grpcLis.Addr().String()
	}
	if a.metrics != nil {
		if a.metricsLis, err = net.Listen("tcp", a.cfg.MetricsAddr); err != nil {
			return fmt.Errorf("listen for metrics on %s: %w", a.cfg.MetricsAddr, err)
		}
		a.MetricsAddr = a.metricsLis.Addr().String()
	}
	return nil
}

// openStorage opens the bucket of outputs and assets, and the secret that
// signs its URLs: the flag's, or one kept in the database so that every
// node shares it.
func (a *App) openStorage(ctx context.Context) error {
	a.publicURL = a.cfg.PublicURL
	if a.publicURL == "" {
		a.publicURL = "http://" + a.HTTPAddr
	}
	var err error
	if a.storage, err = storage.Open(ctx, a.cfg.StorageURL, a.cfg.DataDir, a.publicURL); err != nil {
		return err
	}
	a.storage.CountBytes(a.metrics)
	secret := []byte(a.cfg.URLSecret)
	if len(secret) == 0 {
		if secret, err = a.store.SharedSecret(ctx, "url-signing"); err != nil {
			return err
		}
	}
	// With API keys on, outputs are private: a local bucket's URLs are
	// signed like a private S3 bucket's.
	signLocal := len(a.cfg.APIKeys) > 0 || a.cfg.AdminKey != ""
	a.storage.SignURLs(secret, a.cfg.URLLifetime, signLocal)
	return nil
}

// openScratch opens this process's own working folder, removing what a
// killed process left behind first, and the cache of downloaded sources
// inside it: a process that dies leaves no cache behind, and two
// processes on one data folder keep apart.
func (a *App) openScratch() error {
	work, removed, err := scratch.Open(filepath.Join(a.cfg.DataDir, "tmp"))
	if len(removed) > 0 {
		a.log.Info("removed working folders of processes that are gone", "folders", removed)
	}
	if err != nil {
		return err
	}
	a.scratch = work
	a.sources, err = sourcecache.New(filepath.Join(work.Path, "sources"), a.cfg.SourceCacheBytes, a.fetch)
	return err
}

// openCore makes the job core and what it does when a job ends: send its
// webhook, remove a split render's parts, count it, record its cost.
func (a *App) openCore() {
	a.hooks = webhook.New(a.store.Client, a.fetch.NoRedirectClient(), webhook.Config{
		Secret:         a.cfg.WebhookSecret,
		MaxAttempts:    a.cfg.WebhookMaxAttempts,
		BaseDelay:      a.cfg.WebhookBaseDelay,
		TracerProvider: a.cfg.TracerProvider,
		Metrics:        a.metrics,
	}, a.log)
	a.core = jobs.New(a.store, a.bus, jobs.Config{Lease: a.cfg.Lease, MaxAttempts: a.cfg.MaxAttempts, RetryDelay: a.cfg.JobRetryDelay,
		Upstream: media.Upstream, Orgs: a.cfg.Orgs})
	a.core.OnFinal(render.WebhookHook(a.hooks, a.storage), render.NotifyWebhooks(a.hooks))
	a.core.OnFinal(media.NewNotifier(a.hooks, a.storage, a.store.Dialect).Final, nil)
	// Removing a split render's parts takes up to a minute: never inside
	// the request (a DELETE) or the worker whose commit ended the render.
	clean := renderrun.CleanParts(a.storage, a.core, a.log)
	a.core.OnFinal(nil, func(j *jobs.Job) { a.after.run(func() { clean(j) }) })
	a.core.OnFinal(nil, countEnded(a.metrics))
	a.usage = usage.New(usage.Config{CPUSecondCost: a.cfg.CPUSecondCost, Parts: map[string]string{renderjob.PartKind: renderjob.Kind},
		Named: namedOrgs(a.cfg), Metrics: a.metrics})
	a.core.OnFinal(a.usage.Final, a.usage.After)
}

// openWorkers makes the pool of --workers slots and the handler of each
// kind of job: a render, a part of a split render, a media job. An
// API-only node makes it too, and never starts it.
func (a *App) openWorkers() {
	cfg, tmp := a.cfg, a.scratch.Path
	a.env = &attempt.Env{TempDir: tmp, RenderTimeout: cfg.RenderTimeout, JobTimeout: cfg.JobTimeout,
		MaxOutputBytes: cfg.MaxOutputBytes, MinFreeDisk: cfg.MinFreeDisk, Font: cfg.DefaultFont, Transcriber: cfg.Transcriber,
		FFmpeg: a.ffmpeg, Memory: a.memory, Fonts: glyphs.NewMachine(glyphs.DefaultDirs()...), Store: a.store, Storage: a.storage, Fetch: a.fetch, Log: cfg.Log,
		Sources: source.New(source.Config{Store: a.store, Storage: a.storage, Fetch: a.fetch, Cache: a.sources, Now: cfg.Now})}
	renderCfg := renderrun.Config{Env: a.env, Jobs: a.core, Limits: cfg.Limits}
	a.pool = jobs.NewPool(a.core, jobs.PoolConfig{
		Owner: a.NodeID,
		Slots: cfg.Workers,
		Handlers: map[string]jobs.Handler{
			renderjob.Kind:     renderrun.NewHandler(renderCfg),
			renderjob.PartKind: renderrun.NewPartHandler(renderCfg),
			mediajob.Kind: mediarun.New(mediarun.Config{Env: a.env,
				Executors: executor.New(executor.Config{Font: cfg.DefaultFont, Transcriber: cfg.Transcriber,
					FFmpeg: a.ffmpeg, Memory: a.memory, MaxPixels: a.ffmpeg.MaxPixels, MaxOutputBytes: cfg.MaxOutputBytes, SandboxPartial: cfg.RawFFmpegWithoutSandbox}),
			}),
		},
		PollEvery:      cfg.IdlePollEvery,
		TracerProvider: cfg.TracerProvider,
		Metrics:        a.metrics,
		Log:            cfg.Log,
	})
}

// openAPIs makes the gRPC server with every service, and the REST gateway
// in front of it.
func (a *App) openAPIs(ctx context.Context) error {
	// One authenticator for both faces: the gateway refuses a request
	// without a valid key before it reads anything, the gRPC server a call.
	a.authn = auth.New(a.cfg.APIKeys, a.cfg.AdminKey, "/kino.render.v1.RenderService/Health")
	a.grpcServer = a.newGRPCServer()
	return a.openGateway(ctx)
}

// newGRPCServer makes the gRPC server: its interceptors (keys, limits,
// traces, metrics) and every service registered on it, each submit held
// to its organisation's limits.
func (a *App) newGRPCServer() *grpc.Server {
	cfg, tmp := a.cfg, a.scratch.Path
	limits := quota.New(a.store, cfg.Orgs).WithClock(cfg.Now)
	a.uploads = upload.New(upload.Config{Store: a.store, Storage: a.storage, Quota: limits, MaxBytes: cfg.FileUploadBytes,
		Lifetime: cfg.FileUploadLifetime, Now: cfg.Now, Log: cfg.Log})
	authn := a.authn
	if authn.SingleOrg() {
		cfg.Log.Warn("no API keys configured: single-organisation mode, every request belongs to organisation \"default\" and needs no key")
	}
	a.openPools()
	serverOpts := []grpc.ServerOption{rpc.WatchLimit(a.watches),
		// A client that vanished without closing its connection (a
		// laptop lid, a dropped NAT entry) would hold its watch streams
		// forever; pings find it within Time + Timeout.
		grpc.KeepaliveParams(keepalive.ServerParameters{Time: time.Minute, Timeout: 20 * time.Second}),
		// An upload's bytes flow to the server: with HTTP/2's default
		// 64 KiB windows (which the bandwidth estimator barely grows over
		// the gateway's in-memory connection) a stream of them waits on
		// window updates most of the time. Fixed windows bound what a
		// client may send ahead of the service's reads: 1 MiB a stream,
		// 4 MiB a connection.
		grpc.InitialWindowSize(uploadWindow), grpc.InitialConnWindowSize(4 * uploadWindow)}
	if cfg.TracerProvider != nil {
		serverOpts = append(serverOpts, rpc.ServerTraces(cfg.TracerProvider))
	}
	s := rpc.NewServer(cfg.Log, authn, a.metrics, serverOpts...)
	renderv1.RegisterRenderServiceServer(s, render.NewService(render.ServiceConfig{
		Quota:    limits,
		Store:    a.store,
		Jobs:     a.core,
		Storage:  a.storage,
		Limits:   cfg.Limits,
		CheckURL: a.fetch.CheckHost,
		Split:    cfg.Split,
		Preview: renderrun.NewPreviewer(renderrun.PreviewConfig{Env: a.env, Pool: a.previews,
			Named: namedOrgs(cfg), Metrics: a.metrics, Usage: a.usage, Timeout: cfg.PreviewTimeout}),
		Log: cfg.Log,
	}))
	renderv1.RegisterTemplateServiceServer(s, render.NewTemplateService(a.store, cfg.Limits, cfg.Log))
	mediav1.RegisterJobServiceServer(s, media.NewJobService(a.core, a.store, a.storage, limits, cfg.Log).CheckWebhooks(a.fetch.CheckHost).LimitFFmpeg(a.ffmpeg))
	mediav1.RegisterPipelineServiceServer(s, media.NewPipelineService(a.core, a.store, a.storage, limits, cfg.Log).CheckWebhooks(a.fetch.CheckHost).LimitFFmpeg(a.ffmpeg))
	mediav1.RegisterWebhookServiceServer(s, media.NewWebhookService(a.store, a.fetch.CheckHost, cfg.Log))
	renderv1.RegisterNodeServiceServer(s, node.NewService(a.store, cfg.Log))
	mediav1.RegisterUsageServiceServer(s, usage.NewService(a.store, cfg.Log))
	mediav1.RegisterAssetServiceServer(s, media.NewAssetService(a.store, a.storage, media.UploadOptions{
		TempDir: tmp, MaxBytes: cfg.MaxUploadBytes, Pool: a.uploadSlots, Timeout: cfg.UploadTimeout, Quota: limits,
		Usage: a.usage, FFmpeg: a.ffmpeg, Memory: a.memory,
	}, cfg.Log))
	mediav1.RegisterUploadServiceServer(s, a.uploads)
	mediav1.RegisterOrgServiceServer(s, account.New(account.Config{Policies: cfg.Orgs, Quota: limits,
		MaxUploadBytes: cfg.FileUploadBytes, UploadLifetime: cfg.FileUploadLifetime}))
	healthSrv := health.NewServer()
	healthSrv.SetServingStatus(renderv1.RenderService_ServiceDesc.ServiceName, healthpb.HealthCheckResponse_SERVING)
	healthpb.RegisterHealthServer(s, healthSrv)
	reflection.Register(s)
	return s
}

// openPools makes the node's pools shared between organisations. Their
// weights are those of the workers' turns; the cap of the work pools
// (previews drawn, uploads decoded) is the organisation's running cap, as
// each is work done for it like a job. Watching costs little, so streams
// have no cap of their own beside their share.
func (a *App) openPools() {
	cfg := a.cfg
	work := func(o string) share.Limit {
		p := cfg.Orgs.For(o)
		return share.Limit{Weight: p.Weight, Cap: p.MaxRunning}
	}
	watch := func(o string) share.Limit { return share.Limit{Weight: cfg.Orgs.For(o).Weight} }
	previews := cfg.MaxPreviews
	if previews <= 0 {
		previews = renderrun.DefaultMaxPreviews
	}
	uploads := cfg.UploadWorkers
	if uploads <= 0 {
		uploads = media.DefaultUploadWorkers
	}
	a.previews = share.New(previews, work)
	a.uploadSlots = share.New(uploads, work)
	pools := map[string]*share.Pool{"previews": a.previews, "upload_workers": a.uploadSlots}
	if cfg.MaxWatchStreams > 0 {
		a.watches = share.New(cfg.MaxWatchStreams, watch)
		pools["watch_streams"] = a.watches
	}
	if a.metrics != nil {
		if err := a.metrics.Register(newPoolCollector(pools, namedOrgs(cfg))); err != nil {
			a.log.Error("register pool metrics", "err", err)
		}
	}
}

// uploadWindow is the HTTP/2 flow-control window of each gRPC stream the
// server receives on.
const uploadWindow = 1 << 20

// maxPreviewMessage bounds a response the gateway takes from the gRPC
// server: a PNG of the largest frame (--max-width × --max-height, 3840 ×
// 2160 by default, 25 MB as raw RGB) fits.
const maxPreviewMessage = 64 << 20

// openGateway makes the REST gateway and its HTTP server. The gateway
// reaches the gRPC server in memory, through the same interceptors as any
// gRPC client.
func (a *App) openGateway(ctx context.Context) error {
	cfg := a.cfg
	a.inproc = bufconn.Listen(1 << 20)
	gwOpts := []grpc.DialOption{
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return a.inproc.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		// A preview's picture comes back in one message: a PNG of a 4K
		// frame can pass gRPC's default 4 MiB.
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxPreviewMessage)),
	}
	if cfg.TracerProvider != nil {
		// Its calls are spans too, and carry the REST request's trace
		// context to the server: one trace from REST to gRPC.
		gwOpts = append(gwOpts, rpc.ClientTraces(cfg.TracerProvider))
	}
	var err error
	if a.gwConn, err = grpc.NewClient("passthrough:///kino-inprocess", gwOpts...); err != nil {
		return fmt.Errorf("connect gateway to gRPC server: %w", err)
	}
	handler, err := gateway.New(ctx, gateway.Config{
		Conn:         a.gwConn,
		Storage:      a.storage,
		Demo:         a.demo,
		CORSOrigins:  cfg.CORSOrigins,
		MaxBodyBytes: cfg.MaxBodyBytes,
		Deadlines: gateway.Deadlines{
			BodyMinRate:    cfg.BodyMinRate,
			BodyRateWindow: cfg.BodyRateWindow,
			WriteTimeout:   cfg.HTTPWriteTimeout,
		},
		TracerProvider: cfg.TracerProvider,
		Auth:           a.authn,
		Metrics:        a.metrics,
		Now:            cfg.Now,
		Log:            cfg.Log,
	})
	if err != nil {
		return err
	}
	if cfg.Role == node.RoleWorker {
		handler = gateway.HealthOnly(handler)
	}
	// No ReadTimeout or WriteTimeout: they would bound whole requests and
	// responses, cutting long uploads and every watch stream; the gateway
	// bounds their rates instead (gateway.Deadlines).
	a.httpServer = &http.Server{Handler: handler, ReadHeaderTimeout: cfg.HTTPHeaderTimeout, IdleTimeout: cfg.HTTPIdleTimeout}
	return nil
}

// serve starts what runs until Shutdown: the servers on their listeners,
// the webhook dispatcher, the workers and the node's heartbeat. Nothing
// in it fails: a heartbeat that fails is tried again.
func (a *App) serve() {
	cfg := a.cfg
	if a.metricsLis != nil {
		a.metricsServer = serveMetrics(a.metricsLis, a.metrics, cfg)
	}
	bgCtx, cancel := context.WithCancel(context.Background())
	a.cancelBG = cancel
	a.goBackground(func() {
		if err := a.hooks.Run(bgCtx); err != nil && !errors.Is(err, context.Canceled) {
			cfg.Log.Error("webhook dispatcher stopped", "err", err)
		}
	})
	// Every node sweeps: a pass deletes what is expired, whoever deletes it.
	a.goBackground(func() { a.uploads.RunSweeper(bgCtx) })
	if a.grpcLis != nil {
		a.goBackground(func() { _ = a.grpcServer.Serve(a.grpcLis) })
	}
	a.goBackground(func() { _ = a.grpcServer.Serve(a.inproc) })
	a.goBackground(func() {
		if err := a.httpServer.Serve(a.httpLis); err != nil && !errors.Is(err, http.ErrServerClosed) {
			cfg.Log.Error("HTTP server stopped", "err", err)
		}
	})
	var running func() []string
	if cfg.Workers > 0 {
		a.pool.Start(bgCtx)
		running = a.pool.Running
	}
	a.heartbeat = node.NewHeartbeat(a.store, node.Info{ID: a.NodeID, Role: cfg.Role, Version: cfg.Version, Workers: cfg.Workers, Every: cfg.HeartbeatEvery}, running, cfg.Log)
	if err := a.heartbeat.Start(bgCtx); err != nil {
		// The node runs without being listed; the next heartbeat may succeed.
		cfg.Log.Warn("first node heartbeat", "err", err)
	}
	cfg.Log.Info("kino serving", "http", a.HTTPAddr, "grpc", a.GRPCAddr, "metrics", a.MetricsAddr, "database", a.store.Dialect,
		"storage", storageName(cfg), "role", cfg.Role, "workers", cfg.Workers, "url_lifetime", a.storage.URLLifetime(), "public_url", a.publicURL,
		"allow_private_networks", cfg.AllowPrivateNetworks, "webhook_signing", cfg.WebhookSecret != "", "memory_limit", cfg.MemoryLimit)
	if cfg.Role != node.RoleAPI {
		logWalls(cfg)
	}
}

// logWalls says which walls of the raw ffmpeg sandbox this node's kernel
// offers, once at start: a node without them fails raw.ffmpeg jobs
// unless --raw-ffmpeg-without-sandbox is set.
func logWalls(cfg Config) {
	w := ffmpeg.ProbeWalls()
	if w.Complete() {
		cfg.Log.Info("raw ffmpeg sandbox", "network_namespace", w.Network, "landlock_abi", w.Landlock)
		return
	}
	cfg.Log.Warn("raw ffmpeg sandbox incomplete", "network_namespace", w.Network, "landlock_abi", w.Landlock, "err", w.Err,
		"raw_ffmpeg_without_sandbox", cfg.RawFFmpegWithoutSandbox)
}

// SweepUploads deletes the uploads expired by the configured clock now,
// as the sweeper does every minute, and returns how many.
func (a *App) SweepUploads(ctx context.Context) (int, error) { return a.uploads.Sweep(ctx) }

// goBackground runs f until it returns, counted in a.bg so that closeAll
// waits for it.
func (a *App) goBackground(f func()) {
	a.bg.Add(1)
	go func() {
		defer a.bg.Done()
		f()
	}()
}

// Shutdown stops accepting requests, lets running jobs finish until the
// grace period ends, hands the rest back uncounted and closes everything.
func (a *App) Shutdown(ctx context.Context) error {
	a.log.Info("kino shutting down", "grace", a.cfg.ShutdownGrace)
	httpCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	// Watch streams never end by themselves; they are cut, not awaited.
	_ = a.httpServer.Shutdown(httpCtx)
	a.httpServer.Close()
	stopped := make(chan struct{})
	go func() {
		a.grpcServer.GracefulStop()
		close(stopped)
	}()
	select {
	case <-stopped:
	case <-httpCtx.Done():
		a.grpcServer.Stop()
	}
	graceCtx, cancelGrace := context.WithTimeout(ctx, a.cfg.ShutdownGrace)
	defer cancelGrace()
	a.pool.Stop(graceCtx)
	if a.heartbeat != nil {
		hbCtx, cancelHB := context.WithTimeout(context.Background(), 2*time.Second)
		a.heartbeat.Stop(hbCtx)
		cancelHB()
	}
	a.closeAll()
	a.log.Info("kino stopped")
	return nil
}

func (a *App) closeAll() {
	if a.cancelBG != nil {
		a.cancelBG()
	}
	if a.metricsServer != nil {
		a.metricsServer.Close()
	}
	if a.grpcServer != nil {
		a.grpcServer.Stop()
	}
	// What a failed Start never served is closed here; a served listener
	// is already closed by its server.
	for _, lis := range []net.Listener{a.httpLis, a.grpcLis, a.metricsLis} {
		if lis != nil {
			lis.Close()
		}
	}
	a.bg.Wait()
	a.after.close()
	if a.gwConn != nil {
		a.gwConn.Close()
	}
	if a.storage != nil {
		a.storage.Close()
	}
	if a.bus != nil {
		a.bus.Close()
	}
	if a.store != nil {
		a.store.Close()
	}
	if a.scratch != nil {
		if err := a.scratch.Close(); err != nil {
			a.log.Warn("remove working folder", "err", err)
		}
	}
}

func withDefaults(cfg Config) Config {
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	// Errors and messages quote the URLs clients gave, and a URL may be a
	// credential: no log line keeps one whole, whichever code wrote it.
	cfg.Log = slog.New(redact.NewHandler(cfg.Log.Handler()))
	if cfg.DataDir == "" {
		cfg.DataDir = "data"
	}
	if cfg.Role == "" {
		cfg.Role = node.RoleAll
	}
	if cfg.Role == node.RoleAPI {
		cfg.Workers = 0
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = 1 << 20
	}
	// One pixel bound for every picture and PSD the node reads.
	if cfg.MaxImagePixels <= 0 {
		cfg.MaxImagePixels = ffmpeg.DefaultMaxPixels
	}
	if cfg.Split.Part <= 0 {
		cfg.Split.Part = render.DefaultSplit.Part
	}
	if cfg.RenderTimeout <= 0 {
		cfg.RenderTimeout = 30 * time.Minute
	}
	if cfg.ShutdownGrace <= 0 {
		cfg.ShutdownGrace = 30 * time.Second
	}
	if cfg.Limits == (engine.Limits{}) {
		cfg.Limits = engine.DefaultLimits()
	}
	if cfg.MaxOutputBytes <= 0 {
		cfg.MaxOutputBytes = ffmpeg.DefaultMaxOutputBytes
	}
	if cfg.MinFreeDisk <= 0 {
		cfg.MinFreeDisk = DefaultMinFreeDisk
	}
	if cfg.SourceCacheBytes <= 0 {
		cfg.SourceCacheBytes = sourcecache.DefaultMaxBytes
	}
	if cfg.Orgs == nil {
		cfg.Orgs = org.New(org.Policy{Weight: 1}, nil)
	}
	if cfg.FileUploadBytes <= 0 {
		cfg.FileUploadBytes = upload.DefaultMaxBytes
	}
	if cfg.FileUploadLifetime <= 0 {
		cfg.FileUploadLifetime = upload.DefaultLifetime
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.DefaultFont == "" {
		cfg.DefaultFont = typeset.SystemFont()
	}
	d := DefaultHTTPLimits()
	if cfg.HTTPHeaderTimeout <= 0 {
		cfg.HTTPHeaderTimeout = d.HTTPHeaderTimeout
	}
	if cfg.HTTPIdleTimeout <= 0 {
		cfg.HTTPIdleTimeout = d.HTTPIdleTimeout
	}
	if cfg.HTTPWriteTimeout <= 0 {
		cfg.HTTPWriteTimeout = d.HTTPWriteTimeout
	}
	if cfg.BodyMinRate <= 0 {
		cfg.BodyMinRate = d.BodyMinRate
	}
	if cfg.BodyRateWindow <= 0 {
		cfg.BodyRateWindow = d.BodyRateWindow
	}
	if cfg.MaxWatchStreams <= 0 {
		cfg.MaxWatchStreams = d.MaxWatchStreams
	}
	if cfg.FetchMinRate <= 0 {
		cfg.FetchMinRate = DefaultFetchMinRate
	}
	if cfg.FetchRateWindow <= 0 {
		cfg.FetchRateWindow = DefaultFetchRateWindow
	}
	return cfg
}

// The defaults of --fetch-min-rate and --fetch-rate-window: a source that
// brings less than 80 KiB in 20 s is stalled, not slow, and holds a worker
// or a preview slot for nothing; any working host sends far more.
const (
	DefaultFetchMinRate    = 4 << 10
	DefaultFetchRateWindow = 20 * time.Second
)

// DefaultMinFreeDisk is the free space an attempt leaves on the working
// folder's disk beside its largest output (--min-free-disk): room for its
// downloads and for the database and logs that often share the disk.
const DefaultMinFreeDisk = 1 << 30

// DefaultHTTPLimits is a Config holding only the defaults of the HTTP
// server's limits, for kino serve's flags.
func DefaultHTTPLimits() Config {
	return Config{
		HTTPHeaderTimeout: 10 * time.Second,
		HTTPIdleTimeout:   2 * time.Minute,
		HTTPWriteTimeout:  30 * time.Second,
		BodyMinRate:       4 << 10,
		BodyRateWindow:    20 * time.Second,
		MaxWatchStreams:   1000,
	}
}

func hostname() string {
	h, err := os.Hostname()
	if err != nil {
		return "kino"
	}
	return h
}

func storageName(cfg Config) string {
	if cfg.StorageURL == "" {
		return filepath.Join(cfg.DataDir, "outputs")
	}
	if i := strings.Index(cfg.StorageURL, "?"); i >= 0 {
		return cfg.StorageURL[:i]
	}
	return cfg.StorageURL
}
