package jobs_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/jobs"
	"github.com/kinohq/kino/server/jobs/jobstest"
	"github.com/kinohq/kino/server/store/storetest"
)

// split inserts whole, made of p0, p1 (weights 3 and 1): whole takes each
// part's "out" as "in-N".
func split(t *testing.T, c *jobs.Client) {
	t.Helper()
	jobstest.Insert(t, c,
		jobstest.Job("whole",
			jobstest.Joins("p0", map[string]string{"in-0": "out"}),
			jobstest.Joins("p1", map[string]string{"in-1": "out"}),
			jobstest.Parts(2)),
		jobstest.Job("p0", jobstest.PartOf("whole", 3)),
		jobstest.Job("p1", jobstest.PartOf("whole", 1)))
}

func claimPart(t *testing.T, c *jobs.Client, owner string) string {
	t.Helper()
	j, err := c.Claim(context.Background(), owner, []string{"part"})
	require.NoError(t, err)
	require.NotNil(t, j)
	return j.ID
}

func TestWholeProgressIsItsPartsAndItRunsAfterThem(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		c := open(t, db, jobs.Config{})
		ctx := context.Background()
		split(t, c)
		assert.Equal(t, jobs.Pending, get(t, c, "whole").State)
		assert.Nil(t, get(t, c, "whole").StartedAt)

		a, b := claimPart(t, c, "w1"), claimPart(t, c, "w2")
		require.ElementsMatch(t, []string{"p0", "p1"}, []string{a, b})
		require.NoError(t, c.Progress(ctx, "p0", ownerOf(a, b, "p0"), 50))
		require.NoError(t, c.PartsProgress(ctx, "whole"))
		w := get(t, c, "whole")
		assert.InDelta(t, 50*3.0/4*jobs.PartsShare, w.Progress, 1e-9, "weighted by the parts' weights")
		assert.NotNil(t, w.StartedAt, "started with its first part's report")

		ok, err := c.Complete(ctx, "p0", ownerOf(a, b, "p0"), jobs.Result{Outputs: map[string]string{"out": "k0"}})
		require.NoError(t, err)
		require.True(t, ok)
		w = get(t, c, "whole")
		assert.Equal(t, jobs.Pending, w.State)
		assert.InDelta(t, 75*jobs.PartsShare, w.Progress, 1e-9, "a completed part counts whole")
		ok, err = c.Complete(ctx, "p1", ownerOf(a, b, "p1"), jobs.Result{Outputs: map[string]string{"out": "k1"}})
		require.NoError(t, err)
		require.True(t, ok)

		w = get(t, c, "whole")
		assert.Equal(t, jobs.Available, w.State)
		assert.Equal(t, map[string]string{"in-0": "k0", "in-1": "k1"}, w.InputKeys)
		j := claim(t, c, "w3")
		require.NotNil(t, j)
		assert.Equal(t, "whole", j.ID)
		assert.InDelta(t, 100*jobs.PartsShare, j.Progress, 1e-9, "a claim keeps a whole's progress")
	})
}

// ownerOf is the owner (w1 or w2) that claimed id, a and b being the ids
// w1 and w2 claimed.
func ownerOf(a, b, id string) string {
	if a == id {
		return "w1"
	}
	return "w2"
}

func TestFailedPartFailsWholeWithItsErrorAndCancelsTheOthers(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		c := open(t, db, jobs.Config{})
		ctx := context.Background()
		split(t, c)
		a := claimPart(t, c, "w1")
		ok, err := c.Fail(ctx, a, "w1", jobs.Failure{Code: jobs.CodeRenderFailed, Message: "ffmpeg said no"}, nil)
		require.NoError(t, err)
		require.True(t, ok)

		w := get(t, c, "whole")
		assert.Equal(t, jobs.Failed, w.State)
		assert.Equal(t, jobs.CodeRenderFailed, *w.ErrorCode, "the part's own code, not UPSTREAM_FAILED")
		assert.Equal(t, "ffmpeg said no", *w.ErrorMessage)
		other := "p1"
		if a == "p1" {
			other = "p0"
		}
		assert.Equal(t, jobs.Cancelled, get(t, c, other).State)
	})
}

func TestCancelledWholeCancelsEveryPart(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		c := open(t, db, jobs.Config{})
		ctx := context.Background()
		split(t, c)
		running := claimPart(t, c, "w1")
		_, err := c.Cancel(ctx, "whole")
		require.NoError(t, err)
		for _, id := range []string{"p0", "p1"} {
			assert.Equal(t, jobs.Cancelled, get(t, c, id).State, id)
		}
		ok, err := c.Renew(ctx, running, "w1")
		require.NoError(t, err)
		assert.False(t, ok, "the running part's worker hears it must stop")
	})
}

func TestLostPartIsRunAgainAlone(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		clock := jobstest.NewClock()
		c := open(t, db, jobs.Config{Lease: time.Minute, Now: clock.Now})
		ctx := context.Background()
		split(t, c)
		lost, kept := claimPart(t, c, "dead"), claimPart(t, c, "alive")
		require.NoError(t, c.Progress(ctx, kept, "alive", 40))
		// The live worker renews at 40 s; at 80 s only the other lease
		// has lapsed.
		clock.Advance(40 * time.Second)
		ok, err := c.Renew(ctx, kept, "alive")
		require.NoError(t, err)
		require.True(t, ok)
		clock.Advance(40 * time.Second)
		n, err := c.Rescue(ctx)
		require.NoError(t, err)
		require.Equal(t, 1, n)

		assert.Equal(t, jobs.Available, get(t, c, lost).State, "the lost part is claimable again")
		k := get(t, c, kept)
		assert.Equal(t, jobs.Running, k.State, "the other part runs on")
		assert.Equal(t, 40.0, k.Progress)
		assert.Equal(t, jobs.Pending, get(t, c, "whole").State)
		assert.Equal(t, lost, claimPart(t, c, "new"))
	})
}
