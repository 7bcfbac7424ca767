// Package render implements kino.render.v1.RenderService: validation and
// persistence of render jobs on the request path, and the workers that
// render them with ffmpeg.
package render

import (
	"context"
	"errors"
	"log/slog"
	"net/url"
	"time"

	"github.com/google/uuid"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/kinohq/kino/ent"
	"github.com/kinohq/kino/ent/renderjob"
	"github.com/kinohq/kino/ent/webhookdelivery"
	renderv1 "github.com/kinohq/kino/gen/kino/render/v1"
	"github.com/kinohq/kino/server/apierr"
	"github.com/kinohq/kino/server/auth"
	"github.com/kinohq/kino/server/engine"
	"github.com/kinohq/kino/server/events"
	"github.com/kinohq/kino/server/idempotency"
	"github.com/kinohq/kino/server/queue"
	"github.com/kinohq/kino/server/storage"
	"github.com/kinohq/kino/server/store"
)

const maxWebhookURL = 2048

// Service is the RenderService implementation.
type Service struct {
	renderv1.UnimplementedRenderServiceServer

	st      *store.Store
	queue   *queue.Queue
	broker  *events.Broker
	storage *storage.Storage
	workers *Workers
	limits  engine.Limits
	// checkURL refuses webhooks kino may never call; nil accepts all.
	checkURL func(string) error
	health   *healthCheck
	log      *slog.Logger
}

// ServiceConfig is what the service needs.
type ServiceConfig struct {
	Store   *store.Store
	Queue   *queue.Queue
	Broker  *events.Broker
	Storage *storage.Storage
	Workers *Workers
	Limits  engine.Limits
	// CheckURL refuses a webhook URL that kino would never be allowed to
	// call (fetch.Client.CheckHost); nil accepts every URL.
	CheckURL func(string) error
	Log      *slog.Logger
}

// NewService returns the service.
func NewService(cfg ServiceConfig) *Service {
	return &Service{
		st:       cfg.Store,
		queue:    cfg.Queue,
		broker:   cfg.Broker,
		storage:  cfg.Storage,
		workers:  cfg.Workers,
		limits:   cfg.Limits,
		checkURL: cfg.CheckURL,
		health:   newHealthCheck(cfg.Store, cfg.Log),
		log:      cfg.Log,
	}
}

// SubmitRender validates the composition and queues it.
func (s *Service) SubmitRender(ctx context.Context, req *renderv1.SubmitRenderRequest) (*renderv1.SubmitRenderResponse, error) {
	if req.GetComposition() == nil {
		return nil, apierr.New(apierr.Validation, "composition: is required")
	}
	composition, err := protojson.Marshal(req.GetComposition())
	if err != nil {
		return nil, apierr.New(apierr.Validation, "composition: %v", err)
	}
	scene, err := engine.Compile(req.GetProvider(), composition, req.GetAssetUrls(), s.limits)
	if err != nil {
		return nil, apierr.New(apierr.Validation, "%s", err.Error())
	}
	if err := s.validateWebhook(req.GetWebhook()); err != nil {
		return nil, err
	}
	key, err := idempotency.Key(ctx)
	if err != nil {
		return nil, err
	}
	hash, err := idempotency.Hash("", req)
	if err != nil {
		return nil, apierr.Wrap(err, apierr.Internal, "could not read the request")
	}
	org := auth.Org(ctx)
	var first *ent.RenderJob // what Find found last
	submit := idempotency.Submit{Key: key, Hash: hash, Noun: "render",
		Find: func(ctx context.Context) (idempotency.Earlier, bool, error) {
			job, err := s.st.RenderJob.Query().Where(renderjob.OrgID(org), renderjob.IdempotencyKey(key)).Only(ctx)
			if ent.IsNotFound(err) {
				return idempotency.Earlier{}, false, nil
			}
			if err != nil {
				return idempotency.Earlier{}, false, err
			}
			first = job
			return idempotency.Earlier{ID: job.ID, Hash: job.RequestHash, CreatedAt: job.CreatedAt}, true, nil
		},
		Free: func(ctx context.Context, e idempotency.Earlier) error {
			return s.st.RenderJob.UpdateOneID(e.ID).ClearIdempotencyKey().Exec(ctx)
		},
	}

	var job *ent.RenderJob
	_, made, err := idempotency.Do(ctx, submit, func(ctx context.Context) (string, error) {
		id, err := uuid.NewV7()
		if err != nil {
			return "", err
		}
		t := time.Now().UTC()
		create := s.st.RenderJob.Create().
			SetID(id.String()).
			SetOrgID(org).
			SetProvider(req.GetProvider()).
			SetComposition(composition).
			SetAssetUrls(req.GetAssetUrls()).
			SetWebhookURL(req.GetWebhook()).
			SetFormat(scene.Format).
			SetWidth(scene.Width).
			SetHeight(scene.Height).
			SetDuration(scene.Duration).
			SetRequestHash(hash).
			SetCreatedAt(t).
			SetUpdatedAt(t)
		if key != "" {
			create.SetIdempotencyKey(key)
		}
		job, err = create.Save(ctx)
		if err != nil {
			return "", err
		}
		return job.ID, nil
	})
	if err != nil {
		if _, ok := err.(*apierr.Error); ok {
			return nil, err
		}
		s.log.ErrorContext(ctx, "queue render job", "err", err)
		return nil, apierr.Wrap(err, apierr.TriggerSubmitFailed, "the job could not be queued; try again")
	}
	if !made {
		// A repeat of an idempotent submit answers as the first one did.
		return submitResponse(first), nil
	}
	s.log.InfoContext(ctx, "render job queued", "job_id", job.ID, "provider", job.Provider,
		"width", job.Width, "height", job.Height, "duration", job.Duration, "format", job.Format)
	s.broker.Publish(job.ID)
	s.workers.Wake()
	return submitResponse(job), nil
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
	job, err := s.queue.Cancel(ctx, id)
	var notCancellable *queue.NotCancellableError
	switch {
	case errors.Is(err, queue.ErrNotFound):
		return nil, notFound(id)
	case errors.As(err, &notCancellable):
		return nil, apierr.New(apierr.JobNotCancellable,
			"job %s is already in a terminal state (%s) and cannot be cancelled", id, notCancellable.Status)
	case err != nil:
		return nil, apierr.Wrap(err, apierr.Internal, "the job could not be cancelled; try again")
	}
	s.workers.Abort(id)
	s.log.InfoContext(ctx, "render job cancelled", "job_id", id)
	return &renderv1.CancelRenderResponse{JobId: job.ID, Status: string(job.Status)}, nil
}

// WatchRender streams the job record until the job ends.
func (s *Service) WatchRender(req *renderv1.WatchRenderRequest, stream renderv1.RenderService_WatchRenderServer) error {
	ctx := stream.Context()
	id := req.GetJobId()
	changed, unsubscribe := s.broker.Subscribe(id)
	defer unsubscribe()
	var last *renderv1.RenderJob
	return events.Follow(ctx, changed, func() (bool, error) {
		job, err := s.get(ctx, id)
		if err != nil {
			return false, err
		}
		rec, err := s.record(ctx, job)
		if err != nil {
			return false, err
		}
		if last == nil || !proto.Equal(last, rec) {
			if err := stream.Send(&renderv1.WatchRenderResponse{Job: rec}); err != nil {
				return false, err
			}
			last = rec
		}
		return queue.Terminal(job.Status), nil
	})
}

// Health reports whether the store answers and ffmpeg runs.
func (s *Service) Health(ctx context.Context, _ *renderv1.HealthRequest) (*renderv1.HealthResponse, error) {
	return s.health.check(ctx), nil
}

func (s *Service) get(ctx context.Context, id string) (*ent.RenderJob, error) {
	if id == "" {
		return nil, apierr.New(apierr.Validation, "jobId: is required")
	}
	job, err := s.st.RenderJob.Get(ctx, id)
	if ent.IsNotFound(err) || (err == nil && job.OrgID != auth.Org(ctx)) {
		return nil, notFound(id)
	}
	if err != nil {
		return nil, apierr.Wrap(err, apierr.Internal, "the job could not be read; try again")
	}
	return job, nil
}

// record is the wire form of a job: outputUrl only when completed, error
// only when failed.
func (s *Service) record(ctx context.Context, job *ent.RenderJob) (*renderv1.RenderJob, error) {
	rec := &renderv1.RenderJob{
		JobId:     job.ID,
		Status:    string(job.Status),
		Progress:  proto.Float64(job.Progress),
		CreatedAt: timestamp(job.CreatedAt),
		UpdatedAt: timestamp(job.UpdatedAt),
	}
	switch job.Status {
	case renderjob.StatusCompleted:
		u, err := s.storage.URL(ctx, job.OutputKey)
		if err != nil {
			return nil, apierr.Wrap(err, apierr.Internal, "the output URL could not be made")
		}
		rec.OutputUrl = proto.String(u)
	case renderjob.StatusFailed:
		rec.Error = &renderv1.RenderError{Code: job.ErrorCode, Message: job.ErrorMessage}
	}
	if job.WebhookURL != "" && queue.Terminal(job.Status) {
		d, err := s.st.WebhookDelivery.Query().Where(webhookdelivery.JobID(job.ID)).
			Order(ent.Desc(webhookdelivery.FieldCreatedAt)).First(ctx)
		switch {
		case ent.IsNotFound(err):
		case err != nil:
			return nil, apierr.Wrap(err, apierr.Internal, "the job's webhook could not be read; try again")
		default:
			rec.WebhookDelivery = delivery(d)
		}
	}
	return rec, nil
}

// delivery is the wire form of a webhook delivery.
func delivery(d *ent.WebhookDelivery) *renderv1.WebhookDelivery {
	w := &renderv1.WebhookDelivery{Status: string(d.Status), Attempts: int32(d.Attempts)}
	if d.LastStatusCode != 0 {
		w.LastStatusCode = proto.Int32(int32(d.LastStatusCode))
	}
	if d.LastError != "" {
		w.LastError = proto.String(d.LastError)
	}
	return w
}

func submitResponse(job *ent.RenderJob) *renderv1.SubmitRenderResponse {
	return &renderv1.SubmitRenderResponse{JobId: job.ID, Status: string(renderjob.StatusQueued), CreatedAt: timestamp(job.CreatedAt)}
}

func notFound(id string) error {
	return apierr.New(apierr.JobNotFound, "no render job has the id %q", id)
}

// timestamp formats a time as ISO 8601 in UTC with milliseconds.
func timestamp(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z07:00")
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
