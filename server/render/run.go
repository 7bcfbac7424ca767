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
	"github.com/kinohq/kino/server/ffmpeg"
)

// The documented error codes of a failed render job.
const (
	CodeAssetFetchFailed = "ASSET_FETCH_FAILED"
	CodeAssetInvalid     = "ASSET_INVALID"
	CodeRenderFailed     = "RENDER_FAILED"
	CodeRenderTimeout    = "RENDER_TIMEOUT"
	CodeStorageFailed    = "STORAGE_FAILED"
)

// outcome is how a render ended, before it is written to the store.
type outcome struct {
	outputKey string
	code      string
	message   string
	// transient failures are retried while the job has attempts left.
	transient bool
}

// Error makes an outcome the error that stops an attempt's other work.
func (o *outcome) Error() string { return o.code + ": " + o.message }

func failed(code, format string, args ...any) outcome {
	return outcome{code: code, message: fmt.Sprintf(format, args...)}
}

// renderRun is one attempt at rendering one job.
type renderRun struct {
	w   *Workers
	job *ent.RenderJob
	log *slog.Logger
}

// execute runs one attempt: downloads, probes, ffmpeg and the upload,
// all under one deadline (--render-timeout), so that slow sources hold a
// worker no longer than a slow encode may. parent ends when the job is
// cancelled, taken over or handed back; its end is not a failure.
func (r *renderRun) execute(parent context.Context) outcome {
	cfg := r.w.cfg
	ctx, cancel := context.WithTimeout(parent, cfg.RenderTimeout)
	defer cancel()
	// stopped says how the attempt ended when its context did.
	stopped := func() (outcome, bool) {
		switch {
		case parent.Err() != nil:
			return outcome{}, true
		case ctx.Err() != nil:
			return failed(CodeRenderTimeout, "the render (downloads, encoding and upload) took longer than the limit of %s; shorten the composition, lower its size or use faster sources", cfg.RenderTimeout), true
		}
		return outcome{}, false
	}
	scene, err := engine.Compile(r.job.Provider, r.job.Composition, r.job.AssetUrls, cfg.Limits)
	if err != nil {
		// Validated at submit; only a change of limits between then and now gets here.
		return failed(CodeRenderFailed, "the composition is no longer valid: %v", err)
	}
	dir, err := os.MkdirTemp(cfg.TempDir, "render-"+r.job.ID+"-")
	if err != nil {
		return outcome{code: CodeRenderFailed, message: "kino could not create a working folder", transient: true}
	}
	defer os.RemoveAll(dir)

	media, o := r.fetchSources(ctx, dir, scene.Sources())
	if o, ok := stopped(); ok {
		return o
	}
	if o != nil {
		return *o
	}

	out := filepath.Join(dir, "output."+scene.Format)
	cmd, err := engine.Plan(scene, media, dir, out, cfg.DefaultFont)
	if err != nil {
		var me *engine.MediaError
		if errors.As(err, &me) {
			return failed(CodeAssetInvalid, "%s", err.Error())
		}
		return failed(CodeRenderFailed, "the render could not be planned: %v", err)
	}
	for name, content := range cmd.Files {
		if err := os.WriteFile(filepath.Join(dir, name), content, 0o600); err != nil {
			return outcome{code: CodeRenderFailed, message: "kino could not write a working file", transient: true}
		}
	}

	last := 0.0
	t := time.Now()
	err = ffmpeg.Run(ctx, cmd.Args, ffmpeg.RunOptions{
		Dir:      dir,
		Duration: scene.Duration,
		OnProgress: func(p float64) {
			// ffmpeg reports twice a second; each report that moves is
			// written, so readers see progress at least once a second. 100
			// is written with the completion, in the same update.
			if p <= last || p >= 100 {
				return
			}
			last = p
			if err := cfg.Queue.SetProgress(ctx, r.job.ID, p); err != nil && ctx.Err() == nil {
				r.log.Warn("record progress", "err", err)
			}
		},
	})
	if o, ok := stopped(); ok {
		return o
	}
	if err != nil {
		r.log.Error("ffmpeg failed", "err", err)
		return failed(CodeRenderFailed, "ffmpeg could not render the composition: %s", lastLine(err))
	}
	r.log.Info("render encoded", "ms", time.Since(t).Milliseconds())

	key := fmt.Sprintf("renders/%s.%s", r.job.ID, scene.Format)
	if err := cfg.Storage.Upload(ctx, key, out, contentType(scene.Format)); err != nil {
		if o, ok := stopped(); ok {
			o.outputKey = key // whatever was stored is removed
			return o
		}
		r.log.Error("upload output", "err", err)
		return outcome{code: CodeStorageFailed, message: "the output could not be stored", transient: true}
	}
	return outcome{outputKey: key}
}

// parallelFetches is how many sources of one render download at once:
// enough to hide each server's latency, few enough to be polite to one.
const parallelFetches = 4

// fetchSources downloads and probes every source of the scene, a few at
// once; the first failure stops the others and is the outcome of the
// attempt. When ctx ends first, neither is set: the caller says why.
func (r *renderRun) fetchSources(ctx context.Context, dir string, sources []engine.Source) (map[string]engine.Media, *outcome) {
	var (
		mu    sync.Mutex
		media = make(map[string]engine.Media, len(sources))
	)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(parallelFetches)
	for i, src := range sources {
		g.Go(func() error {
			m, o := r.fetchSource(gctx, filepath.Join(dir, fmt.Sprintf("source-%d", i)), src)
			if o != nil {
				return o
			}
			mu.Lock()
			defer mu.Unlock()
			media[src.Key] = m
			return gctx.Err()
		})
	}
	var o *outcome
	if errors.As(g.Wait(), &o) {
		return nil, o
	}
	return media, nil
}

// fetchSource downloads one source and describes it; nil outcome when the
// context ended (the caller says why).
func (r *renderRun) fetchSource(ctx context.Context, path string, src engine.Source) (engine.Media, *outcome) {
	cfg := r.w.cfg
	t := time.Now()
	n, err := cfg.Fetch.Download(ctx, src.URL, path)
	if ctx.Err() != nil {
		return engine.Media{}, nil
	}
	if err != nil {
		o := failed(CodeAssetFetchFailed, "%s: %v", src.Field, err)
		return engine.Media{}, &o
	}
	r.log.Info("asset fetched", "field", src.Field, "bytes", n, "ms", time.Since(t).Milliseconds())
	if src.Font {
		m, err := engine.FontFromFile(path)
		if err != nil {
			return engine.Media{}, &outcome{code: CodeRenderFailed, message: "kino could not read a downloaded font", transient: true}
		}
		return m, nil
	}
	info, err := ffmpeg.ProbeFast(ctx, path)
	if ctx.Err() != nil {
		return engine.Media{}, nil
	}
	var ie *ffmpeg.InputError
	if errors.As(err, &ie) {
		o := failed(CodeAssetInvalid, "%s: %s (%s)", src.Field, ie.Reason, src.URL)
		return engine.Media{}, &o
	}
	if err != nil {
		o := failed(CodeAssetInvalid, "%s: the file at %s is not media that ffmpeg can read", src.Field, src.URL)
		return engine.Media{}, &o
	}
	return engine.MediaFromInfo(path, info), nil
}

// finish writes the outcome of a render, unless the job stopped being this
// worker's meanwhile (then any output is removed: a cancelled job never has one).
func (w *Workers) finish(job *ent.RenderJob, o outcome, cause error, log *slog.Logger, took time.Duration) {
	// The render's context may be over; these writes must still happen.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	q := w.cfg.Queue
	removeOutput := func() {
		if o.outputKey == "" {
			return
		}
		if err := w.cfg.Storage.Delete(ctx, o.outputKey); err != nil {
			log.Error("remove output of a job that is not completed", "err", err)
		}
	}

	var (
		ok  bool
		err error
	)
	switch {
	case errors.Is(cause, errCancelled), errors.Is(cause, errLostLease):
		log.Info("render stopped", "reason", cause.Error())
		removeOutput()
		return
	case errors.Is(cause, errShutdown):
		removeOutput()
		ok, err = q.Release(ctx, job.ID)
		log.Info("render released for another worker", "reason", cause.Error())
	case o.code == "":
		ok, err = q.Complete(ctx, job.ID, o.outputKey)
		if err == nil && !ok {
			removeOutput()
		}
		if ok {
			log.Info("render completed", "ms", took.Milliseconds(), "output", o.outputKey)
		}
	case o.transient:
		ok, err = q.Retry(ctx, job.ID, job.Attempts, o.code, o.message)
		log.Warn("render failed, will retry while attempts remain", "code", o.code, "message", o.message)
	default:
		ok, err = q.Fail(ctx, job.ID, o.code, o.message)
		log.Warn("render failed", "code", o.code, "message", o.message)
	}
	if err != nil {
		// The lease will run out and recovery will take the job.
		log.Error("record render outcome", "err", err)
	}
	if !ok {
		log.Info("render outcome discarded: the job changed meanwhile")
	}
}

func contentType(format string) string {
	switch format {
	case "webm":
		return "video/webm"
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
