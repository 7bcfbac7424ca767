// Package queue moves render jobs through their states. The rows in the store
// are the queue: a worker claims the oldest queued job with a lease it
// renews; a lease that runs out means its worker died, and the job is
// recovered. Every transition is a conditional update inside a transaction,
// so a late writer (a render finishing after a cancel) changes nothing.
package queue

import (
	"context"
	"errors"
	"fmt"
	"time"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"

	"github.com/kinohq/kino/ent"
	"github.com/kinohq/kino/ent/predicate"
	"github.com/kinohq/kino/ent/renderjob"
	"github.com/kinohq/kino/server/store"
)

// WorkerLost is the error code of a job whose worker died too often.
const WorkerLost = "WORKER_LOST"

// Config tunes leases and retries.
type Config struct {
	// Owner names this process in leases; unique per process.
	Owner string
	// Lease is how long a claim lasts without renewal.
	Lease time.Duration
	// MaxAttempts is how many claims a job gets before a lost worker fails it.
	MaxAttempts int
}

// Hooks let the service act inside and after every transition.
type Hooks struct {
	// OnTerminal runs inside the transaction that moves a job to completed,
	// failed or cancelled, so work it stores (a webhook delivery) commits with it.
	OnTerminal func(ctx context.Context, tx *ent.Tx, job *ent.RenderJob) error
	// Changed runs after any change of a job has committed.
	Changed func(job *ent.RenderJob)
}

// Queue is the render job queue.
type Queue struct {
	st    *store.Store
	cfg   Config
	hooks Hooks
}

// New returns a queue over the store.
func New(st *store.Store, cfg Config, hooks Hooks) *Queue {
	if cfg.Lease <= 0 {
		cfg.Lease = 30 * time.Second
	}
	if cfg.MaxAttempts <= 0 {
		cfg.MaxAttempts = 3
	}
	return &Queue{st: st, cfg: cfg, hooks: hooks}
}

// Lease is the configured lease length.
func (q *Queue) Lease() time.Duration { return q.cfg.Lease }

// ErrNotFound means no job has the id.
var ErrNotFound = errors.New("job not found")

// NotCancellableError means the job is already in a terminal state.
type NotCancellableError struct{ Status renderjob.Status }

func (e *NotCancellableError) Error() string {
	return fmt.Sprintf("job is already in a terminal state (%s)", e.Status)
}

// Terminal reports whether a status is final.
func Terminal(s renderjob.Status) bool {
	return s == renderjob.StatusCompleted || s == renderjob.StatusFailed || s == renderjob.StatusCancelled
}

func now() time.Time { return time.Now().UTC() }

// Claim takes the oldest queued job for this process, or returns nil when
// none is waiting.
func (q *Queue) Claim(ctx context.Context) (*ent.RenderJob, error) {
	var claimed *ent.RenderJob
	err := q.withTx(ctx, func(tx *ent.Tx) error {
		query := tx.RenderJob.Query().
			Where(renderjob.StatusEQ(renderjob.StatusQueued)).
			Order(renderjob.ByCreatedAt(), renderjob.ByID())
		// On PostgreSQL many processes claim at once; SKIP LOCKED lets each
		// take a different row. SQLite's IMMEDIATE transaction already
		// holds the only write lock.
		if q.st.Dialect == dialect.Postgres {
			query = query.ForUpdate(entsql.WithLockAction(entsql.SkipLocked))
		}
		job, err := query.First(ctx)
		if ent.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("find queued job: %w", err)
		}
		t := now()
		claimed, err = tx.RenderJob.UpdateOne(job).
			Where(renderjob.StatusEQ(renderjob.StatusQueued)).
			SetStatus(renderjob.StatusProcessing).
			SetLeaseOwner(q.cfg.Owner).
			SetLeaseExpiresAt(t.Add(q.cfg.Lease)).
			AddAttempts(1).
			SetStartedAt(t).
			SetUpdatedAt(t).
			Save(ctx)
		if err != nil {
			return fmt.Errorf("claim job %s: %w", job.ID, err)
		}
		return nil
	})
	if err != nil || claimed == nil {
		return nil, err
	}
	q.changed(claimed)
	return claimed, nil
}

// Renew extends this process's lease on a job. It reports false when the
// job is no longer ours to run: cancelled, or recovered after a lost lease.
func (q *Queue) Renew(ctx context.Context, id string) (bool, error) {
	n, err := q.st.RenderJob.Update().
		Where(q.owned(id)...).
		SetLeaseExpiresAt(now().Add(q.cfg.Lease)).
		Save(ctx)
	if err != nil {
		return false, fmt.Errorf("renew lease of job %s: %w", id, err)
	}
	return n == 1, nil
}

// SetProgress records the progress of a job this process runs.
func (q *Queue) SetProgress(ctx context.Context, id string, progress float64) error {
	_, err := q.update(ctx, id, q.owned(id), func(u *ent.RenderJobUpdate) {
		u.SetProgress(progress)
	}, false)
	return err
}

// Complete marks a job this process runs as completed with its output. It
// reports false, changing nothing, when the job was cancelled or recovered
// meanwhile; the caller then owns the output and must remove it.
func (q *Queue) Complete(ctx context.Context, id, outputKey string) (bool, error) {
	return q.update(ctx, id, q.owned(id), func(u *ent.RenderJobUpdate) {
		u.SetStatus(renderjob.StatusCompleted).SetProgress(100).SetOutputKey(outputKey).
			SetFinishedAt(now()).ClearLeaseOwner().ClearLeaseExpiresAt()
	}, true)
}

// Fail marks a job this process runs as failed with a documented code.
func (q *Queue) Fail(ctx context.Context, id, code, message string) (bool, error) {
	return q.update(ctx, id, q.owned(id), func(u *ent.RenderJobUpdate) {
		u.SetStatus(renderjob.StatusFailed).SetErrorCode(code).SetErrorMessage(message).
			SetFinishedAt(now()).ClearLeaseOwner().ClearLeaseExpiresAt()
	}, true)
}

// Retry puts a job this process runs back in the queue after a transient
// failure, unless it has used its attempts; then it fails with code.
func (q *Queue) Retry(ctx context.Context, id string, attempts int, code, message string) (bool, error) {
	if attempts >= q.cfg.MaxAttempts {
		return q.Fail(ctx, id, code, message)
	}
	return q.update(ctx, id, q.owned(id), func(u *ent.RenderJobUpdate) {
		u.SetStatus(renderjob.StatusQueued).SetProgress(0).ClearLeaseOwner().ClearLeaseExpiresAt()
	}, false)
}

// Release hands a job this process runs back to the queue without counting
// the attempt, for a graceful shutdown that could not wait for it.
func (q *Queue) Release(ctx context.Context, id string) (bool, error) {
	return q.update(ctx, id, q.owned(id), func(u *ent.RenderJobUpdate) {
		u.SetStatus(renderjob.StatusQueued).SetProgress(0).AddAttempts(-1).
			ClearLeaseOwner().ClearLeaseExpiresAt()
	}, false)
}

// Cancel moves a queued or processing job to cancelled. A job in a terminal
// state gives *NotCancellableError; an unknown id ErrNotFound.
func (q *Queue) Cancel(ctx context.Context, id string) (*ent.RenderJob, error) {
	ok, err := q.update(ctx, id, []predicate.RenderJob{
		renderjob.ID(id),
		renderjob.StatusIn(renderjob.StatusQueued, renderjob.StatusProcessing),
	}, func(u *ent.RenderJobUpdate) {
		u.SetStatus(renderjob.StatusCancelled).SetFinishedAt(now()).
			ClearLeaseOwner().ClearLeaseExpiresAt()
	}, true)
	if err != nil {
		return nil, err
	}
	job, err := q.st.RenderJob.Get(ctx, id)
	if ent.IsNotFound(err) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("read job %s: %w", id, err)
	}
	if !ok {
		return nil, &NotCancellableError{Status: job.Status}
	}
	return job, nil
}

// Recover returns jobs whose lease ran out to the queue, or fails them with
// WORKER_LOST once they have used their attempts. It returns how many jobs
// it moved.
func (q *Queue) Recover(ctx context.Context) (int, error) {
	lost, err := q.st.RenderJob.Query().
		Where(renderjob.StatusEQ(renderjob.StatusProcessing), renderjob.LeaseExpiresAtLT(now())).
		All(ctx)
	if err != nil {
		return 0, fmt.Errorf("find lost jobs: %w", err)
	}
	moved := 0
	for _, job := range lost {
		// The lease and owner in the condition make this a no-op if the
		// worker renewed in the meantime.
		where := []predicate.RenderJob{
			renderjob.ID(job.ID),
			renderjob.StatusEQ(renderjob.StatusProcessing),
			renderjob.LeaseOwner(job.LeaseOwner),
			renderjob.LeaseExpiresAtLT(now()),
		}
		var ok bool
		if job.Attempts >= q.cfg.MaxAttempts {
			msg := fmt.Sprintf("the worker rendering this job stopped %d times; giving up", job.Attempts)
			ok, err = q.update(ctx, job.ID, where, func(u *ent.RenderJobUpdate) {
				u.SetStatus(renderjob.StatusFailed).SetErrorCode(WorkerLost).SetErrorMessage(msg).
					SetFinishedAt(now()).ClearLeaseOwner().ClearLeaseExpiresAt()
			}, true)
		} else {
			ok, err = q.update(ctx, job.ID, where, func(u *ent.RenderJobUpdate) {
				u.SetStatus(renderjob.StatusQueued).SetProgress(0).ClearLeaseOwner().ClearLeaseExpiresAt()
			}, false)
		}
		if err != nil {
			return moved, err
		}
		if ok {
			moved++
		}
	}
	return moved, nil
}

func (q *Queue) owned(id string) []predicate.RenderJob {
	return []predicate.RenderJob{
		renderjob.ID(id),
		renderjob.StatusEQ(renderjob.StatusProcessing),
		renderjob.LeaseOwner(q.cfg.Owner),
	}
}

// update applies set to the job if it still matches where, in one
// transaction with the terminal hook when terminal is true. It reports
// whether the job matched.
func (q *Queue) update(ctx context.Context, id string, where []predicate.RenderJob, set func(*ent.RenderJobUpdate), terminal bool) (bool, error) {
	var job *ent.RenderJob
	err := q.withTx(ctx, func(tx *ent.Tx) error {
		u := tx.RenderJob.Update().Where(where...).SetUpdatedAt(now())
		set(u)
		n, err := u.Save(ctx)
		if err != nil {
			return fmt.Errorf("update job %s: %w", id, err)
		}
		if n == 0 {
			return nil
		}
		if job, err = tx.RenderJob.Get(ctx, id); err != nil {
			return fmt.Errorf("read job %s: %w", id, err)
		}
		if terminal && q.hooks.OnTerminal != nil {
			return q.hooks.OnTerminal(ctx, tx, job)
		}
		return nil
	})
	if err != nil || job == nil {
		return false, err
	}
	q.changed(job)
	return true, nil
}

func (q *Queue) changed(job *ent.RenderJob) {
	if q.hooks.Changed != nil {
		q.hooks.Changed(job)
	}
}

func (q *Queue) withTx(ctx context.Context, fn func(tx *ent.Tx) error) error {
	tx, err := q.st.Tx(ctx)
	if err != nil {
		return fmt.Errorf("begin transaction: %w", err)
	}
	if err := fn(tx); err != nil {
		if rerr := tx.Rollback(); rerr != nil {
			return fmt.Errorf("%w (rollback: %v)", err, rerr)
		}
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}
