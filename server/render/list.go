package render

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"

	renderv1 "github.com/kinohq/kino/gen/kino/render/v1"
	"github.com/kinohq/kino/server/apierr"
	"github.com/kinohq/kino/server/auth"
	"github.com/kinohq/kino/server/jobs"
	"github.com/kinohq/kino/server/paging"
	"github.com/kinohq/kino/server/renderjob"
)

// Statuses are the render statuses, in lifecycle order.
//
//nolint:gochecknoglobals // read-only table: the documented statuses
var Statuses = []string{"queued", "processing", "completed", "failed", "cancelled"}

// statusIs selects the jobs whose Status is s, one of Statuses.
func statusIs(s string) []jobs.Phase {
	switch s {
	// A waiting render is queued until it has started: only a split
	// render can have, with its parts, and it stays processing while it
	// waits for them and then for a worker to join them (shownStatus).
	// The core clears the start of any other job it puts back.
	case "queued":
		return []jobs.Phase{jobs.Begun(false, jobs.Waiting...)}
	case "processing":
		return []jobs.Phase{jobs.Is(jobs.Running), jobs.Begun(true, jobs.Waiting...)}
	}
	return []jobs.Phase{jobs.Is(jobs.State(s))}
}

// ListRenders lists the caller's render jobs, newest first (ties broken by
// id), paged like every list of kino.
func (s *Service) ListRenders(ctx context.Context, req *renderv1.ListRendersRequest) (*renderv1.ListRendersResponse, error) {
	limit, offset, err := paging.Parse(req.GetLimit(), req.GetOffset())
	if err != nil {
		return nil, err
	}
	// The (kind, org_id[, state], created_at, id) indexes serve both reads.
	f := jobs.Filter{Kind: renderjob.Kind, Org: auth.Org(ctx)}
	if st := req.GetStatus(); st != "" {
		if !slices.Contains(Statuses, st) {
			return nil, apierr.New(apierr.Validation, "status: must be one of %s", strings.Join(Statuses, ", "))
		}
		f.Phases = statusIs(st)
	}
	total, found, err := s.jobs.List(ctx, f, limit, offset)
	if err != nil {
		return nil, apierr.Wrap(err, apierr.Internal, "the render jobs could not be listed; try again")
	}
	resp := &renderv1.ListRendersResponse{
		Data: make([]*renderv1.RenderJob, 0, len(found)),
		Meta: &renderv1.RenderListMeta{Total: int32(total), Page: int32(paging.Page(limit, offset)), Limit: int32(limit)},
	}
	// One read of the webhook deliveries for the page, not one a job.
	deliveries, err := s.deliveries(ctx, found...)
	if err != nil {
		return nil, err
	}
	for _, j := range found {
		rec, err := s.recordWith(ctx, j, deliveries)
		if err != nil {
			return nil, err
		}
		resp.Data = append(resp.Data, rec)
	}
	return resp, nil
}

// GetRenderSubmission reads the request a render was made from, from what
// its job keeps (Args): a template's render comes back with its
// placeholders filled in, so that it renders again as it did.
func (s *Service) GetRenderSubmission(ctx context.Context, req *renderv1.GetRenderSubmissionRequest) (*renderv1.GetRenderSubmissionResponse, error) {
	j, err := s.get(ctx, req.GetJobId())
	if err != nil {
		return nil, err
	}
	args, err := renderjob.ArgsOf(j)
	if err != nil {
		return nil, apierr.Wrap(err, apierr.Internal, "the job's request could not be read")
	}
	comp := &structpb.Struct{}
	if err := protojson.Unmarshal(args.Composition, comp); err != nil {
		return nil, apierr.Wrap(fmt.Errorf("read render job %s: %w", j.ID, err), apierr.Internal, "the job's request could not be read")
	}
	sub := &renderv1.RenderSubmission{Provider: args.Provider, Composition: comp, AssetUrls: args.AssetURLs}
	if args.Webhook != "" {
		sub.Webhook = &args.Webhook
	}
	return &renderv1.GetRenderSubmissionResponse{Request: sub}, nil
}
