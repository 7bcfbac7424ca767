package jobs_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/kinohq/kino/server/jobs"
	"github.com/kinohq/kino/server/jobs/jobstest"
	"github.com/kinohq/kino/server/store/storetest"
)

// The read API: what the APIs show of jobs, scoped to an organisation.

func ids(js []*jobs.Job) []string {
	out := make([]string, len(js))
	for i, j := range js {
		out[i] = j.ID
	}
	return out
}

func TestGetReadsOnlyTheOrganisationsOwnJob(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		c := open(t, db, jobs.Config{})
		ctx := context.Background()
		jobstest.Insert(t, c, jobstest.Job("mine", jobstest.OfOrg("org-a"), jobstest.CreatedAt(1000),
			jobstest.Meta("note", "kept"), jobstest.InBatch("run-1")))

		j, err := c.Get(ctx, jobstest.Kind, "org-a", "mine")
		require.NoError(t, err)
		assert.Equal(t, "mine", j.ID)
		assert.Equal(t, "org-a", j.OrgID)
		assert.Equal(t, jobs.Available, j.State)
		assert.Equal(t, int64(1000), j.CreatedAt)
		assert.Equal(t, "kept", j.Metadata["note"])
		require.NotNil(t, j.BatchID)
		assert.Equal(t, "run-1", *j.BatchID)
		assert.Nil(t, j.StartedAt)
		assert.False(t, j.Whole())

		for name, read := range map[string]func() (*jobs.Job, error){
			"another organisation's": func() (*jobs.Job, error) { return c.Get(ctx, jobstest.Kind, "org-b", "mine") },
			"another kind's":         func() (*jobs.Job, error) { return c.Get(ctx, "render", "org-a", "mine") },
			"an unknown id":          func() (*jobs.Job, error) { return c.Get(ctx, jobstest.Kind, "org-a", "none") },
		} {
			j, err := read()
			assert.ErrorIs(t, err, jobs.ErrNotFound, name)
			assert.Nil(t, j, name)
		}
	})
}

func TestListFiltersPagesNewestFirst(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		c := open(t, db, jobs.Config{})
		ctx := context.Background()
		// j0..j4 of org-a, j2 and j3 made in the same millisecond (ties
		// go by id, newest first); one of org-b (of a type the claims below
		// leave, so that its turn does not come between them) and one of another kind.
		for i, ms := range []int64{1000, 1001, 1002, 1002, 1003} {
			typ := "t"
			if i%2 == 1 {
				typ = "u"
			}
			jobstest.Insert(t, c, jobstest.Job(fmt.Sprintf("j%d", i), jobstest.OfOrg("org-a"), jobstest.OfType(typ), jobstest.CreatedAt(ms)))
		}
		jobstest.Insert(t, c, jobstest.Job("b", jobstest.OfOrg("org-b"), jobstest.OfType("v"), jobstest.CreatedAt(2000)))
		jobstest.Insert(t, c, jobstest.Job("k", jobstest.OfOrg("org-a"), jobstest.OfKind("other"), jobstest.CreatedAt(2000)))

		all := jobs.Filter{Kind: jobstest.Kind, Org: "org-a"}
		total, page, err := c.List(ctx, all, 2, 0)
		require.NoError(t, err)
		assert.Equal(t, 5, total)
		assert.Equal(t, []string{"j4", "j3"}, ids(page))
		_, page, err = c.List(ctx, all, 2, 2)
		require.NoError(t, err)
		assert.Equal(t, []string{"j2", "j1"}, ids(page))
		_, page, err = c.List(ctx, all, 2, 4)
		require.NoError(t, err)
		assert.Equal(t, []string{"j0"}, ids(page))

		byType := all
		byType.Type = "u"
		total, page, err = c.List(ctx, byType, 10, 0)
		require.NoError(t, err)
		assert.Equal(t, 2, total)
		assert.Equal(t, []string{"j3", "j1"}, ids(page))

		// j0 claimed, j2 claimed and started: phases tell them apart.
		claimed := claim(t, c, "w")
		require.Equal(t, "j0", claimed.ID)
		claimed = claim(t, c, "w")
		require.Equal(t, "j2", claimed.ID)
		ok, err := c.Start(ctx, "j2", "w")
		require.NoError(t, err)
		require.True(t, ok)
		for name, tc := range map[string]struct {
			phases []jobs.Phase
			want   []string
		}{
			"running":              {[]jobs.Phase{jobs.Is(jobs.Running)}, []string{"j2", "j0"}},
			"running, not started": {[]jobs.Phase{jobs.Begun(false, jobs.Running)}, []string{"j0"}},
			"running and started":  {[]jobs.Phase{jobs.Begun(true, jobs.Running)}, []string{"j2"}},
			"waiting or started":   {[]jobs.Phase{jobs.Is(jobs.Available), jobs.Begun(true, jobs.Running)}, []string{"j4", "j3", "j2", "j1"}},
			"completed (none)":     {[]jobs.Phase{jobs.Is(jobs.Completed)}, []string{}},
		} {
			f := all
			f.Phases = tc.phases
			total, page, err := c.List(ctx, f, 10, 0)
			require.NoError(t, err, name)
			assert.Equal(t, len(tc.want), total, name)
			assert.Equal(t, tc.want, ids(page), name)
		}
	})
}

func TestBatchesAndTheirJobs(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		c := open(t, db, jobs.Config{})
		ctx := context.Background()
		node := func(id, run string, ms int64) jobs.NewJob {
			return jobstest.Job(id, jobstest.OfOrg("org-a"), jobstest.InBatch(run), jobstest.NodeOf("p", "n"), jobstest.CreatedAt(ms))
		}
		jobstest.Insert(t, c, node("r1-b", "run-1", 1000), node("r1-a", "run-1", 1000))
		jobstest.Insert(t, c, node("r2-a", "run-2", 2000))
		jobstest.Insert(t, c, node("r3-a", "run-3", 3000), node("r3-b", "run-3", 3000))
		// Another organisation's run of the same pipeline, a job of no batch.
		jobstest.Insert(t, c, jobstest.Job("x", jobstest.OfOrg("org-b"), jobstest.InBatch("run-x"), jobstest.NodeOf("p", "n"), jobstest.CreatedAt(4000)))
		jobstest.Insert(t, c, jobstest.Job("single", jobstest.OfOrg("org-a"), jobstest.NodeOf("p", "n"), jobstest.CreatedAt(5000)))

		of := jobs.Filter{Kind: jobstest.Kind, Org: "org-a", PipelineID: "p"}
		run1 := of
		run1.BatchID = "run-1"
		js, err := c.Batch(ctx, run1)
		require.NoError(t, err)
		assert.Equal(t, []string{"r1-a", "r1-b"}, ids(js), "in id order")

		otherOrg := run1
		otherOrg.Org, otherOrg.BatchID = "org-b", "run-1"
		js, err = c.Batch(ctx, otherOrg)
		require.NoError(t, err)
		assert.Empty(t, js)

		total, page, err := c.Batches(ctx, of, 2, 0)
		require.NoError(t, err)
		assert.Equal(t, 3, total)
		assert.Equal(t, []string{"run-3", "run-2"}, page)
		_, page, err = c.Batches(ctx, of, 2, 2)
		require.NoError(t, err)
		assert.Equal(t, []string{"run-1"}, page)

		js, err = c.Batch(ctx, of, "run-3", "run-1", "run-x")
		require.NoError(t, err)
		assert.Equal(t, []string{"r1-a", "r1-b", "r3-a", "r3-b"}, ids(js), "only the organisation's")
	})
}

// Watch sends the record at once and after each change that shows in it,
// never twice the same, and returns when the job ended.
func TestWatchSeesEachChangeAndEndsAtFinal(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		c := open(t, db, jobs.Config{})
		ctx := context.Background()
		jobstest.Insert(t, c, jobstest.Job("w"))

		got := make(chan string, 16)
		done := make(chan error, 1)
		go func() {
			done <- jobs.Watch(ctx, c, []string{"w"}, func() (*wrapperspb.StringValue, bool, error) {
				j, err := c.Get(ctx, jobstest.Kind, jobstest.Org, "w")
				if err != nil {
					return nil, false, err
				}
				// What a record shows: the state and whole percents.
				return wrapperspb.String(fmt.Sprintf("%s %.0f", j.State, j.Progress)), jobs.Final(j.State), nil
			}, func(rec *wrapperspb.StringValue) error {
				got <- rec.GetValue()
				return nil
			})
		}()
		next := func() string {
			t.Helper()
			select {
			case s := <-got:
				return s
			case <-time.After(10 * time.Second):
				t.Fatal("watch sent nothing")
				return ""
			}
		}
		require.Equal(t, "available 0", next())
		require.NotNil(t, claim(t, c, "w1"))
		require.Equal(t, "running 0", next())
		require.NoError(t, c.Progress(ctx, "w", "w1", 40.2))
		require.Equal(t, "running 40", next())
		// A change the record does not show sends nothing: the next
		// record sent is the completion's.
		require.NoError(t, c.Progress(ctx, "w", "w1", 40.4))
		ok, err := c.Complete(ctx, "w", "w1", jobs.Result{})
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, "completed 100", next())
		select {
		case err := <-done:
			require.NoError(t, err)
		case <-time.After(10 * time.Second):
			t.Fatal("watch did not end with the job")
		}
		assert.Empty(t, got)
	})
}

func TestWatchEndsWithAFailedRead(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		c := open(t, db, jobs.Config{})
		sent := 0
		err := jobs.Watch(context.Background(), c, []string{"gone"}, func() (*wrapperspb.StringValue, bool, error) {
			_, err := c.Get(context.Background(), jobstest.Kind, jobstest.Org, "gone")
			return nil, false, err
		}, func(*wrapperspb.StringValue) error { sent++; return nil })
		assert.ErrorIs(t, err, jobs.ErrNotFound)
		assert.Zero(t, sent)
	})
}

func TestInsertOfATakenKeyIsDuplicate(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		c := open(t, db, jobs.Config{})
		ctx := context.Background()
		keyed := func(id string) jobs.NewJob {
			n := jobstest.Job(id)
			n.IdempotencyKey, n.RequestHash = "k", "h"
			return n
		}
		jobstest.Insert(t, c, keyed("first"))
		_, err := c.Insert(ctx, keyed("second"))
		assert.True(t, errors.Is(err, jobs.ErrDuplicate), "%v", err)

		j, err := c.ByKey(ctx, jobstest.Kind, jobstest.Org, "k")
		require.NoError(t, err)
		assert.Equal(t, "first", j.ID)
		assert.Equal(t, "h", j.RequestHash)
		_, err = c.ByKey(ctx, jobstest.Kind, "org-b", "k")
		assert.ErrorIs(t, err, jobs.ErrNotFound)
	})
}

// The dependants of a job that failed carry the words of Config.Upstream
// when it has some, the core's otherwise.
func TestUpstreamWordsAreTheCallers(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		c := open(t, db, jobs.Config{MaxAttempts: 1, Upstream: func(parent *jobs.Job, ended string) string {
			if parent.NodeID == nil {
				return ""
			}
			return fmt.Sprintf("step %s %s", *parent.NodeID, ended)
		}})
		ctx := context.Background()
		jobstest.Insert(t, c,
			jobstest.Job("n1", jobstest.NodeOf("p", "first"), jobstest.CreatedAt(1)),
			jobstest.Job("n2", jobstest.After("n1", nil)),
			jobstest.Job("j1", jobstest.CreatedAt(2)),
			jobstest.Job("j2", jobstest.After("j1", nil)))
		for _, id := range []string{"n1", "j1"} {
			require.Equal(t, id, claim(t, c, "w").ID)
			ok, err := c.Fail(ctx, id, "w", jobs.Failure{Code: "X", Message: "no"}, nil)
			require.NoError(t, err)
			require.True(t, ok)
		}
		assert.Equal(t, "step first failed", *get(t, c, "n2").ErrorMessage)
		assert.Equal(t, "job j1, which this one waits for, failed, so this one cannot run", *get(t, c, "j2").ErrorMessage)
	})
}
