package jobs_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/ent"
	"github.com/kinohq/kino/server/jobs"
	"github.com/kinohq/kino/server/jobs/jobstest"
	"github.com/kinohq/kino/server/store/storetest"
)

// busy is a handler whose jobs run until the test releases them (or
// their context ends), counting how many run at once.
type busy struct {
	types   []string
	release chan struct{}
	now     *atomic.Int32
	peak    *atomic.Int32
	stopped atomic.Int32
}

func (b *busy) Types() []string { return b.types }

func (b *busy) Run(ctx context.Context, j *jobs.Job, progress func(float64)) jobs.Outcome {
	n := b.now.Add(1)
	defer b.now.Add(-1)
	for {
		p := b.peak.Load()
		if n <= p || b.peak.CompareAndSwap(p, n) {
			break
		}
	}
	progress(50)
	select {
	case <-ctx.Done():
		b.stopped.Add(1)
		return jobs.Outcome{Failure: &jobs.Failure{}}
	case <-b.release:
	}
	return jobs.Outcome{Result: jobs.Result{Outputs: map[string]string{"out": "jobs/o/" + j.ID}}}
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func TestOnePoolBoundsEveryKindTogether(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		c := open(t, db, jobs.Config{})
		ctx := context.Background()
		var now, peak atomic.Int32
		release := make(chan struct{})
		renders := &busy{types: []string{"render"}, release: release, now: &now, peak: &peak}
		media := &busy{types: []string{"t"}, release: release, now: &now, peak: &peak}
		for i, kind := range []string{"render", "test", "render", "test"} {
			opts := []jobstest.Option{jobstest.OfKind(kind)}
			if kind == "render" {
				opts = append(opts, jobstest.OfType("render"))
			}
			jobstest.Insert(t, c, jobstest.Job(string(rune('p'+i)), opts...))
		}
		p := jobs.NewPool(c, jobs.PoolConfig{Owner: "w", Slots: 1, Log: quiet(),
			Handlers: map[string]jobs.Handler{"render": renders, "test": media}})
		p.Start(ctx)
		defer p.Stop(ctx)
		// Each job holds its slot until released, one at a time: a second
		// job running beside it would show in the peak.
		for range 4 {
			release <- struct{}{}
		}
		require.Eventually(t, func() bool {
			n, err := jobs.StoreOf(c).Job.Query().Count(ctx)
			require.NoError(t, err)
			done := 0
			for _, id := range []string{"p", "q", "r", "s"} {
				if get(t, c, id).State == jobs.Completed {
					done++
				}
			}
			return n == 4 && done == 4
		}, 10*time.Second, 20*time.Millisecond)
		assert.Equal(t, int32(1), peak.Load(), "one slot runs one job at a time, of whatever kind")
	})
}

func TestPoolStopsACancelledJobAndHandsBackOnShutdown(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		c := open(t, db, jobs.Config{})
		ctx := context.Background()
		var now, peak atomic.Int32
		h := &busy{types: []string{"t"}, now: &now, peak: &peak}
		jobstest.Insert(t, c, jobstest.Job("x"), jobstest.Job("y"))
		p := jobs.NewPool(c, jobs.PoolConfig{Owner: "w", Slots: 1, Log: quiet(), Handlers: map[string]jobs.Handler{"test": h}})
		// No renewal in the test's time: only the published cancel can
		// stop the work.
		jobs.RenewEvery(p, time.Hour)
		p.Start(ctx)
		require.Eventually(t, func() bool { return get(t, c, "x").StartedAt != nil }, 5*time.Second, 10*time.Millisecond)

		_, err := c.Cancel(ctx, "x")
		require.NoError(t, err)
		require.Eventually(t, func() bool { return h.stopped.Load() == 1 }, 10*time.Second, 5*time.Millisecond,
			"a published cancel stops the work before the next renewal")

		require.Eventually(t, func() bool { return get(t, c, "y").StartedAt != nil }, 5*time.Second, 10*time.Millisecond)
		// A shutdown that cannot wait: the running job is handed back.
		stop, cancel := context.WithCancel(ctx)
		cancel()
		p.Stop(stop)
		y := get(t, c, "y")
		assert.Equal(t, jobs.Available, y.State, "handed back on shutdown")
		assert.Equal(t, 0, y.Attempt, "without counting the attempt")
	})
}

// reporter is a handler that reports progress in steps and sends the lease
// before and after; then it waits to be stopped.
type reporter struct {
	c            *jobs.Client
	lease, after chan int64
	stopped      atomic.Int32
}

func (r *reporter) Types() []string { return []string{"t"} }

func (r *reporter) Run(ctx context.Context, j *jobs.Job, progress func(float64)) jobs.Outcome {
	// Not require: this is not the test's goroutine.
	read := func() *ent.Job {
		cur, err := jobs.StoreOf(r.c).Job.Get(ctx, j.ID)
		if err != nil {
			return &ent.Job{LeaseExpiresAt: new(int64)}
		}
		return cur
	}
	r.lease <- *read().LeaseExpiresAt
	// The pool records each report before progress returns.
	for p := 1; p <= 20; p++ {
		progress(float64(p))
	}
	r.after <- *read().LeaseExpiresAt
	<-ctx.Done()
	r.stopped.Add(1)
	return jobs.Outcome{Failure: &jobs.Failure{}}
}

// The attempt's own progress is a change of its job, which the worker
// hears of; it checks the job is still its own without renewing the lease
// on each (a write twice a second per job). A cancel is still heard at once.
func TestOwnProgressDoesNotRenewTheLease(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		// A clock that moves with every reading: any renewal would write
		// a later lease than the claim's.
		clock := jobstest.NewClock()
		c := open(t, db, jobs.Config{Lease: time.Minute, Now: func() time.Time { return clock.Advance(time.Millisecond) }})
		ctx := context.Background()
		h := &reporter{c: c, lease: make(chan int64, 1), after: make(chan int64, 1)}
		jobstest.Insert(t, c, jobstest.Job("x"))
		p := jobs.NewPool(c, jobs.PoolConfig{Owner: "w", Slots: 1, Log: quiet(), Handlers: map[string]jobs.Handler{"test": h}})
		// No renewal by the ticker in the test's time: what renews the
		// lease, or stops the work, is what the attempt's changes do.
		jobs.RenewEvery(p, time.Hour)
		p.Start(ctx)
		defer func() {
			// Stopped at once: the handler runs until its job ends, and
			// a skipped test never ends it (a Stop that waited hung the
			// package until its timeout).
			now, cancel := context.WithCancel(ctx)
			cancel()
			p.Stop(now)
		}()
		before := <-h.lease
		after := <-h.after
		assert.Equal(t, before, after, "twenty progress reports renewed the lease")

		_, err := c.Cancel(ctx, "x")
		require.NoError(t, err)
		require.Eventually(t, func() bool { return h.stopped.Load() == 1 }, 10*time.Second, 5*time.Millisecond,
			"a published cancel stops the work before the next renewal")
	})
}

// stepper reports each of steps and records what the store shows after
// each (the pool writes progress before the report returns).
type stepper struct {
	c     *jobs.Client
	steps []float64
	shown chan []float64
}

func (s *stepper) Types() []string { return []string{"t"} }

func (s *stepper) Run(ctx context.Context, j *jobs.Job, progress func(float64)) jobs.Outcome {
	var shown []float64
	for _, p := range s.steps {
		progress(p)
		cur, err := jobs.StoreOf(s.c).Job.Get(ctx, j.ID)
		if err != nil {
			break
		}
		shown = append(shown, cur.Progress)
	}
	s.shown <- shown
	return jobs.Outcome{}
}

func TestPoolWritesOnlyProgressThatMoves(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		c := open(t, db, jobs.Config{})
		ctx := context.Background()
		h := &stepper{c: c, steps: []float64{10, 5, 10, 100, 12.5}, shown: make(chan []float64, 1)}
		jobstest.Insert(t, c, jobstest.Job("x"))
		p := jobs.NewPool(c, jobs.PoolConfig{Owner: "w", Slots: 1, Log: quiet(), Handlers: map[string]jobs.Handler{"test": h}})
		p.Start(ctx)
		defer p.Stop(ctx)
		assert.Equal(t, []float64{10, 10, 10, 10, 12.5}, <-h.shown, "backwards and 100 are dropped")
		require.Eventually(t, func() bool { return get(t, c, "x").State == jobs.Completed }, 5*time.Second, 10*time.Millisecond)
		assert.Equal(t, float64(100), get(t, c, "x").Progress, "the completion writes 100")
	})
}

// partsAt reports progress once, then waits to be let go.
type partsAt struct {
	types   []string
	percent float64
	hold    chan struct{}
}

func (r *partsAt) Types() []string { return r.types }

func (r *partsAt) Run(ctx context.Context, j *jobs.Job, progress func(float64)) jobs.Outcome {
	progress(r.percent)
	select {
	case <-ctx.Done():
		return jobs.Outcome{Failure: &jobs.Failure{}}
	case <-r.hold:
	}
	return jobs.Outcome{Result: jobs.Result{Outputs: map[string]string{"out": "jobs/o/" + j.ID}}}
}

// The pool moves a whole with each report of its parts, with no help from
// the parts' handler.
func TestPoolRollsPartsProgressIntoTheWhole(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		c := open(t, db, jobs.Config{})
		ctx := context.Background()
		split(t, c)
		parts := &partsAt{types: []string{"part"}, percent: 40, hold: make(chan struct{})}
		p := jobs.NewPool(c, jobs.PoolConfig{Owner: "w", Slots: 2, Log: quiet(),
			Handlers: map[string]jobs.Handler{"test": parts}})
		p.Start(ctx)
		defer p.Stop(ctx)
		defer close(parts.hold)
		require.Eventually(t, func() bool {
			w := get(t, c, "whole")
			return w.StartedAt != nil && w.Progress > 40*jobs.PartsShare-1e-9
		}, 5*time.Second, 10*time.Millisecond, "both parts at 40%% make the whole 40%% of its parts' share")
		w := get(t, c, "whole")
		assert.Equal(t, jobs.Pending, w.State)
		assert.InDelta(t, 40*jobs.PartsShare, w.Progress, 1e-9)
	})
}

// panicky is a handler that panics on the jobs whose id is in bad, and
// completes the others.
type panicky struct{ bad map[string]bool }

func (panicky) Types() []string { return []string{"t"} }

func (h panicky) Run(_ context.Context, j *jobs.Job, _ func(float64)) jobs.Outcome {
	if h.bad[j.ID] {
		panic("a bug met input " + j.ID) //nolint:forbidigo // deliberate: the recovery under test
	}
	return jobs.Outcome{Result: jobs.Result{Outputs: map[string]string{"out": "jobs/o/" + j.ID}}}
}

// TestPoolSurvivesAPanickingHandler: a handler that panics fails its
// attempt with INTERNAL_ERROR, the stack in the log and not in the job;
// the attempt counts, so a job that panics every time ends failed after
// its attempts, and the pool goes on running other jobs.
func TestPoolSurvivesAPanickingHandler(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		c := open(t, db, jobs.Config{MaxAttempts: 2, RetryDelay: time.Millisecond})
		ctx := context.Background()
		jobstest.Insert(t, c, jobstest.Job("bad"), jobstest.Job("good"))
		var logs bytes.Buffer
		var mu sync.Mutex
		log := slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) {
			mu.Lock()
			defer mu.Unlock()
			return logs.Write(p)
		}), nil))
		p := jobs.NewPool(c, jobs.PoolConfig{Owner: "w", Slots: 1, Log: log, PollEvery: 10 * time.Millisecond,
			Handlers: map[string]jobs.Handler{"test": panicky{bad: map[string]bool{"bad": true}}}})
		p.Start(ctx)
		defer p.Stop(ctx)
		require.Eventually(t, func() bool {
			return get(t, c, "bad").State == jobs.Failed && get(t, c, "good").State == jobs.Completed
		}, 10*time.Second, 10*time.Millisecond)
		bad := get(t, c, "bad")
		assert.Equal(t, 2, bad.Attempt, "every attempt panicked, and counted")
		require.NotNil(t, bad.ErrorCode)
		assert.Equal(t, jobs.CodeInternal, *bad.ErrorCode)
		require.NotNil(t, bad.ErrorMessage)
		assert.NotContains(t, *bad.ErrorMessage, "a bug met", "the panic stays in the log")
		assert.NotContains(t, *bad.ErrorMessage, "goroutine")
		mu.Lock()
		defer mu.Unlock()
		assert.Equal(t, 2, strings.Count(logs.String(), "job handler panicked"))
		assert.Contains(t, logs.String(), "a bug met input bad")
		assert.Contains(t, logs.String(), "pool.go", "the stack")
	})
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
