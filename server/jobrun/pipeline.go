package jobrun

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"google.golang.org/protobuf/encoding/protojson"

	"github.com/kinohq/kino/ent"
	"github.com/kinohq/kino/ent/job"
	"github.com/kinohq/kino/ent/predicate"
	mediav1 "github.com/kinohq/kino/gen/kino/media/v1"
)

// graph reads the pipeline of a pipeline job.
func (r *Runner) graph(ctx context.Context, j *ent.Job) (*mediav1.Pipeline, error) {
	p, err := r.cfg.Store.Pipeline.Get(ctx, *j.PipelineID)
	if err != nil {
		return nil, fmt.Errorf("read pipeline %s: %w", *j.PipelineID, err)
	}
	g := &mediav1.Pipeline{}
	return g, protojson.Unmarshal(p.Graph, g)
}

// propagate copies the outputs of a completed pipeline job into the inputs
// of the nodes its edges feed, and counts it off their pending inputs; a
// node with none left becomes claimable.
func (r *Runner) propagate(ctx context.Context, j *ent.Job, outputs map[string]any) error {
	if j.PipelineID == nil || j.BatchID == nil || j.PipelineNodeID == nil {
		return nil
	}
	g, err := r.graph(ctx, j)
	if err != nil {
		return err
	}
	fields := map[string]map[string]any{} // downstream node -> field -> value
	for _, e := range g.GetEdges() {
		if e.GetFrom() != *j.PipelineNodeID {
			continue
		}
		if fields[e.GetTo()] == nil {
			fields[e.GetTo()] = map[string]any{}
		}
		fields[e.GetTo()][e.GetOutputMapping().GetTargetField()] = outputs[e.GetOutputMapping().GetSourceField()]
	}
	if len(fields) == 0 {
		return nil
	}
	tx, err := r.cfg.Store.Tx(ctx)
	if err != nil {
		return err
	}
	for node, set := range fields {
		down, err := tx.Job.Query().Where(job.BatchID(*j.BatchID), job.PipelineNodeID(node)).Only(ctx)
		if err != nil {
			tx.Rollback()
			return fmt.Errorf("find node %s of run %s: %w", node, *j.BatchID, err)
		}
		inputs := map[string]any{}
		_ = json.Unmarshal([]byte(down.Inputs), &inputs)
		for k, v := range set {
			inputs[k] = v
		}
		b, _ := json.Marshal(inputs)
		if err := tx.Job.UpdateOne(down).SetInputs(string(b)).AddPendingInputs(-1).SetUpdatedAt(nowMs()).Exec(ctx); err != nil {
			tx.Rollback()
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	r.Wake()
	return nil
}

// fail records the failure of a job this runner holds; see failWhere.
func (r *Runner) fail(j *ent.Job, f failure, logsKey string) error {
	return r.failWhere(j, f, logsKey, r.owned(j.ID)...)
}

// failWhere records a job's failure if the job still matches where and,
// for a pipeline job, cancels in the same transaction every node that
// depends on it (they can no longer run), so that nobody reads a failed run
// whose dependants still wait. logsKey, when set, is the attempt's stored
// ffmpeg log. A job that no longer matches is left alone.
func (r *Runner) failWhere(j *ent.Job, f failure, logsKey string, where ...predicate.Job) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var down []string
	if j.PipelineID != nil && j.BatchID != nil && j.PipelineNodeID != nil {
		g, err := r.graph(ctx, j)
		if err != nil {
			return err
		}
		down = dependants(g, *j.PipelineNodeID)
	}
	tx, err := r.cfg.Store.Tx(ctx)
	if err != nil {
		return err
	}
	now := nowMs()
	u := tx.Job.Update().Where(where...).
		SetStatus(job.StatusFailed).SetErrorCode(f.code).SetErrorMessage(f.message).SetCompletedAt(now).SetUpdatedAt(now).
		ClearLeaseOwner().ClearLeaseExpiresAt()
	if logsKey != "" {
		u.SetLogsRef(logsKey)
	}
	n, err := u.Save(ctx)
	if err != nil || n == 0 {
		tx.Rollback()
		return err
	}
	var cancelled []string
	for _, node := range down {
		d, err := tx.Job.Query().Where(job.BatchID(*j.BatchID), job.PipelineNodeID(node),
			job.StatusIn(job.StatusWaiting, job.StatusDispatched, job.StatusRunning)).Only(ctx)
		if ent.IsNotFound(err) {
			continue
		}
		if err != nil {
			tx.Rollback()
			return err
		}
		err = tx.Job.UpdateOne(d).SetStatus(job.StatusCancelled).SetErrorCode("UPSTREAM_FAILED").
			SetErrorMessage(fmt.Sprintf("node %s failed, so this node cannot run", *j.PipelineNodeID)).
			SetCompletedAt(now).SetUpdatedAt(now).Exec(ctx)
		if err != nil {
			tx.Rollback()
			return err
		}
		cancelled = append(cancelled, d.ID)
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	r.cfg.Broker.Publish(j.ID)
	for _, id := range cancelled {
		r.Abort(id)
		r.cfg.Broker.Publish(id)
	}
	return nil
}

// dependants are the nodes reachable from node along the edges.
func dependants(g *mediav1.Pipeline, node string) []string {
	seen := map[string]bool{node: true}
	queue := []string{node}
	var out []string
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, e := range g.GetEdges() {
			if e.GetFrom() == n && !seen[e.GetTo()] {
				seen[e.GetTo()] = true
				queue = append(queue, e.GetTo())
				out = append(out, e.GetTo())
			}
		}
	}
	return out
}
