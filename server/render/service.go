// Package render is the render API, kino.render.v1's RenderService and
// TemplateService: validation and persistence of render jobs on the
// request path (a split render's parts included), their records, lists
// and watches, previews checked and handed to a Drawer, templates, and the
// webhook payloads of renders that ended. The worker that renders them is
// package renderrun; what both read of a render job is package renderjob.
package render

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/url"
	"slices"
	"time"

	"github.com/google/uuid"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	renderv1 "github.com/kinohq/kino/gen/kino/render/v1"
	"github.com/kinohq/kino/server/apierr"
	"github.com/kinohq/kino/server/auth"
	"github.com/kinohq/kino/server/engine"
	"github.com/kinohq/kino/server/idempotency"
	"github.com/kinohq/kino/server/jobs"
	"github.com/kinohq/kino/server/quota"
	"github.com/kinohq/kino/server/renderjob"
	"github.com/kinohq/kino/server/storage"
	"github.com/kinohq/kino/server/store"
	"github.com/kinohq/kino/server/webhook"
)

const maxWebhookURL = 2048

// Service is the RenderService implementation.
type Service struct {
	renderv1.UnimplementedRenderServiceServer

	// st holds the templates and assets a render may name, and the
	// deliveries of its webhook.
	st      *store.Store
	jobs    *jobs.Client
	storage *storage.Storage
	limits  engine.Limits
	// checkURL refuses webhooks kino may never call; nil accepts all.
	checkURL func(string) error
	split    SplitConfig
	quota    *quota.Limiter
	health   *healthCheck
	// preview draws previews; nil on a node that draws none.
	preview Drawer
	log     *slog.Logger
}

// ServiceConfig is what the service needs.
type ServiceConfig struct {
	Store   *store.Store
	Jobs    *jobs.Client
	Storage *storage.Storage
	Limits  engine.Limits
	// CheckURL refuses a webhook URL that kino would never be allowed to
	// call (fetch.Client.CheckHost); nil accepts every URL.
	CheckURL func(string) error
	// Split says which renders are split across workers.
	Split SplitConfig
	// Quota checks each submit against its organisation's limits; nil
	// limits nothing.
	Quota *quota.Limiter
	// Preview draws the frames of PreviewRender; nil answers UNAVAILABLE.
	Preview Drawer
	Log     *slog.Logger
}

// NewService returns the service.
func NewService(cfg ServiceConfig) *Service {
	return &Service{
		st:       cfg.Store,
		jobs:     cfg.Jobs,
		storage:  cfg.Storage,
		limits:   cfg.Limits,
		checkURL: cfg.CheckURL,
		split:    cfg.Split,
		quota:    cfg.Quota,
		health:   newHealthCheck(cfg.Store, cfg.Log),
		preview:  cfg.Preview,
		log:      cfg.Log,
	}
}

// SubmitRender validates the composition and queues it.
func (s *Service) SubmitRender(ctx context.Context, req *renderv1.SubmitRenderRequest) (*renderv1.SubmitRenderResponse, error) {
	c, err := s.compile(ctx, req)
	if err != nil {
		return nil, err
	}
	provider, composition, assets, scene, split := c.provider, c.composition, c.assets, c.scene, c.split
	org := auth.Org(ctx)
	args, err := json.Marshal(argsOf(provider, composition, assets, req.GetWebhook(), scene))
	if err != nil {
		return nil, apierr.Wrap(err, apierr.Internal, "could not store the request")
	}
	var queued *jobs.Job
	op := idempotency.Op{Kind: renderjob.Kind, Noun: "render", Failed: "the job could not be queued; try again", Log: s.log}
	id, made, err := idempotency.Jobs(ctx, s.jobs, op, req, func(ctx context.Context, k idempotency.Keyed) (string, error) {
		id, err := uuid.NewV7()
		if err != nil {
			return "", err
		}
		whole := jobs.NewJob{ID: id.String(), Kind: renderjob.Kind, Type: renderjob.Kind, Org: org, Args: args,
			IdempotencyKey: k.Key, RequestHash: k.Hash, Priority: int(req.GetPriority())}
		all, err := splitJobs(split, whole, scene)
		if err != nil {
			return "", err
		}
		if all == nil {
			all = []jobs.NewJob{whole}
		}
		// A split render's parts and join are each a job waiting.
		inserted, err := s.jobs.InsertAdmitted(ctx, s.quota.Jobs(org, len(all)), all...)
		if err != nil {
			return "", err
		}
		queued = inserted[0]
		return queued.ID, nil
	})
	if err != nil {
		return nil, err
	}
	if !made {
		// A repeat of an idempotent submit answers as the first one did.
		first, err := s.get(ctx, id)
		if err != nil {
			return nil, err
		}
		return submitResponse(first), nil
	}
	s.log.InfoContext(ctx, "render job queued", "job_id", queued.ID, "provider", provider,
		"width", scene.Width, "height", scene.Height, "duration", scene.Duration, "format", scene.Format)
	return submitResponse(queued), nil
}

// argsOf is what a render job keeps of a valid request. The output
// settings describe the file: an audio format has no picture (0 × 0), a
// still no duration.
func argsOf(provider string, composition json.RawMessage, assets map[string]string, webhook string, scene *engine.Scene) renderjob.Args {
	a := renderjob.Args{Provider: provider, Composition: composition, AssetURLs: assets,
		Webhook: webhook, Format: scene.Format, Width: scene.Width, Height: scene.Height, Duration: scene.Duration}
	if !scene.HasPicture() {
		a.Width, a.Height = 0, 0
	}
	if scene.Still() {
		a.Duration = 0
	}
	return a
}

// compiled is a render request, validated.
type compiled struct {
	provider    string
	composition []byte
	assets      map[string]string
	scene       *engine.Scene
	split       SplitConfig
}

// compile validates a render request as a submit does: the composition
// (or the template it names, merged), its uploaded assets, the webhook
// and the split.
func (s *Service) compile(ctx context.Context, req *renderv1.SubmitRenderRequest) (*compiled, error) {
	if p := req.GetPriority(); p < -jobs.MaxPriority || p > jobs.MaxPriority {
		return nil, apierr.New(apierr.Validation, "priority %d: use -100 to 100 (higher runs sooner among your own renders and jobs)", p)
	}
	provider, assets := req.GetProvider(), req.GetAssetUrls()
	var composition []byte
	var err error
	switch {
	case req.GetTemplate() != "":
		if provider, composition, assets, err = fromTemplate(ctx, s.st, req); err != nil {
			return nil, err
		}
	case len(req.GetMerge()) > 0:
		return nil, apierr.New(apierr.Validation, "merge: fills the placeholders of a template; name one in template")
	case req.GetComposition() == nil:
		return nil, apierr.New(apierr.Validation, "composition: is required")
	default:
		if composition, err = protojson.Marshal(req.GetComposition()); err != nil {
			return nil, apierr.New(apierr.Validation, "composition: %v", err)
		}
	}
	scene, err := engine.Compile(provider, composition, assets, s.limits)
	if err != nil {
		return nil, renderjob.Invalid(err)
	}
	if err := checkAssets(ctx, s.st, auth.Org(ctx), scene); err != nil {
		return nil, err
	}
	if err := s.validateWebhook(req.GetWebhook()); err != nil {
		return nil, err
	}
	split, err := s.split.ForRequest(req.GetSplit(), s.limits.MaxDuration)
	if err != nil {
		return nil, err
	}
	return &compiled{provider: provider, composition: composition, assets: assets, scene: scene, split: split}, nil
}

// GetRender reads a job's status record.
func (s *Service) GetRender(ctx context.Context, req *renderv1.GetRenderRequest) (*renderv1.GetRenderResponse, error) {
	job, err := s.get(ctx, req.GetJobId())
	if err != nil {
		return nil, err
	}
	rec, err := s.record(ctx, job)
	if err != nil {
		return nil, err
	}
	return &renderv1.GetRenderResponse{Job: rec}, nil
}

// CancelRender cancels a queued or processing job; a running render is
// killed at once.
func (s *Service) CancelRender(ctx context.Context, req *renderv1.CancelRenderRequest) (*renderv1.CancelRenderResponse, error) {
	id := req.GetJobId()
	// Another organisation's job answers as if it did not exist.
	if _, err := s.get(ctx, id); err != nil {
		return nil, err
	}
	j, err := s.jobs.Cancel(ctx, id)
	var notCancellable *jobs.NotCancellableError
	switch {
	case errors.Is(err, jobs.ErrNotFound):
		return nil, notFound(id)
	case errors.As(err, &notCancellable):
		return nil, apierr.New(apierr.JobNotCancellable,
			"job %s is already in a terminal state (%s) and cannot be cancelled", id, Status(notCancellable.State))
	case err != nil:
		return nil, apierr.Wrap(err, apierr.Internal, "the job could not be cancelled; try again")
	}
	s.log.InfoContext(ctx, "render job cancelled", "job_id", id)
	return &renderv1.CancelRenderResponse{JobId: j.ID, Status: Status(j.State)}, nil
}

// WatchRender streams the job record until the job ends.
func (s *Service) WatchRender(req *renderv1.WatchRenderRequest, stream renderv1.RenderService_WatchRenderServer) error {
	ctx := stream.Context()
	id := req.GetJobId()
	return jobs.Watch(ctx, s.jobs, []string{id}, func() (*renderv1.RenderJob, bool, error) {
		j, err := s.get(ctx, id)
		if err != nil {
			return nil, false, err
		}
		rec, err := s.record(ctx, j)
		if err != nil {
			return nil, false, err
		}
		return rec, jobs.Final(j.State), nil
	}, func(rec *renderv1.RenderJob) error {
		return stream.Send(&renderv1.WatchRenderResponse{Job: rec})
	})
}

// Health reports whether the store answers and ffmpeg runs.
func (s *Service) Health(ctx context.Context, _ *renderv1.HealthRequest) (*renderv1.HealthResponse, error) {
	return s.health.check(ctx), nil
}

func (s *Service) get(ctx context.Context, id string) (*jobs.Job, error) {
	if id == "" {
		return nil, apierr.New(apierr.Validation, "jobId: is required")
	}
	j, err := s.jobs.Get(ctx, renderjob.Kind, auth.Org(ctx), id)
	if errors.Is(err, jobs.ErrNotFound) {
		return nil, notFound(id)
	}
	if err != nil {
		return nil, apierr.Wrap(err, apierr.Internal, "the job could not be read; try again")
	}
	return j, nil
}

// Status is the render interface's word for a state of the job core.
func Status(s jobs.State) string {
	switch s {
	case jobs.Pending, jobs.Available, jobs.Retrying:
		return "queued"
	case jobs.Running:
		return "processing"
	}
	return string(s) // completed, failed, cancelled
}

// shownStatus is a job's status in its record: a split render whose parts
// have started is processing, though the core has it wait for them, and
// then wait for a worker to join them.
func shownStatus(j *jobs.Job) string {
	if slices.Contains(jobs.Waiting, j.State) && j.StartedAt != nil && j.Whole() {
		return "processing"
	}
	return Status(j.State)
}

// record is the wire form of a job: outputUrl only when completed, error
// only when failed.
func (s *Service) record(ctx context.Context, j *jobs.Job) (*renderv1.RenderJob, error) {
	deliveries, err := s.deliveries(ctx, j)
	if err != nil {
		return nil, err
	}
	return s.recordWith(ctx, j, deliveries)
}

// hooked reports whether a job ended and has a webhook, so that its record
// shows the delivery.
func hooked(j *jobs.Job) (bool, error) {
	if !jobs.Final(j.State) {
		return false, nil
	}
	args, err := renderjob.ArgsOf(j)
	if err != nil {
		return false, apierr.Wrap(err, apierr.Internal, "the job could not be read")
	}
	return args.Webhook != "", nil
}

// deliveries reads the latest webhook delivery of each of the jobs that
// ended with a webhook, in one query, by job id.
func (s *Service) deliveries(ctx context.Context, js ...*jobs.Job) (map[string]webhook.Delivery, error) {
	var ids []string
	for _, j := range js {
		ok, err := hooked(j)
		if err != nil {
			return nil, err
		}
		if ok {
			ids = append(ids, j.ID)
		}
	}
	out, err := webhook.Latest(ctx, s.st.Client, ids...)
	if err != nil {
		return nil, apierr.Wrap(err, apierr.Internal, "the job's webhook could not be read; try again")
	}
	return out, nil
}

// recordWith is record with the latest webhook deliveries already read.
func (s *Service) recordWith(ctx context.Context, j *jobs.Job, deliveries map[string]webhook.Delivery) (*renderv1.RenderJob, error) {
	rec := &renderv1.RenderJob{
		JobId:     j.ID,
		Status:    shownStatus(j),
		Progress:  proto.Float64(jobs.ShownProgress(j.Progress)),
		CreatedAt: timestamp(j.CreatedAt),
		UpdatedAt: timestamp(j.UpdatedAt),
	}
	switch j.State {
	case jobs.Completed:
		for field, dst := range map[string]**string{renderjob.OutputField: &rec.OutputUrl, renderjob.PosterField: &rec.PosterUrl, renderjob.ThumbnailField: &rec.ThumbnailUrl} {
			key, ok := j.Outputs[field]
			if !ok {
				continue
			}
			u, err := s.storage.URL(ctx, key)
			if err != nil {
				return nil, apierr.Wrap(err, apierr.Internal, "the output URL could not be made")
			}
			*dst = proto.String(u)
		}
		rec.Warnings = renderjob.Warnings(j)
	case jobs.Failed:
		rec.Error = &renderv1.RenderError{Code: deref(j.ErrorCode), Message: deref(j.ErrorMessage)}
	}
	if d, ok := deliveries[j.ID]; ok {
		rec.WebhookDelivery = delivery(d)
	}
	return rec, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// delivery is the wire form of a webhook delivery.
func delivery(d webhook.Delivery) *renderv1.WebhookDelivery {
	w := &renderv1.WebhookDelivery{Status: d.Status, Attempts: int32(d.Attempts)}
	if d.LastStatusCode != 0 {
		w.LastStatusCode = proto.Int32(int32(d.LastStatusCode))
	}
	if d.LastError != "" {
		w.LastError = proto.String(d.LastError)
	}
	return w
}

func submitResponse(j *jobs.Job) *renderv1.SubmitRenderResponse {
	return &renderv1.SubmitRenderResponse{JobId: j.ID, Status: "queued", CreatedAt: timestamp(j.CreatedAt)}
}

func notFound(id string) error {
	return apierr.New(apierr.JobNotFound, "no render job has the id %q", id)
}

// timestamp formats epoch milliseconds as ISO 8601 in UTC with milliseconds.
func timestamp(ms int64) string {
	return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z07:00")
}

func (s *Service) validateWebhook(raw string) error {
	if raw == "" {
		return nil
	}
	if len(raw) > maxWebhookURL {
		return apierr.New(apierr.Validation, "webhook: must be at most %d characters", maxWebhookURL)
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return apierr.New(apierr.Validation, "webhook: must be an absolute http or https URL")
	}
	// A webhook kino may never call would be accepted, then dropped.
	if s.checkURL != nil {
		if err := s.checkURL(raw); err != nil {
			return apierr.New(apierr.Validation, "webhook: %v", err)
		}
	}
	return nil
}
