package quota

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
	"github.com/kinohq/kino/ent/job"
	"github.com/kinohq/kino/server/apierr"
	"github.com/kinohq/kino/server/events"
	"github.com/kinohq/kino/server/jobs"
	"github.com/kinohq/kino/server/jobs/jobstest"
	"github.com/kinohq/kino/server/org"
	"github.com/kinohq/kino/server/store"
	"github.com/kinohq/kino/server/store/storetest"
)

type bundle struct {
	st   *store.Store
	jobs *jobs.Client
	lim  *Limiter
}

func setup(t *testing.T, db storetest.DB, def org.Policy, byOrg map[string]org.Policy) bundle {
	t.Helper()
	st, err := store.Open(context.Background(), db.URL)
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	return bundle{st: st, jobs: jobs.New(st, events.NewLocal(), jobs.Config{}), lim: New(st, org.New(def, byOrg))}
}

// submit inserts n jobs of o as one submission, as the APIs do.
func (b bundle) submit(o string, n int) error {
	all := make([]jobs.NewJob, n)
	for i := range all {
		all[i] = jobstest.Job(fmt.Sprintf("%s-%d-%d", o, time.Now().UnixNano(), i), func(j *jobs.NewJob) { j.Org = o })
	}
	_, err := b.jobs.InsertAdmitted(context.Background(), func(ctx context.Context, tx *ent.Tx) error {
		return b.lim.Admit(ctx, tx, o, n)
	}, all...)
	return err
}

func code(err error) apierr.Code {
	var e *apierr.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

func TestRateIsABurstThenOneSubmitAnInterval(t *testing.T) {
	t.Parallel()
	b := setup(t, storetest.SQLite(t), org.Policy{Rate: 2}, nil)
	now := time.UnixMilli(1_700_000_000_000)
	b.lim.now = func() time.Time { return now }
	ctx := context.Background()

	require.NoError(t, b.lim.Take(ctx, "a"))
	require.NoError(t, b.lim.Take(ctx, "a"))
	err := b.lim.Take(ctx, "a")
	var e *apierr.Error
	require.ErrorAs(t, err, &e)
	require.Equal(t, apierr.RateLimited, e.Code)
	require.Equal(t, 500*time.Millisecond, e.RetryAfter)

	now = now.Add(499 * time.Millisecond)
	require.Equal(t, apierr.RateLimited, code(b.lim.Take(ctx, "a")), "a refusal takes nothing, and the wait is exact")
	require.NoError(t, b.lim.Take(ctx, "b"), "another organisation has its own bucket")
	now = now.Add(time.Millisecond)
	require.NoError(t, b.lim.Take(ctx, "a"))
	require.Equal(t, apierr.RateLimited, code(b.lim.Take(ctx, "a")))

	// Idle long enough, the burst is whole again, and no more.
	now = now.Add(time.Hour)
	require.NoError(t, b.lim.Take(ctx, "a"))
	require.NoError(t, b.lim.Take(ctx, "a"))
	require.Equal(t, apierr.RateLimited, code(b.lim.Take(ctx, "a")))
}

func TestNoPolicyLimitsNothing(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		b := setup(t, db, org.Policy{}, nil)
		for range 50 {
			require.NoError(t, b.submit("a", 3))
		}
		var none *Limiter
		require.NoError(t, none.Take(context.Background(), "a"))
		require.NoError(t, none.Room(context.Background(), "a", 1<<40))
	})
}

// TestQueueCountsJobsAndAdmitsWhole: a submission's jobs all count; one
// that does not fit is refused whole; one larger than the limit is
// accepted only when nothing of its organisation waits.
func TestQueueCountsJobsAndAdmitsWhole(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		b := setup(t, db, org.Policy{MaxQueued: 4}, map[string]org.Policy{"big": {MaxQueued: 100}})
		require.NoError(t, b.submit("a", 6), "nothing waits: a submission larger than the limit is accepted")
		require.Equal(t, apierr.QueueFull, code(b.submit("a", 1)))
		require.NoError(t, b.submit("big", 50), "an organisation's own policy")

		require.NoError(t, b.submit("c", 3))
		require.Equal(t, apierr.QueueFull, code(b.submit("c", 2)), "refused whole")
		n, err := b.st.Job.Query().Where(job.OrgID("c")).Count(context.Background())
		require.NoError(t, err)
		require.Equal(t, 3, n, "nothing of a refused submission is stored")
		require.NoError(t, b.submit("c", 1))
		require.NoError(t, b.submit("d", 4))
	})
}

// TestLimitsHoldUnderConcurrentSubmits: 16 submits at once, on two
// stores of one database on PostgreSQL, never pass the queue limit, nor
// take more of the rate than its burst.
func TestLimitsHoldUnderConcurrentSubmits(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		nodes := []bundle{setup(t, db, org.Policy{MaxQueued: 5}, nil)}
		if db.Name == "postgres" {
			nodes = append(nodes, setup(t, db, org.Policy{MaxQueued: 5}, nil))
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		got := map[apierr.Code]int{}
		for i := range 16 {
			wg.Go(func() {
				err := nodes[i%len(nodes)].submit("a", 1)
				mu.Lock()
				defer mu.Unlock()
				got[code(err)]++
				if code(err) == "" {
					assert.NoError(t, err)
				}
			})
		}
		wg.Wait()
		require.Equal(t, map[apierr.Code]int{"": 5, apierr.QueueFull: 11}, got)

		rate := []bundle{setup(t, db, org.Policy{Rate: 4}, nil)}
		if db.Name == "postgres" {
			rate = append(rate, setup(t, db, org.Policy{Rate: 4}, nil))
		}
		// A clock that stands still: nothing refills while they race.
		now := time.UnixMilli(1_700_000_000_000)
		for _, n := range rate {
			n.lim.now = func() time.Time { return now }
		}
		taken := 0
		for i := range 16 {
			wg.Go(func() {
				err := rate[i%len(rate)].lim.Take(context.Background(), "r")
				mu.Lock()
				defer mu.Unlock()
				if err == nil {
					taken++
				} else {
					assert.Equal(t, apierr.RateLimited, code(err), "%v", err)
				}
			})
		}
		wg.Wait()
		require.Equal(t, 4, taken, "the burst, once, across the nodes")
	})
}

func TestStorageCountsAssetsAndKeepsTurns(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		b := setup(t, db, org.Policy{StorageQuota: 1000}, nil)
		ctx := context.Background()
		record := func(o string, size int64) func(tx *ent.Tx) error {
			return func(tx *ent.Tx) error {
				id := fmt.Sprintf("ast_%s_%d", o, time.Now().UnixNano())
				return tx.Asset.Create().SetID(id).SetOrgID(o).SetType("image").SetName("x").SetFilename("x.png").
					SetStorageKey(id).SetFileSize(size).SetScope("org").SetCreatedAt(1).SetUpdatedAt(1).Exec(ctx)
			}
		}
		require.NoError(t, b.lim.Room(ctx, "a", 1000))
		require.Equal(t, apierr.QuotaExceeded, code(b.lim.Room(ctx, "a", 1001)))
		var wg sync.WaitGroup
		var mu sync.Mutex
		kept := 0
		for range 8 {
			wg.Go(func() {
				err := b.lim.Keep(ctx, b.st.Client, "a", 300, record("a", 300))
				mu.Lock()
				defer mu.Unlock()
				if err == nil {
					kept++
				} else {
					assert.Equal(t, apierr.QuotaExceeded, code(err), "%v", err)
				}
			})
		}
		wg.Wait()
		require.Equal(t, 3, kept, "three of 300 fit in 1000, whoever comes first")
		require.Equal(t, apierr.QuotaExceeded, code(b.lim.Room(ctx, "a", 101)))
		require.NoError(t, b.lim.Keep(ctx, b.st.Client, "b", 1000, record("b", 1000)), "another organisation's bytes are its own")
	})
}
