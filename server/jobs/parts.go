package jobs

import (
	"context"
	"fmt"

	"github.com/kinohq/kino/ent"
	"github.com/kinohq/kino/ent/job"
	"github.com/kinohq/kino/ent/predicate"
)

// A whole is a job made of parts that any worker may run (a split render,
// docs/split.md). The parts are jobs of their own, inserted with the whole
// in one Insert: each names the whole as its batch and carries its weight
// (NewJob.Weight), and the whole waits for them as a dependant marked
// Whole, knowing their count (NewJob.Parts, Job.Parts).
// The core then keeps three promises: the whole's progress is its parts'
// (weighted), a part that fails fails the whole with its own error, and a
// whole that ends without completing cancels every part still to end.
// Each part is claimed, leased, retried and rescued alone.
// Both are kept in the metadata, which needs no column of its own.
const (
	// metaParts is the metadata key of a whole: how many parts it has.
	metaParts = "parts"
	// metaWeight is the metadata key of a part: its share of the work.
	metaWeight = "weight"
)

// PartsShare is how much of a whole's progress its parts make; the rest is
// the whole's own run (the join).
const PartsShare = 0.98

// partsOf is how many parts j is a whole of, 0 when it is not one.
func partsOf(j *ent.Job) int {
	switch n := j.Metadata[metaParts].(type) {
	case float64: // read back from JSON
		return int(n)
	case int: // as inserted
		return n
	}
	return 0
}

// isWhole reports whether j is made of parts.
func isWhole(j *ent.Job) bool { return partsOf(j) > 0 }

// wholeOf is the id of the whole j is a part of, or "".
func wholeOf(j *ent.Job) string {
	for _, d := range j.Dependants {
		if d.Whole {
			return d.ID
		}
	}
	return ""
}

// PartsProgress records a whole's progress from its parts' while it waits
// for them; it never moves it back. The pool calls it after each report of
// a part that it recorded.
func (c *Client) PartsProgress(ctx context.Context, wholeID string) error {
	return c.transition(ctx, func(tx *ent.Tx, ch *changes) error {
		if err := c.rollUp(ctx, tx, wholeID); err != nil {
			return err
		}
		ch.ids = append(ch.ids, wholeID)
		return nil
	})
}

// rollUp sets a waiting whole's progress to the weighted mean of its
// parts', and its start to the first report.
func (c *Client) rollUp(ctx context.Context, tx *ent.Tx, wholeID string) error {
	parts, err := tx.Job.Query().Where(job.BatchID(wholeID)).All(ctx)
	if err != nil {
		return fmt.Errorf("read parts of job %s: %w", wholeID, err)
	}
	var done, all float64
	for _, p := range parts {
		w, _ := p.Metadata[metaWeight].(float64)
		if w <= 0 {
			w = 1
		}
		all += w
		done += w * p.Progress
	}
	if all == 0 {
		return nil
	}
	progress := done / all * PartsShare
	now := c.nowMs()
	if err := tx.Job.Update().Where(job.ID(wholeID), job.StateEQ(Pending), job.ProgressLT(progress)).
		SetProgress(progress).SetUpdatedAt(now).Exec(ctx); err != nil {
		return fmt.Errorf("record progress of job %s: %w", wholeID, err)
	}
	return tx.Job.Update().Where(job.ID(wholeID), job.StateEQ(Pending), job.StartedAtIsNil()).
		SetStartedAt(now).Exec(ctx)
}

// cancelParts cancels the parts of a whole that ended without completing.
func (c *Client) cancelParts(ctx context.Context, tx *ent.Tx, ch *changes, whole *ent.Job) error {
	ids, err := tx.Job.Query().Where(job.BatchID(whole.ID), job.StateIn(unfinished...)).IDs(ctx)
	if err != nil {
		return fmt.Errorf("find parts of job %s: %w", whole.ID, err)
	}
	why := c.upstream(whole, CodeUpstreamCancelled, "ended without completing")
	for _, id := range ids {
		if _, err := c.finish(ctx, tx, ch, id, []predicate.Job{job.ID(id), job.StateIn(unfinished...)}, func(u *ent.JobUpdate) {
			u.SetState(Cancelled).SetErrorCode(why.Code).SetErrorMessage(why.Message)
		}); err != nil {
			return err
		}
	}
	return nil
}
