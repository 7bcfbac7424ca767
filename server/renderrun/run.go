// Package renderrun is the render worker: the job core's handlers of
// renders and of the parts of split renders (downloads through package
// source, captions, the ffmpeg step, the join of a split render's parts,
// the upload), the removal of a split render's parts once it ended, and
// the previewer that draws single frames as a render would. Its API is
// package render; what both read of a render job is package renderjob.
package renderrun

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/kinohq/kino/server/attempt"
	"github.com/kinohq/kino/server/engine"
	"github.com/kinohq/kino/server/ffmpeg"
	"github.com/kinohq/kino/server/jobs"
	"github.com/kinohq/kino/server/renderjob"
	"github.com/kinohq/kino/server/source"
)

// failed is a failure that no retry mends.
func failed(code, format string, args ...any) *jobs.Failure {
	return &jobs.Failure{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Config is what the render worker needs: the node's worker environment,
// and what only renders read.
type Config struct {
	Env *attempt.Env
	// Jobs reads the render a part belongs to.
	Jobs *jobs.Client
	// Limits are the compositions' (engine.Limits), as at submit.
	Limits engine.Limits
}

// Handler renders render jobs for the job core's pool.
type Handler struct{ cfg Config }

// NewHandler returns the render handler.
func NewHandler(cfg Config) *Handler { return &Handler{cfg: cfg} }

// Types are the job types the handler runs.
func (h *Handler) Types() []string { return []string{renderjob.Kind} }

// Run renders one attempt of a job.
func (h *Handler) Run(ctx context.Context, j *jobs.Job, progress func(float64)) jobs.Outcome {
	log := h.cfg.Env.Log.With("job_id", j.ID)
	args, err := renderjob.ArgsOf(j)
	if err != nil {
		return jobs.Outcome{Failure: failed(jobs.CodeRenderFailed, "the job could not be read")}
	}
	log.Info("render started", "attempt", j.Attempt)
	r := &renderRun{cfg: h.cfg, job: j, args: args, log: log, progress: progress, maxOutput: h.cfg.Env.MaxOutputBytes}
	execute := r.execute
	if j.Whole() {
		// Its parts are rendered: what is left is to join them.
		execute = r.join
	}
	keys, f := execute(ctx)
	o := r.outcome(keys, f)
	if f == nil && keys != nil {
		o.Result.Metadata = renderjob.WithWarnings(priced(args, h.cfg.Limits), r.warnings)
	}
	return o
}

// outcome is how r's attempt ended: completed with the outputs stored at
// keys, or failed with f, or stopped (neither).
func (r *renderRun) outcome(keys map[string]string, f *jobs.Failure) jobs.Outcome {
	o := jobs.Outcome{Failure: f, Discard: r.discard}
	if f == nil {
		o.Result.Outputs = keys
	}
	return o
}

// renderRun is one attempt at rendering one job.
type renderRun struct {
	cfg      Config
	job      *jobs.Job
	args     renderjob.Args
	log      *slog.Logger
	progress func(float64)
	// maxOutput bounds what ffmpeg writes in this attempt: the
	// configured MaxOutputBytes, or a part's share of it.
	maxOutput int64
	// discard removes what the attempt stored, once begun.
	discard func(context.Context)
	// warnings are what the attempt's plan did not draw as asked (or, for
	// a join, its parts' plans), stored with its result.
	warnings []string
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
	defer a.End()
	ctx, scene, dir := a.Context(), a.scene, a.Dir

	media, f := r.fetchSources(a.Attempt, scene.Sources())
	if f, ok := a.Stopped(); ok {
		return nil, f
	}
	if f != nil {
		return nil, f
	}

	f = r.readCaptions(ctx, dir, scene, media)
	if f, ok := a.Stopped(); ok {
		return nil, f
	}
	if f != nil {
		return nil, f
	}

	out := filepath.Join(dir, "output."+scene.Format)
	// Loudness is two passes: the mix measured, then one gain.
	err := measureLoudness(ctx, r.cfg.Env, scene, media, dir)
	var cmd *engine.Command
	if err == nil {
		cmd, err = r.plan(ctx, scene, media, dir, out)
	}
	if f, ok := r.encode(a, cmd, err, scene.Duration); !ok {
		return nil, f
	}
	r.warnings = cmd.Warnings
	// Every file of the render is stored under its prefix: the output as
	// renders/ID.FORMAT, a poster as renders/ID.poster.jpg.
	return r.store(a, upload{field: renderjob.OutputField, key: fmt.Sprintf("renders/%s.%s", r.job.ID, scene.Format), path: out, format: scene.Format}, cmd)
}

// words are renders' names for the failures of an attempt.
//
//nolint:gochecknoglobals // read-only: renders' words for failures
var words = attempt.Words{
	Job:            "render",
	TimeoutCode:    jobs.CodeRenderTimeout,
	TimeoutMessage: "the render (downloads, encoding and upload) took longer than the limit of %s; shorten the composition, lower its size or use faster sources",
	FolderCode:     jobs.CodeRenderFailed,
	Invalid: func(src attempt.Source, reason string) *jobs.Failure {
		if reason == "" {
			return failed(jobs.CodeAssetInvalid, "%s: the file at %s is not media that ffmpeg can read", src.Label, src.Ref.URL)
		}
		return failed(jobs.CodeAssetInvalid, "%s: %s (%s)", src.Label, reason, src.Ref.URL)
	},
}

// renderAttempt is one attempt at a render, or at a step of a split one
// (package attempt: one deadline, a working folder of its own), with the
// composition compiled.
type renderAttempt struct {
	*attempt.Attempt
	scene *engine.Scene
}

// begin starts an attempt of r; r.discard then removes what it stores.
func (r *renderRun) begin(parent context.Context) (*renderAttempt, *jobs.Failure) {
	cfg := r.cfg
	scene, err := engine.Compile(r.args.Provider, r.args.Composition, r.args.AssetURLs, cfg.Limits)
	if err != nil {
		// Validated at submit; only a change of limits between then and now gets here.
		return nil, failed(jobs.CodeRenderFailed, "the composition is no longer valid: %v", err)
	}
	a, f := attempt.Begin(parent, cfg.Env, words, cfg.Env.RenderTimeout, scene.DrawnBytes(), "render-"+r.job.ID, r.log)
	if f != nil {
		return nil, f
	}
	r.discard = a.Discard
	return &renderAttempt{Attempt: a, scene: scene}, nil
}

// encode runs a planned ffmpeg command (planErr is how planning failed)
// in the attempt's folder. It reports whether the attempt goes on; when
// not, the failure, nil if the attempt was stopped rather than failed.
func (r *renderRun) encode(a *renderAttempt, cmd *engine.Command, planErr error, duration float64) (*jobs.Failure, bool) {
	if planErr != nil {
		// The loudness's first pass runs ffmpeg before planning: its end
		// by the attempt's is not a failure of the plan.
		if f, ok := a.Stopped(); ok {
			return f, false
		}
		var me *engine.MediaError
		if errors.As(planErr, &me) {
			return failed(jobs.CodeAssetInvalid, "%s", planErr.Error()), false
		}
		return failed(jobs.CodeRenderFailed, "the render could not be planned: %v", planErr), false
	}
	if err := cmd.WriteFiles(a.Dir); err != nil {
		// Frames of moving words are drawn as they are written, and
		// stop with the attempt.
		if f, ok := a.Stopped(); ok {
			return f, false
		}
		return &jobs.Failure{Code: jobs.CodeRenderFailed, Message: "kino could not write a working file", Retry: true}, false
	}
	t := time.Now()
	// ffmpeg reports twice a second; the pool writes each report that
	// moves, so readers see progress at least once a second.
	err := ffmpeg.Run(a.Context(), cmd.Args, ffmpeg.RunOptions{Limits: r.cfg.Env.FFmpeg, Dir: a.Dir, Duration: duration, OnProgress: r.progress, MaxOutputBytes: r.maxOutput})
	if f, ok := a.Stopped(); ok {
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
func (r *renderRun) store(a *renderAttempt, output upload, cmd *engine.Command) (map[string]string, *jobs.Failure) {
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
		if f := a.Upload(u.key, u.path, ctype); f != nil {
			if _, stopped := a.Stopped(); !stopped {
				// What was stored is removed: the failure keeps none of it.
				a.Discard(context.WithoutCancel(a.Context()))
			}
			return nil, f
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
//
//nolint:gochecknoglobals // read-only table: the picture outputs' fields
var pictureFields = map[string]string{"poster": renderjob.PosterField, "thumbnail": renderjob.ThumbnailField}

// fetchSources downloads and probes every source of the scene, a few at
// once (attempt.Fetch), URLs through the node's cache in the render's
// scope, which its parts share; captions are read once every source is
// (readCaptions).
func (r *renderRun) fetchSources(a *attempt.Attempt, sources []engine.Source) (map[string]engine.Media, *jobs.Failure) {
	list := make([]attempt.Source, len(sources))
	for i, src := range sources {
		list[i] = attempt.Source{Label: src.Field, Ref: source.Ref{Org: r.job.OrgID, URL: src.URL, Scope: r.job.ID}, Probe: probed(src)}
	}
	got, f := a.Fetch(list, func(i int) string { return fmt.Sprintf("source-%d", i) })
	if f != nil || got == nil {
		return nil, f // got is nil when the attempt stopped
	}
	out := make(map[string]engine.Media, len(sources))
	for i, src := range sources {
		m, err := describe(src, got[i].Path, got[i].Info)
		if err != nil {
			return nil, &jobs.Failure{Code: jobs.CodeRenderFailed, Message: "kino could not read a downloaded font", Retry: true}
		}
		out[src.Key] = m
	}
	return out, nil
}

// probed says whether a source is media that ffprobe reads: not a font,
// captions or a template, which kino reads itself.
func probed(src engine.Source) bool { return !src.Captions && !src.Font && !src.Template }

// describe is what the engine needs to know of a downloaded source, for
// renders and previews alike: info is ffprobe's reading of a probed one.
// Its one error is a font kino cannot read.
func describe(src engine.Source, path string, info *ffmpeg.Info) (engine.Media, error) {
	switch {
	case src.Captions:
		return engine.Media{Path: path}, nil
	case src.Template:
		// Read by the mockup reader: ffmpeg cannot decode every template
		// a render draws (a PSB).
		return engine.Media{Path: path, Template: true}, nil
	case src.Font:
		return engine.FontFromFile(path)
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

// plan plans the whole render of scene. A still is cut to its frame first
// and its videos seek to it: decoded from their trims, a still at
// frameTime 30 of a 60 s video decoded 30 s of it to keep one frame.
func (r *renderRun) plan(ctx context.Context, scene *engine.Scene, media map[string]engine.Media, dir, out string) (*engine.Command, error) {
	if scene.Still() {
		scene = scene.StillFrame()
		seekVideos(ctx, r.cfg.Env, scene, media, r.seekFailed)
	}
	return engine.Plan(ctx, scene, inputs(r.cfg.Env, media), dir, out)
}

// seekFailed logs a video that could not be probed for its seek
// (seekVideos): it plays from its trim instead, slower, the same frames.
func (r *renderRun) seekFailed(sk engine.Seek, err error) {
	r.log.Warn("find the first frame of a video", "field", sk.Field, "err", err)
}
