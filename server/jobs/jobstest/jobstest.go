// Package jobstest builds jobs for tests: a job that is valid as it is,
// changed only where a test cares, so that a test reads as what it checks
// rather than as the fields every job needs.
package jobstest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/jobs"
)

// The defaults of Job: a worker claims it by Type.
const (
	Kind = "test"
	Type = "t"
	Org  = "o"
)

// Option changes one thing of a job Job builds.
type Option func(*jobs.NewJob)

// Job returns a job with id, of Kind, Type and Org, empty arguments, and
// what opts change.
func Job(id string, opts ...Option) jobs.NewJob {
	n := jobs.NewJob{ID: id, Kind: Kind, Type: Type, Org: Org, Args: []byte(`{}`)}
	for _, o := range opts {
		o(&n)
	}
	return n
}

// Insert inserts jobs in one transaction and fails the test if it cannot.
func Insert(t testing.TB, c *jobs.Client, all ...jobs.NewJob) []*jobs.Job {
	t.Helper()
	inserted, err := c.Insert(context.Background(), all...)
	require.NoError(t, err)
	return inserted
}

// OfType sets the type workers claim the job by.
func OfType(typ string) Option { return func(n *jobs.NewJob) { n.Type = typ } }

// OfOrg sets the organisation the job belongs to.
func OfOrg(org string) Option { return func(n *jobs.NewJob) { n.Org = org } }

// InBatch puts the job in a batch (a pipeline run).
func InBatch(batch string) Option { return func(n *jobs.NewJob) { n.BatchID = batch } }

// NodeOf makes the job the node of a pipeline.
func NodeOf(pipeline, node string) Option {
	return func(n *jobs.NewJob) { n.PipelineID, n.NodeID = pipeline, node }
}

// OfKind sets the kind (render, media, …).
func OfKind(kind string) Option { return func(n *jobs.NewJob) { n.Kind = kind } }

// CreatedAt sets when the job was made, in epoch ms: the oldest
// claimable job is claimed first.
func CreatedAt(ms int64) Option { return func(n *jobs.NewJob) { n.CreatedAt = ms } }

// After makes the job wait for parent, taking the parent's outputs as
// inputs (input name → parent's output name); the parent must be in the
// same Insert.
func After(parent string, inputs map[string]string) Option {
	return func(n *jobs.NewJob) {
		n.Parents = append(n.Parents, jobs.Parent{ID: parent, Inputs: inputs})
	}
}

// Joins makes the job the whole of part: it waits for it, takes its outputs
// as inputs, and its progress is its parts'. Set the count with Parts.
func Joins(part string, inputs map[string]string) Option {
	return func(n *jobs.NewJob) {
		n.Parents = append(n.Parents, jobs.Parent{ID: part, Inputs: inputs, Whole: true})
	}
}

// PartOf makes the job a part of whole (type "part", in whole's batch)
// weighing weight in whole's progress.
func PartOf(whole string, weight float64) Option {
	return func(n *jobs.NewJob) {
		n.Type, n.BatchID = "part", whole
		n.Weight = weight
	}
}

// Parts makes the job a whole of n parts (see Joins).
func Parts(n int) Option { return func(j *jobs.NewJob) { j.Parts = n } }

// Meta sets one metadata key.
func Meta(key string, value any) Option {
	return func(n *jobs.NewJob) {
		if n.Metadata == nil {
			n.Metadata = map[string]any{}
		}
		n.Metadata[key] = value
	}
}

// Priority sets the job's priority among its organisation's jobs.
func Priority(p int) Option { return func(n *jobs.NewJob) { n.Priority = p } }

// Clock is a clock a test moves by hand, for jobs.Config.Now: a lease
// lapses, or a backoff ends, when the test says so, not after a wait. It
// is safe for concurrent use and never moves by itself.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// ClockStart is the epoch millisecond a NewClock starts at: a fixed
// instant, so that a test's times read the same on every run.
const ClockStart int64 = 1_700_000_000_000

// NewClock returns a clock at ClockStart.
func NewClock() *Clock { return &Clock{now: time.UnixMilli(ClockStart)} }

// Now is the clock's time; pass the method as jobs.Config.Now.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock on by d and returns the new time.
func (c *Clock) Advance(d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	return c.now
}
