package jobrun

import (
	"context"
	"encoding/json"
	"fmt"

	"google.golang.org/protobuf/encoding/protojson"

	"github.com/kinohq/kino/ent"
	"github.com/kinohq/kino/ent/job"
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

// cancelDownstream cancels every job of the run that depends, directly or
// not, on a job that failed: they can no longer run.
func (r *Runner) cancelDownstream(ctx context.Context, j *ent.Job) {
	if j.PipelineID == nil || j.BatchID == nil || j.PipelineNodeID == nil {
		return
	}
	g, err := r.graph(ctx, j)
	if err != nil {
		r.cfg.Log.Error("read pipeline of a failed job", "job_id", j.ID, "err", err)
		return
	}
	seen := map[string]bool{*j.PipelineNodeID: true}
	queue := []string{*j.PipelineNodeID}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, e := range g.GetEdges() {
			if e.GetFrom() == n && !seen[e.GetTo()] {
				seen[e.GetTo()] = true
				queue = append(queue, e.GetTo())
			}
		}
	}
	delete(seen, *j.PipelineNodeID)
	for node := range seen {
		now := nowMs()
		n, err := r.cfg.Store.Job.Update().
			Where(job.BatchID(*j.BatchID), job.PipelineNodeID(node), job.StatusIn(job.StatusWaiting, job.StatusDispatched, job.StatusRunning)).
			SetStatus(job.StatusCancelled).SetErrorCode("UPSTREAM_FAILED").
			SetErrorMessage(fmt.Sprintf("node %s failed, so this node cannot run", *j.PipelineNodeID)).
			SetCompletedAt(now).SetUpdatedAt(now).Save(ctx)
		if err == nil && n > 0 {
			if down, err := r.cfg.Store.Job.Query().Where(job.BatchID(*j.BatchID), job.PipelineNodeID(node)).Only(ctx); err == nil {
				r.Abort(down.ID)
				r.cfg.Broker.Publish(down.ID)
			}
		}
	}
}
