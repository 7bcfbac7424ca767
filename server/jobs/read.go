package jobs

import (
	"context"
	"fmt"

	entsql "entgo.io/ent/dialect/sql"
	"google.golang.org/protobuf/proto"

	"github.com/kinohq/kino/ent"
	"github.com/kinohq/kino/ent/job"
	"github.com/kinohq/kino/ent/predicate"
	"github.com/kinohq/kino/server/events"
)

// Filter selects jobs of one kind and organisation: a job of another
// organisation is never read, as if it did not exist. Zero fields select
// everything.
type Filter struct {
	Kind, Org string
	// Phases selects the jobs in any of them: each API has its own words
	// for the core's states, and some words mean more than one state.
	Phases []Phase
	Type   string
	// BatchID and PipelineID select a batch's jobs, a pipeline's.
	BatchID, PipelineID string
}

// Phase is a set of jobs by state: those in one of States that, when
// Started is set, have (true) or have not (false) started, their attempt's
// work begun or, for a whole that waits, its parts'.
type Phase struct {
	States  []State
	Started *bool
}

// Is is the phase of the jobs in one of states.
func Is(states ...State) Phase { return Phase{States: states} }

// Begun is the phase of the jobs in one of states that have started
// (started true) or have not (started false).
func Begun(started bool, states ...State) Phase { return Phase{States: states, Started: &started} }

func (p Phase) where() predicate.Job {
	w := []predicate.Job{job.StateIn(p.States...)}
	if p.Started != nil {
		if *p.Started {
			w = append(w, job.StartedAtNotNil())
		} else {
			w = append(w, job.StartedAtIsNil())
		}
	}
	return job.And(w...)
}

func (f Filter) where() []predicate.Job {
	w := []predicate.Job{job.Kind(f.Kind), job.OrgID(f.Org)}
	if len(f.Phases) > 0 {
		any := make([]predicate.Job, len(f.Phases))
		for i, p := range f.Phases {
			any[i] = p.where()
		}
		w = append(w, job.Or(any...))
	}
	if f.Type != "" {
		w = append(w, job.Type(f.Type))
	}
	if f.BatchID != "" {
		w = append(w, job.BatchID(f.BatchID))
	}
	if f.PipelineID != "" {
		w = append(w, job.PipelineID(f.PipelineID))
	}
	return w
}

// Get reads the job id of kind that belongs to org; ErrNotFound when there
// is none, another organisation's included.
func (c *Client) Get(ctx context.Context, kind, org, id string) (*Job, error) {
	j, err := c.st.Job.Query().Where(job.ID(id), job.Kind(kind), job.OrgID(org)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("read job %s: %w", id, err)
	}
	return view(j), nil
}

// ByKey reads the job of kind that holds org's idempotency key;
// ErrNotFound when none does.
func (c *Client) ByKey(ctx context.Context, kind, org, key string) (*Job, error) {
	j, err := c.st.Job.Query().Where(job.Kind(kind), job.OrgID(org), job.IdempotencyKey(key)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("read the job of an idempotency key: %w", err)
	}
	return view(j), nil
}

// List is a page of the jobs f selects, newest first (ties broken by id,
// so that pages never overlap), and how many it selects in all. The
// indexes of (kind, org_id[, state][, type], created_at, id) serve both
// reads.
func (c *Client) List(ctx context.Context, f Filter, limit, offset int) (int, []*Job, error) {
	where := f.where()
	total, err := c.st.Job.Query().Where(where...).Count(ctx)
	if err != nil {
		return 0, nil, fmt.Errorf("count jobs: %w", err)
	}
	page, err := c.st.Job.Query().Where(where...).
		Order(ent.Desc(job.FieldCreatedAt), ent.Desc(job.FieldID)).
		Limit(limit).Offset(offset).All(ctx)
	if err != nil {
		return 0, nil, fmt.Errorf("list jobs: %w", err)
	}
	return total, views(page), nil
}

// Batch reads the jobs f selects of the batches ids (f.BatchID's when
// there are none), in id order.
func (c *Client) Batch(ctx context.Context, f Filter, ids ...string) ([]*Job, error) {
	where := f.where()
	if len(ids) > 0 {
		where = append(where, job.BatchIDIn(ids...))
	}
	js, err := c.st.Job.Query().Where(where...).Order(job.ByID()).All(ctx)
	if err != nil {
		return nil, fmt.Errorf("read batch: %w", err)
	}
	return views(js), nil
}

// BatchIn is Batch read in tx, for a final hook that must see what its
// own transaction changed (the jobs of a batch it ends).
func BatchIn(ctx context.Context, tx *ent.Tx, f Filter) ([]*Job, error) {
	js, err := tx.Job.Query().Where(f.where()...).Order(job.ByID()).All(ctx)
	if err != nil {
		return nil, fmt.Errorf("read batch: %w", err)
	}
	return views(js), nil
}

// Batches is a page of the ids of the batches among the jobs f selects,
// newest first (by their first job), and how many there are in all.
func (c *Client) Batches(ctx context.Context, f Filter, limit, offset int) (int, []string, error) {
	where := append(f.where(), job.BatchIDNotNil())
	total, err := c.st.Job.Query().Where(where...).Modify(func(sel *entsql.Selector) {
		sel.Select(entsql.Count(entsql.Distinct(sel.C(job.FieldBatchID))))
	}).Int(ctx)
	if err != nil {
		return 0, nil, fmt.Errorf("count batches: %w", err)
	}
	var rows []struct {
		BatchID string `json:"batch_id"`
		Created int64  `json:"created"`
	}
	err = c.st.Job.Query().Where(where...).Modify(func(sel *entsql.Selector) {
		sel.Select(sel.C(job.FieldBatchID), entsql.As(entsql.Min(sel.C(job.FieldCreatedAt)), "created")).
			GroupBy(sel.C(job.FieldBatchID)).
			OrderBy(entsql.Desc("created"), entsql.Desc(sel.C(job.FieldBatchID))).
			Limit(limit).Offset(offset)
	}).Scan(ctx, &rows)
	if err != nil {
		return 0, nil, fmt.Errorf("list batches: %w", err)
	}
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.BatchID
	}
	return total, ids, nil
}

// Watch follows the jobs ids until they end: it calls read now and after
// every change of one of them, from this process or another node, and
// sends what read made whenever it differs from what it sent last. read
// reports whether the jobs ended; Watch then returns, as it does when
// read, send or ctx fail.
func Watch[R proto.Message](ctx context.Context, c *Client, ids []string, read func() (R, bool, error), send func(R) error) error {
	changed, unsubscribe := c.bus.Subscribe(ids...)
	defer unsubscribe()
	var (
		last R
		sent bool
	)
	return events.Follow(ctx, changed, func() (bool, error) {
		rec, final, err := read()
		if err != nil {
			return false, err
		}
		if !sent || !proto.Equal(last, rec) {
			if err := send(rec); err != nil {
				return false, err
			}
			last, sent = rec, true
		}
		return final, nil
	})
}
