package render

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/kinohq/kino/ent"
	"github.com/kinohq/kino/server/engine"
	"github.com/kinohq/kino/server/fetch"
	"github.com/kinohq/kino/server/queue"
	"github.com/kinohq/kino/server/storage"
)

// pollInterval is how often an idle worker looks for jobs that another
// process queued; jobs queued here wake it at once.
const pollInterval = time.Second

// WorkersConfig is what the workers need.
type WorkersConfig struct {
	Queue   *queue.Queue
	Storage *storage.Storage
	Fetch   *fetch.Client
	Limits  engine.Limits
	// Count is how many renders run at once.
	Count int
	// TempDir holds each render's downloads and partial output.
	TempDir string
	// DefaultFont is the font file of text layers that name none.
	DefaultFont string
	// RenderTimeout caps one attempt: downloads, probes, ffmpeg and upload.
	RenderTimeout time.Duration
	Log           *slog.Logger
}

// Workers claim queued jobs and render them.
type Workers struct {
	cfg  WorkersConfig
	wake chan struct{}

	mu      sync.Mutex
	running map[string]context.CancelCauseFunc

	stopClaiming context.CancelFunc
	loops        sync.WaitGroup
}

// NewWorkers returns idle workers; Start sets them going.
func NewWorkers(cfg WorkersConfig) *Workers {
	return &Workers{cfg: cfg, wake: make(chan struct{}, max(1, cfg.Count)), running: make(map[string]context.CancelCauseFunc)}
}

// Wake tells an idle worker that a job was queued.
func (w *Workers) Wake() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// Why a render's context ended, when it did not end by itself.
var (
	errCancelled = errors.New("the job was cancelled")
	errShutdown  = errors.New("kino is shutting down")
	errLostLease = errors.New("the job is no longer this worker's")
)

// Abort kills the render of a job if this process runs it.
func (w *Workers) Abort(id string) {
	w.mu.Lock()
	cancel := w.running[id]
	w.mu.Unlock()
	if cancel != nil {
		cancel(errCancelled)
	}
}

// Start recovers jobs whose workers died and starts the claim loops.
func (w *Workers) Start(ctx context.Context) {
	ctx, w.stopClaiming = context.WithCancel(ctx)
	w.recover(ctx)
	w.loops.Add(1)
	go func() {
		defer w.loops.Done()
		w.recoverLoop(ctx)
	}()
	for i := 0; i < w.cfg.Count; i++ {
		w.loops.Add(1)
		go func() {
			defer w.loops.Done()
			w.claimLoop(ctx)
		}()
	}
}

// Stop stops claiming, lets running renders finish until ctx ends, then
// kills the rest and hands them back to the queue for another process (or
// the next start) to render.
func (w *Workers) Stop(ctx context.Context) {
	if w.stopClaiming != nil {
		w.stopClaiming()
	}
	done := make(chan struct{})
	go func() {
		w.loops.Wait()
		close(done)
	}()
	select {
	case <-done:
		return
	case <-ctx.Done():
	}
	w.mu.Lock()
	for _, cancel := range w.running {
		cancel(errShutdown)
	}
	w.mu.Unlock()
	<-done
}

func (w *Workers) claimLoop(ctx context.Context) {
	for {
		job, err := w.cfg.Queue.Claim(ctx)
		if err != nil && ctx.Err() == nil {
			w.cfg.Log.Error("claim render job", "err", err)
		}
		if job != nil {
			w.run(job)
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-w.wake:
		case <-time.After(pollInterval):
		}
	}
}

func (w *Workers) recoverLoop(ctx context.Context) {
	t := time.NewTicker(w.cfg.Queue.Lease() / 2)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			w.recover(ctx)
		}
	}
}

func (w *Workers) recover(ctx context.Context) {
	n, err := w.cfg.Queue.Recover(ctx)
	if err != nil && ctx.Err() == nil {
		w.cfg.Log.Error("recover render jobs", "err", err)
	}
	if n > 0 {
		w.cfg.Log.Warn("recovered render jobs whose worker was lost", "count", n)
		w.Wake()
	}
}

// run renders one claimed job to its end. It does not take the claim
// loop's context: a shutdown lets it finish (see Stop).
func (w *Workers) run(job *ent.RenderJob) {
	log := w.cfg.Log.With("job_id", job.ID)
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	w.mu.Lock()
	w.running[job.ID] = cancel
	w.mu.Unlock()
	defer func() {
		w.mu.Lock()
		delete(w.running, job.ID)
		w.mu.Unlock()
	}()

	renewDone := make(chan struct{})
	go func() {
		defer close(renewDone)
		w.renew(ctx, job.ID, cancel, log)
	}()
	defer func() { cancel(nil); <-renewDone }()

	log.Info("render started", "attempt", job.Attempts)
	started := time.Now()
	r := &renderRun{w: w, job: job, log: log}
	outcome := r.execute(ctx)
	w.finish(job, outcome, context.Cause(ctx), log, time.Since(started))
}

// renew keeps the lease alive and notices a cancel or a lost lease made
// elsewhere (another process, a recovery) within a second.
func (w *Workers) renew(ctx context.Context, id string, cancel context.CancelCauseFunc, log *slog.Logger) {
	every := min(w.cfg.Queue.Lease()/3, time.Second)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			ok, err := w.cfg.Queue.Renew(ctx, id)
			if err != nil {
				if ctx.Err() == nil {
					log.Warn("renew lease", "err", err)
				}
				continue
			}
			if !ok {
				cancel(errLostLease)
				return
			}
		}
	}
}
