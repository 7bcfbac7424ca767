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
	"slices"
	"strings"
	"sync"
	"time"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"
	"go.opentelemetry.io/otel/trace"

	"github.com/kinohq/kino/ent"
	"github.com/kinohq/kino/ent/job"
	"github.com/kinohq/kino/ent/predicate"
	"github.com/kinohq/kino/ent/webhookdelivery"
	"github.com/kinohq/kino/server/fetch"
	"github.com/kinohq/kino/server/metrics"
	"github.com/kinohq/kino/server/tracing"
)

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

	// mu guards inFlight, the attempts under way by organisation.
	mu       sync.Mutex
	inFlight map[string]int
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
	d := &Dispatcher{client: client, hc: hc, cfg: cfg, log: log, wake: make(chan struct{}, 1),
		tracer: cfg.TracerProvider.Tracer(tracing.Scope), inFlight: map[string]int{}}
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
	m := Msg{ID: NewID(), JobID: jobID, URL: url, Payload: payload}
	return m.ID, d.Store(ctx, tx, m)
}

// Msg is one delivery to store.
type Msg struct {
	// ID is its webhook-id (NewID), known before it is stored so that the
	// payload can carry it.
	ID string
	// JobID is the job it reports (for a run, the job whose end ended
	// it): its organisation's share of attempts is the one it takes.
	JobID, URL string
	Payload    []byte
	// EndpointID is the organisation endpoint it goes to, whose secret
	// signs it; "" signs it with Config.Secret.
	EndpointID string
	// Event names what it reports; RunID the pipeline run, for a run's.
	Event, RunID string
	// Headers are extra request headers the job asked for; kino's own
	// headers are set after them and win.
	Headers map[string]string
}

// NewID is a new webhook-id: "msg_" and 32 hex digits.
func NewID() string { return "msg_" + strings.ReplaceAll(uuid.NewString(), "-", "") }

// Store stores m as a pending delivery, as Enqueue does.
func (d *Dispatcher) Store(ctx context.Context, tx *ent.Tx, m Msg) error {
	if !json.Valid(m.Payload) {
		return fmt.Errorf("store webhook of job %s: the payload is not JSON", m.JobID)
	}
	now := dbTime(time.Now())
	create := d.client.WebhookDelivery.Create
	if tx != nil {
		create = tx.WebhookDelivery.Create
	}
	c := create().SetID(m.ID).SetJobID(m.JobID).SetURL(m.URL).SetPayload(m.Payload).
		SetNextAttemptAt(now).SetCreatedAt(now).SetUpdatedAt(now)
	if m.EndpointID != "" {
		c.SetEndpointID(m.EndpointID)
	}
	if m.Event != "" {
		c.SetEvent(m.Event)
	}
	if m.RunID != "" {
		c.SetRunID(m.RunID)
	}
	if len(m.Headers) > 0 {
		c.SetHeaders(m.Headers)
	}
	if tc := tracing.Inject(ctx); tc != nil {
		c.SetTraceContext(tc)
	}
	if err := c.Exec(ctx); err != nil {
		return fmt.Errorf("store webhook of job %s: %w", m.JobID, err)
	}
	if tx == nil {
		d.Notify()
		return nil
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
	return nil
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
	tick := time.NewTicker(d.cfg.PollInterval)
	defer tick.Stop()
	for {
		d.startDue(ctx, &inFlight)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-d.wake:
		case <-tick.C:
		}
	}
}

// startDue claims due deliveries while there are free slots and starts an
// attempt of each. Slots are shared fairly among organisations: one
// organisation holds at most MaxInFlightPerOrg of them, so its slow
// receivers only ever wait in its own share, and free slots go round the
// organisations with due deliveries, fewest attempts under way first.
func (d *Dispatcher) startDue(ctx context.Context, inFlight *sync.WaitGroup) {
	for ctx.Err() == nil {
		free, full := d.room()
		if free == 0 {
			return
		}
		// A window wider than the free slots, so that one organisation's
		// burst of due deliveries does not hide another's.
		window := min(free*d.cfg.MaxInFlightPerOrg, maxWindow)
		q := d.client.WebhookDelivery.Query().
			Where(webhookdelivery.StatusEQ(webhookdelivery.StatusPending), webhookdelivery.NextAttemptAtLTE(dbTime(time.Now())))
		if len(full) > 0 {
			q.Where(notOfOrgs(full))
		}
		due, err := q.Order(webhookdelivery.ByNextAttemptAt()).Limit(window).All(ctx)
		if err == nil {
			var orgs map[string]string
			orgs, err = d.orgsOf(ctx, due)
			if err == nil {
				started := 0
				for _, p := range d.fairOrder(due, orgs, free) {
					c, ok := d.claim(ctx, p.del)
					if !ok {
						continue
					}
					started++
					d.startAttempt(ctx, inFlight, p.org, c)
				}
				if started == 0 || len(due) < window {
					return
				}
				continue
			}
		}
		if ctx.Err() == nil {
			d.log.Error("find due webhooks", "err", err)
		}
		return
	}
}

// maxWindow bounds the due deliveries read at once.
const maxWindow = 256

// room returns how many attempts may start now, and the organisations
// that already hold their whole share.
func (d *Dispatcher) room() (free int, full []string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	total := 0
	for org, n := range d.inFlight {
		total += n
		if n >= d.cfg.MaxInFlightPerOrg {
			full = append(full, org)
		}
	}
	return max(d.cfg.MaxInFlight-total, 0), full
}

// startAttempt makes the attempt of c in its own goroutine, counted
// against org's share until it ends.
func (d *Dispatcher) startAttempt(ctx context.Context, inFlight *sync.WaitGroup, org string, c claimed) {
	d.mu.Lock()
	d.inFlight[org]++
	d.mu.Unlock()
	inFlight.Go(func() {
		defer func() {
			d.mu.Lock()
			if d.inFlight[org]--; d.inFlight[org] <= 0 {
				delete(d.inFlight, org)
			}
			d.mu.Unlock()
			// A slot is free: look again rather than wait a tick.
			d.Notify()
		}()
		d.attempt(ctx, c)
	})
}

// pick is a due delivery chosen for an attempt, with its organisation.
type pick struct {
	del *ent.WebhookDelivery
	org string
}

// fairOrder chooses at most free of the due deliveries (in the order they
// came due) in rounds: each round takes the next delivery of every
// organisation that has one and room in its share, organisations with
// fewer attempts under way first, then the one whose delivery came due
// first.
func (d *Dispatcher) fairOrder(due []*ent.WebhookDelivery, orgOf map[string]string, free int) []pick {
	byOrg := map[string][]*ent.WebhookDelivery{}
	var orgs []string
	for _, del := range due {
		org := orgOf[del.JobID]
		if _, seen := byOrg[org]; !seen {
			orgs = append(orgs, org)
		}
		byOrg[org] = append(byOrg[org], del)
	}
	d.mu.Lock()
	busy := make(map[string]int, len(orgs))
	for _, org := range orgs {
		busy[org] = d.inFlight[org]
	}
	d.mu.Unlock()
	// Stable, so that ties keep the order in which deliveries came due.
	slices.SortStableFunc(orgs, func(a, b string) int { return busy[a] - busy[b] })
	var picks []pick
	for round := 0; len(picks) < free; round++ {
		took := false
		for _, org := range orgs {
			if len(picks) == free {
				break
			}
			if round >= len(byOrg[org]) || busy[org] >= d.cfg.MaxInFlightPerOrg {
				continue
			}
			picks = append(picks, pick{del: byOrg[org][round], org: org})
			busy[org]++
			took = true
		}
		if !took {
			break
		}
	}
	return picks
}

// orgsOf maps the jobs of deliveries to their organisations. A delivery
// whose job is gone counts as organisation "".
func (d *Dispatcher) orgsOf(ctx context.Context, due []*ent.WebhookDelivery) (map[string]string, error) {
	ids := make([]string, 0, len(due))
	for _, del := range due {
		ids = append(ids, del.JobID)
	}
	out := make(map[string]string, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	jobs, err := d.client.Job.Query().Where(job.IDIn(ids...)).Select(job.FieldID, job.FieldOrgID).All(ctx)
	if err != nil {
		return nil, fmt.Errorf("find organisations of webhooks: %w", err)
	}
	for _, j := range jobs {
		out[j.ID] = j.OrgID
	}
	return out, nil
}

// notOfOrgs leaves out deliveries of jobs of the organisations orgs ("" for
// deliveries whose job is gone), so that the window of due deliveries read
// holds only ones that may start.
func notOfOrgs(orgs []string) predicate.WebhookDelivery {
	return func(s *sql.Selector) {
		args := make([]any, 0, len(orgs))
		orphans := false
		for _, org := range orgs {
			if org == "" {
				orphans = true
			}
			args = append(args, org)
		}
		jobs := sql.Table(job.Table)
		ofJob := sql.ColumnsEQ(jobs.C(job.FieldID), s.C(webhookdelivery.FieldJobID))
		excluded := sql.Exists(sql.Select(jobs.C(job.FieldID)).From(jobs).
			Where(sql.And(ofJob, sql.In(jobs.C(job.FieldOrgID), args...))))
		if orphans {
			excluded = sql.Or(excluded, sql.NotExists(sql.Select(jobs.C(job.FieldID)).From(jobs).Where(ofJob)))
		}
		s.Where(sql.Not(excluded))
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
