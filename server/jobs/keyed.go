package jobs

import (
	"context"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/kinohq/kino/ent"
	"github.com/kinohq/kino/ent/job"
	"github.com/kinohq/kino/server/apierr"
	"github.com/kinohq/kino/server/auth"
	"github.com/kinohq/kino/server/idempotency"
)

// Keyed is a submit of jobs of kind under the request's Idempotency-Key,
// its request hashed under op. The key lives on the job the submit makes
// (a render's whole, a run's first job), under the unique index of
// (org_id, idempotency_key); id names what the submit made from that job.
func (c *Client) Keyed(ctx context.Context, kind, op, noun string, req proto.Message, id func(*ent.Job) string) (idempotency.Submit, error) {
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
			j, err := c.st.Job.Query().Where(job.Kind(kind), job.OrgID(org), job.IdempotencyKey(key)).Only(ctx)
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
			return c.ForgetKey(ctx, kind, org, key)
		},
	}, nil
}
