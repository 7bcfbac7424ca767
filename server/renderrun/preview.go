package renderrun

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"golang.org/x/sync/errgroup"

	renderv1 "github.com/kinohq/kino/gen/kino/render/v1"
	"github.com/kinohq/kino/server/apierr"
	"github.com/kinohq/kino/server/attempt"
	"github.com/kinohq/kino/server/engine"
	"github.com/kinohq/kino/server/fetch"
	"github.com/kinohq/kino/server/ffmpeg"
	"github.com/kinohq/kino/server/meter"
	"github.com/kinohq/kino/server/metrics"
	"github.com/kinohq/kino/server/renderjob"
	"github.com/kinohq/kino/server/rescue"
	"github.com/kinohq/kino/server/share"
	"github.com/kinohq/kino/server/source"
	"github.com/kinohq/kino/server/usage"
)

// Preview is the kind previews are counted under in the organisations'
// figures (kino_org_cpu_seconds_total) and the usage ledger: they are no
// jobs.
const Preview = usage.KindPreview

// DefaultMaxPreviews is how many previews a node draws at once when
// --max-previews is not given: one per core of a small machine, so that
// scrubbing never starves the renders of the node's workers.
const DefaultMaxPreviews = 2

// previewWait is how long a preview waits for a free slot before it is
// refused: a scrubbing editor asks again at once, and an answer this late
// is already stale.
const previewWait = 2 * time.Second

// DefaultPreviewTimeout caps one preview: downloads, probes, the work in
// kino's process (painting, templates) and ffmpeg.
const DefaultPreviewTimeout = 60 * time.Second

// previewRetryAfter is the Retry-After of a preview that ran out of time.
const previewRetryAfter = 5 * time.Second

// previewScopeEvery is how long previews of one organisation use a cached
// source without asking its host whether it changed (sourcecache scopes):
// scrubbing asks for many frames a second, each of the same files.
const previewScopeEvery = time.Minute

// PreviewConfig is what previews need: the workers' environment, so
// that a preview reads its sources as a render does (the node's source
// cache) and draws with the same default font, and its own bounds.
type PreviewConfig struct {
	Env *attempt.Env
	// MaxRunning bounds the previews drawn at once (--max-previews);
	// 0 takes DefaultMaxPreviews.
	MaxRunning int
	// Pool, when set, is the previews' slots, shared between
	// organisations by their weights and caps (MaxRunning is then
	// unused); nil makes MaxRunning slots where every organisation
	// weighs 1.
	Pool *share.Pool
	// Named says whether an organisation is labelled by its id in the
	// metrics (usage.Config.Named); the others are "other".
	Named   func(org string) bool
	Metrics *metrics.Metrics
	// Usage records each preview's CPU time in the usage ledger
	// (usage.TypePreview); nil records nothing.
	Usage *usage.Recorder
	// Timeout caps one preview (--preview-timeout); 0 takes
	// DefaultPreviewTimeout.
	Timeout time.Duration
}

// Previewer draws single frames of render requests at once, on the node
// that is asked (render.Service.PreviewRender).
type Previewer struct {
	cfg     Config
	named   func(org string) bool
	slots   *share.Pool
	probes  *probeCache
	m       *metrics.Metrics
	usage   *usage.Recorder
	timeout time.Duration
	log     *slog.Logger
}

// NewPreviewer returns a previewer.
func NewPreviewer(cfg PreviewConfig) *Previewer {
	n := cfg.MaxRunning
	if n <= 0 {
		n = DefaultMaxPreviews
	}
	slots := cfg.Pool
	if slots == nil {
		slots = share.New(n, nil)
	}
	named := cfg.Named
	if named == nil {
		named = func(string) bool { return false }
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = DefaultPreviewTimeout
	}
	return &Previewer{cfg: Config{Env: cfg.Env}, named: named, slots: slots, probes: newProbeCache(maxProbes),
		m: cfg.Metrics, usage: cfg.Usage, timeout: timeout, log: cfg.Env.Log}
}

// Draw draws a frame of a compiled scene once a slot is free.
func (p *Previewer) Draw(ctx context.Context, org string, scene *engine.Scene, ask renderjob.Frame) (*renderv1.PreviewRenderResponse, error) {
	t := time.Now()
	label := usage.Other
	if p.named(org) {
		label = org
	}
	// Its organisation's share of the slots is its own: another's
	// previews, however many or slow, only wait for theirs.
	wait, cancel := context.WithTimeout(ctx, previewWait)
	release, err := p.slots.Acquire(wait, org)
	cancel()
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		p.m.Preview(label, "refused", time.Since(t))
		return nil, previewsTaken(err)
	}
	defer release()
	request := ctx
	ctx, cancel = context.WithTimeout(ctx, p.timeout)
	defer cancel()
	// Its processes' CPU and its own work's in kino's process are the
	// organisation's, as a job's are.
	metered, used := meter.With(ctx)
	resp, err := p.draw(metered, org, scene, ask)
	if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) && request.Err() == nil {
		// The preview ran out of its own time, whatever step noticed
		// (a download, a transcription, the plan, ffmpeg): the node was
		// slow, not the client (408 would say the client was slow).
		err = apierr.Retry(previewRetryAfter, apierr.Unavailable,
			"the preview took longer than %s; ask again, or lower the composition's size or use faster sources", p.timeout)
	}
	outcome := "drawn"
	switch {
	case err != nil && errors.Is(request.Err(), context.Canceled):
		// The client left: its doing, not a failure of the drawing.
		outcome = "cancelled"
	case err != nil:
		outcome = "failed"
	}
	took, cpu := time.Since(t), used.Used().CPU
	p.m.Preview(label, outcome, took)
	state := "completed"
	if err != nil {
		state = "failed"
	}
	if p.usage != nil && p.cfg.Env.Store != nil {
		p.record(ctx, usage.Work{Org: org, Kind: usage.KindPreview, Type: usage.TypePreview, State: state, CPU: cpu})
	}
	p.log.InfoContext(ctx, "preview", "org", org, "outcome", outcome, "ms", took.Milliseconds(), "cpu_ms", cpu.Milliseconds(),
		"width", resp.GetWidth(), "height", resp.GetHeight(), "time", ask.Time)
	return resp, err
}

// previewsTaken is the answer to a preview that found no slot in time.
func previewsTaken(err error) error {
	var r *share.Refusal
	if errors.As(err, &r) && r.Capped {
		return apierr.New(apierr.TooManyPreviews, "your organisation is drawing %d previews on this node already, its cap (maxRunning); ask again in a moment", r.Mine)
	}
	if errors.As(err, &r) {
		return apierr.New(apierr.TooManyPreviews, "this node is drawing %d previews already (--max-previews %d, shared between organisations), %d of them your organisation's; ask again in a moment", r.Held, r.Size, r.Mine)
	}
	return apierr.New(apierr.TooManyPreviews, "this node is drawing as many previews as it may (--max-previews); ask again in a moment")
}

func (p *Previewer) draw(ctx context.Context, org string, scene *engine.Scene, ask renderjob.Frame) (*renderv1.PreviewRenderResponse, error) {
	frame, err := ask.Of(scene)
	if err != nil {
		return nil, apierr.New(apierr.Validation, "%s", err.Error())
	}
	dir, err := os.MkdirTemp(p.cfg.Env.TempDir, "preview-")
	if err != nil {
		return nil, apierr.Wrap(err, apierr.Internal, "kino could not create a working folder; try again")
	}
	defer os.RemoveAll(dir)
	// Only the frame's sources, unless captions show on it: their cues
	// come from their file or from the whole timeline's sound, read as a
	// render reads them, before the frame is cut again with them.
	captions := hasCaptions(frame)
	need := frame.Sources()
	if captions {
		need = scene.Sources()
	}
	sources, err := p.fetch(ctx, org, dir, need)
	if err != nil {
		return nil, err
	}
	if captions {
		run := &renderRun{cfg: p.cfg, log: p.log}
		if f := run.readCaptions(ctx, dir, scene, sources); f != nil {
			return nil, apierr.New(apierr.Validation, "%s", f.Message)
		}
		if frame, err = ask.Of(scene); err != nil {
			return nil, renderjob.Invalid(err)
		}
	}
	seekVideos(ctx, p.cfg.Env, frame, sources, nil)
	out := filepath.Join(dir, "frame."+frame.Format)
	cmd, err := engine.Plan(ctx, frame, inputs(p.cfg.Env, sources), dir, out)
	var me *engine.MediaError
	var ve *engine.ValidationError
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, ctx.Err() // Draw says why
	case errors.As(err, &me), errors.As(err, &ve):
		return nil, renderjob.Invalid(err)
	case err != nil:
		return nil, apierr.Wrap(err, apierr.Internal, "the frame could not be planned")
	}
	if err := cmd.WriteFiles(dir); err != nil {
		return nil, apierr.Wrap(err, apierr.Internal, "kino could not write a working file; try again")
	}
	if err := ffmpeg.Run(ctx, cmd.Args, ffmpeg.RunOptions{Limits: p.cfg.Env.FFmpeg, Dir: dir}); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err() // Draw says why
		}
		return nil, apierr.Wrap(err, apierr.Internal, fmt.Sprintf("ffmpeg could not draw the frame: %s", lastLine(err)))
	}
	data, err := os.ReadFile(out)
	if err != nil {
		return nil, apierr.Wrap(err, apierr.Internal, "the frame could not be read; try again")
	}
	w, h := frame.PreviewSize()
	return &renderv1.PreviewRenderResponse{ContentType: contentType(frame.Format), Data: data, Width: int32(w), Height: int32(h),
		Warnings: renderjob.MergeWarnings(cmd.Warnings)}, nil
}

// record writes a preview's use into the ledger.
func (p *Previewer) record(ctx context.Context, w usage.Work) {
	if err := p.usage.Work(ctx, p.cfg.Env.Store.Client, w); err != nil {
		p.log.ErrorContext(ctx, "record a preview's usage", "err", err)
	}
}

// hasCaptions reports whether a captions layer shows in the scene.
func hasCaptions(s *engine.Scene) bool {
	for _, l := range s.Layers {
		if l.Captions != nil {
			return true
		}
	}
	return false
}

// fetch puts the frame's sources in dir as a render does (uploaded assets
// from storage, URLs through the node's source cache) and probes them,
// probes of unchanged files kept. A source that cannot be had is the
// request's error, naming its field.
func (p *Previewer) fetch(ctx context.Context, org, dir string, sources []engine.Source) (map[string]engine.Media, error) {
	// Previews of an organisation share a scope for a while: a scrub
	// asks the hosts nothing per frame.
	scope := "preview-" + org + "-" + strconv.FormatInt(time.Now().Unix()/int64(previewScopeEvery/time.Second), 10)
	out := make([]engine.Media, len(sources))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(4)
	for i, src := range sources {
		g.Go(rescue.Func(func() error {
			path := filepath.Join(dir, fmt.Sprintf("source-%d", i))
			if _, err := p.cfg.Env.Sources.Get(gctx, source.Ref{Org: org, URL: src.URL, Scope: scope}, path); err != nil {
				return sourceError(src, err)
			}
			var err error
			out[i], err = p.read(gctx, src, path)
			return err
		}))
	}
	if err := g.Wait(); err != nil {
		// Raised in the request's goroutine, where the gRPC server's
		// recovery answers INTERNAL_ERROR; in this one it would stop kino.
		rescue.Raise(err)
		return nil, err
	}
	got := make(map[string]engine.Media, len(sources))
	for i, src := range sources {
		got[src.Key] = out[i]
	}
	return got, nil
}

// read probes a downloaded source, probes of unchanged files kept, and
// describes it as a render does.
func (p *Previewer) read(ctx context.Context, src engine.Source, path string) (engine.Media, error) {
	var info *ffmpeg.Info
	if probed(src) {
		var err error
		info, err = p.probes.probe(ctx, p.cfg.Env.FFmpeg, path)
		var ie *ffmpeg.InputError
		switch {
		case errors.As(err, &ie):
			return engine.Media{}, apierr.New(apierr.Validation, "%s: %s (%s)", src.Field, ie.Reason, src.URL)
		case err != nil:
			return engine.Media{}, apierr.New(apierr.Validation, "%s: the file at %s is not media that ffmpeg can read", src.Field, src.URL)
		}
	}
	m, err := describe(src, path, info)
	if err != nil {
		return engine.Media{}, apierr.New(apierr.Validation, "%s: the file at %s is not a font kino can read", src.Field, src.URL)
	}
	return m, nil
}

// sourceError is a source a preview could not download: the request's
// to mend (400), unless the host may mend it by itself (503).
func sourceError(src engine.Source, err error) error {
	var fe *fetch.Error
	if errors.As(err, &fe) && fe.Temporary() {
		return apierr.New(apierr.Unavailable, "%s: %v; try again", src.Field, err)
	}
	return apierr.New(apierr.Validation, "%s: %v", src.Field, err)
}
