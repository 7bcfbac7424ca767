// Package jobsdrivertest is the conformance suite of the SQL that differs
// by database: the job core's claims (the turns of organisations, SKIP
// LOCKED on PostgreSQL and one writer on SQLite, lease expiry, due
// retries) and the organisations' limits that run in its transactions
// (server/quota: rate, queue, storage). Exercise runs every case against
// one database, so that each dialect answers the same, as River's
// riverdrivertest runs one suite against each of its drivers. Time is a
// moved clock: no case waits for a lease or a backoff.
package jobsdrivertest

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
	"github.com/kinohq/kino/server/apierr"
	"github.com/kinohq/kino/server/events"
	"github.com/kinohq/kino/server/jobs"
	"github.com/kinohq/kino/server/jobs/jobstest"
	"github.com/kinohq/kino/server/org"
	"github.com/kinohq/kino/server/quota"
	"github.com/kinohq/kino/server/store"
	"github.com/kinohq/kino/server/store/storetest"
)

// NewDB returns a fresh, empty database for one case.
type NewDB func(t *testing.T) storetest.DB

// Exercise runs the suite against the databases newDB makes, each case in
// a parallel subtest on a database of its own.
func Exercise(t *testing.T, newDB NewDB) {
	cases := []struct {
		name string
		run  func(t *testing.T, newDB NewDB)
	}{
		{"ClaimOrder", claimOrder},
		{"ClaimConcurrentTakesEachJobOnce", claimConcurrent},
		{"LeaseExpiry", leaseExpiry},
		{"RetryBecomesClaimableWhenDue", retryDue},
		{"TurnsFollowWeights", turnsFollowWeights},
		{"RunningCap", runningCap},
		{"HandOnConcurrentKeepsEveryOutput", handOnConcurrent},
		{"Rate", rate},
		{"Queue", queue},
		{"Storage", storage},
		{"ConcurrentLimits", concurrentLimits},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, newDB)
		})
	}
}

// bundle is what a case works with: one node's view of the database.
type bundle struct {
	st    *store.Store
	jobs  *jobs.Client
	lim   *quota.Limiter
	clock *jobstest.Clock
}

// node opens db as one more node, with cfg, policies pol and clock.
func node(t *testing.T, db storetest.DB, cfg jobs.Config, pol *org.Policies, clock *jobstest.Clock) bundle {
	t.Helper()
	st, err := store.Open(context.Background(), db.URL)
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	if pol == nil {
		pol = org.New(org.Policy{}, nil)
	}
	cfg.Orgs, cfg.Now = pol, clock.Now
	return bundle{st: st, jobs: jobs.New(st, events.NewLocal(), cfg), lim: quota.New(st, pol).WithClock(clock.Now), clock: clock}
}

func setup(t *testing.T, newDB NewDB, cfg jobs.Config, pol *org.Policies) bundle {
	t.Helper()
	return node(t, newDB(t), cfg, pol, jobstest.NewClock())
}

func (b bundle) claim(t *testing.T, owner string, types ...string) *ent.Job {
	t.Helper()
	if len(types) == 0 {
		types = []string{jobstest.Type}
	}
	j, err := b.jobs.Claim(context.Background(), owner, types)
	require.NoError(t, err)
	return j
}

func (b bundle) get(t *testing.T, id string) *ent.Job {
	t.Helper()
	j, err := b.st.Job.Get(context.Background(), id)
	require.NoError(t, err)
	return j
}

// flood inserts n jobs of organisation o, named o-0, o-1, …
func (b bundle) flood(t *testing.T, o string, n int) {
	t.Helper()
	all := make([]jobs.NewJob, n)
	for i := range all {
		all[i] = jobstest.Job(fmt.Sprintf("%s-%d", o, i), jobstest.OfOrg(o), jobstest.CreatedAt(int64(1000+i)))
	}
	jobstest.Insert(t, b.jobs, all...)
}

// claimOrder: an organisation's jobs go by priority, then age, then id;
// only jobs of the types asked; none when none is claimable.
func claimOrder(t *testing.T, newDB NewDB) {
	b := setup(t, newDB, jobs.Config{}, nil)
	priority := func(p int) jobstest.Option { return func(n *jobs.NewJob) { n.Priority = p } }
	jobstest.Insert(t, b.jobs,
		jobstest.Job("old", jobstest.CreatedAt(1000)),
		jobstest.Job("new", jobstest.CreatedAt(3000)),
		jobstest.Job("urgent", jobstest.CreatedAt(5000), priority(10)),
		jobstest.Job("same-age-b", jobstest.CreatedAt(2000)),
		jobstest.Job("same-age-a", jobstest.CreatedAt(2000)),
		jobstest.Job("other-type", jobstest.CreatedAt(1), jobstest.OfType("other")),
		jobstest.Job("low", jobstest.CreatedAt(1), priority(-5)),
	)
	var got []string
	for {
		j := b.claim(t, "w")
		if j == nil {
			break
		}
		assert.Equal(t, jobs.Running, j.State)
		assert.Equal(t, "w", *j.LeaseOwner)
		assert.Equal(t, jobstest.ClockStart+jobs.New(b.st, events.NewLocal(), jobs.Config{}).Lease().Milliseconds(), *j.LeaseExpiresAt,
			"the lease runs from the client's clock")
		got = append(got, j.ID)
	}
	assert.Equal(t, []string{"urgent", "old", "same-age-a", "same-age-b", "new", "low"}, got)
	j := b.claim(t, "w", "other", jobstest.Type)
	require.NotNil(t, j)
	assert.Equal(t, "other-type", j.ID, "a job of any of the types asked")
}

// claimConcurrent: claims at once, from two nodes on PostgreSQL, take
// each job exactly once (SKIP LOCKED there, one writer on SQLite).
func claimConcurrent(t *testing.T, newDB NewDB) {
	db := newDB(t)
	clock := jobstest.NewClock()
	nodes := []bundle{node(t, db, jobs.Config{}, nil, clock)}
	if db.Name == "postgres" {
		nodes = append(nodes, node(t, db, jobs.Config{}, nil, clock))
	}
	for _, o := range []string{"a", "b", "c"} {
		nodes[0].flood(t, o, 10)
	}
	var (
		mu  sync.Mutex
		got = map[string]string{}
		wg  sync.WaitGroup
	)
	for w := range 8 {
		wg.Go(func() {
			owner := fmt.Sprintf("w%d", w)
			for {
				j, err := nodes[w%len(nodes)].jobs.Claim(context.Background(), owner, []string{jobstest.Type})
				if !assert.NoError(t, err) || j == nil {
					return
				}
				mu.Lock()
				assert.Empty(t, got[j.ID], "job %s claimed twice", j.ID)
				got[j.ID] = owner
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	assert.Len(t, got, 30, "every job claimed, each once")
}

// leaseExpiry: a rescue takes back a job whose lease lapsed (strictly
// after its end), not one renewed in time, counts the lost attempt, and
// fails the job once it is out of attempts.
func leaseExpiry(t *testing.T, newDB NewDB) {
	b := setup(t, newDB, jobs.Config{Lease: time.Minute, MaxAttempts: 2}, nil)
	ctx := context.Background()
	jobstest.Insert(t, b.jobs, jobstest.Job("lost"), jobstest.Job("kept", jobstest.CreatedAt(ClockLater)))
	require.Equal(t, "lost", b.claim(t, "dead").ID)
	require.Equal(t, "kept", b.claim(t, "alive").ID)

	b.clock.Advance(30 * time.Second)
	ok, err := b.jobs.Renew(ctx, "kept", "alive")
	require.NoError(t, err)
	require.True(t, ok)
	b.clock.Advance(30 * time.Second) // at the end of the first lease
	n, err := b.jobs.Rescue(ctx)
	require.NoError(t, err)
	assert.Zero(t, n, "a lease lasts to its end")

	b.clock.Advance(time.Millisecond)
	n, err = b.jobs.Rescue(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, n, "only the lapsed lease")
	lost := b.get(t, "lost")
	assert.Equal(t, jobs.Available, lost.State)
	assert.Nil(t, lost.LeaseOwner)
	assert.Equal(t, 1, lost.Attempt, "the lost attempt counts")
	assert.Equal(t, jobs.Running, b.get(t, "kept").State)
	ok, err = b.jobs.Renew(ctx, "lost", "dead")
	require.NoError(t, err)
	assert.False(t, ok, "the lost worker learns the job is no longer its own")

	require.Equal(t, "lost", b.claim(t, "dead").ID)
	b.clock.Advance(time.Minute + time.Millisecond)
	_, err = b.jobs.Rescue(ctx)
	require.NoError(t, err)
	lost = b.get(t, "lost")
	assert.Equal(t, jobs.Failed, lost.State, "out of attempts")
	require.NotNil(t, lost.ErrorCode)
	assert.Equal(t, jobs.CodeWorkerLost, *lost.ErrorCode)
	kept := b.get(t, "kept")
	assert.Equal(t, jobs.Available, kept.State, "its lease lapsed too, with an attempt left")
	assert.Equal(t, 1, kept.Attempt)
}

// ClockLater is a creation time after every default job's, in epoch ms.
const ClockLater = jobstest.ClockStart + 1

// retryDue: a retry waits in its own state until its backoff ends by
// the clock, then a claim makes it available and takes it.
func retryDue(t *testing.T, newDB NewDB) {
	b := setup(t, newDB, jobs.Config{RetryDelay: time.Minute, MaxAttempts: 3}, nil)
	ctx := context.Background()
	jobstest.Insert(t, b.jobs, jobstest.Job("r"))
	require.NotNil(t, b.claim(t, "w"))
	ok, err := b.jobs.Fail(ctx, "r", "w", jobs.Failure{Code: "STORAGE_FAILED", Message: "again", Retry: true}, nil)
	require.NoError(t, err)
	require.True(t, ok)
	r := b.get(t, "r")
	assert.Equal(t, jobs.Retrying, r.State)
	due := r.AvailableAt
	assert.GreaterOrEqual(t, due, jobstest.ClockStart+48_000, "the backoff is the delay, -20%% at most")
	assert.LessOrEqual(t, due, jobstest.ClockStart+72_000, "and +20%% at most")

	b.clock.Advance(time.Duration(due-jobstest.ClockStart-1) * time.Millisecond)
	assert.Nil(t, b.claim(t, "w"), "a millisecond before it is due")
	assert.Equal(t, jobs.Retrying, b.get(t, "r").State)
	b.clock.Advance(time.Millisecond)
	j := b.claim(t, "w")
	require.NotNil(t, j, "due")
	assert.Equal(t, 2, j.Attempt)
}

// turnsFollowWeights: organisations take turns by weight, whatever
// order their jobs came in, and an organisation that was idle rejoins at
// the current turn.
func turnsFollowWeights(t *testing.T, newDB NewDB) {
	pol := org.New(org.Policy{Weight: 1}, map[string]org.Policy{"heavy": {Weight: 2}})
	b := setup(t, newDB, jobs.Config{}, pol)
	b.flood(t, "a", 20)
	b.flood(t, "heavy", 20)
	b.flood(t, "b", 20)
	got := map[string]int{}
	for range 20 {
		got[b.claim(t, "w").OrgID]++
	}
	assert.Equal(t, map[string]int{"a": 5, "b": 5, "heavy": 10}, got)

	// c was idle through those claims: its first job waits at most a
	// round, and it banked nothing meanwhile.
	jobstest.Insert(t, b.jobs, jobstest.Job("c-0", jobstest.OfOrg("c")), jobstest.Job("c-1", jobstest.OfOrg("c")))
	var next []string
	for range 4 {
		next = append(next, b.claim(t, "w").OrgID)
	}
	assert.Contains(t, next, "c")
	n := 0
	for _, o := range next {
		if o == "c" {
			n++
		}
	}
	assert.Equal(t, 1, n, "one turn in a round: %v", next)
}

// runningCap: an organisation at its running cap is passed over, on
// every node, and served again once a job of it stops.
func runningCap(t *testing.T, newDB NewDB) {
	db := newDB(t)
	clock := jobstest.NewClock()
	pol := org.New(org.Policy{}, map[string]org.Policy{"capped": {MaxRunning: 2}})
	nodes := []bundle{node(t, db, jobs.Config{}, pol, clock), node(t, db, jobs.Config{}, pol, clock)}
	ctx := context.Background()
	nodes[0].flood(t, "capped", 5)
	var mu sync.Mutex
	var wg sync.WaitGroup
	var taken []*ent.Job
	for w := range 6 {
		wg.Go(func() {
			j, err := nodes[w%2].jobs.Claim(ctx, fmt.Sprintf("w%d", w), []string{jobstest.Type})
			assert.NoError(t, err)
			if j != nil {
				mu.Lock()
				taken = append(taken, j)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	require.Len(t, taken, 2, "the cap holds across nodes")

	nodes[0].flood(t, "free", 1)
	j := nodes[1].claim(t, "w")
	require.NotNil(t, j)
	assert.Equal(t, "free", j.OrgID, "a capped organisation does not hold the others back")
	assert.Nil(t, nodes[1].claim(t, "w"))

	ok, err := nodes[0].jobs.Complete(ctx, taken[0].ID, *taken[0].LeaseOwner, jobs.Result{})
	require.NoError(t, err)
	require.True(t, ok)
	j = nodes[1].claim(t, "w")
	require.NotNil(t, j, "a place freed under the cap")
	assert.Equal(t, "capped", j.OrgID)
}

// handOnConcurrent: parents that complete at once, on two nodes, each
// hand their output to the one job that waits for them, and none is lost
// (an unlocked read of the child let one parent's write undo another's).
func handOnConcurrent(t *testing.T, newDB NewDB) {
	db := newDB(t)
	clock := jobstest.NewClock()
	nodes := []bundle{node(t, db, jobs.Config{}, nil, clock), node(t, db, jobs.Config{}, nil, clock)}
	ctx := context.Background()
	const parents = 6
	for round := range 5 {
		child := fmt.Sprintf("child-%d", round)
		var all []jobs.NewJob
		var opts []jobstest.Option
		for i := range parents {
			id := fmt.Sprintf("parent-%d-%d", round, i)
			all = append(all, jobstest.Job(id))
			opts = append(opts, jobstest.After(id, map[string]string{fmt.Sprintf("in%d", i): "out"}))
		}
		all = append(all, jobstest.Job(child, append(opts, jobstest.OfType("child"))...))
		jobstest.Insert(t, nodes[0].jobs, all...)
		var taken []*ent.Job
		for i := range parents {
			j := nodes[i%2].claim(t, fmt.Sprintf("w%d", i))
			require.NotNil(t, j)
			taken = append(taken, j)
		}
		var wg sync.WaitGroup
		for i, j := range taken {
			wg.Go(func() {
				ok, err := nodes[i%2].jobs.Complete(ctx, j.ID, *j.LeaseOwner, jobs.Result{Outputs: map[string]string{"out": "key-" + j.ID}})
				assert.NoError(t, err)
				assert.True(t, ok)
			})
		}
		wg.Wait()
		c := nodes[0].get(t, child)
		assert.Len(t, c.InputKeys, parents, "round %d: every parent's output handed on: %v", round, c.InputKeys)
		assert.Equal(t, jobs.Available, c.State, "round %d", round)
	}
}

// code is the documented code of a limit's refusal, "" for none.
func code(err error) apierr.Code {
	var e *apierr.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// rate: a burst, then one submit an interval by the clock; a refusal
// takes nothing and says exactly how long to wait; organisations have
// buckets of their own.
func rate(t *testing.T, newDB NewDB) {
	b := setup(t, newDB, jobs.Config{}, org.New(org.Policy{Rate: 2}, nil))
	ctx := context.Background()
	require.NoError(t, b.lim.Take(ctx, "a"))
	require.NoError(t, b.lim.Take(ctx, "a"))
	err := b.lim.Take(ctx, "a")
	var e *apierr.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, apierr.RateLimited, e.Code)
	assert.Equal(t, 500*time.Millisecond, e.RetryAfter)
	require.NoError(t, b.lim.Take(ctx, "b"), "another organisation's bucket")

	b.clock.Advance(499 * time.Millisecond)
	require.ErrorAs(t, b.lim.Take(ctx, "a"), &e)
	assert.Equal(t, time.Millisecond, e.RetryAfter, "a refusal takes nothing")
	b.clock.Advance(time.Millisecond)
	require.NoError(t, b.lim.Take(ctx, "a"))
	assert.Equal(t, apierr.RateLimited, code(b.lim.Take(ctx, "a")))

	b.clock.Advance(time.Hour)
	require.NoError(t, b.lim.Take(ctx, "a"))
	require.NoError(t, b.lim.Take(ctx, "a"))
	assert.Equal(t, apierr.RateLimited, code(b.lim.Take(ctx, "a")), "idle, the burst is whole again and no more")
}

// submit inserts n jobs of o as one submission, admitted by the limits.
func (b bundle) submit(t *testing.T, o string, n int, seq *int) error {
	t.Helper()
	all := make([]jobs.NewJob, n)
	for i := range all {
		*seq++
		all[i] = jobstest.Job(fmt.Sprintf("%s-%d", o, *seq), jobstest.OfOrg(o))
	}
	_, err := b.jobs.InsertAdmitted(context.Background(), b.lim.Jobs(o, n), all...)
	return err
}

// queue: every waiting state counts (pending, available, retrying), a
// running job does not; a submission that does not fit is refused whole.
func queue(t *testing.T, newDB NewDB) {
	b := setup(t, newDB, jobs.Config{RetryDelay: time.Minute}, org.New(org.Policy{MaxQueued: 3}, nil))
	ctx := context.Background()
	seq := 0
	require.NoError(t, b.submit(t, "a", 3, &seq))
	assert.Equal(t, apierr.QueueFull, code(b.submit(t, "a", 1, &seq)))
	require.NoError(t, b.submit(t, "other", 3, &seq), "another organisation's queue")

	running := b.claim(t, "w")
	require.NotNil(t, running)
	require.Equal(t, "a-1", running.ID)
	require.NoError(t, b.submit(t, "a", 1, &seq), "a running job holds no place")
	assert.Equal(t, apierr.QueueFull, code(b.submit(t, "a", 1, &seq)))
	ok, err := b.jobs.Fail(ctx, running.ID, "w", jobs.Failure{Code: "X", Message: "again", Retry: true}, nil)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, jobs.Retrying, b.get(t, running.ID).State)
	// Waiting now: a-2, a-3, a-8, and a-1 retrying (a place of its own,
	// past the limit: nothing accepted is dropped).
	for _, id := range []string{"a-2", "a-3"} {
		_, err = b.jobs.Cancel(ctx, id)
		require.NoError(t, err)
	}
	require.NoError(t, b.submit(t, "a", 1, &seq), "two cancelled jobs left; the retrying one holds its place")
	assert.Equal(t, apierr.QueueFull, code(b.submit(t, "a", 1, &seq)))

	n, err := b.st.Job.Query().Count(ctx)
	require.NoError(t, err)
	assert.Equal(t, 8, n, "nothing of a refused submission is stored")
}

// storage: assets count, uploads count until they expire by the clock,
// another organisation's bytes are its own.
func storage(t *testing.T, newDB NewDB) {
	b := setup(t, newDB, jobs.Config{}, org.New(org.Policy{StorageQuota: 1000}, nil))
	ctx := context.Background()
	now := jobstest.ClockStart
	require.NoError(t, b.st.Asset.Create().SetID("ast_1").SetOrgID("a").SetType("image").SetName("x").SetFilename("x.png").
		SetStorageKey("k1").SetFileSize(400).SetScope("org").SetCreatedAt(now).SetUpdatedAt(now).Exec(ctx))
	require.NoError(t, b.st.Upload.Create().SetID("upl_1").SetOrgID("a").SetFilename("u.mp4").SetContentType("video/mp4").
		SetSize(500).SetStorageKey("k2").SetCreatedAt(now).SetExpiresAt(now+60_000).Exec(ctx))
	require.NoError(t, b.st.Upload.Create().SetID("upl_2").SetOrgID("b").SetFilename("u.mp4").SetContentType("video/mp4").
		SetSize(1000).SetStorageKey("k3").SetCreatedAt(now).SetExpiresAt(now+60_000).Exec(ctx))

	used, err := b.lim.Used(ctx, "a")
	require.NoError(t, err)
	assert.Equal(t, int64(900), used)
	require.NoError(t, b.lim.Room(ctx, "a", 100))
	assert.Equal(t, apierr.QuotaExceeded, code(b.lim.Room(ctx, "a", 101)))

	b.clock.Advance(time.Minute - time.Millisecond)
	assert.Equal(t, apierr.QuotaExceeded, code(b.lim.Room(ctx, "a", 101)), "the upload counts until it expires")
	b.clock.Advance(time.Millisecond)
	used, err = b.lim.Used(ctx, "a")
	require.NoError(t, err)
	assert.Equal(t, int64(400), used, "an expired upload no longer counts")
	require.NoError(t, b.lim.Room(ctx, "a", 600))
}

// concurrentLimits: submits and stores at once, from two nodes on
// PostgreSQL, never pass the queue limit, the burst or the storage quota.
func concurrentLimits(t *testing.T, newDB NewDB) {
	db := newDB(t)
	clock := jobstest.NewClock()
	pol := org.New(org.Policy{MaxQueued: 5, StorageQuota: 1000}, map[string]org.Policy{"r": {Rate: 4}})
	nodes := []bundle{node(t, db, jobs.Config{}, pol, clock)}
	if db.Name == "postgres" {
		nodes = append(nodes, node(t, db, jobs.Config{}, pol, clock))
	}
	ctx := context.Background()
	var (
		mu  sync.Mutex
		wg  sync.WaitGroup
		got = map[string]map[apierr.Code]int{"queue": {}, "rate": {}, "storage": {}}
	)
	count := func(kind string, err error) {
		mu.Lock()
		defer mu.Unlock()
		got[kind][code(err)]++
		if code(err) == "" {
			assert.NoError(t, err)
		}
	}
	for i := range 16 {
		b := nodes[i%len(nodes)]
		wg.Go(func() {
			_, err := b.jobs.InsertAdmitted(ctx, b.lim.Jobs("q", 1), jobstest.Job(fmt.Sprintf("q-%d", i), jobstest.OfOrg("q")))
			count("queue", err)
		})
		wg.Go(func() { count("rate", b.lim.Take(ctx, "r")) })
		wg.Go(func() {
			count("storage", b.lim.Keep(ctx, b.st.Client, "s", 300, func(tx *ent.Tx) error {
				id := fmt.Sprintf("ast_%d", i)
				return tx.Asset.Create().SetID(id).SetOrgID("s").SetType("image").SetName("x").SetFilename("x.png").
					SetStorageKey(id).SetFileSize(300).SetScope("org").SetCreatedAt(1).SetUpdatedAt(1).Exec(ctx)
			}))
		})
	}
	wg.Wait()
	assert.Equal(t, map[apierr.Code]int{"": 5, apierr.QueueFull: 11}, got["queue"])
	assert.Equal(t, map[apierr.Code]int{"": 4, apierr.RateLimited: 12}, got["rate"], "the clock stood still: the burst alone")
	assert.Equal(t, map[apierr.Code]int{"": 3, apierr.QuotaExceeded: 13}, got["storage"], "three of 300 bytes fit in 1000")
}
