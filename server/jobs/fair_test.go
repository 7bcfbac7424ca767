package jobs_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/events"
	"github.com/kinohq/kino/server/jobs"
	"github.com/kinohq/kino/server/jobs/jobstest"
	"github.com/kinohq/kino/server/org"
	"github.com/kinohq/kino/server/store"
	"github.com/kinohq/kino/server/store/storetest"
)

// flood inserts n jobs of org in one Insert.
func flood(t *testing.T, c *jobs.Client, o string, n int, opts ...jobstest.Option) {
	t.Helper()
	all := make([]jobs.NewJob, n)
	for i := range all {
		all[i] = jobstest.Job(fmt.Sprintf("%s-%d", o, i), append([]jobstest.Option{jobstest.OfOrg(o)}, opts...)...)
	}
	jobstest.Insert(t, c, all...)
}

// claims claims n jobs and returns their organisations in order.
func claims(t *testing.T, c *jobs.Client, n int) []string {
	t.Helper()
	var out []string
	for range n {
		j := claim(t, c, "w")
		require.NotNil(t, j)
		out = append(out, j.OrgID)
	}
	return out
}

func TestFairTurnsFollowWeights(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		pol := org.New(org.Policy{Weight: 1}, map[string]org.Policy{"c": {Weight: 2}})
		c := open(t, db, jobs.Config{Orgs: pol})
		for _, o := range []string{"a", "b", "c"} {
			flood(t, c, o, 300)
		}
		got := map[string]int{}
		for _, o := range claims(t, c, 400) {
			got[o]++
		}
		assert.InDelta(t, 100, got["a"], 10, "%v", got)
		assert.InDelta(t, 100, got["b"], 10, "%v", got)
		assert.InDelta(t, 200, got["c"], 20, "%v", got)
	})
}

func TestIdleOrganisationRejoinsAtTheCurrentTurn(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		c := open(t, db, jobs.Config{})
		// b was served once long ago, then went idle while a's flood ran.
		flood(t, c, "b", 1)
		flood(t, c, "a", 200)
		claims(t, c, 50)

		jobstest.Insert(t, c, jobstest.Job("b-new", jobstest.OfOrg("b")))
		got := claims(t, c, 2)
		assert.Contains(t, got, "b", "b's first job waits at most one turn")

		// Nor does b bank the turns it missed while idle: from now on the
		// two alternate.
		for i := range 20 {
			jobstest.Insert(t, c, jobstest.Job(fmt.Sprintf("b-more-%d", i), jobstest.OfOrg("b")))
		}
		n := 0
		for _, o := range claims(t, c, 20) {
			if o == "b" {
				n++
			}
		}
		assert.InDelta(t, 10, n, 1, "b takes its share, not the turns it missed")
	})
}

func TestPriorityOrdersAnOrganisationsOwnJobsOnly(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		c := open(t, db, jobs.Config{})
		jobstest.Insert(t, c,
			jobstest.Job("a-low", jobstest.OfOrg("a"), jobstest.CreatedAt(1000)),
			jobstest.Job("a-high", jobstest.OfOrg("a"), jobstest.CreatedAt(2000), jobstest.Priority(5)),
		)
		flood(t, c, "b", 3, jobstest.Priority(100))
		var order []string
		for range 5 {
			j := claim(t, c, "w")
			require.NotNil(t, j)
			order = append(order, j.ID)
		}
		assert.Less(t, index(order, "a-high"), index(order, "a-low"), "a's higher priority first: %v", order)
		// b's priority 100 does not buy b a turn of a's.
		assert.NotEqual(t, order[0][0], order[1][0], "turns alternate: %v", order)
		assert.NotEqual(t, order[1][0], order[2][0], "turns alternate: %v", order)
	})
}

func index(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

func TestRunningCapHoldsAcrossNodes(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		caps := map[string]int{"a": 3, "b": 2}
		pol := org.New(org.Policy{Weight: 1}, map[string]org.Policy{"a": {MaxRunning: 3}, "b": {MaxRunning: 2}})
		var nodes []*jobs.Client
		for range 2 {
			st, err := store.Open(context.Background(), db.URL)
			require.NoError(t, err)
			t.Cleanup(func() { st.Close() })
			nodes = append(nodes, jobs.New(st, events.NewLocal(), jobs.Config{Orgs: pol}))
		}
		const each = 40
		flood(t, nodes[0], "a", each)
		flood(t, nodes[1], "b", each)
		flood(t, nodes[0], "free", each)

		var (
			mu      sync.Mutex
			running = map[string]int{}
			most    = map[string]int{}
			done    atomic.Int64
			wg      sync.WaitGroup
		)
		ctx := context.Background()
		for w := range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c := nodes[w%2]
				owner := fmt.Sprintf("w%d", w)
				for done.Load() < 3*each {
					j, err := c.Claim(ctx, owner, []string{jobstest.Type})
					if !assert.NoError(t, err) {
						return
					}
					if j == nil {
						runtime.Gosched()
						continue
					}
					mu.Lock()
					running[j.OrgID]++
					most[j.OrgID] = max(most[j.OrgID], running[j.OrgID])
					mu.Unlock()
					runtime.Gosched() // let others claim while this one runs
					mu.Lock()
					running[j.OrgID]--
					mu.Unlock()
					ok, err := c.Complete(ctx, j.ID, owner, jobs.Result{})
					assert.NoError(t, err)
					assert.True(t, ok)
					done.Add(1)
				}
			}()
		}
		wg.Wait()
		for o, cp := range caps {
			assert.LessOrEqual(t, most[o], cp, "organisation %s over its cap", o)
		}
		assert.Equal(t, int64(3*each), done.Load())
		t.Logf("most running at once: %v", most)
	})
}

func TestACappedOrganisationWaitsEvenWhenNoOtherDoes(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		pol := org.New(org.Policy{Weight: 1, MaxRunning: 1}, nil)
		c := open(t, db, jobs.Config{Orgs: pol})
		flood(t, c, "a", 3)
		first := claim(t, c, "w")
		require.NotNil(t, first)
		assert.Nil(t, claim(t, c, "w"), "at its cap")

		// A raised cap applies to the jobs already waiting.
		pol.Replace(org.Policy{Weight: 1, MaxRunning: 2}, nil)
		second := claim(t, c, "w")
		require.NotNil(t, second)
		assert.Nil(t, claim(t, c, "w"))

		ok, err := c.Complete(context.Background(), first.ID, "w", jobs.Result{})
		require.NoError(t, err)
		require.True(t, ok)
		third := claim(t, c, "w")
		assert.NotNil(t, third, "a finished job frees its place")
		assert.Nil(t, claim(t, c, "w"))

		jobstest.Insert(t, c, jobstest.Job("a-late", jobstest.OfOrg("a")))
		_, err = c.Cancel(context.Background(), second.ID)
		require.NoError(t, err)
		assert.NotNil(t, claim(t, c, "w"), "a cancelled running job frees its place")
	})
}
