package media

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"

	"github.com/kinohq/kino/ent"
	entpipeline "github.com/kinohq/kino/ent/pipeline"
	mediav1 "github.com/kinohq/kino/gen/kino/media/v1"
	"github.com/kinohq/kino/server/apierr"
	"github.com/kinohq/kino/server/auth"
	"github.com/kinohq/kino/server/catalog"
	"github.com/kinohq/kino/server/fetch"
	"github.com/kinohq/kino/server/idempotency"
	"github.com/kinohq/kino/server/ident"
	"github.com/kinohq/kino/server/jobs"
	"github.com/kinohq/kino/server/mediajob"
	"github.com/kinohq/kino/server/paging"
	"github.com/kinohq/kino/server/storage"
	"github.com/kinohq/kino/server/usage"
	"github.com/kinohq/kino/server/webhook"
)

func (s *PipelineService) load(ctx context.Context, id string) (*ent.Pipeline, *mediav1.Pipeline, error) {
	p, err := s.st.Pipeline.Query().Where(entpipeline.ID(id), entpipeline.OrgID(auth.Org(ctx))).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, nil, apierr.New(apierr.PipelineNotFound, "no pipeline has the id %q", id)
	}
	if err != nil {
		return nil, nil, apierr.Wrap(err, apierr.Internal, "the pipeline could not be read; try again")
	}
	g := &mediav1.Pipeline{}
	if err := protojson.Unmarshal(p.Graph, g); err != nil {
		return nil, nil, apierr.Wrap(err, apierr.Internal, "the pipeline could not be read")
	}
	return p, g, nil
}

// RunPipeline creates one job per node. Inputs that no edge feeds come from
// the request; the others are filled in as upstream jobs complete, and a
// job is claimable once every upstream node has completed.
func (s *PipelineService) RunPipeline(ctx context.Context, req *mediav1.RunPipelineRequest) (*mediav1.RunPipelineResponse, error) {
	p, g, err := s.load(ctx, req.GetId())
	if err != nil {
		return nil, err
	}
	if req.GetWebhook() != "" {
		if err := webhook.CheckURL("webhook", req.GetWebhook(), s.checkURL); err != nil {
			return nil, err
		}
	}
	given := req.GetInputs().AsMap()
	fed := map[string]map[string]bool{}
	// upstream[to][from] maps the inputs of node to that node from feeds:
	// input field -> output field.
	upstream := map[string]map[string]map[string]string{}
	for _, e := range g.GetEdges() {
		if fed[e.GetTo()] == nil {
			fed[e.GetTo()], upstream[e.GetTo()] = map[string]bool{}, map[string]map[string]string{}
		}
		if upstream[e.GetTo()][e.GetFrom()] == nil {
			upstream[e.GetTo()][e.GetFrom()] = map[string]string{}
		}
		fed[e.GetTo()][e.GetOutputMapping().GetTargetField()] = true
		upstream[e.GetTo()][e.GetFrom()][e.GetOutputMapping().GetTargetField()] = e.GetOutputMapping().GetSourceField()
	}
	var problems []catalog.Problem
	nodeInputs := map[string]map[string]any{}
	known := map[string]bool{}
	for _, n := range g.GetNodes() {
		known[n.GetId()] = true
		t, _ := catalog.Lookup(n.GetJobType())
		mine, _ := given[n.GetId()].(map[string]any)
		if given[n.GetId()] != nil && mine == nil {
			problems = append(problems, catalog.Problem{Path: "inputs." + n.GetId(), Message: "must be an object of input fields"})
		}
		ins := map[string]any{}
		for field, v := range mine {
			path := fmt.Sprintf("inputs.%s.%s", n.GetId(), field)
			if _, ok := t.Input(field); !ok {
				problems = append(problems, catalog.Problem{Path: path, Message: fmt.Sprintf("%s has no input %q", t.Name, field)})
				continue
			}
			if fed[n.GetId()][field] {
				problems = append(problems, catalog.Problem{Path: path, Message: "is fed by an edge of the pipeline; do not give it"})
				continue
			}
			if sv, ok := v.(string); !ok || (!fetch.IsHTTPURL(sv) && !ident.IsAsset(sv)) {
				problems = append(problems, catalog.Problem{Path: path, Message: "must be an absolute http or https URL, or an asset id"})
				continue
			}
			ins[field] = v
		}
		for _, need := range t.Needs() {
			if _, ok := ins[need]; !ok && !fed[n.GetId()][need] {
				problems = append(problems, catalog.Problem{Path: fmt.Sprintf("inputs.%s.%s", n.GetId(), need), Message: "is required: no edge feeds it"})
			}
		}
		nodeInputs[n.GetId()] = ins
	}
	var unknown []string
	for id := range given {
		if !known[id] {
			unknown = append(unknown, id)
		}
	}
	sort.Strings(unknown)
	for _, id := range unknown {
		// "extract.source" is how the CLI's --input names a node's field;
		// over REST the node is an object of its fields.
		if node, field, ok := strings.Cut(id, "."); ok && known[node] {
			problems = slices.DeleteFunc(problems, func(p catalog.Problem) bool {
				return p.Path == "inputs."+id && p.Message == "is required: no edge feeds it"
			})
			problems = append(problems, catalog.Problem{Path: "inputs." + id,
				Message: fmt.Sprintf(`names node %q and its input %q as the command line does; in the request body write "inputs": {%q: {%q: …}}`, node, field, node, field)})
			continue
		}
		problems = append(problems, catalog.Problem{Path: "inputs." + id, Message: "no node has this id"})
	}
	if len(problems) > 0 {
		return nil, invalid(problems)
	}

	op := idempotency.Op{Kind: mediajob.Kind, Name: "pipelines.run", Noun: "run", Failed: "the run could not be started; try again",
		ID: func(j *jobs.Job) string {
			if j.BatchID == nil {
				return j.ID // a job's key, which a run's hash never matches
			}
			return *j.BatchID
		}}
	runID, _, err := idempotency.Jobs(ctx, s.jobs, op, req, func(ctx context.Context, k idempotency.Keyed) (string, error) {
		runID := ident.New(ident.Run)
		idOf := map[string]string{}
		for i, n := range g.GetNodes() {
			idOf[n.GetId()] = fmt.Sprintf("job_%s%02d", strings.TrimPrefix(runID, "run_")[:30], i)
		}
		var batch []jobs.NewJob
		now := nowMs()
		for i, n := range g.GetNodes() {
			t, _ := catalog.Lookup(n.GetJobType())
			inJSON, _ := json.Marshal(nodeInputs[n.GetId()])
			pJSON, _ := json.Marshal(n.GetParams().AsMap())
			args, err := json.Marshal(mediajob.Args{Inputs: inJSON, Params: pJSON, RunWebhook: req.GetWebhook()})
			if err != nil {
				return "", err
			}
			nj := jobs.NewJob{ID: idOf[n.GetId()], Kind: mediajob.Kind, Type: t.Name, Org: p.OrgID, Args: args,
				BatchID: runID, PipelineID: p.ID, NodeID: n.GetId(),
				Metadata: map[string]any{usage.MetaEstimatedPrice: t.Estimate(n.GetParams().AsMap())},
				// Node order is creation order, so a run lists its jobs as the pipeline does.
				CreatedAt: now}
			for from, inputs := range upstream[n.GetId()] {
				nj.Parents = append(nj.Parents, jobs.Parent{ID: idOf[from], Inputs: inputs})
			}
			sort.Slice(nj.Parents, func(a, b int) bool { return nj.Parents[a].ID < nj.Parents[b].ID })
			if i == 0 {
				// The run's key, on its first job: the unique index makes it one run.
				nj.IdempotencyKey, nj.RequestHash = k.Key, k.Hash
			}
			batch = append(batch, nj)
		}
		// Every node of a run is a job waiting until it runs.
		if _, err := s.jobs.InsertAdmitted(ctx, s.quota.Jobs(p.OrgID, len(batch)), batch...); err != nil {
			return "", err
		}
		return runID, nil
	})
	if err != nil {
		return nil, err
	}
	// A repeat answers with the run the first request started, as it is now.
	run, err := s.run(ctx, p.ID, runID)
	if err != nil {
		return nil, err
	}
	return &mediav1.RunPipelineResponse{Data: run}, nil
}

// run reads a run: its jobs and the status they add up to.
func (s *PipelineService) run(ctx context.Context, pipelineID, runID string) (*mediav1.PipelineRun, error) {
	js, err := s.jobs.Batch(ctx, jobs.Filter{Kind: mediajob.Kind, Org: auth.Org(ctx), PipelineID: pipelineID, BatchID: runID})
	if err != nil {
		return nil, apierr.Wrap(err, apierr.Internal, "the run could not be read; try again")
	}
	if len(js) == 0 {
		return nil, apierr.New(apierr.NotFound, "pipeline %s has no run %q", pipelineID, runID)
	}
	return runRecord(ctx, s.storage, pipelineID, runID, js)
}

// runRecord is the wire form of a run from its jobs, in id order.
func runRecord(ctx context.Context, st *storage.Storage, pipelineID, runID string, js []*jobs.Job) (*mediav1.PipelineRun, error) {
	run := &mediav1.PipelineRun{Id: runID, PipelineId: pipelineID, Status: RunStatus(js), CreatedAt: float64(js[0].CreatedAt)}
	for _, j := range js {
		rec, err := jobRecord(ctx, st, j)
		if err != nil {
			return nil, apierr.Wrap(err, apierr.Internal, "the run could not be read")
		}
		run.Jobs = append(run.Jobs, rec)
	}
	return run, nil
}

// ListPipelineRuns lists a pipeline's runs, newest first, paged as jobs
// are. A run is its jobs (their batchId), so the page of run ids comes
// from grouping them.
func (s *PipelineService) ListPipelineRuns(ctx context.Context, req *mediav1.ListPipelineRunsRequest) (*mediav1.ListPipelineRunsResponse, error) {
	if _, _, err := s.load(ctx, req.GetId()); err != nil {
		return nil, err
	}
	limit, offset, err := paging.Parse(req.GetLimit(), req.GetOffset())
	if err != nil {
		return nil, err
	}
	of := jobs.Filter{Kind: mediajob.Kind, Org: auth.Org(ctx), PipelineID: req.GetId()}
	failed := func(err error) error {
		return apierr.Wrap(err, apierr.Internal, "the runs could not be listed; try again")
	}
	total, ids, err := s.jobs.Batches(ctx, of, limit, offset)
	if err != nil {
		return nil, failed(err)
	}
	var found []*jobs.Job
	if len(ids) > 0 {
		if found, err = s.jobs.Batch(ctx, of, ids...); err != nil {
			return nil, failed(err)
		}
	}
	byRun := map[string][]*jobs.Job{}
	for _, j := range found {
		byRun[*j.BatchID] = append(byRun[*j.BatchID], j)
	}
	resp := &mediav1.ListPipelineRunsResponse{
		Data: make([]*mediav1.PipelineRun, 0, len(ids)),
		Meta: &mediav1.PipelineListMeta{Total: int32(total), Page: int32(paging.Page(limit, offset)), Limit: int32(limit)},
	}
	for _, id := range ids {
		run, err := runRecord(ctx, s.storage, req.GetId(), id, byRun[id])
		if err != nil {
			return nil, err
		}
		resp.Data = append(resp.Data, run)
	}
	return resp, nil
}

// RunStatus adds up the statuses of a run's jobs: failed if one failed,
// cancelled if one was cancelled, complete when all are, running once one
// has started, waiting before.
func RunStatus(js []*jobs.Job) string {
	count := map[string]int{}
	for _, j := range js {
		count[Status(j)]++
	}
	switch {
	case count["failed"] > 0:
		return "failed"
	case count["cancelled"] > 0:
		return "cancelled"
	case count["complete"] == len(js):
		return "complete"
	case count["dispatched"]+count["running"]+count["complete"] > 0:
		return "running"
	}
	return "waiting"
}

// GetPipelineRun reads a run.
func (s *PipelineService) GetPipelineRun(ctx context.Context, req *mediav1.GetPipelineRunRequest) (*mediav1.GetPipelineRunResponse, error) {
	if _, _, err := s.load(ctx, req.GetId()); err != nil {
		return nil, err
	}
	run, err := s.run(ctx, req.GetId(), req.GetRunId())
	if err != nil {
		return nil, err
	}
	return &mediav1.GetPipelineRunResponse{Data: run}, nil
}

// CancelPipelineRun cancels every job of the run that has not ended.
func (s *PipelineService) CancelPipelineRun(ctx context.Context, req *mediav1.CancelPipelineRunRequest) (*mediav1.CancelPipelineRunResponse, error) {
	if _, _, err := s.load(ctx, req.GetId()); err != nil {
		return nil, err
	}
	run, err := s.run(ctx, req.GetId(), req.GetRunId())
	if err != nil {
		return nil, err
	}
	if err := s.jobs.CancelBatch(ctx, run.GetId()); err != nil {
		return nil, apierr.Wrap(err, apierr.Internal, "the run could not be cancelled; try again")
	}
	if run, err = s.run(ctx, req.GetId(), req.GetRunId()); err != nil {
		return nil, err
	}
	return &mediav1.CancelPipelineRunResponse{Data: run}, nil
}

// WatchPipelineRun streams the run until it ends.
func (s *PipelineService) WatchPipelineRun(req *mediav1.WatchPipelineRunRequest, stream mediav1.PipelineService_WatchPipelineRunServer) error {
	ctx := stream.Context()
	if _, _, err := s.load(ctx, req.GetId()); err != nil {
		return err
	}
	run, err := s.run(ctx, req.GetId(), req.GetRunId())
	if err != nil {
		return err
	}
	ids := make([]string, len(run.GetJobs()))
	for i, j := range run.GetJobs() {
		ids[i] = j.GetId()
	}
	read := false
	return jobs.Watch(ctx, s.jobs, ids, func() (*mediav1.PipelineRun, bool, error) {
		if read { // the first read is the one above
			if run, err = s.run(ctx, req.GetId(), req.GetRunId()); err != nil {
				return nil, false, err
			}
		}
		read = true
		switch run.GetStatus() {
		case "complete", "failed", "cancelled":
			return run, true, nil
		}
		return run, false, nil
	}, func(run *mediav1.PipelineRun) error {
		return stream.Send(&mediav1.WatchPipelineRunResponse{Data: run})
	})
}
