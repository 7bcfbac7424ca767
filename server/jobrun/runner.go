// Package jobrun runs media jobs for the job core's pool: it downloads a
// job's inputs, runs the executor of its type, stores the outputs and
// records every step with its time. The core owns the job's state.
package jobrun

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/kinohq/kino/ent"
	"github.com/kinohq/kino/server/catalog"
	"github.com/kinohq/kino/server/executor"
	"github.com/kinohq/kino/server/fetch"
	"github.com/kinohq/kino/server/ffmpeg"
	"github.com/kinohq/kino/server/jobs"
	"github.com/kinohq/kino/server/media"
	"github.com/kinohq/kino/server/scratch"
	"github.com/kinohq/kino/server/storage"
	"github.com/kinohq/kino/server/store"
)

// Config tunes the runner.
type Config struct {
	Store   *store.Store
	Storage *storage.Storage
	Fetch   *fetch.Client
	TempDir string
	// Timeout caps one attempt: downloads, probes, ffmpeg and uploads.
	Timeout time.Duration
	// Font is the font file of text that names none.
	Font string
	// Transcriber, when set, replaces the offline transcriber.
	Transcriber executor.Transcriber
	// MaxOutputBytes bounds what each ffmpeg run of an attempt writes
	// (--max-output-size); 0 bounds nothing.
	MaxOutputBytes int64
	// MinFreeDisk is the free space, beside MaxOutputBytes, that TempDir's
	// disk must have for an attempt to start (--min-free-disk).
	MinFreeDisk int64
	Log         *slog.Logger
}

// Runner runs media jobs; it is the core's handler of the media kind.
type Runner struct {
	cfg Config
}

// New returns a runner.
func New(cfg Config) *Runner {
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Minute
	}
	return &Runner{cfg: cfg}
}

// Types are the types with an executor; others wait for a kino that has one.
func (r *Runner) Types() []string {
	var out []string
	for _, t := range catalog.Names() {
		if _, ok := executor.For(t); ok {
			out = append(out, t)
		}
	}
	return out
}

type step struct {
	Step string `json:"step"`
	Ms   int64  `json:"ms"`
}

// failure is how a job attempt failed; an empty one means the attempt
// ended (cancelled, taken over) and the caller says why.
type failure = jobs.Failure

// Run does one attempt of a media job.
func (r *Runner) Run(ctx context.Context, j *ent.Job, report func(float64)) jobs.Outcome {
	log := r.cfg.Log.With("job_id", j.ID, "type", j.Type)
	start := time.Now()
	var stored []string // every object this attempt stored
	discard := func(ctx context.Context) {
		for _, k := range stored {
			_ = r.cfg.Storage.Delete(ctx, k)
		}
	}
	args, err := media.ArgsOf(j)
	if err != nil {
		return jobs.Outcome{Failure: &failure{Code: jobs.CodeExecFailed, Message: "the job could not be read"}}
	}
	if need := r.cfg.MaxOutputBytes + r.cfg.MinFreeDisk; need > 0 {
		// A full disk fails the attempt here, cleanly, to be tried again
		// later, rather than part way through a download or an encode.
		if err := scratch.Room(r.cfg.TempDir, need); err != nil {
			log.Warn("too little free disk to start a media job; handed back", "err", err)
			return jobs.Outcome{Failure: &failure{Code: jobs.CodeNoDiskSpace, Retry: true,
				Message: "the node had too little free disk space to start the job (it needs the largest output, --max-output-size, and --min-free-disk); it was tried again until its attempts ran out"}}
		}
	}
	dir, err := os.MkdirTemp(r.cfg.TempDir, "job-")
	if err != nil {
		return jobs.Outcome{Failure: &failure{Code: jobs.CodeStorageFailed, Message: "kino could not create a working folder", Retry: true}}
	}
	defer os.RemoveAll(dir)

	var steps []step
	timed := func(name string, fn func() *failure) *failure {
		t := time.Now()
		f := fn()
		steps = append(steps, step{name, time.Since(t).Milliseconds()})
		return f
	}
	inputs := map[string]executor.Input{}
	var res executor.Result
	var ffmpegLog bytes.Buffer
	var description map[string]any
	keys := map[string]string{} // output field -> its object
	var mediaSeconds float64
	// One deadline covers the whole attempt (downloads, probes, ffmpeg,
	// uploads): slow sources hold a worker no longer than a slow encode.
	actx, acancel := context.WithTimeout(ctx, r.cfg.Timeout)
	defer acancel()
	f := timed("download", func() *failure { return r.download(actx, j, args, dir, inputs, &mediaSeconds) })
	if f == nil {
		f = timed("execute", func() *failure {
			ex, _ := executor.For(j.Type)
			params := map[string]any{}
			_ = json.Unmarshal(args.Params, &params)
			var err error
			res, err = ex.Run(actx, executor.Task{Params: params, Inputs: inputs, Dir: dir, Font: r.cfg.Font, Transcriber: r.cfg.Transcriber,
				Log: &ffmpegLog, OnProgress: progress(report), MaxOutputBytes: r.cfg.MaxOutputBytes,
				Fetch: func(ctx context.Context, ref, dst string) error {
					return r.fetch(ctx, j.OrgID, ref, "", dst)
				}})
			var pe *executor.PermanentError
			switch {
			case actx.Err() != nil:
				return &failure{}
			case errors.As(err, &pe):
				return &failure{Code: pe.Code, Message: pe.Message}
			case err != nil:
				return &failure{Code: jobs.CodeExecFailed, Message: err.Error(), Retry: true}
			}
			if out, ok := res.Files[media.OutputField]; ok {
				description = describe(actx, out)
			}
			return nil
		})
	}
	// Everything this attempt stores goes under the job's own prefix.
	prefix := fmt.Sprintf("jobs/%s/%s/", j.OrgID, j.ID)
	// The log is kept for a failed attempt too: that is when it is read.
	logsKey := ""
	if ctx.Err() == nil && ffmpegLog.Len() > 0 {
		key := prefix + "ffmpeg.log"
		if err := r.cfg.Storage.Write(ctx, key, ffmpegLog.Bytes(), "text/plain; charset=utf-8"); err != nil {
			log.Warn("store ffmpeg log", "err", err)
		} else {
			logsKey = key
			stored = append(stored, key)
		}
	}
	if f == nil {
		f = timed("upload", func() *failure {
			for field, out := range res.Files {
				for _, p := range out.Parts {
					key := prefix + filepath.Base(p.Path)
					if err := r.cfg.Storage.Upload(actx, key, p.Path, p.ContentType); err != nil {
						return &failure{Code: jobs.CodeStorageFailed, Message: "the output could not be stored", Retry: true}
					}
					stored = append(stored, key)
				}
				key := prefix + field + out.Ext
				if err := r.cfg.Storage.Upload(actx, key, out.Path, out.ContentType); err != nil {
					return &failure{Code: jobs.CodeStorageFailed, Message: "the output could not be stored", Retry: true}
				}
				keys[field] = key
				stored = append(stored, key)
			}
			return nil
		})
	}
	if ctx.Err() == nil && actx.Err() != nil {
		f = &failure{Code: jobs.CodeJobTimeout, Message: fmt.Sprintf("the job (downloads, processing and upload) took longer than the limit of %s", r.cfg.Timeout)}
	}
	if ctx.Err() != nil {
		// Cancelled or taken over: whatever was stored is not this job's.
		log.Info("media job stopped")
		return jobs.Outcome{Failure: &failure{}, Discard: discard}
	}
	logMeta := map[string]any{}
	if logsKey != "" {
		logMeta[media.MetaLogsKey] = logsKey
	}
	if f != nil {
		return jobs.Outcome{Failure: f, FailureMetadata: logMeta, Discard: discard}
	}
	ms := func(name string) int64 {
		for _, s := range steps {
			if s.Step == name {
				return s.Ms
			}
		}
		return 0
	}
	stepsJSON, _ := json.Marshal(steps)
	// outputMeta without the stored files' URLs: those are made when the
	// record is read, from the keys.
	outMeta := map[string]any{}
	for k, v := range description {
		outMeta[k] = v
	}
	for k, v := range res.Values {
		outMeta[k] = v
	}
	outMetaJSON, _ := json.Marshal(outMeta)
	meta := map[string]any{
		media.MetaOutputMeta: string(outMetaJSON), media.MetaStepsJSON: string(stepsJSON),
		media.MetaExecDownloadMs: ms("download"), media.MetaExecExecuteMs: ms("execute"),
		media.MetaExecUploadMs: ms("upload"), media.MetaConsumerTotalMs: time.Since(start).Milliseconds(),
	}
	for k, v := range logMeta {
		meta[k] = v
	}
	if t, ok := catalog.Lookup(j.Type); ok {
		meta[media.MetaPrice] = t.PricePerSecond * mediaSeconds
	}
	log.Info("media job done", "ms", time.Since(start).Milliseconds())
	return jobs.Outcome{Result: jobs.Result{Outputs: keys, Metadata: meta}, Discard: discard}
}

// progress passes on ffmpeg's reports on a job (about two a second) in
// whole percents: the pool writes those that move, so watchers on any node
// see them.
func progress(report func(float64)) func(float64) {
	return func(p float64) { report(float64(int(p))) }
}

// describe says what the primary output is, for outputMeta: its content
// type and size, and for media its duration, picture size and codecs.
func describe(ctx context.Context, out executor.Output) map[string]any {
	d := map[string]any{"contentType": out.ContentType}
	if st, err := os.Stat(out.Path); err == nil {
		d["sizeBytes"] = st.Size()
	}
	if out.Described != nil {
		for k, v := range out.Described {
			d[k] = v
		}
		return d
	}
	probe := ffmpeg.ProbeFast
	if len(out.Parts) > 0 {
		probe = ffmpeg.ProbeOutput // a playlist of kino's own segments
	}
	info, err := probe(ctx, out.Path)
	if err != nil {
		return d // not media ffprobe reads, such as a caption file
	}
	if info.Duration > 0 {
		d["duration"] = info.Duration
	}
	if v := info.Video(); v != nil {
		d["width"], d["height"], d["videoCodec"] = v.Width, v.Height, v.CodecName
	}
	if a := info.Audio(); a != nil {
		d["audioCodec"] = a.CodecName
	}
	return d
}

// parallelFetches is how many inputs of one job download at once.
const parallelFetches = 4

// download fetches every input (URL or asset id) and probes it, a few at
// once; the first failure stops the others. An empty failure means the
// attempt ended; the caller says why.
func (r *Runner) download(ctx context.Context, j *ent.Job, args media.Args, dir string, inputs map[string]executor.Input, seconds *float64) *failure {
	values := map[string]string{}
	_ = json.Unmarshal(args.Inputs, &values)
	// Inputs a parent's outputs fed are objects of this organisation's
	// jobs, by key; the others are as submitted.
	keys := map[string]string{}
	for field := range values {
		keys[field] = ""
	}
	for field, key := range j.InputKeys {
		keys[field] = key
	}
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(parallelFetches)
	for field, key := range keys {
		g.Go(func() error {
			in, f := r.fetchInput(gctx, j, filepath.Join(dir, "input-"+field), field, values[field], key)
			if f != nil {
				return f
			}
			mu.Lock()
			defer mu.Unlock()
			inputs[field] = in
			*seconds += in.Info.Duration
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err.(*failure) // fetchInput's are the only errors
	}
	return nil
}

// fetch puts at path the file ref names for a job of org: an asset's
// content; an output of one of org's jobs, such as a pipeline edge passes
// on, by its key (given, or read from the URL kino handed out for it); or
// else what the URL serves.
func (r *Runner) fetch(ctx context.Context, org, ref, key, path string) error {
	if key == "" {
		key, _ = r.cfg.Storage.KeyOf(ref)
	}
	switch {
	case strings.HasPrefix(ref, "ast_"):
		_, err := media.CopyAsset(ctx, r.cfg.Store, r.cfg.Storage, org, ref, path)
		return err
	case strings.HasPrefix(key, "jobs/"+org+"/"):
		if _, err := r.cfg.Storage.Download(ctx, key, path); err != nil {
			return fmt.Errorf("stored file %s could not be read", key)
		}
		return nil
	}
	_, err := r.cfg.Fetch.Download(ctx, ref, path)
	return err
}

// fetchInput downloads or copies one input to path and probes it: the
// object at key when it is set, or else v, an asset id or a URL.
func (r *Runner) fetchInput(ctx context.Context, j *ent.Job, path, field, v, key string) (executor.Input, *failure) {
	if err := r.fetch(ctx, j.OrgID, v, key, path); err != nil {
		if ctx.Err() != nil {
			return executor.Input{}, &failure{}
		}
		var fe *fetch.Error
		return executor.Input{}, &failure{Code: jobs.CodeAssetFetchFailed, Message: fmt.Sprintf("inputs.%s: %v", field, err), Retry: errors.As(err, &fe) && fe.Temporary()}
	}
	if t, ok := catalog.Lookup(j.Type); ok {
		if f, ok := t.Input(field); ok && f.Unprobed {
			// The executor reads it with kino's own decoder, which checks it.
			return executor.Input{Path: path, Info: &ffmpeg.Info{}}, nil
		}
	}
	info, err := ffmpeg.ProbeFast(ctx, path)
	var ie *ffmpeg.InputError
	switch {
	case ctx.Err() != nil:
		return executor.Input{}, &failure{}
	case errors.As(err, &ie):
		return executor.Input{}, &failure{Code: jobs.CodeInputInvalid, Message: fmt.Sprintf("inputs.%s: %s", field, ie.Reason)}
	case err != nil:
		return executor.Input{}, &failure{Code: jobs.CodeInputInvalid, Message: fmt.Sprintf("inputs.%s: the file is not media ffmpeg can read", field)}
	}
	return executor.Input{Path: path, Info: info}, nil
}
