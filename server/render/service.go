// Package render implements kino.render.v1.RenderService: validation and
// persistence of render jobs on the request path, and the workers that
// render them with ffmpeg.
package render

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/kinohq/kino/ent"
	"github.com/kinohq/kino/ent/renderjob"
	renderv1 "github.com/kinohq/kino/gen/kino/render/v1"
	"github.com/kinohq/kino/server/apierr"
	"github.com/kinohq/kino/server/auth"
	"github.com/kinohq/kino/server/engine"
	"github.com/kinohq/kino/server/events"
	"github.com/kinohq/kino/server/queue"
	"github.com/kinohq/kino/server/storage"
	"github.com/kinohq/kino/server/store"
)

// IdempotencyKeyHeader is the metadata key (and HTTP header) of idempotent submits.
const IdempotencyKeyHeader = "idempotency-key"

// idempotencyWindow is how long a key returns the job it first created.
const idempotencyWindow = 24 * time.Hour

const (
	maxIdempotencyKey = 255
	maxWebhookURL     = 2048
)

// Service is the RenderService implementation.
type Service struct {
	renderv1.UnimplementedRenderServiceServer

	st      *store.Store
	queue   *queue.Queue
	broker  *events.Broker
	storage *storage.Storage
	workers *Workers
	limits  engine.Limits
	health  *healthCheck
	log     *slog.Logger
}

// ServiceConfig is what the service needs.
type ServiceConfig struct {
	Store   *store.Store
	Queue   *queue.Queue
	Broker  *events.Broker
	Storage *storage.Storage
	Workers *Workers
	Limits  engine.Limits
	Log     *slog.Logger
}

// NewService returns the service.
func NewService(cfg ServiceConfig) *Service {
	return &Service{
		st:      cfg.Store,
		queue:   cfg.Queue,
		broker:  cfg.Broker,
		storage: cfg.Storage,
		workers: cfg.Workers,
		limits:  cfg.Limits,
		health:  newHealthCheck(cfg.Store, cfg.Log),
		log:     cfg.Log,
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
	if err := validateWebhook(req.GetWebhook()); err != nil {
		return nil, err
	}
	key, err := idempotencyKey(ctx)
	if err != nil {
		return nil, err
	}
	hash, err := requestHash(req)
	if err != nil {
		return nil, apierr.Wrap(err, apierr.Internal, "could not read the request")
	}
	if key != "" {
		if job, err := s.findIdempotent(ctx, key, hash); job != nil || err != nil {
			return submitResponse(job), err
		}
	}

	id, err := uuid.NewV7()
	if err != nil {
		return nil, apierr.Wrap(err, apierr.TriggerSubmitFailed, "the job could not be queued")
	}
	t := time.Now().UTC()
	create := s.st.RenderJob.Create().
		SetID(id.String()).
		SetOrgID(auth.Org(ctx)).
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
	job, err := create.Save(ctx)
	if err != nil {
		if key != "" && ent.IsConstraintError(err) {
			// Another request with the same key won the race, or the key
			// belongs to a job older than the window: look again.
			if job, ferr := s.findIdempotent(ctx, key, hash); job != nil || ferr != nil {
				return submitResponse(job), ferr
			}
		}
		s.log.ErrorContext(ctx, "queue render job", "job_id", id.String(), "err", err)
		return nil, apierr.Wrap(err, apierr.TriggerSubmitFailed, "the job could not be queued; try again")
	}
	s.log.InfoContext(ctx, "render job queued", "job_id", job.ID, "provider", job.Provider,
		"width", job.Width, "height", job.Height, "duration", job.Duration, "format", job.Format)
	s.broker.Publish(job.ID)
	s.workers.Wake()
	return submitResponse(job), nil
}

// findIdempotent returns the job an earlier request with key created within
// the window, an error when that request had another body, or nil. A key
// older than the window is freed for reuse.
func (s *Service) findIdempotent(ctx context.Context, key, hash string) (*ent.RenderJob, error) {
	job, err := s.st.RenderJob.Query().Where(renderjob.OrgID(auth.Org(ctx)), renderjob.IdempotencyKey(key)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, apierr.Wrap(err, apierr.TriggerSubmitFailed, "the job could not be queued; try again")
	}
	if time.Since(job.CreatedAt) > idempotencyWindow {
		if err := s.st.RenderJob.UpdateOne(job).ClearIdempotencyKey().Exec(ctx); err != nil {
			return nil, apierr.Wrap(err, apierr.TriggerSubmitFailed, "the job could not be queued; try again")
		}
		return nil, nil
	}
	if job.RequestHash != hash {
		return nil, apierr.New(apierr.IdempotencyKeyReused,
			"Idempotency-Key %q was already used with a different request body (job %s); use a new key for a new render", key, job.ID)
	}
	return job, nil
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
	return rec, nil
}

func submitResponse(job *ent.RenderJob) *renderv1.SubmitRenderResponse {
	if job == nil {
		return nil
	}
	// A repeat of an idempotent submit answers as the first one did.
	return &renderv1.SubmitRenderResponse{JobId: job.ID, Status: string(renderjob.StatusQueued), CreatedAt: timestamp(job.CreatedAt)}
}

func notFound(id string) error {
	return apierr.New(apierr.JobNotFound, "no render job has the id %q", id)
}

// timestamp formats a time as ISO 8601 in UTC with milliseconds.
func timestamp(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z07:00")
}

func validateWebhook(raw string) error {
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
	return nil
}

func idempotencyKey(ctx context.Context) (string, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	vals := md.Get(IdempotencyKeyHeader)
	if len(vals) == 0 {
		return "", nil
	}
	key := strings.TrimSpace(vals[0])
	if key == "" || len(key) > maxIdempotencyKey {
		return "", apierr.New(apierr.Validation, "Idempotency-Key: must be 1 to %d characters", maxIdempotencyKey)
	}
	return key, nil
}

// requestHash identifies a request body, so a reused idempotency key with a
// different body is told apart from a retry.
func requestHash(req *renderv1.SubmitRenderRequest) (string, error) {
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(req)
	if err != nil {
		return "", fmt.Errorf("hash request: %w", err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}
