package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/kinohq/kino/ent"
	"github.com/kinohq/kino/server/events"
	"github.com/kinohq/kino/server/meter"
	"github.com/kinohq/kino/server/metrics"
	"github.com/kinohq/kino/server/tracing"
)

// Handler runs the jobs of one kind.
type Handler interface {
	// Types are the job types it can run; others wait for a node that can.
	Types() []string
	// Run does one attempt. ctx ends when the job is cancelled, taken over
	// or handed back; the outcome is then ignored (its Discard is called).
	// progress records the percent done; a report that does not move it
	// forward is dropped, as is 100, which the completion records.
	Run(ctx context.Context, j *Job, progress func(percent float64)) Outcome
}

// Outcome is how an attempt ended.
type Outcome struct {
	// Failure is nil when the attempt completed with Result.
	Failure *Failure
	Result  Result
	// FailureMetadata is merged into the metadata of a failed attempt.
	FailureMetadata map[string]any
	// Discard removes what the attempt stored, when its outcome is not
	// recorded: the job was cancelled, taken over or handed back.
	Discard func(ctx context.Context)
}

// PoolConfig configures a pool.
type PoolConfig struct {
	// Owner names this process in leases; unique per process.
	Owner string
	// Slots is how many jobs run at once, of every kind together: each
	// runs one ffmpeg at a time, so it bounds this node's ffmpeg processes.
	Slots int
	// Handlers run the jobs, by kind.
	Handlers map[string]Handler
	// PollEvery is how often an idle slot looks for work without a
	// signal (a retry whose backoff ended, a missed event).
	PollEvery time.Duration
	// TracerProvider records each claim and attempt as spans in the trace
	// of the request that inserted the job; nil records none.
	TracerProvider trace.TracerProvider
	// Metrics receives each claim's wait and each attempt's run time, and
	// labels what is measured under an attempt with its job; nil measures
	// nothing.
	Metrics *metrics.Metrics
	Log     *slog.Logger
}

// Pool is the one worker pool of a process: its slots claim jobs of every
// kind and dispatch them to their kind's handler.
type Pool struct {
	c      *Client
	cfg    PoolConfig
	types  []string
	tracer trace.Tracer

	mu      sync.Mutex
	running map[string]context.CancelCauseFunc

	stopClaiming context.CancelFunc
	loops        sync.WaitGroup
	// renewEvery is how often a running job's lease is renewed, and its
	// ownership checked even when no change of it was heard.
	renewEvery time.Duration
}

// NewPool returns an idle pool; Start sets it going.
func NewPool(c *Client, cfg PoolConfig) *Pool {
	if cfg.PollEvery <= 0 {
		cfg.PollEvery = 5 * time.Second
	}
	var types []string
	for _, h := range cfg.Handlers {
		types = append(types, h.Types()...)
	}
	slices.Sort(types)
	tp := cfg.TracerProvider
	if tp == nil {
		tp = noop.NewTracerProvider()
	}
	return &Pool{c: c, cfg: cfg, types: types, tracer: tp.Tracer(tracing.Scope), running: map[string]context.CancelCauseFunc{},
		renewEvery: min(c.cfg.Lease/3, time.Second)}
}

// Running returns the ids of the jobs this pool runs now.
func (p *Pool) Running() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	ids := make([]string, 0, len(p.running))
	for id := range p.running {
		ids = append(ids, id)
	}
	return ids
}

// Why an attempt's context ended, when it did not end by itself.
var (
	errStopped   = errors.New("the job was cancelled or taken over")
	errShutdown  = errors.New("kino is shutting down")
	errLostLease = errors.New("the job's lease could not be renewed")
)

// Start rescues jobs whose workers died, then starts the slots and the
// rescuer.
func (p *Pool) Start(ctx context.Context) {
	ctx, p.stopClaiming = context.WithCancel(ctx)
	p.rescue(ctx)
	p.loops.Add(1)
	go func() {
		defer p.loops.Done()
		t := time.NewTicker(p.c.cfg.Lease / 2)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				p.rescue(ctx)
			}
		}
	}()
	// One subscription wakes the slots: a signal wakes one idle slot, which
	// wakes the next when it found work (there may be more).
	work, unsubscribe := p.c.bus.Subscribe(events.Work)
	wake := make(chan struct{}, 1)
	p.loops.Add(1)
	go func() {
		defer p.loops.Done()
		defer unsubscribe()
		for {
			select {
			case <-ctx.Done():
				return
			case <-work:
				select {
				case wake <- struct{}{}:
				default:
				}
			}
		}
	}()
	for range p.cfg.Slots {
		p.loops.Add(1)
		go func() {
			defer p.loops.Done()
			p.slot(ctx, wake)
		}()
	}
}

// Stop stops claiming, lets running jobs finish until ctx ends, then stops
// the rest and hands them back, uncounted, for another node or the next
// start to run.
func (p *Pool) Stop(ctx context.Context) {
	if p.stopClaiming == nil {
		return
	}
	p.stopClaiming()
	done := make(chan struct{})
	go func() {
		p.loops.Wait()
		close(done)
	}()
	select {
	case <-done:
		return
	case <-ctx.Done():
	}
	p.mu.Lock()
	for _, cancel := range p.running {
		cancel(errShutdown)
	}
	p.mu.Unlock()
	<-done
}

func (p *Pool) rescue(ctx context.Context) {
	n, err := p.c.Rescue(ctx)
	if err != nil && ctx.Err() == nil {
		p.cfg.Log.Error("rescue jobs", "err", err)
	}
	if n > 0 {
		p.cfg.Log.Warn("rescued jobs whose worker was lost", "count", n)
	}
}

func (p *Pool) slot(ctx context.Context, wake chan struct{}) {
	for {
		claimedAt := time.Now()
		j, err := p.c.Claim(ctx, p.cfg.Owner, p.types)
		if err != nil && ctx.Err() == nil {
			p.cfg.Log.Error("claim job", "err", err)
		}
		if j != nil {
			if j.ClaimedAt != nil {
				p.cfg.Metrics.JobClaimed(j.Kind, j.Type, time.Duration(*j.ClaimedAt-j.CreatedAt)*time.Millisecond)
			}
			select { // there may be more: let another idle slot look
			case wake <- struct{}{}:
			default:
			}
			p.run(j, claimedAt)
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-wake:
		case <-time.After(p.cfg.PollEvery):
		}
	}
}

// run does one attempt of a claimed job. It does not take the slot's
// context: a shutdown lets it finish (see Stop). The claim and the attempt
// are spans whose parent is the request that inserted the job: the trace
// goes on from the submit, with the time the job waited as the gap before
// the claim.
func (p *Pool) run(j *ent.Job, claimedAt time.Time) {
	log := p.cfg.Log.With("job_id", j.ID, "kind", j.Kind, "type", j.Type, "attempt", j.Attempt)
	attrs := trace.WithAttributes(attribute.String("kino.job.id", j.ID), attribute.String("kino.job.kind", j.Kind),
		attribute.String("kino.job.type", j.Type), attribute.Int("kino.job.attempt", j.Attempt))
	traced := tracing.Extract(context.Background(), traceOf(j.Metadata))
	_, claim := p.tracer.Start(traced, "job.claim", attrs, trace.WithTimestamp(claimedAt))
	claim.End()
	traced, span := p.tracer.Start(traced, "job.run", attrs, trace.WithSpanKind(trace.SpanKindConsumer))
	defer span.End()
	ctx, cancel := context.WithCancelCause(p.cfg.Metrics.WithJob(traced, j.Kind, j.Type))
	defer cancel(nil)
	ctx, used := meter.With(ctx)
	p.mu.Lock()
	p.running[j.ID] = cancel
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		delete(p.running, j.ID)
		p.mu.Unlock()
	}()
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		p.watch(ctx, j.ID, cancel, log)
	}()
	defer func() { cancel(nil); <-watched }()

	h := p.cfg.Handlers[j.Kind]
	if ok, err := p.c.Start(ctx, j.ID, p.cfg.Owner); err != nil || !ok {
		return
	}
	started := time.Now()
	var (
		mu   sync.Mutex
		last float64
	)
	whole := wholeOf(j)
	o := runHandler(ctx, h, j, log, func(percent float64) {
		mu.Lock()
		defer mu.Unlock()
		if percent <= last || percent >= 100 {
			return
		}
		last = percent
		if err := p.c.Progress(ctx, j.ID, p.cfg.Owner, percent); err != nil {
			if ctx.Err() == nil {
				log.Warn("record progress", "err", err)
			}
			return
		}
		// A part's report moves its whole (parts.go); only a report that
		// moved the part can.
		if whole != "" {
			if err := p.c.PartsProgress(ctx, whole); err != nil && ctx.Err() == nil {
				log.Warn("record progress of the whole", "whole_id", whole, "err", err)
			}
		}
	})
	p.finish(ctx, j, metered(j, o, used.Used()), log, time.Since(started))
}

// runHandler runs one attempt of j with h. A panic of the handler (a bug,
// or an input that trips one) fails the attempt with CodeInternal instead
// of ending the process and every job it runs, then those of the nodes
// that rescue the job in turn: the attempt counts, so a job that panics
// every time ends failed after its attempts. The stack goes to the log,
// never to the client. Only the handler's own goroutine is covered.
func runHandler(ctx context.Context, h Handler, j *ent.Job, log *slog.Logger, progress func(float64)) (o Outcome) {
	defer func() {
		if v := recover(); v != nil {
			log.Error("job handler panicked", "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			o = Outcome{Failure: &Failure{Code: CodeInternal, Retry: true,
				Message: "kino failed unexpectedly while running the job (its operators have the details); it is retried while attempts remain"}}
		}
	}()
	return h.Run(ctx, view(j), progress)
}

// watch keeps the lease and stops the attempt when the job stops being this
// worker's: at once when its change is published (a cancel on any node),
// and at the latest on the next renewal, within a second.
func (p *Pool) watch(ctx context.Context, id string, cancel context.CancelCauseFunc, log *slog.Logger) {
	changed, unsubscribe := p.c.bus.Subscribe(id)
	defer unsubscribe()
	t := time.NewTicker(p.renewEvery)
	defer t.Stop()
	lapsed := p.c.cfg.Now().Add(p.c.cfg.Lease)
	for {
		select {
		case <-ctx.Done():
			return
		case <-changed:
			// Most changes are the attempt's own progress, twice a second:
			// a read tells whether the job is still this worker's, where a
			// renewal would add a write to each. The ticker renews.
			ok, err := p.c.owns(ctx, id, p.cfg.Owner)
			if err == nil && !ok {
				cancel(errStopped)
				return
			}
			continue
		case <-t.C:
		}
		ok, err := p.c.Renew(ctx, id, p.cfg.Owner)
		switch {
		case err != nil:
			if ctx.Err() != nil {
				return
			}
			log.Warn("renew lease", "err", err)
			// Past the lease another node may take the job: stop first.
			if p.c.cfg.Now().After(lapsed) {
				cancel(errLostLease)
				return
			}
		case !ok:
			cancel(errStopped)
			return
		default:
			lapsed = p.c.cfg.Now().Add(p.c.cfg.Lease)
		}
	}
}

// finish records the outcome of an attempt, unless the job stopped being
// this worker's; what the attempt stored is then removed. The outcome is
// set on the attempt's span, and the transition that records it is a span.
func (p *Pool) finish(attempt context.Context, j *ent.Job, o Outcome, log *slog.Logger, took time.Duration) {
	cause := context.Cause(attempt)
	span := trace.SpanFromContext(attempt)
	// The attempt's context may be over; these writes must still happen.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(attempt), 30*time.Second)
	defer cancel()
	step := func(name string, fn func(ctx context.Context) (bool, error)) (bool, error) {
		ctx, s := tracing.Start(ctx, name)
		ok, err := fn(ctx)
		tracing.End(s, err)
		return ok, err
	}
	discard := func() {
		if o.Discard != nil {
			o.Discard(ctx)
		}
	}
	var (
		ok      bool
		err     error
		outcome string
	)
	switch {
	case errors.Is(cause, errStopped), errors.Is(cause, errLostLease):
		span.SetAttributes(attribute.String("kino.job.outcome", "stopped"))
		log.Info("job stopped", "reason", cause.Error())
		discard()
		p.cfg.Metrics.AttemptEnded(j.Kind, j.Type, metrics.Stopped, took)
		return
	case errors.Is(cause, errShutdown):
		span.SetAttributes(attribute.String("kino.job.outcome", "released"))
		discard()
		ok, err = step("job.release", func(ctx context.Context) (bool, error) { return p.c.Release(ctx, j.ID, p.cfg.Owner) })
		outcome = metrics.Released
		log.Info("job handed back for another worker", "reason", cause.Error())
	case o.Failure == nil:
		span.SetAttributes(attribute.String("kino.job.outcome", "completed"))
		ok, err = step("job.complete", func(ctx context.Context) (bool, error) {
			return p.c.Complete(ctx, j.ID, p.cfg.Owner, o.Result)
		})
		outcome = metrics.Completed
		if err == nil && !ok {
			discard()
		}
		if ok {
			log.Info("job completed", "ms", took.Milliseconds())
		}
	default:
		span.SetAttributes(attribute.String("kino.job.outcome", "failed"), attribute.String("kino.job.error_code", o.Failure.Code),
			attribute.Bool("kino.job.retry", o.Failure.Retry))
		// The code, not the message: the message quotes what the client
		// gave, such as a signed URL, and traces must not keep it.
		span.SetStatus(codes.Error, o.Failure.Code)
		ok, err = step("job.fail", func(ctx context.Context) (bool, error) {
			return p.c.Fail(ctx, j.ID, p.cfg.Owner, *o.Failure, o.FailureMetadata)
		})
		// Fail puts the job back on the same condition.
		outcome = metrics.Failed
		if o.Failure.Retry && j.Attempt < j.MaxAttempts {
			outcome = metrics.Retried
		}
		log.Warn("job attempt failed", "code", o.Failure.Code, "message", o.Failure.Message, "retry", o.Failure.Retry)
	}
	if !ok {
		// Not recorded: the job changed meanwhile, or the write failed and
		// a rescue will take it.
		outcome = metrics.Stopped
	}
	p.cfg.Metrics.AttemptEnded(j.Kind, j.Type, outcome, took)
	if err != nil {
		// The lease will lapse and a rescue will take the job.
		log.Error("record job outcome", "err", err)
	}
	if !ok && err == nil {
		log.Info("job outcome discarded: the job changed meanwhile")
	}
}
