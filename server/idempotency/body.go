package idempotency

import (
	"context"
	"strings"

	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

	mediav1 "github.com/kinohq/kino/gen/kino/media/v1"
	"github.com/kinohq/kino/server/apierr"
)

// BodyKey takes a job's idempotencyKey from its body (as Rendobar's
// clients send it) as if it were the Idempotency-Key header, and returns
// the request without it, so the request's hash, and so a repeat's, is
// the same whichever way the key came. Both given and different is a
// VALIDATION_ERROR: kino would have to pick one.
func BodyKey(ctx context.Context, req *mediav1.CreateJobRequest) (context.Context, *mediav1.CreateJobRequest, error) {
	if req.IdempotencyKey == nil {
		return ctx, req, nil
	}
	key := strings.TrimSpace(req.GetIdempotencyKey())
	if key == "" || len(key) > MaxKey {
		return ctx, req, apierr.New(apierr.Validation, "idempotencyKey: must be 1 to %d characters", MaxKey)
	}
	md, _ := metadata.FromIncomingContext(ctx)
	if vals := md.Get(Header); len(vals) > 0 && strings.TrimSpace(vals[0]) != key {
		return ctx, req, apierr.New(apierr.Validation,
			"idempotencyKey: differs from the Idempotency-Key header; send the key once, or the same in both")
	}
	md = md.Copy()
	md.Set(Header, key)
	clone := proto.Clone(req).(*mediav1.CreateJobRequest)
	clone.IdempotencyKey = nil
	return metadata.NewIncomingContext(ctx, md), clone, nil
}
