package media

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"time"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/kinohq/kino/ent/asset"
	mediav1 "github.com/kinohq/kino/gen/kino/media/v1"
	"github.com/kinohq/kino/server/apierr"
	kinoasset "github.com/kinohq/kino/server/asset"
	"github.com/kinohq/kino/server/auth"
	"github.com/kinohq/kino/server/catalog"
	"github.com/kinohq/kino/server/fetch"
	"github.com/kinohq/kino/server/ffmpeg"
	"github.com/kinohq/kino/server/idempotency"
	"github.com/kinohq/kino/server/ident"
	"github.com/kinohq/kino/server/jobs"
	"github.com/kinohq/kino/server/mediajob"
	"github.com/kinohq/kino/server/paging"
	"github.com/kinohq/kino/server/quota"
	"github.com/kinohq/kino/server/storage"
	"github.com/kinohq/kino/server/store"
	"github.com/kinohq/kino/server/usage"
	"github.com/kinohq/kino/server/webhook"
)

// JobService is the JobService implementation.
type JobService struct {
	mediav1.UnimplementedJobServiceServer
	// st holds the assets a job may name.
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

// CheckWebhooks makes the service refuse, at create, a webhook URL that
// check refuses (fetch.Client.CheckHost), and returns it.
func (s *JobService) CheckWebhooks(check func(string) error) *JobService {
	s.checkURL = check
	return s
}

// LimitFFmpeg sets the node's ffmpeg limits, whose pixel bound a client's
// own command is checked against; unset, the defaults.
func (s *JobService) LimitFFmpeg(l ffmpeg.Limits) *JobService {
	s.ffmpeg = l
	return s
}

// NewJobService returns the service; limits checks each create against
// its organisation's limits (nil limits nothing).
func NewJobService(jc *jobs.Client, st *store.Store, storage *storage.Storage, limits *quota.Limiter, log *slog.Logger) *JobService {
	return &JobService{st: st, jobs: jc, storage: storage, quota: limits, log: log}
}

func nowMs() int64 { return time.Now().UnixMilli() }

func ms(since time.Time) int64 { return time.Since(since).Milliseconds() }

// CreateJob validates a job against its type and queues it as waiting.
func (s *JobService) CreateJob(ctx context.Context, req *mediav1.CreateJobRequest) (*mediav1.CreateJobResponse, error) {
	start := time.Now()
	ctx, req, err := idempotency.BodyKey(ctx, req)
	if err != nil {
		return nil, err
	}
	t, ok := catalog.Lookup(req.GetType())
	if !ok {
		if req.GetType() == "" {
			return nil, apierr.New(apierr.Validation, "type: is required; GET /jobs/types lists the job types")
		}
		return nil, apierr.New(apierr.Validation, "type: unknown job type %q; GET /jobs/types lists the job types", req.GetType())
	}
	if p := req.GetPriority(); p < -jobs.MaxPriority || p > jobs.MaxPriority {
		return nil, apierr.New(apierr.Validation, "priority %d: use -100 to 100 (higher runs sooner among your own jobs)", p)
	}
	hook, headers, err := jobWebhook(req, s.checkURL)
	if err != nil {
		return nil, err
	}
	prechecks := ms(start)

	validating := time.Now()
	inputs := req.GetInputs().AsMap()
	params := req.GetParams().AsMap()
	problems := validateJob(t, inputs, params, s.assetMedia(ctx), s.ffmpeg.WithDefaults().MaxPixels)
	if len(problems) == 0 && t.Name == "mockup.render" {
		problems = s.checkMockup(ctx, t, inputs, params)
	}
	if len(problems) > 0 {
		return nil, invalid(problems)
	}
	inputsJSON, err := json.Marshal(inputs)
	if err != nil {
		return nil, apierr.Wrap(err, apierr.Internal, "the inputs could not be stored")
	}
	paramsJSON, err := json.Marshal(params)
	if err != nil {
		return nil, apierr.Wrap(err, apierr.Internal, "the params could not be stored")
	}
	validation := ms(validating)

	args, err := json.Marshal(mediajob.Args{Inputs: inputsJSON, Params: paramsJSON, Webhook: hook, WebhookHeaders: headers})
	if err != nil {
		return nil, apierr.Wrap(err, apierr.Internal, "the job could not be stored")
	}
	inserting := time.Now()
	var j *jobs.Job
	op := idempotency.Op{Kind: mediajob.Kind, Name: "jobs.create", Noun: "job", Failed: "the job could not be queued; try again", Log: s.log}
	id, made, err := idempotency.Jobs(ctx, s.jobs, op, req, func(ctx context.Context, k idempotency.Keyed) (string, error) {
		inserted, err := s.jobs.InsertAdmitted(ctx, s.quota.Jobs(auth.Org(ctx), 1), jobs.NewJob{
			ID:   ident.New(ident.Job),
			Kind: mediajob.Kind, Type: t.Name, Org: auth.Org(ctx), Args: args,
			Metadata: map[string]any{mediajob.MetaAPIPrechecksMs: prechecks, mediajob.MetaAPIValidationMs: validation,
				usage.MetaEstimatedPrice: t.Estimate(params)},
			IdempotencyKey: k.Key, RequestHash: k.Hash, Priority: int(req.GetPriority()),
		})
		if err != nil {
			return "", err
		}
		j = inserted[0]
		return j.ID, nil
	})
	if err != nil {
		return nil, err
	}
	if !made {
		// A repeat answers with the job the first request made, as it is now.
		r, err := s.GetJob(ctx, &mediav1.GetJobRequest{Id: id})
		if err != nil {
			return nil, err
		}
		return &mediav1.CreateJobResponse{Data: r.GetData()}, nil
	}
	// The insert published the job to every idle worker: dispatching is
	// that, and takes no time of its own.
	insert := ms(inserting)
	var dispatch int64

	// The timings of the request itself, measured above, land on the job
	// in one more write; a failure here loses only the figures.
	// The answer is the job as created: a worker may already hold it.
	total := ms(start)
	timings := map[string]any{mediajob.MetaAPIDbInsertMs: insert, mediajob.MetaAPIDispatchMs: dispatch, mediajob.MetaAPITotalMs: total}
	if err := s.jobs.Annotate(ctx, j.ID, timings); err != nil {
		s.log.WarnContext(ctx, "record request timings", "job_id", j.ID, "err", err)
	}
	j.Metadata = map[string]any{usage.MetaEstimatedPrice: t.Estimate(params)}
	for k, v := range map[string]int64{mediajob.MetaAPIPrechecksMs: prechecks, mediajob.MetaAPIValidationMs: validation,
		mediajob.MetaAPIDbInsertMs: insert, mediajob.MetaAPIDispatchMs: dispatch, mediajob.MetaAPITotalMs: total} {
		j.Metadata[k] = float64(v)
	}
	s.log.InfoContext(ctx, "media job queued", "job_id", j.ID, "type", j.Type, "org", j.OrgID)
	rec, err := jobRecord(ctx, s.storage, j)
	if err != nil {
		return nil, apierr.Wrap(err, apierr.Internal, "the job could not be read")
	}
	return &mediav1.CreateJobResponse{Data: rec}, nil
}

// jobWebhook is the URL a job's end is sent to and the headers to send
// with it, from webhook or Rendobar's callback object, checked.
func jobWebhook(req *mediav1.CreateJobRequest, check func(string) error) (string, map[string]string, error) {
	hook, cb := req.GetWebhook(), req.GetCallback()
	field := "webhook"
	if cb != nil {
		switch {
		case cb.GetUrl() == "":
			return "", nil, apierr.New(apierr.Validation, "callback.url: is required")
		case hook != "" && hook != cb.GetUrl():
			return "", nil, apierr.New(apierr.Validation, "webhook and callback.url: give the URL once")
		}
		hook, field = cb.GetUrl(), "callback.url"
		for i, e := range cb.GetEvents() {
			if e != "job.started" {
				return "", nil, apierr.New(apierr.Validation, "callback.events[%d]: unknown event %q; the only one is job.started", i, e)
			}
		}
		if err := webhook.CheckHeaders("callback.headers", cb.GetHeaders()); err != nil {
			return "", nil, err
		}
	}
	if hook == "" {
		return "", nil, nil
	}
	if err := webhook.CheckURL(field, hook, check); err != nil {
		return "", nil, err
	}
	return hook, cb.GetHeaders(), nil
}

// assetMedia tells the media kind of an asset the caller can see, by id.
func (s *JobService) assetMedia(ctx context.Context) func(id string) (string, bool) {
	return func(id string) (string, bool) {
		a, err := kinoasset.Visible(ctx, s.st, auth.Org(ctx), id)
		if err != nil {
			return "", false
		}
		switch a.Type {
		case asset.TypeImage, asset.TypePsdTemplate:
			return catalog.Image, true
		case asset.TypeCaptions:
			return catalog.Subtitles, true
		}
		return "font", true
	}
}

// validateJob checks inputs and params against the type. An input is an
// http(s) URL, whose media kind shows only when the job runs, or the id of
// an asset the caller can see, whose kind must be one the input accepts.
func validateJob(t *catalog.Type, inputs, params map[string]any, assetMedia func(id string) (string, bool), maxPixels int64) []catalog.Problem {
	if t.Command {
		return validateCommand(t, inputs, params, assetMedia, maxPixels)
	}
	var out []catalog.Problem
	names := make([]string, 0, len(inputs))
	for k := range inputs {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, name := range names {
		path := "inputs." + name
		if _, ok := t.Input(name); !ok {
			out = append(out, catalog.Problem{Path: path, Message: fmt.Sprintf("%s has no input %q (inputs: %s)", t.Name, name, inputNames(t))})
			continue
		}
		field, _ := t.Input(name)
		v, ok := inputs[name].(string)
		switch {
		case ok && ident.IsAsset(v):
			kind, found := assetMedia(v)
			if !found {
				out = append(out, catalog.Problem{Path: path, Message: fmt.Sprintf("no asset has the id %q", v)})
			} else if !slices.Contains(field.Media, kind) {
				out = append(out, catalog.Problem{Path: path, Message: fmt.Sprintf("asset %s is %s media; %s takes %s", v, kind, name, strings.Join(field.Media, " or "))})
			}
		case !ok || !fetch.IsHTTPURL(v):
			out = append(out, catalog.Problem{Path: path, Message: "must be an absolute http or https URL, or an asset id"})
		}
	}
	for _, need := range t.Needs() {
		if _, ok := inputs[need]; !ok {
			out = append(out, catalog.Problem{Path: "inputs." + need, Message: "is required"})
		}
	}
	return append(out, t.ValidateParams("params", params)...)
}

func inputNames(t *catalog.Type) string {
	var n []string
	for _, f := range t.Inputs {
		n = append(n, f.Name)
	}
	return strings.Join(n, ", ")
}

// invalid is the VALIDATION_ERROR of a request with these problems: the
// message lists them all, and so do its details, one per field.
func invalid(ps []catalog.Problem) error {
	e := &apierr.Error{Code: apierr.Validation, Message: joinProblems(ps)}
	if len(ps) > 1 {
		for _, p := range ps {
			e.Fields = append(e.Fields, apierr.FieldProblem{Field: p.Path, Message: p.Message})
		}
	}
	return e
}

func joinProblems(ps []catalog.Problem) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = p.String()
	}
	return strings.Join(parts, "; ")
}

// GetJob reads a job of the caller's organisation.
func (s *JobService) GetJob(ctx context.Context, req *mediav1.GetJobRequest) (*mediav1.GetJobResponse, error) {
	j, err := s.get(ctx, req.GetId())
	if err != nil {
		return nil, err
	}
	rec, err := jobRecord(ctx, s.storage, j)
	if err != nil {
		return nil, apierr.Wrap(err, apierr.Internal, "the job could not be read")
	}
	return &mediav1.GetJobResponse{Data: rec}, nil
}

func (s *JobService) get(ctx context.Context, id string) (*jobs.Job, error) {
	j, err := s.jobs.Get(ctx, mediajob.Kind, auth.Org(ctx), id)
	if errors.Is(err, jobs.ErrNotFound) {
		return nil, apierr.New(apierr.JobNotFound, "no job has the id %q", id)
	}
	if err != nil {
		return nil, apierr.Wrap(err, apierr.Internal, "the job could not be read; try again")
	}
	return j, nil
}

// ListJobs lists the caller's jobs, newest first.
func (s *JobService) ListJobs(ctx context.Context, req *mediav1.ListJobsRequest) (*mediav1.ListJobsResponse, error) {
	limit, offset, err := paging.Parse(req.GetLimit(), req.GetOffset())
	if err != nil {
		return nil, err
	}
	f := jobs.Filter{Kind: mediajob.Kind, Org: auth.Org(ctx)}
	if st := req.GetStatus(); st != "" {
		if !slices.Contains(Statuses, st) {
			return nil, apierr.New(apierr.Validation, "status: must be one of %s", strings.Join(Statuses, ", "))
		}
		f.Phases = []jobs.Phase{statusIs(st)}
	}
	if ty := req.GetType(); ty != "" {
		if _, ok := catalog.Lookup(ty); !ok {
			return nil, apierr.New(apierr.Validation, "type: unknown job type %q; GET /jobs/types lists them", ty)
		}
		f.Type = ty
	}
	total, found, err := s.jobs.List(ctx, f, limit, offset)
	if err != nil {
		return nil, apierr.Wrap(err, apierr.Internal, "the jobs could not be listed; try again")
	}
	resp := &mediav1.ListJobsResponse{
		Data: make([]*mediav1.Job, 0, len(found)),
		Meta: &mediav1.JobListMeta{Total: int32(total), Page: int32(paging.Page(limit, offset)), Limit: int32(limit)},
	}
	for _, j := range found {
		rec, err := jobRecord(ctx, s.storage, j)
		if err != nil {
			return nil, apierr.Wrap(err, apierr.Internal, "the jobs could not be listed")
		}
		resp.Data = append(resp.Data, rec)
	}
	return resp, nil
}

// CancelJob moves a job that has not ended to cancelled.
func (s *JobService) CancelJob(ctx context.Context, req *mediav1.CancelJobRequest) (*mediav1.CancelJobResponse, error) {
	j, err := s.get(ctx, req.GetId())
	if err != nil {
		return nil, err
	}
	j, err = s.jobs.Cancel(ctx, j.ID)
	var notCancellable *jobs.NotCancellableError
	switch {
	case errors.As(err, &notCancellable):
		if j, err = s.get(ctx, req.GetId()); err != nil {
			return nil, err
		}
		return nil, apierr.New(apierr.JobNotCancellable, "job %s is already in a terminal state (%s) and cannot be cancelled", j.ID, Status(j))
	case err != nil:
		return nil, apierr.Wrap(err, apierr.Internal, "the job could not be cancelled; try again")
	}
	rec, err := jobRecord(ctx, s.storage, j)
	if err != nil {
		return nil, apierr.Wrap(err, apierr.Internal, "the job could not be read")
	}
	return &mediav1.CancelJobResponse{Data: rec}, nil
}

// WatchJob streams the job until it ends.
func (s *JobService) WatchJob(req *mediav1.WatchJobRequest, stream mediav1.JobService_WatchJobServer) error {
	ctx := stream.Context()
	return jobs.Watch(ctx, s.jobs, []string{req.GetId()}, func() (*mediav1.Job, bool, error) {
		j, err := s.get(ctx, req.GetId())
		if err != nil {
			return nil, false, err
		}
		rec, err := jobRecord(ctx, s.storage, j)
		if err != nil {
			return nil, false, apierr.Wrap(err, apierr.Internal, "the job could not be read")
		}
		return rec, jobs.Final(j.State), nil
	}, func(rec *mediav1.Job) error {
		return stream.Send(&mediav1.WatchJobResponse{Data: rec})
	})
}

// ListJobTypes publishes the catalogue.
func (s *JobService) ListJobTypes(context.Context, *mediav1.ListJobTypesRequest) (*mediav1.ListJobTypesResponse, error) {
	resp := &mediav1.ListJobTypesResponse{}
	for _, t := range catalog.All() {
		jt, err := jobType(t)
		if err != nil {
			return nil, apierr.Wrap(err, apierr.Internal, "the catalogue could not be written")
		}
		resp.Data = append(resp.Data, jt)
	}
	return resp, nil
}

func jobType(t *catalog.Type) (*mediav1.JobType, error) {
	overrides, err := structpb.NewStruct(t.MediaOverrides)
	if err != nil {
		return nil, err
	}
	schema, err := structpb.NewStruct(catalog.Schema(t.Params))
	if err != nil {
		return nil, err
	}
	fields := func(fs []catalog.Field) []*mediav1.JobTypeField {
		out := make([]*mediav1.JobTypeField, len(fs))
		for i, f := range fs {
			out[i] = &mediav1.JobTypeField{Name: f.Name, Media: f.Media, Required: f.Required, Description: f.Description}
		}
		return out
	}
	return &mediav1.JobType{
		Type: t.Name, Tag: t.Tag, Summary: t.Summary, Needs: t.Needs(), Pattern: t.Pattern,
		AcceptsMedia: t.AcceptsMedia, Provider: &mediav1.JobTypeProvider{Id: t.ProviderID, Resource: t.Resource},
		MediaOverrides: overrides, Inputs: fields(t.Inputs), Outputs: fields(t.Outputs),
		ParamsSchema: schema, CostModel: t.CostModel(),
	}, nil
}
