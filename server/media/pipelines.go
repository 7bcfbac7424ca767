package media

import (
	"context"
	"log/slog"

	"google.golang.org/protobuf/encoding/protojson"

	"github.com/kinohq/kino/ent"
	entpipeline "github.com/kinohq/kino/ent/pipeline"
	mediav1 "github.com/kinohq/kino/gen/kino/media/v1"
	"github.com/kinohq/kino/server/apierr"
	"github.com/kinohq/kino/server/auth"
	"github.com/kinohq/kino/server/dag"
	"github.com/kinohq/kino/server/ffmpeg"
	"github.com/kinohq/kino/server/ident"
	"github.com/kinohq/kino/server/jobs"
	"github.com/kinohq/kino/server/paging"
	"github.com/kinohq/kino/server/quota"
	"github.com/kinohq/kino/server/storage"
	"github.com/kinohq/kino/server/store"
)

// PipelineService is the PipelineService implementation.
type PipelineService struct {
	mediav1.UnimplementedPipelineServiceServer
	// st holds the pipelines; their runs are jobs.
	st      *store.Store
	jobs    *jobs.Client
	storage *storage.Storage
	quota   *quota.Limiter
	log     *slog.Logger
	// checkURL refuses webhooks kino may never call; nil refuses none.
	checkURL func(string) error
	// ffmpeg are the node's limits (LimitFFmpeg).
	ffmpeg ffmpeg.Limits
}

// CheckWebhooks makes the service refuse, at a run, a webhook URL that
// check refuses (fetch.Client.CheckHost), and returns it.
func (s *PipelineService) CheckWebhooks(check func(string) error) *PipelineService {
	s.checkURL = check
	return s
}

// LimitFFmpeg sets the node's ffmpeg limits, whose pixel bound the
// commands of a pipeline's raw.ffmpeg nodes are checked against; unset,
// the defaults.
func (s *PipelineService) LimitFFmpeg(l ffmpeg.Limits) *PipelineService {
	s.ffmpeg = l
	return s
}

// NewPipelineService returns the service; limits checks each run against
// its organisation's limits (nil limits nothing).
func NewPipelineService(jc *jobs.Client, st *store.Store, storage *storage.Storage, limits *quota.Limiter, log *slog.Logger) *PipelineService {
	return &PipelineService{st: st, jobs: jc, storage: storage, quota: limits, log: log}
}

// spec turns the request into what dag.Validate checks.
func spec(req *mediav1.CreatePipelineRequest) dag.Spec {
	s := dag.Spec{Name: req.GetName(), Description: req.GetDescription()}
	for _, n := range req.GetNodes() {
		s.Nodes = append(s.Nodes, dag.Node{ID: n.GetId(), JobType: n.GetJobType(), Params: n.GetParams().AsMap()})
	}
	for _, e := range req.GetEdges() {
		s.Edges = append(s.Edges, dag.Edge{From: e.GetFrom(), To: e.GetTo(),
			SourceField: e.GetOutputMapping().GetSourceField(), TargetField: e.GetOutputMapping().GetTargetField()})
	}
	return s
}

// CreatePipeline validates a pipeline, reporting every problem at once, and stores it.
func (s *PipelineService) CreatePipeline(ctx context.Context, req *mediav1.CreatePipelineRequest) (*mediav1.CreatePipelineResponse, error) {
	if problems := dag.Validate(spec(req), s.ffmpeg.WithDefaults().MaxPixels); len(problems) > 0 {
		return nil, invalid(problems)
	}
	graph, err := protojson.Marshal(&mediav1.Pipeline{Nodes: req.GetNodes(), Edges: req.GetEdges()})
	if err != nil {
		return nil, apierr.Wrap(err, apierr.Internal, "the pipeline could not be stored")
	}
	now := nowMs()
	p, err := s.st.Pipeline.Create().
		SetID(ident.New(ident.Pipeline)).
		SetOrgID(auth.Org(ctx)).
		SetName(req.GetName()).
		SetDescription(req.GetDescription()).
		SetGraph(graph).
		SetCreatedAt(now).
		SetUpdatedAt(now).
		Save(ctx)
	if err != nil {
		s.log.ErrorContext(ctx, "store pipeline", "err", err)
		return nil, apierr.Wrap(err, apierr.TriggerSubmitFailed, "the pipeline could not be stored; try again")
	}
	rec, err := pipelineRecord(p)
	if err != nil {
		return nil, err
	}
	return &mediav1.CreatePipelineResponse{Data: rec}, nil
}

// GetPipeline reads a pipeline of the caller's organisation.
func (s *PipelineService) GetPipeline(ctx context.Context, req *mediav1.GetPipelineRequest) (*mediav1.GetPipelineResponse, error) {
	p, err := s.st.Pipeline.Query().Where(entpipeline.ID(req.GetId()), entpipeline.OrgID(auth.Org(ctx))).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apierr.New(apierr.PipelineNotFound, "no pipeline has the id %q", req.GetId())
	}
	if err != nil {
		return nil, apierr.Wrap(err, apierr.Internal, "the pipeline could not be read; try again")
	}
	rec, err := pipelineRecord(p)
	if err != nil {
		return nil, err
	}
	return &mediav1.GetPipelineResponse{Data: rec}, nil
}

// ListPipelines lists the caller's pipelines, newest first.
func (s *PipelineService) ListPipelines(ctx context.Context, req *mediav1.ListPipelinesRequest) (*mediav1.ListPipelinesResponse, error) {
	limit, offset, err := paging.Parse(req.GetLimit(), req.GetOffset())
	if err != nil {
		return nil, err
	}
	q := s.st.Pipeline.Query().Where(entpipeline.OrgID(auth.Org(ctx)))
	total, err := q.Clone().Count(ctx)
	if err != nil {
		return nil, apierr.Wrap(err, apierr.Internal, "the pipelines could not be listed; try again")
	}
	ps, err := q.Order(ent.Desc(entpipeline.FieldCreatedAt), ent.Desc(entpipeline.FieldID)).Limit(limit).Offset(offset).All(ctx)
	if err != nil {
		return nil, apierr.Wrap(err, apierr.Internal, "the pipelines could not be listed; try again")
	}
	resp := &mediav1.ListPipelinesResponse{
		Data: make([]*mediav1.Pipeline, 0, len(ps)),
		Meta: &mediav1.PipelineListMeta{Total: int32(total), Page: int32(paging.Page(limit, offset)), Limit: int32(limit)},
	}
	for _, p := range ps {
		rec, err := pipelineRecord(p)
		if err != nil {
			return nil, err
		}
		resp.Data = append(resp.Data, rec)
	}
	return resp, nil
}

func pipelineRecord(p *ent.Pipeline) (*mediav1.Pipeline, error) {
	rec := &mediav1.Pipeline{}
	if err := protojson.Unmarshal(p.Graph, rec); err != nil {
		return nil, apierr.Wrap(err, apierr.Internal, "the pipeline could not be read")
	}
	rec.Id, rec.OrgId, rec.Name, rec.Description = p.ID, p.OrgID, p.Name, p.Description
	rec.CreatedAt, rec.UpdatedAt = float64(p.CreatedAt), float64(p.UpdatedAt)
	return rec, nil
}
