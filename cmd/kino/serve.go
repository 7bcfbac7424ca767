package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/kinohq/kino/server/app"
	"github.com/kinohq/kino/server/auth"
	"github.com/kinohq/kino/server/engine"
	"github.com/kinohq/kino/server/ffmpeg"
	"github.com/kinohq/kino/server/media"
	"github.com/kinohq/kino/server/memory"
	"github.com/kinohq/kino/server/node"
	"github.com/kinohq/kino/server/org"
	"github.com/kinohq/kino/server/render"
	"github.com/kinohq/kino/server/renderrun"
	"github.com/kinohq/kino/server/sourcecache"
	"github.com/kinohq/kino/server/storage"
	"github.com/kinohq/kino/server/tracing"
	"github.com/kinohq/kino/server/transcribe"
	fileupload "github.com/kinohq/kino/server/upload"
	kinousage "github.com/kinohq/kino/server/usage"
)

func serve(args []string) error {
	fs := flag.NewFlagSet("kino serve", flag.ExitOnError)
	var (
		cfg        app.Config
		cors       listFlag
		bodyLimit  = sizeFlag(1 << 20)
		assetLimit = sizeFlag(512 << 20)
		limits     = engine.DefaultLimits()
		logFormat  string
	)
	fs.StringVar(&cfg.HTTPAddr, "http-addr", "127.0.0.1:8080", "address of the REST gateway")
	fs.StringVar(&cfg.GRPCAddr, "grpc-addr", "127.0.0.1:9090", "address of the gRPC server")
	fs.StringVar(&cfg.MetricsAddr, "metrics-addr", "", "serve Prometheus metrics at http://<addr>/metrics, apart from the gateway (127.0.0.1:9464, say); default off")
	fs.StringVar(&cfg.DataDir, "data-dir", "./data", "folder of the embedded database, local outputs and working files")
	fs.StringVar(&cfg.DatabaseURL, "database-url", "", "postgres://… to share one queue between many nodes; default SQLite in --data-dir")
	fs.StringVar(&cfg.StorageURL, "storage-url", "", "gocloud.dev bucket URL for outputs (s3://bucket?region=…, file:///path); default a folder in --data-dir")
	fs.StringVar(&cfg.PublicURL, "public-url", "", "base of outputUrls served by the gateway; default http://<http-addr>")
	fs.IntVar(&cfg.Workers, "workers", app.DefaultWorkers(), "jobs that run at once, renders and media jobs together (so ffmpeg processes); further jobs wait (0: an API-only node that runs nothing)")
	fs.StringVar(&cfg.Role, "role", "all", "what this node does: all (APIs and jobs), api (APIs only, runs no job; --workers is ignored) or worker (runs jobs; serves only GET /api/health on --http-addr, and metrics)")
	fs.DurationVar(&cfg.HeartbeatEvery, "heartbeat-every", node.HeartbeatEvery, "time between two heartbeats of this node in the node list (GET /api/nodes)")
	fs.DurationVar(&cfg.URLLifetime, "url-lifetime", storage.DefaultURLLifetime, "how long an output URL kino hands out stays valid (S3 presigned URLs and signed /files/ URLs)")
	fs.StringVar(&cfg.URLSecret, "url-secret", "", "secret that signs /files/ URLs; every node must share it (default: a random secret created once and kept in the database)")
	fs.BoolVar(&cfg.AllowPrivateNetworks, "allow-private-networks", false, "let asset downloads and webhooks reach private, loopback and link-local addresses")
	fs.BoolVar(&cfg.RawFFmpegWithoutSandbox, "raw-ffmpeg-without-sandbox", false, "run raw.ffmpeg/ffmpeg jobs on a kernel without a network namespace or Landlock, behind the command parser alone (otherwise they fail there)")
	fs.StringVar(&cfg.WebhookSecret, "webhook-secret", "", "sign webhooks with this Standard Webhooks secret (whsec_… or any string)")
	fs.IntVar(&cfg.WebhookMaxAttempts, "webhook-attempts", 8, "delivery attempts of a webhook before it is given up")
	fs.Var(&cors, "cors-origins", "comma-separated origins allowed to call the API from a browser (* for any); default CORS off")
	fs.Var(&bodyLimit, "max-body-bytes", "largest accepted request body")
	fs.Var(&assetLimit, "max-asset-bytes", "largest asset a render downloads")
	fs.DurationVar(&cfg.FetchTimeout, "fetch-timeout", 2*time.Minute, "time limit of one asset download")
	fetchMinRate := sizeFlag(app.DefaultFetchMinRate)
	fs.Var(&fetchMinRate, "fetch-min-rate", "slowest accepted download of a source, bytes per second (KiB, MiB suffixes), measured over --fetch-rate-window; a slower one fails as the source's fault, not retried")
	fs.DurationVar(&cfg.FetchRateWindow, "fetch-rate-window", app.DefaultFetchRateWindow, "window over which --fetch-min-rate is measured")
	fs.DurationVar(&cfg.RenderTimeout, "render-timeout", 30*time.Minute, "time limit of one render attempt: downloads, encoding and upload")
	fs.DurationVar(&cfg.Split.After, "split-after", render.DefaultSplit.After, "split an MP4 render longer than this into parts that any worker may render, joined without encoding again (0: never split; docs/split.md)")
	fs.DurationVar(&cfg.Split.Part, "split-part", render.DefaultSplit.Part, "length of each part of a split render but the last")
	fs.DurationVar(&cfg.JobTimeout, "job-timeout", 30*time.Minute, "time limit of one media job attempt: downloads, processing and uploads")
	fs.Int64Var(&cfg.MaxImagePixels, "max-image-pixels", ffmpeg.DefaultMaxPixels, "largest picture or video frame kino opens, in pixels (width × height, read from the file's header before any decode)")
	ffmpegMemory := sizeFlag(ffmpeg.DefaultMaxMemory)
	fs.Var(&ffmpegMemory, "ffmpeg-max-memory", "address space of each ffmpeg and ffprobe process")
	fs.DurationVar(&cfg.PreviewTimeout, "preview-timeout", renderrun.DefaultPreviewTimeout, "time limit of one preview (POST /api/render/preview): downloads, probes and drawing; past it, 503 UNAVAILABLE with Retry-After")
	memoryLimit := sizeFlag(memory.DefaultLimit())
	fs.Var(&memoryLimit, "memory-limit", "soft memory limit of kino's own process (Go's heap; ffmpeg's processes are apart): near it, memory no longer used is returned to the system at once; 0: none (default: three quarters of the machine's or the cgroup's memory)")
	maxOutput := sizeFlag(ffmpeg.DefaultMaxOutputBytes)
	fs.Var(&maxOutput, "max-output-size", "largest output of one render or media job attempt, all files ffmpeg writes together; a larger one fails OUTPUT_TOO_LARGE")
	minFreeDisk := sizeFlag(app.DefaultMinFreeDisk)
	fs.Var(&minFreeDisk, "min-free-disk", "free disk the working folder must keep beside --max-output-size for an attempt to start; else the job is retried later (NO_DISK_SPACE)")
	sourceCache := sizeFlag(sourcecache.DefaultMaxBytes)
	fs.Var(&sourceCache, "source-cache-size", "disk the node's cache of downloaded render sources may take; the parts of a split render on a node share one download of each source")
	fs.IntVar(&cfg.MaxPreviews, "max-previews", renderrun.DefaultMaxPreviews, "previews (POST /api/render/preview) this node draws at once; a further one waits up to 2s for a slot, then is refused 503 TOO_MANY_PREVIEWS")
	fs.DurationVar(&cfg.ShutdownGrace, "shutdown-grace", 30*time.Second, "how long SIGTERM lets running renders finish")
	fs.DurationVar(&cfg.Lease, "lease", 30*time.Second, "how long a worker's claim on a job lasts without renewal")
	fs.IntVar(&cfg.MaxAttempts, "max-attempts", 3, "attempts of a job (renders and media jobs) before a lost worker or transient failure fails it")
	fs.DurationVar(&cfg.JobRetryDelay, "job-retry-delay", 2*time.Second, "wait before a job's first retry after a transient failure; each later one waits 4 times longer (±20%, at most 10m)")
	fs.IntVar(&limits.MaxWidth, "max-width", limits.MaxWidth, "largest output width in pixels")
	fs.IntVar(&limits.MaxHeight, "max-height", limits.MaxHeight, "largest output height in pixels")
	fs.IntVar(&limits.MaxFPS, "max-fps", limits.MaxFPS, "highest output frame rate")
	fs.Float64Var(&limits.MaxDuration, "max-duration", limits.MaxDuration, "longest output in seconds")
	fs.IntVar(&limits.MaxLayers, "max-layers", limits.MaxLayers, "most layers (clips) in a composition")
	fs.IntVar(&limits.MaxAssets, "max-assets", limits.MaxAssets, "most distinct assets a composition downloads")
	fs.StringVar(&logFormat, "log-format", "text", "log format: text or json")
	var orgDefault org.Policy
	var orgsFile string
	fs.Float64Var(&orgDefault.Rate, "org-rate", 0, "submits a second each organisation may make (renders, media jobs, pipeline runs and uploads together), with a burst of as many; more answer 429 RATE_LIMITED (0: no limit)")
	fs.IntVar(&orgDefault.MaxQueued, "org-max-queued", 0, "jobs each organisation may have waiting (a split render's parts and a run's nodes each count); a submit past it answers 429 QUEUE_FULL (0: no limit)")
	fs.IntVar(&orgDefault.MaxRunning, "org-max-running", 0, "jobs each organisation may have running at once on all nodes together, and previews drawn and uploads decoded at once on each node (0: no limit)")
	orgQuota := sizeFlag(0)
	fs.Var(&orgQuota, "org-storage-quota", "bytes of uploaded assets and live file uploads each organisation may keep; an upload past it answers 413 QUOTA_EXCEEDED (0: no limit)")
	fs.StringVar(&orgsFile, "orgs-file", "", "JSON file of organisations' weights and limits overriding the --org-* defaults (see docs/limits.md)")
	var apiKeys, apiKeysFile string
	fs.StringVar(&apiKeys, "api-keys", "", "API keys and their organisations: key1=org1,key2=org2 (default: single-organisation mode, no keys)")
	fs.StringVar(&apiKeysFile, "api-keys-file", "", "file of API keys, one key=org a line")
	fs.StringVar(&cfg.AdminKey, "admin-key", "", "key that manages system-scope assets (acts as organisation \"system\")")
	var whisper transcribe.Whisper
	fs.StringVar(&whisper.URL, "whisper-url", "", "transcribe with this Whisper-compatible endpoint (…/v1/audio/transcriptions) instead of offline pocketsphinx")
	fs.StringVar(&whisper.Model, "whisper-model", "whisper-1", "model name sent to the Whisper endpoint")
	fs.StringVar(&whisper.APIKey, "whisper-api-key", "", "bearer key of the Whisper endpoint")
	fs.Float64Var(&whisper.PricePerMinute, "whisper-minute-price", 0.006, "what the Whisper endpoint charges, USD per minute of audio: the providerCost of a job it transcribes")
	fs.Float64Var(&cfg.CPUSecondCost, "cpu-second-cost", kinousage.DefaultCPUSecondCost, "what one CPU second of a job's ffmpeg and ffprobe processes and of its work in kino's process costs, USD: its infraCost")
	uploadLimit := sizeFlag(media.DefaultMaxUpload)
	fs.Var(&uploadLimit, "max-asset-upload-bytes", "largest asset upload (POST /assets)")
	fileLimit := sizeFlag(fileupload.DefaultMaxBytes)
	fs.Var(&fileLimit, "max-upload-bytes", "largest file upload (POST /uploads); more answers 413 FILE_TOO_LARGE")
	fs.DurationVar(&cfg.FileUploadLifetime, "upload-lifetime", fileupload.DefaultLifetime, "how long a file upload (POST /uploads) and its downloadUrl live; then both are deleted")
	httpLimits := app.DefaultHTTPLimits()
	fs.DurationVar(&cfg.HTTPHeaderTimeout, "http-header-timeout", httpLimits.HTTPHeaderTimeout, "time to send a request's headers")
	fs.DurationVar(&cfg.HTTPIdleTimeout, "http-idle-timeout", httpLimits.HTTPIdleTimeout, "how long an idle keep-alive connection stays open")
	fs.DurationVar(&cfg.HTTPWriteTimeout, "http-write-timeout", httpLimits.HTTPWriteTimeout, "time a client has to accept each write of a response (watch streams and downloads may last longer)")
	bodyMinRate := sizeFlag(httpLimits.BodyMinRate)
	fs.Var(&bodyMinRate, "http-body-min-rate", "slowest accepted request body, bytes per second (KiB, MiB suffixes), measured over --http-body-rate-window")
	fs.DurationVar(&cfg.BodyRateWindow, "http-body-rate-window", httpLimits.BodyRateWindow, "window over which --http-body-min-rate is measured")
	fs.IntVar(&cfg.MaxWatchStreams, "max-watch-streams", httpLimits.MaxWatchStreams, "watch streams (HTTP and gRPC) open at once in this process")
	fs.IntVar(&cfg.UploadWorkers, "upload-workers", media.DefaultUploadWorkers, "asset uploads probed and thumbnailed at once; further uploads wait (at most --upload-timeout, then 503)")
	fs.DurationVar(&cfg.UploadTimeout, "upload-timeout", media.DefaultUploadTimeout, "time limit of one asset upload's probe and thumbnail (the asset is then stored as failed)")
	_ = fs.Parse(args)
	err := envFlags(fs)
	if err != nil {
		return err
	}
	cfg.CORSOrigins = cors
	cfg.MaxBodyBytes = int64(bodyLimit)
	cfg.MaxAssetBytes = int64(assetLimit)
	cfg.Limits = limits
	cfg.MaxUploadBytes = int64(uploadLimit)
	cfg.FileUploadBytes = int64(fileLimit)
	cfg.MaxFFmpegMemory = int64(ffmpegMemory)
	cfg.MaxOutputBytes = int64(maxOutput)
	cfg.MemoryLimit = int64(memoryLimit)
	cfg.MinFreeDisk = int64(minFreeDisk)
	cfg.SourceCacheBytes = int64(sourceCache)
	cfg.BodyMinRate = int64(bodyMinRate)
	cfg.FetchMinRate = int64(fetchMinRate)
	orgDefault.Weight = 1
	orgDefault.StorageQuota = int64(orgQuota)
	var orgs map[string]org.Policy
	if orgsFile != "" {
		if orgs, err = org.ReadFile(orgsFile, orgDefault); err != nil {
			return fmt.Errorf("--orgs-file: %w", err)
		}
	}
	cfg.Orgs = org.New(orgDefault, orgs)
	if whisper.URL != "" {
		cfg.Transcriber = whisper
	}
	if cfg.APIKeys, err = auth.ParseKeys(apiKeys); err != nil {
		return fmt.Errorf("--api-keys: %w", err)
	}
	if apiKeysFile != "" {
		fileKeys, err := auth.ReadKeysFile(apiKeysFile)
		if err != nil {
			return err
		}
		for k, org := range fileKeys {
			cfg.APIKeys[k] = org
		}
	}

	var handler slog.Handler = slog.NewTextHandler(os.Stderr, nil)
	if logFormat == "json" {
		handler = slog.NewJSONHandler(os.Stderr, nil)
	}
	cfg.Log = slog.New(handler)

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	tp, err := tracing.FromEnv(ctx)
	if err != nil {
		return err
	}
	if tp != nil {
		cfg.TracerProvider = tp
		cfg.Log.Info("exporting traces over OTLP")
		defer func() {
			// Send the spans still buffered, without waiting on an
			// unreachable collector for long.
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := tp.Shutdown(ctx); err != nil {
				cfg.Log.Warn("send the last traces", "err", err)
			}
		}()
	}
	cfg.Version = version()
	a, err := app.Start(ctx, cfg)
	if err != nil {
		return err
	}
	<-ctx.Done()
	stop()
	return a.Shutdown(context.Background())
}
