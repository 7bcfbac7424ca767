package media

import (
	"context"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/kinohq/kino/ent"
	"github.com/kinohq/kino/ent/job"
	"github.com/kinohq/kino/server/apierr"
	"github.com/kinohq/kino/server/auth"
	"github.com/kinohq/kino/server/idempotency"
	"github.com/kinohq/kino/server/jobs"
)

// keyed is a submit under the request's Idempotency-Key. The key lives on
// the job the submit makes (a run's first job), under the unique index of
// (org_id, idempotency_key); id names what the submit made from that job.
func keyed(ctx context.Context, jc *jobs.Client, op, noun string, req proto.Message, id func(*ent.Job) string) (idempotency.Submit, error) {
	key, err := idempotency.Key(ctx)
	if err != nil {
		return idempotency.Submit{}, err
	}
	hash, err := idempotency.Hash(op, req)
	if err != nil {
		return idempotency.Submit{}, apierr.Wrap(err, apierr.Internal, "could not read the request")
	}
	org := auth.Org(ctx)
	return idempotency.Submit{Key: key, Hash: hash, Noun: noun,
		Find: func(ctx context.Context) (idempotency.Earlier, bool, error) {
			j, err := jc.Store().Job.Query().Where(job.Kind(Kind), job.OrgID(org), job.IdempotencyKey(key)).Only(ctx)
			if ent.IsNotFound(err) {
				return idempotency.Earlier{}, false, nil
			}
			if err != nil {
				return idempotency.Earlier{}, false, err
			}
			e := idempotency.Earlier{ID: id(j), CreatedAt: time.UnixMilli(j.CreatedAt)}
			if j.RequestHash != nil {
				e.Hash = *j.RequestHash
			}
			return e, true, nil
		},
		Free: func(ctx context.Context, _ idempotency.Earlier) error {
			return jc.ForgetKey(ctx, Kind, org, key)
		},
	}, nil
}
