// Package webhook delivers job callbacks: each delivery is stored before the
// first attempt (in the transaction that ends the job), signed with the
// Standard Webhooks scheme, retried with exponential backoff and jitter, and
// resumed after a restart because its state lives in the database.
package webhook

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"go.opentelemetry.io/otel/trace"

	"github.com/kinohq/kino/ent"
	"github.com/kinohq/kino/ent/webhookdelivery"
	"github.com/kinohq/kino/server/fetch"
	"github.com/kinohq/kino/server/metrics"
	"github.com/kinohq/kino/server/tracing"
)

// maxInFlight bounds the attempts one dispatcher makes at once: enough that
// a receiver which hangs until AttemptTimeout does not hold back everyone
// else's callbacks, few enough that a burst of finished jobs does not open
// hundreds of connections.
const maxInFlight = 8

// Dispatcher sends stored deliveries. Run one per process; any number of
// processes may share a database, and each attempt is made by one of them.
type Dispatcher struct {
	client *ent.Client
	hc     *http.Client
	cfg    Config
	// key is the decoded Secret, nil when unsigned; keyErr says why Secret
	// cannot be used, and stops Run.
	key    []byte
	keyErr error
	log    *slog.Logger
	wake   chan struct{}
	tracer trace.Tracer
}

// New returns a dispatcher that sends with hc, which should be a guarded
// client that never follows redirects (fetch.Client.NoRedirectClient); a nil
// hc means such a client that refuses private networks, and a nil log
// slog.Default. Run sets it going.
func New(client *ent.Client, hc *http.Client, cfg Config, log *slog.Logger) *Dispatcher {
	if hc == nil {
		hc = fetch.New(fetch.Options{}).NoRedirectClient()
	}
	if log == nil {
		log = slog.Default()
	}
	cfg = cfg.withDefaults()
	d := &Dispatcher{client: client, hc: hc, cfg: cfg, log: log, wake: make(chan struct{}, 1), tracer: cfg.TracerProvider.Tracer(tracing.Scope)}
	if cfg.Secret != "" {
		d.key, d.keyErr = secretKey(cfg.Secret)
	}
	return d
}

// Enqueue stores a pending delivery of payload (JSON) to url and returns its
// id, "msg_" and 32 hex digits, sent as webhook-id on every attempt. With a
// transaction it is stored in tx, so that it commits or rolls back with the
// job state it reports, and the dispatcher is woken when tx commits; with a
// nil tx it is stored on its own and the dispatcher woken at once. The
// trace context of ctx, if any, is stored with it: its attempts continue
// that trace.
func (d *Dispatcher) Enqueue(ctx context.Context, tx *ent.Tx, jobID, url string, payload []byte) (string, error) {
	if !json.Valid(payload) {
		return "", fmt.Errorf("store webhook of job %s: the payload is not JSON", jobID)
	}
	id := "msg_" + strings.ReplaceAll(uuid.NewString(), "-", "")
	now := dbTime(time.Now())
	create := d.client.WebhookDelivery.Create
	if tx != nil {
		create = tx.WebhookDelivery.Create
	}
	c := create().SetID(id).SetJobID(jobID).SetURL(url).SetPayload(payload).
		SetNextAttemptAt(now).SetCreatedAt(now).SetUpdatedAt(now)
	if tc := tracing.Inject(ctx); tc != nil {
		c.SetTraceContext(tc)
	}
	err := c.Exec(ctx)
	if err != nil {
		return "", fmt.Errorf("store webhook of job %s: %w", jobID, err)
	}
	if tx == nil {
		d.Notify()
		return id, nil
	}
	tx.OnCommit(func(next ent.Committer) ent.Committer {
		return ent.CommitFunc(func(ctx context.Context, tx *ent.Tx) error {
			err := next.Commit(ctx, tx)
			if err == nil {
				d.Notify()
			}
			return err
		})
	})
	return id, nil
}

// Notify wakes the dispatcher to look for due deliveries. It never blocks;
// wakes that arrive while one is pending merge into it.
func (d *Dispatcher) Notify() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// Run sends due deliveries and schedules retries until ctx is done, then
// waits for the attempts under way (which ctx cancels, and which are put
// back to be made again) and returns ctx.Err(). It returns at once with an
// error when Config.Secret cannot be used.
func (d *Dispatcher) Run(ctx context.Context) error {
	if d.keyErr != nil {
		return d.keyErr
	}
	var inFlight sync.WaitGroup
	defer inFlight.Wait()
	slots := make(chan struct{}, maxInFlight)
	tick := time.NewTicker(d.cfg.PollInterval)
	defer tick.Stop()
	for {
		d.startDue(ctx, slots, &inFlight)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-d.wake:
		case <-tick.C:
		}
	}
}

// startDue claims due deliveries while there are free slots and starts an
// attempt of each.
func (d *Dispatcher) startDue(ctx context.Context, slots chan struct{}, inFlight *sync.WaitGroup) {
	for ctx.Err() == nil {
		free := cap(slots) - len(slots)
		if free == 0 {
			return
		}
		due, err := d.client.WebhookDelivery.Query().
			Where(webhookdelivery.StatusEQ(webhookdelivery.StatusPending), webhookdelivery.NextAttemptAtLTE(dbTime(time.Now()))).
			Order(webhookdelivery.ByNextAttemptAt()).
			Limit(free).
			All(ctx)
		if err != nil {
			if ctx.Err() == nil {
				d.log.Error("find due webhooks", "err", err)
			}
			return
		}
		for _, del := range due {
			c, ok := d.claim(ctx, del)
			if !ok {
				continue
			}
			slots <- struct{}{}
			inFlight.Go(func() {
				defer func() {
					<-slots
					// A slot is free: look again rather than wait a tick.
					d.Notify()
				}()
				d.attempt(ctx, c)
			})
		}
		if len(due) < free {
			return
		}
	}
}

// claimed is a delivery this process holds for one attempt.
type claimed struct {
	del *ent.WebhookDelivery
	// attempt counts this attempt, from 1.
	attempt int
	// until is the next_attempt_at the claim wrote: the fence that later
	// updates of this attempt must still find.
	until time.Time
	log   *slog.Logger
}

// claim takes a due delivery for one attempt by moving its next_attempt_at
// to AttemptTimeout·2 from now and counting the attempt, on condition that
// next_attempt_at is still the value read. Of several processes sharing a
// database only one can make that change, so only one sends the attempt;
// if that process dies mid-attempt, the delivery comes due again when the
// claim runs out. The attempt is counted here, not after it, so a delivery
// whose attempts keep killing the process still runs out of attempts.
func (d *Dispatcher) claim(ctx context.Context, del *ent.WebhookDelivery) (claimed, bool) {
	log := d.log.With("job_id", del.JobID, "webhook_id", del.ID)
	if del.Attempts >= d.cfg.MaxAttempts {
		// Only a process that stopped during the last attempt, or a lower
		// MaxAttempts since, leaves a pending delivery here.
		d.giveUp(ctx, del, log)
		return claimed{}, false
	}
	now := time.Now()
	until := dbTime(now.Add(2 * d.cfg.AttemptTimeout))
	n, err := d.client.WebhookDelivery.Update().
		Where(
			webhookdelivery.ID(del.ID),
			webhookdelivery.StatusEQ(webhookdelivery.StatusPending),
			webhookdelivery.NextAttemptAt(del.NextAttemptAt),
		).
		SetNextAttemptAt(until).
		SetAttempts(del.Attempts + 1).
		SetUpdatedAt(dbTime(now)).
		Save(ctx)
	if err != nil {
		if ctx.Err() == nil {
			log.Error("claim webhook", "err", err)
		}
		return claimed{}, false
	}
	if n == 0 {
		// Another process claimed it first.
		return claimed{}, false
	}
	attempt := del.Attempts + 1
	return claimed{del: del, attempt: attempt, until: until, log: log.With("attempt", attempt)}, true
}

// giveUp fails a delivery that has used all its attempts without a
// recorded outcome.
func (d *Dispatcher) giveUp(ctx context.Context, del *ent.WebhookDelivery, log *slog.Logger) {
	reason := fmt.Sprintf("given up after %d attempts; the last one was interrupted", del.Attempts)
	n, err := d.client.WebhookDelivery.Update().
		Where(
			webhookdelivery.ID(del.ID),
			webhookdelivery.StatusEQ(webhookdelivery.StatusPending),
			webhookdelivery.NextAttemptAt(del.NextAttemptAt),
		).
		SetStatus(webhookdelivery.StatusFailed).
		SetLastError(reason).
		SetUpdatedAt(dbTime(time.Now())).
		Save(ctx)
	switch {
	case err != nil && ctx.Err() == nil:
		log.Error("give up webhook", "err", err)
	case err == nil && n == 1:
		// The interrupted last attempt ends here, as a failed one.
		d.cfg.Metrics.WebhookAttempt(metrics.WebhookFailed)
		log.Warn("webhook given up", "attempts", del.Attempts, "reason", reason)
	}
}

// dbTime is t as stored: UTC, to the microsecond, which is what PostgreSQL
// keeps, so that a time written and read back compares equal in the
// conditional updates.
func dbTime(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }
