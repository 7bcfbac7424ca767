// Package mediarun runs media jobs for the job core's pool: it decodes a
// job's params for the executor of its type (once), downloads its inputs
// (package source, as renders do), runs the executor, stores the outputs
// and records every step with its time. The core owns the job's state.
package mediarun

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kinohq/kino/server/attempt"
	"github.com/kinohq/kino/server/catalog"
	"github.com/kinohq/kino/server/executor"
	"github.com/kinohq/kino/server/ffmpeg"
	"github.com/kinohq/kino/server/jobs"
	"github.com/kinohq/kino/server/mediajob"
	"github.com/kinohq/kino/server/source"
	"github.com/kinohq/kino/server/usage"
)

// Config is what the runner needs: the node's worker environment, and
// what only media jobs read.
type Config struct {
	Env *attempt.Env
	// Executors run the jobs of each type, configured for the node.
	Executors *executor.Executors
}

// DefaultTimeout caps an attempt of a media job when the environment
// gives no JobTimeout.
const DefaultTimeout = 30 * time.Minute

// Runner runs media jobs; it is the core's handler of the media kind.
type Runner struct {
	cfg     Config
	env     *attempt.Env
	timeout time.Duration
}

// New returns a runner.
func New(cfg Config) *Runner {
	timeout := cfg.Env.JobTimeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return &Runner{cfg: cfg, env: cfg.Env, timeout: timeout}
}

// Types are the types with an executor; others wait for a kino that has one.
func (r *Runner) Types() []string { return r.cfg.Executors.Types() }

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
	log := r.env.Log.With("job_id", j.ID, "type", j.Type)
	start := time.Now()
	job, values, f := r.decode(j)
	if f != nil {
		log.Error("the job's stored arguments do not decode", "code", f.Code, "err", f.Message)
		return jobs.Outcome{Failure: f}
	}
	a, f := attempt.Begin(ctx, r.env, words, r.timeout, 0, "job", log)
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
	var named map[string]string // a file the params name -> its download
	var res executor.Result
	var ffmpegLog bytes.Buffer
	var description map[string]any
	var keys map[string]string // output field -> its object
	var files []mediajob.StoredFile
	var mediaSeconds float64
	f = timed("download", func() (f *failure) {
		if cmd, ok := job.Params.(catalog.Command); ok {
			inputs, mediaSeconds, f = r.downloadCommand(a, j, cmd, values)
			return f
		}
		inputs, named, mediaSeconds, f = r.download(a, j, values, job)
		return f
	})
	if _, stopped := a.Stopped(); f == nil && !stopped {
		f = timed("execute", func() (f *failure) {
			res, description, f = r.execute(a, job, inputs, named, &ffmpegLog, report)
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
		if err := r.env.Storage.Write(ctx, key, ffmpegLog.Bytes(), "text/plain; charset=utf-8"); err != nil {
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
		logMeta[mediajob.MetaLogsKey] = logsKey
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
		mediajob.MetaOutputMeta: string(outMetaJSON), mediajob.MetaStepsJSON: string(stepsJSON),
		mediajob.MetaExecDownloadMs: ms("download"), mediajob.MetaExecExecuteMs: ms("execute"),
		mediajob.MetaExecUploadMs: ms("upload"), mediajob.MetaConsumerTotalMs: time.Since(start).Milliseconds(),
	}
	for k, v := range logMeta {
		meta[k] = v
	}
	meta[mediajob.MetaFiles] = files
	meta[usage.MetaMediaSeconds] = mediaSeconds
	if t, ok := catalog.Lookup(j.Type); ok {
		meta[mediajob.MetaPrice] = t.Price(mediaSeconds, megapixels(res, description))
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

// decode reads j's row once: its inputs' refs, and its params for the
// executor of its type. A row that does not decode fails loudly, never as
// a job run on empty params; params the catalogue refuses now (a job
// queued before a rule) fail as the API would have refused them.
func (r *Runner) decode(j *jobs.Job) (*executor.Decoded, map[string]string, *failure) {
	args, err := mediajob.ArgsOf(j)
	var refs map[string]string
	if err == nil {
		refs, err = args.Refs()
	}
	var job *executor.Decoded
	if err == nil {
		job, err = r.cfg.Executors.Decode(j.Type, args.Params)
	}
	var pe *catalog.ParamsError
	switch {
	case errors.As(err, &pe):
		return nil, nil, &failure{Code: jobs.CodeInputInvalid, Message: pe.Error()}
	case err != nil:
		return nil, nil, &failure{Code: jobs.CodeInternal, Message: "the job's stored params or inputs could not be read: " + err.Error()}
	}
	return job, refs, nil
}

// execute is the attempt's executor step: the worker of j's type on its
// inputs, and a description of its primary output.
func (r *Runner) execute(a *attempt.Attempt, job *executor.Decoded, inputs map[string]executor.Input, files map[string]string,
	ffmpegLog *bytes.Buffer, report func(float64)) (executor.Result, map[string]any, *failure) {
	res, err := job.Work(a.Context(), executor.Attempt{Inputs: inputs, Files: files, Dir: a.Dir, Log: ffmpegLog, OnProgress: progress(report)})
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
	if out, ok := res.Files[mediajob.OutputField]; ok {
		description = describe(a.Context(), r.env.FFmpeg, out)
	}
	return res, description, nil
}

// upload stores the files of res under prefix, and returns the keys of
// its outputs by field and every file it stored (the record's
// output.files).
func upload(a *attempt.Attempt, prefix string, res executor.Result) (map[string]string, []mediajob.StoredFile, *failure) {
	keys := map[string]string{}
	var files []mediajob.StoredFile
	stored := func(key, field, path, contentType string) {
		f := mediajob.StoredFile{Key: key, Field: field, ContentType: contentType}
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
func describe(ctx context.Context, lim ffmpeg.Limits, out executor.Output) map[string]any {
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
	info, err := probe(ctx, lim, out.Path)
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

// download fetches every input (URL or asset id) and probes it, and the
// files the params name (job.Files), a few at once, and adds up the
// inputs' seconds (the job's price).
func (r *Runner) download(a *attempt.Attempt, j *jobs.Job, values map[string]string, job *executor.Decoded) (
	map[string]executor.Input, map[string]string, float64, *failure) {
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
		// An input a parent fed is read by its key: an output of one of
		// the organisation's jobs.
		sources = append(sources, attempt.Source{Label: "inputs." + field, Ref: source.Ref{Org: j.OrgID, URL: v, Key: key},
			Probe: !unprobed(j.Type, field)})
	}
	given := make(map[string]bool, len(keys))
	for field := range keys {
		given[field] = true
	}
	named := job.Files(given)
	for _, nf := range named {
		sources = append(sources, attempt.Source{Label: nf.Field, Ref: source.Ref{Org: j.OrgID, URL: nf.Ref}})
	}
	got, f := a.Fetch(sources, func(i int) string {
		if i < len(fields) {
			return "input-" + fields[i]
		}
		return fmt.Sprintf("param-%d", i-len(fields))
	})
	if f != nil || got == nil {
		return nil, nil, 0, f // got is nil when the attempt stopped: Run asks
	}
	files := make(map[string]string, len(named))
	for i, nf := range named {
		files[nf.Ref] = got[len(fields)+i].Path
	}
	got = got[:len(fields)]
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
	return inputs, files, seconds, nil
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
