// Package jobrun runs media jobs: it claims waiting jobs with a lease,
// downloads their inputs, runs the executor of their type, stores the
// outputs and records every step with its time. The job rows are the queue,
// as for renders.
package jobrun

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	"golang.org/x/sync/errgroup"

	"github.com/kinohq/kino/ent"
	"github.com/kinohq/kino/ent/asset"
	"github.com/kinohq/kino/ent/job"
	"github.com/kinohq/kino/ent/predicate"
	"github.com/kinohq/kino/server/catalog"
	"github.com/kinohq/kino/server/events"
	"github.com/kinohq/kino/server/executor"
	"github.com/kinohq/kino/server/fetch"
	"github.com/kinohq/kino/server/ffmpeg"
	"github.com/kinohq/kino/server/media"
	"github.com/kinohq/kino/server/storage"
	"github.com/kinohq/kino/server/store"
)

// The error codes of failed media jobs, beyond the executors' own.
const (
	CodeFetchFailed   = "ASSET_FETCH_FAILED"
	CodeStorageFailed = "STORAGE_FAILED"
	CodeWorkerLost    = "WORKER_LOST"
	CodeTimeout       = "JOB_TIMEOUT"
)

// Config tunes the runner.
type Config struct {
	Store   *store.Store
	Storage *storage.Storage
	Fetch   *fetch.Client
	Broker  *events.Broker
	Owner   string
	Count   int
	Lease   time.Duration
	// MaxAttempts is how many attempts a job gets, whether a transient
	// failure or a lost worker ends them; retryCount counts all but the first.
	MaxAttempts int
	// RetryDelay is the wait before the first retry of a transient
	// failure; each later retry waits four times longer.
	RetryDelay time.Duration
	TempDir    string
	// Timeout caps one attempt: downloads, probes, ffmpeg and uploads.
	Timeout time.Duration
	// Font is the font file of text that names none.
	Font string
	// Transcriber, when set, replaces the offline transcriber.
	Transcriber executor.Transcriber
	Log         *slog.Logger
}

// Runner runs media jobs.
type Runner struct {
	cfg  Config
	wake chan struct{}

	mu      sync.Mutex
	running map[string]context.CancelFunc

	stop  context.CancelFunc
	loops sync.WaitGroup
}

// New returns an idle runner.
func New(cfg Config) *Runner {
	if cfg.Lease <= 0 {
		cfg.Lease = 30 * time.Second
	}
	if cfg.MaxAttempts <= 0 {
		cfg.MaxAttempts = 3
	}
	if cfg.RetryDelay <= 0 {
		cfg.RetryDelay = 2 * time.Second
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Minute
	}
	return &Runner{cfg: cfg, wake: make(chan struct{}, max(1, cfg.Count)), running: map[string]context.CancelFunc{}}
}

// Wake tells an idle worker that a job is waiting.
func (r *Runner) Wake() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// Abort stops the job if this process runs it.
func (r *Runner) Abort(id string) {
	r.mu.Lock()
	cancel := r.running[id]
	r.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// Start sets the workers going.
func (r *Runner) Start(ctx context.Context) {
	ctx, r.stop = context.WithCancel(ctx)
	for range r.cfg.Count {
		r.loops.Add(1)
		go func() {
			defer r.loops.Done()
			r.loop(ctx)
		}()
	}
	r.loops.Add(1)
	go func() {
		defer r.loops.Done()
		t := time.NewTicker(r.cfg.Lease / 2)
		defer t.Stop()
		for {
			r.recover(ctx)
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
}

// Stop stops the workers; running jobs are abandoned to recovery.
func (r *Runner) Stop() {
	if r.stop == nil {
		return
	}
	r.stop()
	r.mu.Lock()
	for _, c := range r.running {
		c()
	}
	r.mu.Unlock()
	r.loops.Wait()
}

func nowMs() int64 { return time.Now().UnixMilli() }

func (r *Runner) loop(ctx context.Context) {
	for ctx.Err() == nil {
		j, err := r.claim(ctx)
		if err != nil && ctx.Err() == nil {
			r.cfg.Log.Error("claim media job", "err", err)
		}
		if j != nil {
			r.run(ctx, j)
			continue
		}
		select {
		case <-ctx.Done():
		case <-r.wake:
		case <-time.After(time.Second):
		}
	}
}

// runnable are the types with an executor; others wait for a kino that has one.
func runnable() []string {
	var out []string
	for _, t := range catalog.Names() {
		if _, ok := executor.For(t); ok {
			out = append(out, t)
		}
	}
	return out
}

func (r *Runner) claim(ctx context.Context) (*ent.Job, error) {
	tx, err := r.cfg.Store.Tx(ctx)
	if err != nil {
		return nil, err
	}
	q := tx.Job.Query().Where(job.StatusEQ(job.StatusWaiting), job.PendingInputs(0), job.AvailableAtLTE(nowMs()), job.TypeIn(runnable()...)).
		Order(job.ByCreatedAt(), job.ByID())
	if r.cfg.Store.Dialect == dialect.Postgres {
		q = q.ForUpdate(entsql.WithLockAction(entsql.SkipLocked))
	}
	j, err := q.First(ctx)
	if ent.IsNotFound(err) {
		return nil, tx.Rollback()
	}
	if err != nil {
		tx.Rollback()
		return nil, err
	}
	now := nowMs()
	j, err = tx.Job.UpdateOne(j).Where(job.StatusEQ(job.StatusWaiting)).
		SetStatus(job.StatusDispatched).SetDispatchedAt(now).SetQueueWaitMs(now - j.CreatedAt).
		SetLeaseOwner(r.cfg.Owner).SetLeaseExpiresAt(now + r.cfg.Lease.Milliseconds()).SetUpdatedAt(now).
		Save(ctx)
	if err != nil {
		tx.Rollback()
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	r.cfg.Broker.Publish(j.ID)
	return j, nil
}

func (r *Runner) owned(id string) []predicate.Job {
	return []predicate.Job{job.ID(id), job.StatusIn(job.StatusDispatched, job.StatusRunning), job.LeaseOwner(r.cfg.Owner)}
}

// update applies a change to a job this runner holds; false means the job
// was cancelled or recovered meanwhile.
func (r *Runner) update(id string, set func(*ent.JobUpdate)) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	u := r.cfg.Store.Job.Update().Where(r.owned(id)...).SetUpdatedAt(nowMs())
	set(u)
	n, err := u.Save(ctx)
	if err != nil {
		r.cfg.Log.Error("update media job", "job_id", id, "err", err)
		return false
	}
	if n == 1 {
		r.cfg.Broker.Publish(id)
	}
	return n == 1
}

type step struct {
	Step string `json:"step"`
	Ms   int64  `json:"ms"`
}

// failure is how a job attempt failed.
type failure struct {
	code, message string
	transient     bool
}

// Error makes a failure the error that stops an attempt's other work.
func (f *failure) Error() string { return f.code + ": " + f.message }

func (r *Runner) run(parent context.Context, j *ent.Job) {
	log := r.cfg.Log.With("job_id", j.ID, "type", j.Type)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r.mu.Lock()
	r.running[j.ID] = cancel
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		delete(r.running, j.ID)
		r.mu.Unlock()
	}()
	go r.renew(ctx, j.ID, cancel)

	start := time.Now()
	if !r.update(j.ID, func(u *ent.JobUpdate) { u.SetStatus(job.StatusRunning).SetStartedAt(nowMs()) }) {
		return
	}
	dir, err := os.MkdirTemp(r.cfg.TempDir, "job-")
	if err != nil {
		r.finishFailed(j, failure{CodeStorageFailed, "kino could not create a working folder", true}, "", log)
		return
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
	var stored []string         // every object this attempt stored
	var mediaSeconds float64
	// One deadline covers the whole attempt (downloads, probes, ffmpeg,
	// uploads): slow sources hold a worker no longer than a slow encode.
	actx, acancel := context.WithTimeout(ctx, r.cfg.Timeout)
	defer acancel()
	f := timed("download", func() *failure { return r.download(actx, j, dir, inputs, &mediaSeconds) })
	if f == nil {
		f = timed("execute", func() *failure {
			ex, _ := executor.For(j.Type)
			params := map[string]any{}
			_ = json.Unmarshal([]byte(j.Params), &params)
			var err error
			res, err = ex.Run(actx, executor.Task{Params: params, Inputs: inputs, Dir: dir, Font: r.cfg.Font, Transcriber: r.cfg.Transcriber,
				Log: &ffmpegLog, OnProgress: r.progress(j.ID),
				Fetch: func(ctx context.Context, ref, dst string) error {
					if strings.HasPrefix(ref, "ast_") {
						return r.copyAsset(ctx, j.OrgID, ref, dst)
					}
					if key, own := r.cfg.Storage.KeyOf(ref); own && strings.HasPrefix(key, "jobs/"+j.OrgID+"/") {
						return r.copyObject(ctx, key, dst)
					}
					_, err := r.cfg.Fetch.Download(ctx, ref, dst)
					return err
				}})
			var pe *executor.PermanentError
			switch {
			case actx.Err() != nil:
				return &failure{}
			case errors.As(err, &pe):
				return &failure{pe.Code, pe.Message, false}
			case err != nil:
				return &failure{executor.CodeExecFailed, err.Error(), true}
			}
			if out, ok := res.Files["outputUrl"]; ok {
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
						return &failure{CodeStorageFailed, "the output could not be stored", true}
					}
					stored = append(stored, key)
				}
				key := prefix + field + out.Ext
				if err := r.cfg.Storage.Upload(actx, key, out.Path, out.ContentType); err != nil {
					return &failure{CodeStorageFailed, "the output could not be stored", true}
				}
				keys[field] = key
				stored = append(stored, key)
			}
			return nil
		})
	}
	if ctx.Err() == nil && actx.Err() != nil {
		f = &failure{CodeTimeout, fmt.Sprintf("the job (downloads, processing and upload) took longer than the limit of %s", r.cfg.Timeout), false}
	}
	if ctx.Err() != nil {
		// Cancelled or taken over: whatever was stored is not this job's.
		for _, k := range stored {
			_ = r.cfg.Storage.Delete(context.Background(), k)
		}
		log.Info("media job stopped")
		return
	}
	ms := func(name string) int64 {
		for _, s := range steps {
			if s.Step == name {
				return s.Ms
			}
		}
		return 0
	}
	if f != nil {
		r.finishFailed(j, *f, logsKey, log)
		return
	}
	stepsJSON, _ := json.Marshal(steps)
	meta := map[string]any{}
	for k, v := range description {
		meta[k] = v
	}
	for k, v := range res.Values {
		meta[k] = v
	}
	for field, key := range keys {
		u, err := r.cfg.Storage.URL(ctx, key)
		if err == nil {
			meta[field] = u
		}
	}
	metaJSON, _ := json.Marshal(meta)
	t, _ := catalog.Lookup(j.Type)
	ok := r.update(j.ID, func(u *ent.JobUpdate) {
		u.SetStatus(job.StatusComplete).SetProgress(100).SetCompletedAt(nowMs()).SetOutputMeta(string(metaJSON)).
			SetStepsJSON(string(stepsJSON)).SetExecDownloadMs(ms("download")).SetExecExecuteMs(ms("execute")).
			SetExecUploadMs(ms("upload")).SetConsumerTotalMs(time.Since(start).Milliseconds()).
			ClearLeaseOwner().ClearLeaseExpiresAt()
		if k, ok := keys["outputUrl"]; ok {
			u.SetOutputKey(k).SetOutputRef(k)
		}
		if logsKey != "" {
			u.SetLogsRef(logsKey)
		}
		if t != nil {
			u.SetPrice(t.PricePerSecond * mediaSeconds)
		}
	})
	if !ok {
		for _, k := range stored {
			_ = r.cfg.Storage.Delete(context.Background(), k)
		}
		return
	}
	log.Info("media job complete", "ms", time.Since(start).Milliseconds())
	if err := r.propagate(context.Background(), j, meta); err != nil {
		log.Error("pass outputs downstream", "err", err)
	}
}

// progress records ffmpeg's reports on a job (about two a second), when
// they add a whole percent, so watchers on any node see them.
func (r *Runner) progress(id string) func(float64) {
	last := 0.0
	return func(p float64) {
		p = float64(int(p))
		if p <= last || p >= 100 { // 100 comes with the completion
			return
		}
		last = p
		r.update(id, func(u *ent.JobUpdate) { u.SetProgress(p) })
	}
}

// describe says what the primary output is, for outputMeta: its content
// type and size, and for media its duration, picture size and codecs.
func describe(ctx context.Context, out executor.Output) map[string]any {
	d := map[string]any{"contentType": out.ContentType}
	if st, err := os.Stat(out.Path); err == nil {
		d["sizeBytes"] = st.Size()
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
func (r *Runner) download(ctx context.Context, j *ent.Job, dir string, inputs map[string]executor.Input, seconds *float64) *failure {
	values := map[string]string{}
	_ = json.Unmarshal([]byte(j.Inputs), &values)
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(parallelFetches)
	for field, v := range values {
		g.Go(func() error {
			in, f := r.fetchInput(gctx, j, filepath.Join(dir, "input-"+field), field, v)
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

// fetchInput downloads or copies one input to path and probes it.
func (r *Runner) fetchInput(ctx context.Context, j *ent.Job, path, field, v string) (executor.Input, *failure) {
	key, own := r.cfg.Storage.KeyOf(v)
	if strings.HasPrefix(v, "ast_") {
		if err := r.copyAsset(ctx, j.OrgID, v, path); err != nil {
			return executor.Input{}, &failure{CodeFetchFailed, fmt.Sprintf("inputs.%s: %v", field, err), false}
		}
	} else if own && strings.HasPrefix(key, "jobs/"+j.OrgID+"/") {
		// An output of this organisation's earlier job, such as a pipeline edge passes on.
		if err := r.copyObject(ctx, key, path); err != nil {
			return executor.Input{}, &failure{CodeFetchFailed, fmt.Sprintf("inputs.%s: %v", field, err), false}
		}
	} else if _, err := r.cfg.Fetch.Download(ctx, v, path); err != nil {
		if ctx.Err() != nil {
			return executor.Input{}, &failure{}
		}
		var fe *fetch.Error
		return executor.Input{}, &failure{CodeFetchFailed, fmt.Sprintf("inputs.%s: %v", field, err), errors.As(err, &fe) && fe.Temporary()}
	}
	info, err := ffmpeg.ProbeFast(ctx, path)
	var ie *ffmpeg.InputError
	switch {
	case ctx.Err() != nil:
		return executor.Input{}, &failure{}
	case errors.As(err, &ie):
		return executor.Input{}, &failure{executor.CodeInputInvalid, fmt.Sprintf("inputs.%s: %s", field, ie.Reason), false}
	case err != nil:
		return executor.Input{}, &failure{executor.CodeInputInvalid, fmt.Sprintf("inputs.%s: the file is not media ffmpeg can read", field), false}
	}
	return executor.Input{Path: path, Info: info}, nil
}

func (r *Runner) copyAsset(ctx context.Context, org, id, path string) error {
	a, err := r.cfg.Store.Asset.Query().Where(asset.ID(id), media.VisibleTo(org)).Only(ctx)
	if err != nil {
		return fmt.Errorf("no asset has the id %q", id)
	}
	if err := r.copyObject(ctx, a.StorageKey, path); err != nil {
		return fmt.Errorf("asset %s could not be read", id)
	}
	return nil
}

// copyObject copies a stored object to a local file.
func (r *Runner) copyObject(ctx context.Context, key, path string) error {
	rd, err := r.cfg.Storage.NewReader(ctx, key)
	if err != nil {
		return fmt.Errorf("stored file %s could not be read", key)
	}
	defer rd.Close()
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(f, rd)
	return err
}

// finishFailed retries a transient failure while retries remain, and
// fails the job otherwise; logsKey is the attempt's stored ffmpeg log, if any.
func (r *Runner) finishFailed(j *ent.Job, f failure, logsKey string, log *slog.Logger) {
	if f.code == "" {
		return
	}
	if f.transient && j.RetryCount+1 < r.cfg.MaxAttempts {
		delay := backoff(r.cfg.RetryDelay, j.RetryCount)
		if r.update(j.ID, func(u *ent.JobUpdate) {
			u.SetStatus(job.StatusWaiting).AddRetryCount(1).SetProgress(0).SetAvailableAt(nowMs() + delay.Milliseconds()).
				ClearLeaseOwner().ClearLeaseExpiresAt()
			if logsKey != "" {
				u.SetLogsRef(logsKey)
			}
		}) {
			log.Warn("media job failed; will retry", "code", f.code, "message", f.message, "in", delay)
			time.AfterFunc(delay, r.Wake)
		}
		return
	}
	if err := r.fail(j, f, logsKey); err != nil {
		log.Error("record media job failure", "err", err)
	}
	log.Warn("media job failed", "code", f.code, "message", f.message)
}

// backoff is the wait before retry n+1: base, then four times longer each
// time, ±20% so that jobs failed together do not retry together, at most
// ten minutes.
func backoff(base time.Duration, n int) time.Duration {
	d := float64(base) * math.Pow(4, float64(n)) * (0.8 + 0.4*rand.Float64())
	return time.Duration(min(d, float64(10*time.Minute)))
}

// renew keeps the lease and notices a cancel within a second.
func (r *Runner) renew(ctx context.Context, id string, cancel context.CancelFunc) {
	t := time.NewTicker(min(r.cfg.Lease/3, time.Second))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			n, err := r.cfg.Store.Job.Update().Where(r.owned(id)...).SetLeaseExpiresAt(nowMs() + r.cfg.Lease.Milliseconds()).Save(ctx)
			if err == nil && n == 0 {
				cancel()
				return
			}
		}
	}
}

// recover returns jobs whose worker died to waiting, or fails them (and,
// as any failure does, cancels the pipeline nodes that depend on them).
func (r *Runner) recover(ctx context.Context) {
	lost, err := r.cfg.Store.Job.Query().Where(job.StatusIn(job.StatusDispatched, job.StatusRunning), job.LeaseExpiresAtLT(nowMs())).All(ctx)
	if err != nil {
		return
	}
	for _, j := range lost {
		where := []predicate.Job{job.ID(j.ID), job.StatusIn(job.StatusDispatched, job.StatusRunning), job.LeaseExpiresAtLT(nowMs())}
		if j.RetryCount+1 >= r.cfg.MaxAttempts {
			f := failure{code: CodeWorkerLost, message: "the worker running this job stopped too often"}
			if err := r.failWhere(j, f, "", where...); err != nil {
				r.cfg.Log.Error("fail lost media job", "job_id", j.ID, "err", err)
			}
			continue
		}
		n, err := r.cfg.Store.Job.Update().Where(where...).SetUpdatedAt(nowMs()).ClearLeaseOwner().ClearLeaseExpiresAt().
			SetStatus(job.StatusWaiting).AddRetryCount(1).SetProgress(0).Save(ctx)
		if err == nil && n == 1 {
			r.cfg.Broker.Publish(j.ID)
			r.Wake()
		}
	}
}
