// Package mediarun runs media jobs for the job core's pool: it downloads a
// job's inputs, runs the executor of its type, stores the outputs and
// records every step with its time. The core owns the job's state.
package mediarun

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
	"time"

	"github.com/kinohq/kino/server/attempt"
	"github.com/kinohq/kino/server/catalog"
	"github.com/kinohq/kino/server/executor"
	"github.com/kinohq/kino/server/fetch"
	"github.com/kinohq/kino/server/ffmpeg"
	"github.com/kinohq/kino/server/jobs"
	"github.com/kinohq/kino/server/media"
	"github.com/kinohq/kino/server/source"
	"github.com/kinohq/kino/server/storage"
	"github.com/kinohq/kino/server/store"
	"github.com/kinohq/kino/server/usage"
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
	// RawFFmpegWithoutSandbox runs clients' own ffmpeg commands behind
	// the walls the kernel has when one is missing
	// (--raw-ffmpeg-without-sandbox); otherwise such jobs fail.
	RawFFmpegWithoutSandbox bool
	// Own reads the organisation's own stored files (outputs, uploads)
	// named by URL in-process.
	Own *source.Own
	Log *slog.Logger
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

// failure is how a job attempt failed.
type failure = jobs.Failure

// words are media jobs' names for the failures of an attempt.
//
//nolint:gochecknoglobals // read-only: media jobs' words for failures
var words = attempt.Words{
	Job:            "job",
	TimeoutCode:    jobs.CodeJobTimeout,
	TimeoutMessage: "the job (downloads, processing and upload) took longer than the limit of %s",
	FolderCode:     jobs.CodeStorageFailed,
	Invalid: func(src attempt.Source, reason string) *jobs.Failure {
		if reason == "" {
			reason = "the file is not media ffmpeg can read"
		}
		return &jobs.Failure{Code: jobs.CodeInputInvalid, Message: fmt.Sprintf("%s: %s", src.Label, reason)}
	},
}

// Run does one attempt of a media job.
func (r *Runner) Run(ctx context.Context, j *jobs.Job, report func(float64)) jobs.Outcome {
	log := r.cfg.Log.With("job_id", j.ID, "type", j.Type)
	start := time.Now()
	args, err := media.ArgsOf(j)
	var params map[string]any
	var values map[string]string
	if err == nil {
		params, values, err = args.Decode()
	}
	if err != nil {
		// A corrupt row fails loudly, not as a job run on empty params.
		log.Error("the job's stored arguments do not decode", "err", err)
		return jobs.Outcome{Failure: &failure{Code: jobs.CodeInternal, Message: "the job's stored params or inputs could not be read: " + err.Error()}}
	}
	a, f := attempt.Begin(ctx, attempt.Config{TempDir: r.cfg.TempDir, Timeout: r.cfg.Timeout, MaxOutputBytes: r.cfg.MaxOutputBytes,
		MinFreeDisk: r.cfg.MinFreeDisk, Storage: r.cfg.Storage, Words: words}, "job", log)
	if f != nil {
		return jobs.Outcome{Failure: f}
	}
	defer a.End()

	var steps []step
	timed := func(name string, fn func() *failure) *failure {
		t := time.Now()
		f := fn()
		steps = append(steps, step{name, time.Since(t).Milliseconds()})
		return f
	}
	var inputs map[string]executor.Input
	var res executor.Result
	var ffmpegLog bytes.Buffer
	var description map[string]any
	var keys map[string]string // output field -> its object
	var files []media.StoredFile
	var mediaSeconds float64
	f = timed("download", func() (f *failure) {
		if t, ok := catalog.Lookup(j.Type); ok && t.Command {
			inputs, mediaSeconds, f = r.downloadCommand(a, j, params, values)
			return f
		}
		inputs, mediaSeconds, f = r.download(a, j, values)
		return f
	})
	if _, stopped := a.Stopped(); f == nil && !stopped {
		f = timed("execute", func() (f *failure) {
			res, description, f = r.execute(a, j, params, inputs, &ffmpegLog, report)
			return f
		})
	}
	// Everything this attempt stores goes under the job's own prefix.
	prefix := fmt.Sprintf("jobs/%s/%s/", j.OrgID, j.ID)
	// The log is kept for a failed attempt too, past the attempt's
	// deadline: that is when it is read.
	logsKey := ""
	if ctx.Err() == nil && ffmpegLog.Len() > 0 {
		key := prefix + "ffmpeg.log"
		if err := r.cfg.Storage.Write(ctx, key, ffmpegLog.Bytes(), "text/plain; charset=utf-8"); err != nil {
			log.Warn("store ffmpeg log", "err", err)
		} else {
			logsKey = key
			a.Stored(key)
		}
	}
	if f == nil {
		f = timed("upload", func() (f *failure) {
			keys, files, f = upload(a, prefix, res)
			return f
		})
	}
	if stop, ok := a.Stopped(); ok {
		if stop == nil {
			// Cancelled or taken over: whatever was stored is not this job's.
			log.Info("media job stopped")
			return jobs.Outcome{Discard: a.Discard}
		}
		f = stop
	}
	logMeta := map[string]any{}
	if logsKey != "" {
		logMeta[media.MetaLogsKey] = logsKey
	}
	if f != nil {
		return jobs.Outcome{Failure: f, FailureMetadata: logMeta, Discard: a.Discard}
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
	meta[media.MetaFiles] = files
	meta[usage.MetaMediaSeconds] = mediaSeconds
	if t, ok := catalog.Lookup(j.Type); ok {
		meta[media.MetaPrice] = t.Price(mediaSeconds, megapixels(res, description))
	}
	log.Info("media job done", "ms", time.Since(start).Milliseconds())
	return jobs.Outcome{Result: jobs.Result{Outputs: keys, Metadata: meta}, Discard: a.Discard}
}

// megapixels are the megapixels of the pictures res holds: each picture
// output counted at the size of the primary output (a batch of mockups of
// one template are all its size), when that is a picture.
func megapixels(res executor.Result, description map[string]any) float64 {
	if ct, _ := description["contentType"].(string); !strings.HasPrefix(ct, "image/") {
		return 0
	}
	side := func(k string) float64 {
		switch v := description[k].(type) {
		case int:
			return float64(v)
		case float64:
			return v
		}
		return 0
	}
	pictures := 0
	for _, out := range res.Files {
		if strings.HasPrefix(out.ContentType, "image/") {
			pictures++
		}
	}
	return side("width") * side("height") / 1e6 * float64(pictures)
}

// execute is the attempt's ffmpeg step: the executor of j's type on its
// inputs, and a description of its primary output.
func (r *Runner) execute(a *attempt.Attempt, j *jobs.Job, params map[string]any, inputs map[string]executor.Input,
	ffmpegLog *bytes.Buffer, report func(float64)) (executor.Result, map[string]any, *failure) {
	ex, _ := executor.For(j.Type)
	res, err := ex.Run(a.Context(), executor.Task{Params: params, Inputs: inputs, Dir: a.Dir, Font: r.cfg.Font, Transcriber: r.cfg.Transcriber,
		Log: ffmpegLog, OnProgress: progress(report), MaxOutputBytes: r.cfg.MaxOutputBytes, SandboxPartial: r.cfg.RawFFmpegWithoutSandbox,
		Fetch: func(ctx context.Context, ref, dst string) error {
			return r.fetch(ctx, j.OrgID, ref, "", dst)
		}})
	var pe *executor.PermanentError
	if f, ok := a.Stopped(); ok {
		return res, nil, f
	}
	switch {
	case errors.As(err, &pe):
		return res, nil, &failure{Code: pe.Code, Message: pe.Message}
	case err != nil:
		return res, nil, &failure{Code: jobs.CodeExecFailed, Message: err.Error(), Retry: true}
	}
	var description map[string]any
	if out, ok := res.Files[media.OutputField]; ok {
		description = describe(a.Context(), out)
	}
	return res, description, nil
}

// upload stores the files of res under prefix, and returns the keys of
// its outputs by field and every file it stored (the record's
// output.files).
func upload(a *attempt.Attempt, prefix string, res executor.Result) (map[string]string, []media.StoredFile, *failure) {
	keys := map[string]string{}
	var files []media.StoredFile
	stored := func(key, field, path, contentType string) {
		f := media.StoredFile{Key: key, Field: field, ContentType: contentType}
		if st, err := os.Stat(path); err == nil {
			f.Size = st.Size()
		}
		files = append(files, f)
	}
	for field, out := range res.Files {
		for _, p := range out.Parts {
			key := prefix + filepath.Base(p.Path)
			if f := a.Upload(key, p.Path, p.ContentType); f != nil {
				return nil, nil, f
			}
			stored(key, "", p.Path, p.ContentType)
		}
		key := prefix + field + out.Ext
		if f := a.Upload(key, out.Path, out.ContentType); f != nil {
			return nil, nil, f
		}
		keys[field] = key
		stored(key, field, out.Path, out.ContentType)
	}
	return keys, files, nil
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

// download fetches every input (URL or asset id) and probes it, a few at
// once, and adds up the inputs' seconds (the job's price).
func (r *Runner) download(a *attempt.Attempt, j *jobs.Job, values map[string]string) (map[string]executor.Input, float64, *failure) {
	// Inputs a parent's outputs fed are objects of this organisation's
	// jobs, by key; the others are as submitted.
	keys := map[string]string{}
	for field := range values {
		keys[field] = ""
	}
	for field, key := range j.InputKeys {
		keys[field] = key
	}
	var fields []string
	var sources []attempt.Source
	for field, key := range keys {
		v := values[field]
		fields = append(fields, field)
		sources = append(sources, attempt.Source{Label: "inputs." + field, URL: v, Probe: !unprobed(j.Type, field),
			Fetch: func(ctx context.Context, path string) (int64, error) {
				return 0, r.fetch(ctx, j.OrgID, v, key, path)
			}})
	}
	got, f := a.Fetch(sources, func(i int) string { return "input-" + fields[i] })
	if f != nil || got == nil {
		return nil, 0, f // got is nil when the attempt stopped: Run asks
	}
	inputs := make(map[string]executor.Input, len(got))
	seconds := 0.0
	for i, in := range got {
		info := in.Info
		if info == nil {
			info = &ffmpeg.Info{} // unprobed: of no length
		}
		inputs[fields[i]] = executor.Input{Path: in.Path, Info: info}
		seconds += info.Duration
	}
	return inputs, seconds, nil
}

// unprobed says whether the input field of jobs of typ is read by kino's
// own decoder (a PSD template), which checks it, rather than by ffprobe.
func unprobed(typ, field string) bool {
	t, ok := catalog.Lookup(typ)
	if !ok {
		return false
	}
	f, ok := t.Input(field)
	return ok && f.Unprobed
}

// fetch puts at path the file ref names for a job of org: an asset's
// content; an output of one of org's jobs, such as a pipeline edge passes
// on, by its key; a file of org's that the URL kino handed out names (an
// output, an upload: source.Own); or else what the URL serves.
func (r *Runner) fetch(ctx context.Context, org, ref, key, path string) error {
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
	if _, own, err := r.cfg.Own.Download(ctx, org, ref, path); own {
		return err
	}
	_, err := r.cfg.Fetch.Download(ctx, ref, path)
	return err
}
