// Package jobs is kino's one job core. A render, a media job and a node of
// a pipeline run are all a job: a row of one table, moved through one state
// machine by this package alone.
//
//	pending ──(parents complete)──> available ──claim──> running ──> completed
//	                                    ^  ^                │ │ └──> failed
//	                                    │  └─release/rescue─┘ │      cancelled (from any state before)
//	                                    └─(due)── retrying <──┘ retry after a backoff
//
// Every transition is a conditional update in a transaction, so a late
// writer (a worker finishing after a cancel, a rescue after a renewal)
// changes nothing. What must hold together with a transition commits in its
// transaction: outputs copied into the jobs that wait for them, dependants
// cancelled when their parent can no longer complete, and the kinds' own
// effects (a render's webhook delivery) through final hooks. After commit
// the change is published, so that watchers and idle workers on every node
// hear of it.
package jobs

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"entgo.io/ent/dialect"

	"github.com/kinohq/kino/ent"
	"github.com/kinohq/kino/ent/job"
	"github.com/kinohq/kino/ent/predicate"
	"github.com/kinohq/kino/ent/schema"
	"github.com/kinohq/kino/server/events"
	"github.com/kinohq/kino/server/org"
	"github.com/kinohq/kino/server/store"
	"github.com/kinohq/kino/server/tracing"
)

// The states of a job.
const (
	Pending   = job.StatePending
	Available = job.StateAvailable
	Running   = job.StateRunning
	Completed = job.StateCompleted
	Failed    = job.StateFailed
	Cancelled = job.StateCancelled
	// Retrying waits out a retry's backoff; the APIs show it as waiting.
	Retrying = job.StateRetrying
)

// Final reports whether a state is terminal.
func Final(s State) bool {
	return s == Completed || s == Failed || s == Cancelled
}

// unfinished are the states a cancel or a failed parent can still end.
//
//nolint:gochecknoglobals // read-only table: the states a cancel can end
var unfinished = []State{Pending, Available, Retrying, Running}

// Waiting are the states of a job not yet running.
//
//nolint:gochecknoglobals // read-only table: the states of a waiting job, for the APIs' filters
var Waiting = []State{Pending, Available, Retrying}

// Config tunes leases and retries.
type Config struct {
	// Lease is how long a claim lasts without renewal.
	Lease time.Duration
	// MaxAttempts is how many claims a job gets, whether a transient
	// failure or a lost worker ends them.
	MaxAttempts int
	// RetryDelay is the wait before the first retry of a transient
	// failure; each later retry waits four times longer.
	RetryDelay time.Duration
	// Orgs gives each organisation's weight in the turns of claims and
	// its running cap; nil means every weight 1 and no cap.
	Orgs *org.Policies
	// Upstream words the error of a job cancelled because parent, which
	// it waits for, ended without completing (ended says how: "failed",
	// "was cancelled"), for kinds that name their jobs otherwise (a
	// pipeline's nodes); "" keeps the core's own words.
	Upstream func(parent *Job, ended string) string
	// Now is the clock of every time the core records or compares: leases
	// and their expiry, retry backoffs, claim and start times. nil is
	// time.Now. Tests move it (jobstest.Clock), so that none waits for a
	// lease to lapse or a backoff to end; the SQL takes its reading as a
	// parameter on both databases.
	Now func() time.Time
}

// FinalHook runs inside the transaction that moves a job to a terminal
// state, so that what it stores commits with the state or not at all.
type FinalHook func(ctx context.Context, tx *ent.Tx, j *Job) error

// Client moves jobs through their states.
type Client struct {
	st    *store.Store
	bus   events.Bus
	cfg   Config
	final []FinalHook
	after []func(*Job)
	// tidied is set once the turns were checked against the jobs.
	tidied atomic.Bool
}

// New returns a client over the store that publishes changes on bus.
func New(st *store.Store, bus events.Bus, cfg Config) *Client {
	if cfg.Lease <= 0 {
		cfg.Lease = 30 * time.Second
	}
	if cfg.MaxAttempts <= 0 {
		cfg.MaxAttempts = 3
	}
	if cfg.RetryDelay <= 0 {
		cfg.RetryDelay = 2 * time.Second
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Client{st: st, bus: bus, cfg: cfg}
}

// OnFinal adds a hook run in every transaction that ends a job, and one
// run after it commits. Hooks are added before the client is used.
func (c *Client) OnFinal(in FinalHook, after func(*Job)) {
	if in != nil {
		c.final = append(c.final, in)
	}
	if after != nil {
		c.after = append(c.after, after)
	}
}

// Lease is the configured lease length.
func (c *Client) Lease() time.Duration { return c.cfg.Lease }

// ErrNotFound means no job has the id (for the organisation that asks).
var ErrNotFound = errors.New("job not found")

// ErrDuplicate means an Insert was refused because a job of it has the id
// or the idempotency key of a stored job of the same kind and organisation.
var ErrDuplicate = errors.New("a job with the same id or idempotency key exists")

// NotCancellableError means the job already ended.
type NotCancellableError struct{ State State }

func (e *NotCancellableError) Error() string {
	return fmt.Sprintf("job is already in a terminal state (%s)", e.State)
}

// Failure is how an attempt failed: a documented code and a message for
// the user. Retry marks a failure worth another attempt while attempts remain.
type Failure struct {
	Code    string
	Message string
	Retry   bool
}

func (f *Failure) Error() string { return f.Code + ": " + f.Message }

// MaxPriority bounds a submit's priority either way.
const MaxPriority = 100

// Result is what a completed attempt produced.
type Result struct {
	// Outputs are stored files by output field, as storage keys; the
	// jobs that wait for this one get theirs as inputs.
	Outputs map[string]string
	// Metadata is merged into the job's metadata.
	Metadata map[string]any
}

// nowMs is the client's clock in epoch milliseconds, as the rows keep time.
func (c *Client) nowMs() int64 { return c.cfg.Now().UnixMilli() }

// Parent names a job of the same Insert that a job waits for, and which of
// the parent's outputs become which inputs (input field -> output field).
type Parent struct {
	ID     string
	Inputs map[string]string
	// Whole makes the job a whole of which the parent is a part: its
	// progress is its parts', and it fails with a part's error (parts.go).
	Whole bool
}

// NewJob is a job to insert.
type NewJob struct {
	ID, Kind, Type, Org string
	Args                []byte
	Metadata            map[string]any
	// MaxAttempts overrides the configured attempts when above 0.
	MaxAttempts int
	// Parts makes the job a whole of that many parts, and Weight is a
	// part's share of its whole's work (parts.go).
	Parts                       int
	Weight                      float64
	BatchID, PipelineID, NodeID string
	IdempotencyKey, RequestHash string
	// CreatedAt is epoch ms; 0 means now.
	CreatedAt int64
	Parents   []Parent
	// Priority orders the organisation's own waiting jobs, higher first.
	Priority int
}

// Insert stores jobs in one transaction. A job with parents waits for them
// (which must be in the same Insert) and starts pending. The trace context of
// ctx, if any, is kept in each job's metadata, so that its attempts continue
// the trace of the request that made it (see TraceContext).
func (c *Client) Insert(ctx context.Context, jobs ...NewJob) ([]*Job, error) {
	return c.InsertAdmitted(ctx, nil, jobs...)
}

// Admit decides, in the transaction that would insert them, whether jobs
// may be inserted at all; an error stores none of them.
type Admit func(ctx context.Context, tx *ent.Tx) error

// InsertAdmitted is Insert with admit run first in its transaction (nil
// admits all), so that what admit counts cannot change before the jobs
// commit: an organisation's limits at submit (server/quota).
func (c *Client) InsertAdmitted(ctx context.Context, admit Admit, jobs ...NewJob) ([]*Job, error) {
	traceContext := tracing.Inject(ctx)
	dependants := map[string][]schema.Dependant{}
	for _, n := range jobs {
		for _, p := range n.Parents {
			dependants[p.ID] = append(dependants[p.ID], schema.Dependant{ID: n.ID, Inputs: p.Inputs, Whole: p.Whole})
		}
	}
	now := c.nowMs()
	var out []*ent.Job
	err := c.withTx(ctx, func(tx *ent.Tx) error {
		var orgs []string
		for _, n := range jobs {
			if len(n.Parents) == 0 {
				orgs = append(orgs, n.Org)
			}
		}
		if err := c.activate(ctx, tx, orgs...); err != nil {
			return err
		}
		if admit != nil {
			if err := admit(ctx, tx); err != nil {
				return err
			}
		}
		for _, n := range jobs {
			created := n.CreatedAt
			if created == 0 {
				created = now
			}
			attempts := n.MaxAttempts
			if attempts <= 0 {
				attempts = c.cfg.MaxAttempts
			}
			state := Available
			if len(n.Parents) > 0 {
				state = Pending
			}
			cr := tx.Job.Create().SetID(n.ID).SetKind(n.Kind).SetType(n.Type).SetOrgID(n.Org).
				SetState(state).SetArgs(n.Args).SetMaxAttempts(attempts).SetPendingParents(len(n.Parents)).
				SetCreatedAt(created).SetUpdatedAt(created).SetAvailableAt(created).SetPriority(n.Priority)
			meta := n.Metadata
			if traceContext != nil {
				meta = merged(meta, map[string]any{MetaTraceContext: traceContext})
			}
			if n.Parts > 0 {
				meta = merged(meta, map[string]any{metaParts: n.Parts})
			}
			if n.Weight > 0 {
				meta = merged(meta, map[string]any{metaWeight: n.Weight})
			}
			if meta != nil {
				cr.SetMetadata(meta)
			}
			if d := dependants[n.ID]; len(d) > 0 {
				cr.SetDependants(d)
			}
			opt := func(v string, set func(string) *ent.JobCreate) {
				if v != "" {
					set(v)
				}
			}
			opt(n.BatchID, cr.SetBatchID)
			opt(n.PipelineID, cr.SetPipelineID)
			opt(n.NodeID, cr.SetNodeID)
			opt(n.IdempotencyKey, cr.SetIdempotencyKey)
			opt(n.RequestHash, cr.SetRequestHash)
			j, err := cr.Save(ctx)
			if ent.IsConstraintError(err) {
				return fmt.Errorf("insert job %s: %w (%v)", n.ID, ErrDuplicate, err)
			}
			if err != nil {
				return fmt.Errorf("insert job %s: %w", n.ID, err)
			}
			out = append(out, j)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(out)+1)
	for _, j := range out {
		ids = append(ids, j.ID)
	}
	c.bus.Publish(append(ids, events.Work)...)
	return views(out), nil
}

// Annotate merges values into a job's metadata (figures the API measured
// after the insert, say); it never changes the state.
func (c *Client) Annotate(ctx context.Context, id string, meta map[string]any) error {
	return c.withTx(ctx, func(tx *ent.Tx) error {
		j, err := c.lockedGet(ctx, tx, job.ID(id))
		if err != nil {
			return err
		}
		return tx.Job.UpdateOne(j).SetMetadata(merged(j.Metadata, meta)).Exec(ctx)
	})
}

// ForgetKey frees an idempotency key of an organisation's jobs of a kind,
// once the key has expired.
func (c *Client) ForgetKey(ctx context.Context, kind, org, key string) error {
	return c.st.Job.Update().Where(job.Kind(kind), job.OrgID(org), job.IdempotencyKey(key)).ClearIdempotencyKey().Exec(ctx)
}

func merged(base, add map[string]any) map[string]any {
	out := make(map[string]any, len(base)+len(add))
	maps.Copy(out, base)
	maps.Copy(out, add)
	return out
}

func owned(id, owner string) []predicate.Job {
	return []predicate.Job{job.ID(id), job.StateEQ(Running), job.LeaseOwner(owner)}
}

// Start records that the worker began the job's work.
func (c *Client) Start(ctx context.Context, id, owner string) (bool, error) {
	return c.update(ctx, id, owned(id, owner), func(u *ent.JobUpdate) { u.SetStartedAt(c.nowMs()) })
}

// Renew extends owner's lease on a job. It reports false when the job is
// no longer owner's to run: cancelled, or rescued after a lapsed lease.
func (c *Client) Renew(ctx context.Context, id, owner string) (bool, error) {
	n, err := c.st.Job.Update().Where(owned(id, owner)...).
		SetLeaseExpiresAt(c.nowMs() + c.cfg.Lease.Milliseconds()).Save(ctx)
	if err != nil {
		return false, fmt.Errorf("renew lease of job %s: %w", id, err)
	}
	return n == 1, nil
}

// owns reports whether owner still runs the job, without changing it.
func (c *Client) owns(ctx context.Context, id, owner string) (bool, error) {
	ok, err := c.st.Job.Query().Where(owned(id, owner)...).Exist(ctx)
	if err != nil {
		return false, fmt.Errorf("read job %s: %w", id, err)
	}
	return ok, nil
}

// Progress records the percent done of a job owner runs. A record's
// progress never goes back: an attempt that starts again after a crash, a
// retry or a shutdown reports from 0, and its reports count only once they
// pass what an earlier attempt reached.
func (c *Client) Progress(ctx context.Context, id, owner string, percent float64) error {
	where := append(owned(id, owner), job.ProgressLT(percent))
	_, err := c.update(ctx, id, where, func(u *ent.JobUpdate) { u.SetProgress(percent) })
	return err
}

// update applies set to the job if it still matches where, outside any
// other effect, and publishes the change.
func (c *Client) update(ctx context.Context, id string, where []predicate.Job, set func(*ent.JobUpdate)) (bool, error) {
	u := c.st.Job.Update().Where(where...).SetUpdatedAt(c.nowMs())
	set(u)
	n, err := u.Save(ctx)
	if err != nil {
		return false, fmt.Errorf("update job %s: %w", id, err)
	}
	if n == 1 {
		c.bus.Publish(id)
	}
	return n == 1, nil
}

// changes collects what a transaction did, to publish after it commits.
type changes struct {
	ids   []string
	work  bool
	final []*Job
}

func (ch *changes) publish(c *Client) {
	ids := ch.ids
	if ch.work {
		ids = append(ids, events.Work)
	}
	if len(ids) > 0 {
		c.bus.Publish(ids...)
	}
	for _, j := range ch.final {
		for _, fn := range c.after {
			fn(j)
		}
	}
}

// transition runs fn in a transaction and publishes what it changed.
func (c *Client) transition(ctx context.Context, fn func(tx *ent.Tx, ch *changes) error) error {
	ch := &changes{}
	if err := c.withTx(ctx, func(tx *ent.Tx) error { return fn(tx, ch) }); err != nil {
		return err
	}
	ch.publish(c)
	return nil
}

// finish moves the job matching where to a terminal state with set, runs
// the final hooks, and reports whether it matched.
func (c *Client) finish(ctx context.Context, tx *ent.Tx, ch *changes, id string, where []predicate.Job, set func(*ent.JobUpdate)) (*ent.Job, error) {
	prior, err := tx.Job.Query().Where(job.ID(id)).Select(job.FieldState).String(ctx)
	if ent.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read job %s: %w", id, err)
	}
	now := c.nowMs()
	u := tx.Job.Update().Where(where...).SetUpdatedAt(now).SetFinishedAt(now).ClearLeaseOwner().ClearLeaseExpiresAt()
	set(u)
	n, err := u.Save(ctx)
	if err != nil {
		return nil, fmt.Errorf("update job %s: %w", id, err)
	}
	if n == 0 {
		return nil, nil
	}
	j, err := tx.Job.Get(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("read job %s: %w", id, err)
	}
	v := view(j)
	for _, fn := range c.final {
		if err := fn(ctx, tx, v); err != nil {
			return nil, err
		}
	}
	ch.ids = append(ch.ids, id)
	ch.final = append(ch.final, v)
	// Only a job that ran: a claim holding the organisation may be
	// waiting for this job's row, were it available.
	if State(prior) == Running {
		if err := c.stopped(ctx, tx, j.OrgID); err != nil {
			return nil, err
		}
	}
	if c.policy(j.OrgID).MaxRunning > 0 {
		ch.work = true // it may have freed a place under its organisation's cap
	}
	if isWhole(j) && j.State != Completed {
		if err := c.cancelParts(ctx, tx, ch, j); err != nil {
			return nil, err
		}
	}
	return j, nil
}

// Complete marks a job owner runs as completed with its result and hands
// its outputs to the jobs that wait for it, in one transaction. It reports
// false, changing nothing, when the job is no longer owner's; the caller
// then owns what it stored and must remove it.
func (c *Client) Complete(ctx context.Context, id, owner string, res Result) (bool, error) {
	var done bool
	err := c.transition(ctx, func(tx *ent.Tx, ch *changes) error {
		cur, err := c.lockedOwned(ctx, tx, id, owner)
		if err != nil || cur == nil {
			return err
		}
		j, err := c.finish(ctx, tx, ch, id, owned(id, owner), func(u *ent.JobUpdate) {
			u.SetState(Completed).SetProgress(100).SetMetadata(merged(cur.Metadata, res.Metadata))
			if len(res.Outputs) > 0 {
				u.SetOutputs(res.Outputs)
			}
		})
		if err != nil || j == nil {
			return err
		}
		done = true
		return c.handOn(ctx, tx, ch, j)
	})
	return done, err
}

// handOn gives each dependant of a completed job the outputs it maps to
// its inputs, and makes it available once its last parent has completed.
func (c *Client) handOn(ctx context.Context, tx *ent.Tx, ch *changes, parent *ent.Job) error {
	for _, d := range parent.Dependants {
		// Locked: parents completing at once on PostgreSQL each add their
		// outputs to the same row, and an unlocked read loses the other's
		// (a split render's poster, fed by one part, was lost to another
		// part finishing in the same moment).
		child, err := c.lockedGet(ctx, tx, job.ID(d.ID))
		if err != nil {
			return fmt.Errorf("read dependant %s of job %s: %w", d.ID, parent.ID, err)
		}
		if child.State != Pending {
			continue // cancelled meanwhile
		}
		keys := maps.Clone(child.InputKeys)
		if keys == nil {
			keys = map[string]string{}
		}
		for input, output := range d.Inputs {
			if key, ok := parent.Outputs[output]; ok {
				keys[input] = key
			}
		}
		now := c.nowMs()
		u := tx.Job.UpdateOne(child).Where(job.StateEQ(Pending)).
			SetInputKeys(keys).AddPendingParents(-1).SetUpdatedAt(now)
		if child.PendingParents <= 1 {
			if err := c.activate(ctx, tx, child.OrgID); err != nil {
				return err
			}
			u.SetState(Available).SetAvailableAt(now)
			ch.work = true
		}
		if d.Whole { // while it still waits
			if err := c.rollUp(ctx, tx, child.ID); err != nil {
				return err
			}
		}
		if err := u.Exec(ctx); err != nil {
			return fmt.Errorf("hand outputs of job %s to %s: %w", parent.ID, d.ID, err)
		}
		ch.ids = append(ch.ids, child.ID)
	}
	return nil
}

// Fail records a failed attempt of a job owner runs. A failure marked for
// retry puts the job back, available after a backoff, while attempts
// remain; otherwise the job fails, and every job that waits for it is
// cancelled in the same transaction. meta is merged into the metadata
// either way (the attempt's log, say).
func (c *Client) Fail(ctx context.Context, id, owner string, f Failure, meta map[string]any) (bool, error) {
	var (
		done, retried bool
		retryIn       time.Duration
	)
	err := c.transition(ctx, func(tx *ent.Tx, ch *changes) error {
		cur, err := c.lockedOwned(ctx, tx, id, owner)
		if err != nil || cur == nil {
			return err
		}
		if f.Retry && cur.Attempt < cur.MaxAttempts {
			now := c.nowMs()
			delay := backoff(c.cfg.RetryDelay, cur.Attempt-1)
			u := tx.Job.Update().Where(owned(id, owner)...).
				SetState(Retrying).SetAvailableAt(now + delay.Milliseconds()).
				SetMetadata(merged(cur.Metadata, meta)).ClearLeaseOwner().ClearLeaseExpiresAt().
				SetUpdatedAt(now)
			if !isWhole(cur) {
				// The next claim starts it again; until then it has
				// not started (a whole keeps its parts' start). Its
				// progress stays: a record's never goes back.
				u.ClearStartedAt()
			}
			n, err := u.Save(ctx)
			if err != nil {
				return fmt.Errorf("put job %s back: %w", id, err)
			}
			done = n == 1
			if done {
				ch.ids = append(ch.ids, id)
				retried, retryIn = true, delay
				ch.work = c.policy(cur.OrgID).MaxRunning > 0 // a place freed under its cap
				return c.stopped(ctx, tx, cur.OrgID)
			}
			return nil
		}
		j, err := c.finish(ctx, tx, ch, id, owned(id, owner), func(u *ent.JobUpdate) {
			u.SetState(Failed).SetErrorCode(f.Code).SetErrorMessage(f.Message).SetMetadata(merged(cur.Metadata, meta))
		})
		if err != nil || j == nil {
			return err
		}
		done = true
		return c.cancelDependants(ctx, tx, ch, j, c.upstream(j, CodeUpstreamFailed, "failed"))
	})
	if err == nil && retried {
		// Idle workers hear of it when the backoff ends, not before, and
		// only once the put-back committed.
		time.AfterFunc(retryIn, func() { c.bus.Publish(events.Work) })
	}
	return done, err
}

// backoff is the wait before retry n+1: base, then four times longer each
// time, ±20% so that jobs failed together do not retry together, at most
// ten minutes.
func backoff(base time.Duration, n int) time.Duration {
	d := float64(base) * math.Pow(4, float64(max(0, n))) * (0.8 + 0.4*rand.Float64())
	return time.Duration(min(d, float64(10*time.Minute)))
}

// cancelDependants cancels every unfinished job that waits, directly or
// through others, for parent, with why as its error.
func (c *Client) cancelDependants(ctx context.Context, tx *ent.Tx, ch *changes, parent *ent.Job, why Failure) error {
	queue := append([]schema.Dependant(nil), parent.Dependants...)
	seen := map[string]bool{}
	for len(queue) > 0 {
		d := queue[0]
		queue = queue[1:]
		if seen[d.ID] {
			continue
		}
		seen[d.ID] = true
		state, code, message := Cancelled, why.Code, why.Message
		if d.Whole && parent.State == Failed && parent.ErrorCode != nil {
			// A whole fails as its part did: a split render reads as
			// the render would have failed unsplit.
			state, code = Failed, *parent.ErrorCode
			if parent.ErrorMessage != nil {
				message = *parent.ErrorMessage
			}
		}
		j, err := c.finish(ctx, tx, ch, d.ID, []predicate.Job{job.ID(d.ID), job.StateIn(unfinished...)}, func(u *ent.JobUpdate) {
			u.SetState(state).SetErrorCode(code).SetErrorMessage(message)
		})
		if err != nil {
			return err
		}
		if j != nil {
			queue = append(queue, j.Dependants...)
		}
	}
	return nil
}

// upstream is why the dependants of a job that ended without completing
// are cancelled, worded by Config.Upstream when it has words for it.
func (c *Client) upstream(j *ent.Job, code, ended string) Failure {
	if c.cfg.Upstream != nil {
		if msg := c.cfg.Upstream(view(j), ended); msg != "" {
			return Failure{Code: code, Message: msg}
		}
	}
	return Failure{Code: code, Message: fmt.Sprintf("job %s, which this one waits for, %s, so this one cannot run", j.ID, ended)}
}

// Release hands a job owner runs back without counting the attempt, for a
// shutdown that could not wait for it.
func (c *Client) Release(ctx context.Context, id, owner string) (bool, error) {
	var done bool
	err := c.transition(ctx, func(tx *ent.Tx, ch *changes) error {
		now := c.nowMs()
		n, err := tx.Job.Update().Where(owned(id, owner)...).
			SetState(Available).SetAvailableAt(now).AddAttempt(-1).
			ClearLeaseOwner().ClearLeaseExpiresAt().ClearClaimedAt().ClearStartedAt().SetUpdatedAt(now).Save(ctx)
		if err != nil {
			return fmt.Errorf("release job %s: %w", id, err)
		}
		done = n == 1
		if !done {
			return nil
		}
		ch.ids, ch.work = append(ch.ids, id), true
		j, err := tx.Job.Get(ctx, id)
		if err != nil {
			return fmt.Errorf("read job %s: %w", id, err)
		}
		if err := c.stopped(ctx, tx, j.OrgID); err != nil {
			return err
		}
		return c.activate(ctx, tx, j.OrgID)
	})
	return done, err
}

// Cancel cancels a job that has not ended, and every job waiting for it. A
// job that has ended gives *NotCancellableError; an unknown id ErrNotFound.
// The worker running it, on any node, hears of it and stops.
func (c *Client) Cancel(ctx context.Context, id string) (*Job, error) {
	var out *Job
	err := c.transition(ctx, func(tx *ent.Tx, ch *changes) error {
		j, err := c.finish(ctx, tx, ch, id, []predicate.Job{job.ID(id), job.StateIn(unfinished...)}, func(u *ent.JobUpdate) {
			u.SetState(Cancelled)
		})
		if err != nil {
			return err
		}
		if j == nil {
			cur, err := c.lockedGet(ctx, tx, job.ID(id))
			if ent.IsNotFound(err) {
				return ErrNotFound
			}
			if err != nil {
				return err
			}
			return &NotCancellableError{State: cur.State}
		}
		out = view(j)
		return c.cancelDependants(ctx, tx, ch, j, c.upstream(j, CodeUpstreamCancelled, "was cancelled"))
	})
	return out, err
}

// CancelBatch cancels every unfinished job of a batch (a pipeline run).
func (c *Client) CancelBatch(ctx context.Context, batchID string) error {
	return c.transition(ctx, func(tx *ent.Tx, ch *changes) error {
		ids, err := tx.Job.Query().Where(job.BatchID(batchID), job.StateIn(unfinished...)).IDs(ctx)
		if err != nil {
			return err
		}
		for _, id := range ids {
			if _, err := c.finish(ctx, tx, ch, id, []predicate.Job{job.ID(id), job.StateIn(unfinished...)}, func(u *ent.JobUpdate) {
				u.SetState(Cancelled)
			}); err != nil {
				return err
			}
		}
		return nil
	})
}

// Rescue puts back the running jobs whose lease lapsed (their worker died),
// counting the attempt, and fails those out of attempts with WORKER_LOST.
// It returns how many jobs it moved. It also keeps the turns of claims true
// to the jobs (see tidy).
func (c *Client) Rescue(ctx context.Context) (int, error) {
	if err := c.tidy(ctx); err != nil {
		return 0, err
	}
	lost, err := c.st.Job.Query().Where(job.StateEQ(Running), job.LeaseExpiresAtLT(c.nowMs())).All(ctx)
	if err != nil {
		return 0, fmt.Errorf("find lost jobs: %w", err)
	}
	moved := 0
	for _, l := range lost {
		err := c.transition(ctx, func(tx *ent.Tx, ch *changes) error {
			now := c.nowMs()
			// The owner and lease in the condition make this a no-op if
			// the worker renewed meanwhile.
			where := []predicate.Job{job.ID(l.ID), job.StateEQ(Running), job.LeaseOwner(*l.LeaseOwner), job.LeaseExpiresAtLT(now)}
			if l.Attempt >= l.MaxAttempts {
				msg := fmt.Sprintf("the worker running this job stopped %d times; giving up", l.Attempt)
				j, err := c.finish(ctx, tx, ch, l.ID, where, func(u *ent.JobUpdate) {
					u.SetState(Failed).SetErrorCode(CodeWorkerLost).SetErrorMessage(msg)
				})
				if err != nil || j == nil {
					return err
				}
				moved++
				return c.cancelDependants(ctx, tx, ch, j, c.upstream(j, CodeUpstreamFailed, "failed"))
			}
			u := tx.Job.Update().Where(where...).SetState(Available).SetAvailableAt(now).
				ClearLeaseOwner().ClearLeaseExpiresAt().SetUpdatedAt(now)
			if !isWhole(l) {
				u.ClearStartedAt()
			}
			n, err := u.Save(ctx)
			if err != nil {
				return err
			}
			if n == 1 {
				moved++
				ch.ids, ch.work = append(ch.ids, l.ID), true
				if err := c.stopped(ctx, tx, l.OrgID); err != nil {
					return err
				}
				return c.activate(ctx, tx, l.OrgID)
			}
			return nil
		})
		if err != nil {
			return moved, fmt.Errorf("rescue job %s: %w", l.ID, err)
		}
	}
	return moved, nil
}

// lockedGet reads the job where selects, to change it from what it holds
// (its metadata): on PostgreSQL the row stays locked until the transaction
// ends, so two such changes cannot lose each other's writes. SQLite's IMMEDIATE
// transactions already run one at a time.
func (c *Client) lockedGet(ctx context.Context, tx *ent.Tx, where ...predicate.Job) (*ent.Job, error) {
	q := tx.Job.Query().Where(where...)
	if c.st.Dialect == dialect.Postgres {
		q = q.ForUpdate()
	}
	return q.Only(ctx)
}

// lockedOwned is lockedGet of a job owner runs: nil, and no error, when it
// is gone or no longer owner's, so that the caller changes nothing.
func (c *Client) lockedOwned(ctx context.Context, tx *ent.Tx, id, owner string) (*ent.Job, error) {
	j, err := c.lockedGet(ctx, tx, owned(id, owner)...)
	if ent.IsNotFound(err) {
		return nil, nil
	}
	return j, err
}

func (c *Client) withTx(ctx context.Context, fn func(tx *ent.Tx) error) error {
	tx, err := c.st.Tx(ctx)
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
