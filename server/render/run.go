package render

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/kinohq/kino/ent"
	"github.com/kinohq/kino/server/engine"
	"github.com/kinohq/kino/server/executor"
	"github.com/kinohq/kino/server/fetch"
	"github.com/kinohq/kino/server/ffmpeg"
	"github.com/kinohq/kino/server/jobs"
	"github.com/kinohq/kino/server/media"
	"github.com/kinohq/kino/server/scratch"
	"github.com/kinohq/kino/server/sourcecache"
	"github.com/kinohq/kino/server/storage"
	"github.com/kinohq/kino/server/store"
)

// failed is a failure that no retry mends.
func failed(code, format string, args ...any) *jobs.Failure {
	return &jobs.Failure{Code: code, Message: fmt.Sprintf(format, args...)}
}

// HandlerConfig is what rendering needs.
type HandlerConfig struct {
	// Store holds the uploaded assets a composition may name.
	Store   *store.Store
	Storage *storage.Storage
	Fetch   *fetch.Client
	// Sources, when set, downloads URL sources through the node's cache,
	// so that the parts of a split render on this node share one download
	// of each.
	Sources *sourcecache.Cache
	Limits  engine.Limits
	// TempDir holds each render's downloads and partial output.
	TempDir string
	// DefaultFont is the font file of text layers that name none.
	DefaultFont string
	// Transcriber hears the sound captions layers transcribe; nil is
	// offline pocketsphinx, as for caption.extract.
	Transcriber executor.Transcriber
	// RenderTimeout caps one attempt: downloads, probes, ffmpeg and upload.
	RenderTimeout time.Duration
	// MaxOutputBytes bounds what ffmpeg writes in one attempt
	// (--max-output-size); 0 bounds nothing.
	MaxOutputBytes int64
	// MinFreeDisk is the free space, beside MaxOutputBytes, that TempDir's
	// disk must have for an attempt to start (--min-free-disk): room for
	// the downloads, and for everything else on that disk.
	MinFreeDisk int64
	Log         *slog.Logger
}

// Handler renders render jobs for the job core's pool.
type Handler struct{ cfg HandlerConfig }

// NewHandler returns the render handler.
func NewHandler(cfg HandlerConfig) *Handler { return &Handler{cfg: cfg} }

// Types are the job types the handler runs.
func (h *Handler) Types() []string { return []string{Kind} }

// Run renders one attempt of a job.
func (h *Handler) Run(ctx context.Context, j *ent.Job, progress func(float64)) jobs.Outcome {
	log := h.cfg.Log.With("job_id", j.ID)
	args, err := ArgsOf(j)
	if err != nil {
		return jobs.Outcome{Failure: failed(jobs.CodeRenderFailed, "the job could not be read")}
	}
	log.Info("render started", "attempt", j.Attempt)
	r := &renderRun{cfg: h.cfg, job: j, args: args, log: log, progress: progress, maxOutput: h.cfg.MaxOutputBytes}
	execute := r.execute
	if jobs.IsWhole(j) {
		// Its parts are rendered: what is left is to join them.
		execute = r.join
	}
	keys, f := execute(ctx)
	o := jobs.Outcome{Failure: f}
	if len(keys) > 0 {
		o.Discard = func(ctx context.Context) {
			for _, key := range keys {
				if err := h.cfg.Storage.Delete(ctx, key); err != nil {
					log.Error("remove output of a job that is not completed", "key", key, "err", err)
				}
			}
		}
		if f == nil {
			o.Result.Outputs = keys
		}
	}
	return o
}

// renderRun is one attempt at rendering one job.
type renderRun struct {
	cfg      HandlerConfig
	job      *ent.Job
	args     Args
	log      *slog.Logger
	progress func(float64)
	// maxOutput bounds what ffmpeg writes in this attempt: the
	// configured MaxOutputBytes, or a part's share of it.
	maxOutput int64
}

// execute runs one attempt: downloads, probes, ffmpeg and the upload,
// all under one deadline (--render-timeout), so that slow sources hold a
// worker no longer than a slow encode may. parent ends when the job is
// cancelled, taken over or handed back; its end is not a failure. It
// returns the keys of what it stored by output field (the output, and the
// poster and thumbnail asked for), and how the attempt failed.
func (r *renderRun) execute(parent context.Context) (map[string]string, *jobs.Failure) {
	a, f := r.begin(parent)
	if f != nil {
		return nil, f
	}
	defer a.end()
	cfg, ctx, scene, dir := r.cfg, a.ctx, a.scene, a.dir

	media, f := r.fetchSources(ctx, dir, scene.Sources())
	if f, ok := a.stopped(); ok {
		return nil, f
	}
	if f != nil {
		return nil, f
	}

	f = r.readCaptions(ctx, dir, scene, media)
	if f, ok := a.stopped(); ok {
		return nil, f
	}
	if f != nil {
		return nil, f
	}

	out := filepath.Join(dir, "output."+scene.Format)
	// Loudness is two passes: the mix measured, then one gain (engine.MeasureLoudness).
	err := engine.MeasureLoudness(ctx, scene, media, dir)
	var cmd *engine.Command
	if err == nil {
		cmd, err = engine.Plan(scene, media, dir, out, cfg.DefaultFont)
	}
	if f, ok := r.encode(a, cmd, err, scene.Duration); !ok {
		return nil, f
	}
	// Every file of the render is stored under its prefix: the output as
	// renders/ID.FORMAT, a poster as renders/ID.poster.jpg.
	return r.store(a, upload{field: OutputField, key: fmt.Sprintf("renders/%s.%s", r.job.ID, scene.Format), path: out, format: scene.Format}, cmd)
}

// attempt is one attempt at a render, or at a step of a split one: its
// downloads, ffmpeg and uploads under one deadline (--render-timeout), so
// that slow sources hold a worker no longer than a slow encode may, with
// the composition compiled and a working folder of its own.
type attempt struct {
	parent, ctx context.Context
	cancel      context.CancelFunc
	timeout     time.Duration
	scene       *engine.Scene
	dir         string
}

func (r *renderRun) begin(parent context.Context) (*attempt, *jobs.Failure) {
	cfg := r.cfg
	scene, err := engine.Compile(r.args.Provider, r.args.Composition, r.args.AssetURLs, cfg.Limits)
	if err != nil {
		// Validated at submit; only a change of limits between then and now gets here.
		return nil, failed(jobs.CodeRenderFailed, "the composition is no longer valid: %v", err)
	}
	if f := r.checkRoom(); f != nil {
		return nil, f
	}
	dir, err := os.MkdirTemp(cfg.TempDir, "render-"+r.job.ID+"-")
	if err != nil {
		return nil, &jobs.Failure{Code: jobs.CodeRenderFailed, Message: "kino could not create a working folder", Retry: true}
	}
	ctx, cancel := context.WithTimeout(parent, cfg.RenderTimeout)
	return &attempt{parent: parent, ctx: ctx, cancel: cancel, timeout: cfg.RenderTimeout, scene: scene, dir: dir}, nil
}

// checkRoom fails an attempt, to be tried again later (on this node or
// another), when the working folder's disk has less free space than the
// attempt may fill: its output and downloads would otherwise fill the disk
// part way through, for this job and every other on the node.
func (r *renderRun) checkRoom() *jobs.Failure {
	need := r.cfg.MaxOutputBytes + r.cfg.MinFreeDisk
	if need <= 0 {
		return nil
	}
	err := scratch.Room(r.cfg.TempDir, need)
	if err == nil {
		return nil
	}
	r.log.Warn("too little free disk to start a render; handed back", "err", err)
	return &jobs.Failure{Code: jobs.CodeNoDiskSpace, Retry: true,
		Message: "the node had too little free disk space to start the render (it needs the largest output, --max-output-size, and --min-free-disk); it was tried again until its attempts ran out"}
}

func (a *attempt) end() {
	a.cancel()
	os.RemoveAll(a.dir)
}

// stopped says how the attempt ended when its context did: the job's own
// end (cancelled, taken over, handed back) is not a failure; the deadline is.
func (a *attempt) stopped() (*jobs.Failure, bool) {
	switch {
	case a.parent.Err() != nil:
		return nil, true
	case a.ctx.Err() != nil:
		return failed(jobs.CodeRenderTimeout, "the render (downloads, encoding and upload) took longer than the limit of %s; shorten the composition, lower its size or use faster sources", a.timeout), true
	}
	return nil, false
}

// encode runs a planned ffmpeg command (planErr is how planning failed)
// in the attempt's folder. It reports whether the attempt goes on; when
// not, the failure, nil if the attempt was stopped rather than failed.
func (r *renderRun) encode(a *attempt, cmd *engine.Command, planErr error, duration float64) (*jobs.Failure, bool) {
	if planErr != nil {
		// Planning may run ffmpeg (the loudness's first pass): its end by
		// the attempt's is not a failure of the plan.
		if f, ok := a.stopped(); ok {
			return f, false
		}
		var me *engine.MediaError
		if errors.As(planErr, &me) {
			return failed(jobs.CodeAssetInvalid, "%s", planErr.Error()), false
		}
		return failed(jobs.CodeRenderFailed, "the render could not be planned: %v", planErr), false
	}
	if err := cmd.WriteFiles(a.dir); err != nil {
		return &jobs.Failure{Code: jobs.CodeRenderFailed, Message: "kino could not write a working file", Retry: true}, false
	}
	t := time.Now()
	// ffmpeg reports twice a second; the pool writes each report that
	// moves, so readers see progress at least once a second.
	err := ffmpeg.Run(a.ctx, cmd.Args, ffmpeg.RunOptions{Dir: a.dir, Duration: duration, OnProgress: r.progress, MaxOutputBytes: r.maxOutput})
	if f, ok := a.stopped(); ok {
		return f, false
	}
	var tooLarge *ffmpeg.OutputTooLargeError
	if errors.As(err, &tooLarge) {
		r.log.Warn("render stopped at the output size limit", "limit", tooLarge.Limit)
		return tooLargeFailure(tooLarge.Limit), false
	}
	if err != nil {
		r.log.Error("ffmpeg failed", "err", err)
		return failed(jobs.CodeRenderFailed, "ffmpeg could not render the composition: %s", lastLine(err)), false
	}
	r.log.Info("render encoded", "ms", time.Since(t).Milliseconds())
	return nil, true
}

// tooLargeFailure is a render whose output grew past limit: permanent, as
// the same composition writes as much again.
func tooLargeFailure(limit int64) *jobs.Failure {
	return failed(jobs.CodeOutputTooLarge, "the output grew past the limit of %s (--max-output-size); lower the composition's size, frame rate, length or quality, or choose a format that compresses more, such as mp4", ffmpeg.FormatBytes(limit))
}

// store uploads the output and the pictures cmd made beside it (stored as
// renders/ID.NAME.FORMAT), and returns their keys by output field. What it
// stored before an upload failed is removed.
func (r *renderRun) store(a *attempt, output upload, cmd *engine.Command) (map[string]string, *jobs.Failure) {
	uploads := []upload{output}
	for _, pic := range cmd.Pictures {
		uploads = append(uploads, upload{field: pictureFields[pic.Name], path: pic.Path, format: pic.Format,
			key: fmt.Sprintf("renders/%s.%s.%s", r.job.ID, pic.Name, pic.Format)})
	}
	keys := map[string]string{}
	for _, u := range uploads {
		ctype := u.contentType
		if u.format != "" {
			ctype = contentType(u.format)
		}
		if err := r.cfg.Storage.Upload(a.ctx, u.key, u.path, ctype); err != nil {
			if f, ok := a.stopped(); ok {
				keys[u.field] = u.key
				return keys, f // whatever was stored is removed
			}
			r.log.Error("upload output", "field", u.field, "err", err)
			deleteKeys(context.WithoutCancel(a.ctx), r.cfg.Storage, keys, r.log)
			return nil, &jobs.Failure{Code: jobs.CodeStorageFailed, Message: "the output could not be stored", Retry: true}
		}
		keys[u.field] = u.key
	}
	return keys, nil
}

// upload is one file of a render to store.
type upload struct {
	field, key, path, format string
	contentType              string // when format does not say it
}

// pictureFields are the output fields of the pictures made beside a video.
var pictureFields = map[string]string{"poster": PosterField, "thumbnail": ThumbnailField}

// parallelFetches is how many sources of one render download at once:
// enough to hide each server's latency, few enough to be polite to one.
const parallelFetches = 4

// fetchSources downloads and probes every source of the scene, a few at
// once; the first failure stops the others and is the outcome of the
// attempt. When ctx ends first, neither is set: the caller says why.
func (r *renderRun) fetchSources(ctx context.Context, dir string, sources []engine.Source) (map[string]engine.Media, *jobs.Failure) {
	var (
		mu    sync.Mutex
		media = make(map[string]engine.Media, len(sources))
	)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(parallelFetches)
	for i, src := range sources {
		g.Go(func() error {
			m, f := r.fetchSource(gctx, filepath.Join(dir, fmt.Sprintf("source-%d", i)), src)
			if f != nil {
				return f
			}
			mu.Lock()
			defer mu.Unlock()
			media[src.Key] = m
			return gctx.Err()
		})
	}
	var f *jobs.Failure
	if errors.As(g.Wait(), &f) {
		return nil, f
	}
	return media, nil
}

// fetchSource downloads one source and describes it; nil outcome when the
// context ended (the caller says why).
func (r *renderRun) fetchSource(ctx context.Context, path string, src engine.Source) (engine.Media, *jobs.Failure) {
	cfg := r.cfg
	t := time.Now()
	var n int64
	var err error
	if engine.IsAssetID(src.URL) {
		n, err = media.CopyAsset(ctx, cfg.Store, cfg.Storage, r.job.OrgID, src.URL, path)
	} else if cfg.Sources != nil {
		// Scoped to the render, which its parts share.
		n, err = cfg.Sources.Download(ctx, r.job.ID, src.URL, path)
	} else {
		n, err = cfg.Fetch.Download(ctx, src.URL, path)
	}
	if ctx.Err() != nil {
		return engine.Media{}, nil
	}
	if err != nil {
		return engine.Media{}, failed(jobs.CodeAssetFetchFailed, "%s: %v", src.Field, err)
	}
	r.log.Info("asset fetched", "field", src.Field, "bytes", n, "ms", time.Since(t).Milliseconds())
	if src.Captions {
		// Parsed once every source is here (readCaptions).
		return engine.Media{Path: path}, nil
	}
	if src.Font {
		m, err := engine.FontFromFile(path)
		if err != nil {
			return engine.Media{}, &jobs.Failure{Code: jobs.CodeRenderFailed, Message: "kino could not read a downloaded font", Retry: true}
		}
		return m, nil
	}
	info, err := ffmpeg.ProbeFast(ctx, path)
	if ctx.Err() != nil {
		return engine.Media{}, nil
	}
	var ie *ffmpeg.InputError
	if errors.As(err, &ie) {
		return engine.Media{}, failed(jobs.CodeAssetInvalid, "%s: %s (%s)", src.Field, ie.Reason, src.URL)
	}
	if err != nil {
		return engine.Media{}, failed(jobs.CodeAssetInvalid, "%s: the file at %s is not media that ffmpeg can read", src.Field, src.URL)
	}
	return engine.MediaFromInfo(path, info), nil
}

// contentType is the media type a stored output is served with, by
// format.
func contentType(format string) string {
	switch format {
	case "webm":
		return "video/webm"
	case "mov":
		return "video/quicktime"
	case "gif":
		return "image/gif"
	case "png":
		return "image/png"
	case "jpg":
		return "image/jpeg"
	case "mp3":
		return "audio/mpeg"
	case "wav":
		return "audio/wav"
	default:
		return "video/mp4"
	}
}

// lastLine is the most telling part of a failed run.
func lastLine(err error) string {
	var fe *ffmpeg.Error
	if errors.As(err, &fe) {
		return fe.LastLine()
	}
	return err.Error()
}
