package idempotency

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/kinohq/kino/server/apierr"
	"github.com/kinohq/kino/server/auth"
	"github.com/kinohq/kino/server/jobs"
)

// Op is a submit that makes jobs of the job core: a render, a media job,
// a pipeline run. Its key lives on the job it makes (a render's whole, a
// run's first job), under the unique index of (kind, org_id,
// idempotency_key).
type Op struct {
	// Kind is the kind of the job that holds the key.
	Kind string
	// Name is hashed with the request, so that one key cannot serve two
	// ops of a kind; renders use "" (see Hash).
	Name string
	// Noun names what the op makes ("render", "job", "run") in the
	// message of IDEMPOTENCY_KEY_REUSED.
	Noun string
	// Failed is the message of TRIGGER_SUBMIT_FAILED when the jobs could
	// not be stored.
	Failed string
	// ID names what the op made from the job that holds the key (a run's
	// id is its batch); nil names the job itself.
	ID func(*jobs.Job) string
	// Log receives the errors that answer TRIGGER_SUBMIT_FAILED; nil
	// logs nothing.
	Log *slog.Logger
}

// Keyed is what create stores on the job that holds the key: the
// request's key and hash, both "" when it has no key.
type Keyed struct{ Key, Hash string }

// Jobs makes a submit of op with the request's Idempotency-Key happen
// once (see Do): it returns the id of what the first request with the
// key made, made false, or calls create and returns the id of what it
// made, made true. Errors are the documented ones: create's own apierr
// errors as they are, any other as TRIGGER_SUBMIT_FAILED.
func Jobs(ctx context.Context, c *jobs.Client, op Op, req proto.Message, create func(ctx context.Context, k Keyed) (string, error)) (id string, made bool, err error) {
	key, err := Key(ctx)
	if err != nil {
		return "", false, err
	}
	var k Keyed
	if key != "" {
		hash, err := Hash(op.Name, req)
		if err != nil {
			return "", false, apierr.Wrap(err, apierr.Internal, "could not read the request")
		}
		k = Keyed{Key: key, Hash: hash}
	}
	org := auth.Org(ctx)
	s := Submit{Key: k.Key, Hash: k.Hash, Noun: op.Noun,
		Find: func(ctx context.Context) (Earlier, bool, error) {
			j, err := c.ByKey(ctx, op.Kind, org, key)
			if errors.Is(err, jobs.ErrNotFound) {
				return Earlier{}, false, nil
			}
			if err != nil {
				return Earlier{}, false, err
			}
			e := Earlier{ID: j.ID, Hash: j.RequestHash, CreatedAt: time.UnixMilli(j.CreatedAt)}
			if op.ID != nil {
				e.ID = op.ID(j)
			}
			return e, true, nil
		},
		Free: func(ctx context.Context, _ Earlier) error {
			return c.ForgetKey(ctx, op.Kind, org, key)
		},
	}
	id, made, err = Do(ctx, s, func(ctx context.Context) (string, error) { return create(ctx, k) })
	if err != nil {
		var ae *apierr.Error
		if errors.As(err, &ae) {
			return "", false, err
		}
		if op.Log != nil {
			op.Log.ErrorContext(ctx, "store submitted jobs", "kind", op.Kind, "noun", op.Noun, "err", err)
		}
		return "", false, apierr.Wrap(err, apierr.TriggerSubmitFailed, op.Failed)
	}
	return id, made, nil
}
