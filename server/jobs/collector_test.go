package jobs_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/jobs"
	"github.com/kinohq/kino/server/jobs/jobstest"
	"github.com/kinohq/kino/server/store/storetest"
)

// gather collects c once and returns each series' value by name and label
// values ("kino_jobs available t").
func gather(t *testing.T, c prometheus.Collector) map[string]float64 {
	t.Helper()
	reg := prometheus.NewRegistry()
	require.NoError(t, reg.Register(c))
	families, err := reg.Gather()
	require.NoError(t, err)
	out := map[string]float64{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			key := f.GetName()
			for _, l := range m.GetLabel() {
				if l.GetName() != "kind" {
					key += " " + l.GetValue()
				}
			}
			out[key] = m.GetGauge().GetValue()
		}
	}
	return out
}

// The collector reports what the table holds of unfinished jobs: a job
// waiting for its parent is pending, a job in a retry's backoff is
// available but not in the queue's depth, an ended job is nowhere, and
// the oldest age is that of the oldest claimable job.
func TestCollectorReportsUnfinishedJobs(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		ctx := context.Background()
		c := open(t, db, jobs.Config{RetryDelay: time.Minute})
		now := time.Now().UnixMilli()
		ago := func(d time.Duration) jobstest.Option { return jobstest.CreatedAt(now - d.Milliseconds()) }
		jobstest.Insert(t, c,
			jobstest.Job("old", ago(10*time.Second)), jobstest.Job("c", ago(5*time.Second)), jobstest.Job("a", ago(3*time.Second)),
			jobstest.Job("b", jobstest.After("a", nil)),
			jobstest.Job("done", jobstest.OfType("u"), ago(20*time.Second)), jobstest.Job("u1", jobstest.OfType("u")))

		require.Equal(t, "old", claim(t, c, "w").ID)
		require.Equal(t, "c", claim(t, c, "w").ID)
		ok, err := c.Fail(ctx, "c", "w", jobs.Failure{Code: "X", Message: "again", Retry: true}, nil)
		require.NoError(t, err)
		require.True(t, ok)
		u, err := c.Claim(ctx, "w", []string{"u"})
		require.NoError(t, err)
		require.Equal(t, "done", u.ID)
		ok, err = c.Complete(ctx, "done", "w", jobs.Result{})
		require.NoError(t, err)
		require.True(t, ok)

		log := slog.New(slog.NewTextHandler(io.Discard, nil))
		known := []jobs.KindType{{Kind: "test", Type: "t"}, {Kind: "test", Type: "v"}}
		got := gather(t, jobs.NewCollector(jobs.StoreOf(c), known, 5*time.Second, log))
		age := got["kino_queue_oldest_age_seconds t"]
		assert.GreaterOrEqual(t, age, 3.0, "a, claimable for 3 s; c waits out its backoff")
		assert.Less(t, age, 60.0)
		delete(got, "kino_queue_oldest_age_seconds t")
		assert.GreaterOrEqual(t, got["kino_queue_oldest_age_seconds u"], 0.0)
		assert.Less(t, got["kino_queue_oldest_age_seconds u"], 60.0)
		delete(got, "kino_queue_oldest_age_seconds u")
		assert.Equal(t, map[string]float64{
			"kino_jobs pending t": 1, "kino_jobs available t": 2, "kino_jobs running t": 1,
			"kino_queue_depth t": 1,
			// u is not known but in the table; v is known and empty.
			"kino_jobs pending u": 0, "kino_jobs available u": 1, "kino_jobs running u": 0,
			"kino_queue_depth u":  1,
			"kino_jobs pending v": 0, "kino_jobs available v": 0, "kino_jobs running v": 0,
			"kino_queue_depth v": 0, "kino_queue_oldest_age_seconds v": 0,
			"kino_jobs_query_failed": 0,
		}, got)

		// A database that does not answer fails the figures, not the scrape.
		require.NoError(t, jobs.StoreOf(c).Close())
		got = gather(t, jobs.NewCollector(jobs.StoreOf(c), known, 5*time.Second, log))
		assert.Equal(t, map[string]float64{"kino_jobs_query_failed": 1}, got)
	})
}
