package jobs

import (
	"context"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kinohq/kino/ent"
	"github.com/kinohq/kino/ent/job"
	"github.com/kinohq/kino/server/store"
)

// KindType names the jobs of one kind and type.
type KindType struct{ Kind, Type string }

// Collector reports, on each scrape, what the database holds of unfinished
// jobs: so the figures are those of every node together, whichever node is
// scraped. It reads only jobs that have not ended, through the (state, …)
// indexes, so a scrape costs what the backlog is, never what the history
// is; finished jobs are counted by the processes that end them
// (kino_jobs_ended_total).
type Collector struct {
	st      *store.Store
	known   []KindType
	timeout time.Duration
	log     *slog.Logger

	jobs, depth, oldest, failed *prometheus.Desc
}

// NewCollector returns a collector over st. The known kinds and types are
// reported at 0 when none of their jobs is waiting or running, so that an
// alert sees 0 rather than nothing. Each scrape's queries get timeout.
func NewCollector(st *store.Store, known []KindType, timeout time.Duration, log *slog.Logger) *Collector {
	return &Collector{
		st: st, known: known, timeout: timeout, log: log,
		jobs: prometheus.NewDesc("kino_jobs",
			"Jobs that have not ended, of every node, by kind, type and state (pending: waits for other jobs; available: claimable, or waiting out a retry's backoff; running).",
			[]string{"kind", "type", "state"}, nil),
		depth: prometheus.NewDesc("kino_queue_depth",
			"Jobs a worker could claim now (available, any retry backoff over), of every node.",
			[]string{"kind", "type"}, nil),
		oldest: prometheus.NewDesc("kino_queue_oldest_age_seconds",
			"How long the job that has waited longest to be claimed has been claimable (now - available_at), 0 when none waits.",
			[]string{"kind", "type"}, nil),
		failed: prometheus.NewDesc("kino_jobs_query_failed",
			"1 when this scrape could not read the jobs from the database (the figures above are then missing), else 0.",
			nil, nil),
	}
}

// Describe sends the descriptions of the figures.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.jobs
	ch <- c.depth
	ch <- c.oldest
	ch <- c.failed
}

// unfinishedStates are the states kino_jobs reports.
//
//nolint:gochecknoglobals // read-only table: the states kino_jobs reports
var unfinishedStates = []job.State{Pending, Available, Running}

// Collect reads the jobs and sends the figures.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	counts, queue, err := c.read(ctx)
	if err != nil {
		c.log.Warn("read jobs for metrics", "err", err)
		ch <- prometheus.MustNewConstMetric(c.failed, prometheus.GaugeValue, 1)
		return
	}
	ch <- prometheus.MustNewConstMetric(c.failed, prometheus.GaugeValue, 0)
	type stateKey struct {
		KindType
		state job.State
	}
	byState := map[stateKey]int{}
	for _, r := range counts {
		st := r.State
		if st == Retrying {
			st = Available // waiting, as the APIs show it
		}
		byState[stateKey{KindType{r.Kind, r.Type}, st}] += r.Count
	}
	now := time.Now().UnixMilli()
	byType := map[KindType]queueRow{}
	for _, r := range queue {
		byType[KindType{r.Kind, r.Type}] = r
	}
	for _, kt := range c.all(counts) {
		for _, st := range unfinishedStates {
			ch <- prometheus.MustNewConstMetric(c.jobs, prometheus.GaugeValue, float64(byState[stateKey{kt, st}]), kt.Kind, kt.Type, string(st))
		}
		q := byType[kt]
		age := 0.0
		if q.Count > 0 {
			age = float64(max(0, now-q.Oldest)) / 1000
		}
		ch <- prometheus.MustNewConstMetric(c.depth, prometheus.GaugeValue, float64(q.Count), kt.Kind, kt.Type)
		ch <- prometheus.MustNewConstMetric(c.oldest, prometheus.GaugeValue, age, kt.Kind, kt.Type)
	}
}

type countRow struct {
	Kind  string    `json:"kind"`
	Type  string    `json:"type"`
	State job.State `json:"state"`
	Count int       `json:"count"`
}

type queueRow struct {
	Kind   string `json:"kind"`
	Type   string `json:"type"`
	Count  int    `json:"count"`
	Oldest int64  `json:"min"`
}

// read counts the unfinished jobs by kind, type and state, and the
// claimable ones with the oldest available_at by kind and type: two
// grouped reads that the state index bounds to the jobs not yet ended.
func (c *Collector) read(ctx context.Context) ([]countRow, []queueRow, error) {
	var counts []countRow
	err := c.st.Job.Query().Where(job.StateIn(unfinished...)).
		GroupBy(job.FieldKind, job.FieldType, job.FieldState).
		Aggregate(ent.Count()).Scan(ctx, &counts)
	if err != nil {
		return nil, nil, err
	}
	var queue []queueRow
	err = c.st.Job.Query().Where(job.StateEQ(Available), job.AvailableAtLTE(time.Now().UnixMilli())).
		GroupBy(job.FieldKind, job.FieldType).
		Aggregate(ent.Count(), ent.Min(job.FieldAvailableAt)).Scan(ctx, &queue)
	if err != nil {
		return nil, nil, err
	}
	return counts, queue, nil
}

// all is every kind and type to report: the known ones, and any other the
// database holds (a type a newer node runs).
func (c *Collector) all(counts []countRow) []KindType {
	out := append([]KindType(nil), c.known...)
	seen := map[KindType]bool{}
	for _, kt := range out {
		seen[kt] = true
	}
	for _, r := range counts {
		kt := KindType{r.Kind, r.Type}
		if !seen[kt] {
			seen[kt] = true
			out = append(out, kt)
		}
	}
	return out
}
