package jobs_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/ent"
	"github.com/kinohq/kino/server/events"
	"github.com/kinohq/kino/server/jobs"
	"github.com/kinohq/kino/server/jobs/jobstest"
	"github.com/kinohq/kino/server/store"
	"github.com/kinohq/kino/server/store/storetest"
)

// The conformance suite of the job core: every test runs on every database
// kino supports (SQLite always, PostgreSQL when configured), as River runs
// one driver suite against each of its drivers.

func open(t *testing.T, db storetest.DB, cfg jobs.Config) *jobs.Client {
	t.Helper()
	st, err := store.Open(context.Background(), db.URL)
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	return jobs.New(st, events.NewLocal(), cfg)
}

func get(t *testing.T, c *jobs.Client, id string) *ent.Job {
	t.Helper()
	j, err := jobs.StoreOf(c).Job.Get(context.Background(), id)
	require.NoError(t, err)
	return j
}

// pipeline inserts a → b → c, and a → d: b takes a's "out" as "in".
func pipeline(t *testing.T, c *jobs.Client) {
	t.Helper()
	in := map[string]string{"in": "out"}
	jobstest.Insert(t, c,
		jobstest.Job("a"),
		jobstest.Job("b", jobstest.After("a", in)),
		jobstest.Job("c", jobstest.After("b", in)),
		jobstest.Job("d", jobstest.After("a", nil)),
	)
}

func claim(t *testing.T, c *jobs.Client, owner string) *ent.Job {
	t.Helper()
	j, err := c.Claim(context.Background(), owner, []string{"t"})
	require.NoError(t, err)
	return j
}

func TestClaimTakesOldestAvailableOnce(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		c := open(t, db, jobs.Config{})
		ctx := context.Background()
		for i := range 3 {
			jobstest.Insert(t, c, jobstest.Job(fmt.Sprintf("j%d", i), jobstest.CreatedAt(int64(1000+i))))
		}
		jobstest.Insert(t, c, jobstest.Job("other", jobstest.OfType("unknown")))

		var mu sync.Mutex
		got := map[string]string{}
		var wg sync.WaitGroup
		for w := range 6 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				j, err := c.Claim(ctx, fmt.Sprintf("w%d", w), []string{"t"})
				assert.NoError(t, err)
				if j != nil {
					mu.Lock()
					defer mu.Unlock()
					assert.Empty(t, got[j.ID], "job %s claimed twice", j.ID)
					got[j.ID] = *j.LeaseOwner
					assert.Equal(t, jobs.Running, j.State)
					assert.Equal(t, 1, j.Attempt)
				}
			}()
		}
		wg.Wait()
		assert.Len(t, got, 3, "each job once, and no job of a type nobody runs")
		assert.Equal(t, jobs.Available, get(t, c, "other").State)
	})
}

func TestCompleteHandsOutputsOnInItsTransaction(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		c := open(t, db, jobs.Config{})
		ctx := context.Background()
		pipeline(t, c)
		assert.Equal(t, jobs.Pending, get(t, c, "b").State)

		a := claim(t, c, "w")
		require.Equal(t, "a", a.ID, "only a has no parents")
		assert.Nil(t, claim(t, c, "w"), "dependants wait for their parent")
		ok, err := c.Complete(ctx, "a", "w", jobs.Result{Outputs: map[string]string{"out": "jobs/o/a/out.mp4"}, Metadata: map[string]any{"k": "v"}})
		require.NoError(t, err)
		require.True(t, ok)

		b := get(t, c, "b")
		assert.Equal(t, jobs.Available, b.State)
		assert.Equal(t, map[string]string{"in": "jobs/o/a/out.mp4"}, b.InputKeys, "a storage key, never a URL")
		assert.Equal(t, jobs.Available, get(t, c, "d").State)
		assert.Equal(t, jobs.Pending, get(t, c, "c").State)
		assert.Equal(t, "v", get(t, c, "a").Metadata["k"])
	})
}

func TestFinalHookFailureUndoesTheTransition(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		c := open(t, db, jobs.Config{})
		ctx := context.Background()
		c.OnFinal(func(ctx context.Context, tx *ent.Tx, j *jobs.Job) error { return errors.New("no room for the webhook") }, nil)
		pipeline(t, c)
		claim(t, c, "w")
		_, err := c.Complete(ctx, "a", "w", jobs.Result{Outputs: map[string]string{"out": "k"}})
		require.Error(t, err)
		assert.Equal(t, jobs.Running, get(t, c, "a").State, "not completed without its side effects")
		assert.Equal(t, jobs.Pending, get(t, c, "b").State, "outputs not handed on either")
		assert.Empty(t, get(t, c, "b").InputKeys)
	})
}

func TestFailureCancelsEveryDependant(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		c := open(t, db, jobs.Config{})
		ctx := context.Background()
		pipeline(t, c)
		claim(t, c, "w")
		ok, err := c.Fail(ctx, "a", "w", jobs.Failure{Code: "INPUT_INVALID", Message: "no"}, nil)
		require.NoError(t, err)
		require.True(t, ok)
		assert.Equal(t, jobs.Failed, get(t, c, "a").State)
		for _, id := range []string{"b", "c", "d"} {
			j := get(t, c, id)
			assert.Equal(t, jobs.Cancelled, j.State, id)
			assert.Equal(t, jobs.CodeUpstreamFailed, *j.ErrorCode, id)
			assert.NotNil(t, j.FinishedAt, id)
		}
	})
}

func TestCancelOfARunningParentCancelsDependants(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		c := open(t, db, jobs.Config{})
		ctx := context.Background()
		pipeline(t, c)
		claim(t, c, "w")
		j, err := c.Cancel(ctx, "a")
		require.NoError(t, err)
		assert.Equal(t, jobs.Cancelled, j.State)
		for _, id := range []string{"b", "c", "d"} {
			assert.Equal(t, jobs.Cancelled, get(t, c, id).State, id)
			assert.Equal(t, jobs.CodeUpstreamCancelled, *get(t, c, id).ErrorCode, id)
		}
		// The worker finishing late changes nothing.
		ok, err := c.Complete(ctx, "a", "w", jobs.Result{})
		require.NoError(t, err)
		assert.False(t, ok)
		ok, err = c.Renew(ctx, "a", "w")
		require.NoError(t, err)
		assert.False(t, ok, "the worker learns the job is no longer its own")

		_, err = c.Cancel(ctx, "a")
		var nc *jobs.NotCancellableError
		assert.ErrorAs(t, err, &nc)
		_, err = c.Cancel(ctx, "nope")
		assert.ErrorIs(t, err, jobs.ErrNotFound)
	})
}

func TestRetryWaitsForItsBackoffThenGivesUp(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		clock := jobstest.NewClock()
		c := open(t, db, jobs.Config{MaxAttempts: 2, RetryDelay: time.Minute, Now: clock.Now})
		ctx := context.Background()
		jobstest.Insert(t, c, jobstest.Job("r"))
		claim(t, c, "w")
		transient := jobs.Failure{Code: "STORAGE_FAILED", Message: "try again", Retry: true}
		ok, err := c.Fail(ctx, "r", "w", transient, map[string]any{"log": "k1"})
		require.NoError(t, err)
		require.True(t, ok)
		j := get(t, c, "r")
		assert.Equal(t, jobs.Retrying, j.State, "out of the claimable set until due")
		assert.Nil(t, j.ErrorCode)
		assert.Equal(t, "k1", j.Metadata["log"])
		// The backoff is the delay ±20%: not due before 80% of it, due
		// after 120%.
		clock.Advance(47 * time.Second)
		assert.Nil(t, claim(t, c, "w"), "not before the backoff ends")
		clock.Advance(26 * time.Second)
		require.NotNil(t, claim(t, c, "w"), "claimable once the backoff ended")
		ok, err = c.Fail(ctx, "r", "w", transient, nil)
		require.NoError(t, err)
		require.True(t, ok)
		j = get(t, c, "r")
		assert.Equal(t, jobs.Failed, j.State, "out of attempts")
		assert.Equal(t, 2, j.Attempt)
		assert.Equal(t, "STORAGE_FAILED", *j.ErrorCode)
	})
}

func TestRescueAndRelease(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		clock := jobstest.NewClock()
		c := open(t, db, jobs.Config{MaxAttempts: 2, Lease: time.Minute, Now: clock.Now})
		ctx := context.Background()
		pipeline(t, c)

		claim(t, c, "w")
		ok, err := c.Release(ctx, "a", "w")
		require.NoError(t, err)
		require.True(t, ok)
		assert.Equal(t, 0, get(t, c, "a").Attempt, "a shutdown's hand-back is not an attempt")

		claim(t, c, "dead")
		clock.Advance(time.Minute)
		n, err := c.Rescue(ctx)
		require.NoError(t, err)
		require.Zero(t, n, "a lease lapses after its length, not at it")
		clock.Advance(time.Millisecond)
		n, err = c.Rescue(ctx)
		require.NoError(t, err)
		assert.Equal(t, 1, n)
		j := get(t, c, "a")
		assert.Equal(t, jobs.Available, j.State)
		assert.Equal(t, 1, j.Attempt, "a lost worker's attempt counts")

		claim(t, c, "dead")
		clock.Advance(time.Minute + time.Millisecond)
		_, err = c.Rescue(ctx)
		require.NoError(t, err)
		j = get(t, c, "a")
		assert.Equal(t, jobs.Failed, j.State)
		assert.Equal(t, jobs.CodeWorkerLost, *j.ErrorCode)
		assert.Equal(t, jobs.Cancelled, get(t, c, "c").State, "dependants of a lost job are cancelled too")
	})
}

func TestRescueLeavesRenewedLeases(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		clock := jobstest.NewClock()
		c := open(t, db, jobs.Config{Lease: 30 * time.Second, Now: clock.Now})
		ctx := context.Background()
		jobstest.Insert(t, c, jobstest.Job("x"))
		claim(t, c, "w")
		// Four renewals 20 s apart hold the job 80 s, past two leases.
		for range 4 {
			clock.Advance(20 * time.Second)
			ok, err := c.Renew(ctx, "x", "w")
			require.NoError(t, err)
			require.True(t, ok)
			n, err := c.Rescue(ctx)
			require.NoError(t, err)
			require.Zero(t, n)
		}
		ok, err := c.Renew(ctx, "x", "someone else")
		require.NoError(t, err)
		assert.False(t, ok)
	})
}

// A job put back after an attempt that started (a retry, a rescue) has not
// started until its next claim: lists select a waiting job that has started
// as a split render joining its parts.
func TestPutBackJobHasNotStarted(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		clock := jobstest.NewClock()
		c := open(t, db, jobs.Config{MaxAttempts: 3, RetryDelay: time.Second, Lease: time.Minute, Now: clock.Now})
		ctx := context.Background()
		jobstest.Insert(t, c, jobstest.Job("s"))
		startClaimed := func(owner string) {
			t.Helper()
			clock.Advance(2 * time.Second) // past a retry's backoff
			j := claim(t, c, owner)
			require.NotNil(t, j)
			ok, err := c.Start(ctx, j.ID, owner)
			require.NoError(t, err)
			require.True(t, ok)
			require.NotNil(t, get(t, c, "s").StartedAt)
		}

		startClaimed("w")
		ok, err := c.Fail(ctx, "s", "w", jobs.Failure{Code: "STORAGE_FAILED", Message: "try again", Retry: true}, nil)
		require.NoError(t, err)
		require.True(t, ok)
		assert.Nil(t, get(t, c, "s").StartedAt, "after a retry")

		startClaimed("dead")
		clock.Advance(2 * time.Minute)
		n, err := c.Rescue(ctx)
		require.NoError(t, err)
		require.Equal(t, 1, n)
		j := get(t, c, "s")
		assert.Equal(t, jobs.Available, j.State)
		assert.Nil(t, j.StartedAt, "after a rescue")
	})
}
