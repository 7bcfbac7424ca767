// Package webhook delivers job callbacks: stored before the first attempt,
// retried with exponential backoff and jitter, signed with the Standard
// Webhooks scheme, and resumed after a restart.
package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/kinohq/kino/ent"
	"github.com/kinohq/kino/ent/webhookdelivery"
)

// Config tunes deliveries.
type Config struct {
	// Secret signs deliveries when set.
	Secret string
	// MaxAttempts is how many times a delivery is tried; default 8.
	MaxAttempts int
	// BaseDelay is the wait before the second attempt; it doubles each time.
	BaseDelay time.Duration
	// MaxDelay caps any wait, Retry-After included; default 1 h.
	MaxDelay time.Duration
	// AttemptTimeout caps one attempt; default 15 s.
	AttemptTimeout time.Duration
	// PollInterval is how often the store is checked for due deliveries.
	PollInterval time.Duration
}

// Dispatcher sends stored deliveries.
type Dispatcher struct {
	client *ent.Client
	hc     *http.Client
	cfg    Config
	log    *slog.Logger
	wake   chan struct{}
}

// New returns a dispatcher; Run sets it going.
func New(client *ent.Client, hc *http.Client, cfg Config, log *slog.Logger) *Dispatcher {
	if cfg.MaxAttempts <= 0 {
		cfg.MaxAttempts = 8
	}
	if cfg.BaseDelay <= 0 {
		cfg.BaseDelay = 2 * time.Second
	}
	if cfg.MaxDelay <= 0 {
		cfg.MaxDelay = time.Hour
	}
	if cfg.AttemptTimeout <= 0 {
		cfg.AttemptTimeout = 15 * time.Second
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = time.Second
	}
	return &Dispatcher{client: client, hc: hc, cfg: cfg, log: log, wake: make(chan struct{}, 1)}
}

// Enqueue stores a delivery inside tx, so that it commits with the job state
// it reports; with a nil tx it is stored on its own. Call Notify after the
// commit to send it at once.
func (d *Dispatcher) Enqueue(ctx context.Context, tx *ent.Tx, jobID, url string, payload []byte) (string, error) {
	create := d.client.WebhookDelivery.Create
	if tx != nil {
		create = tx.WebhookDelivery.Create
	}
	id := "msg_" + strings.ReplaceAll(uuid.NewString(), "-", "")
	now := time.Now().UTC()
	err := create().SetID(id).SetJobID(jobID).SetURL(url).SetPayload(payload).
		SetNextAttemptAt(now).SetCreatedAt(now).SetUpdatedAt(now).Exec(ctx)
	if err != nil {
		return "", fmt.Errorf("store webhook delivery of job %s: %w", jobID, err)
	}
	return id, nil
}

// Notify wakes the dispatcher without blocking.
func (d *Dispatcher) Notify() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// Run sends due deliveries until ctx ends.
func (d *Dispatcher) Run(ctx context.Context) error {
	t := time.NewTicker(d.cfg.PollInterval)
	defer t.Stop()
	for {
		d.sendDue(ctx)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-d.wake:
		case <-t.C:
		}
	}
}

func (d *Dispatcher) sendDue(ctx context.Context) {
	for ctx.Err() == nil {
		due, err := d.client.WebhookDelivery.Query().
			Where(webhookdelivery.StatusEQ(webhookdelivery.StatusPending), webhookdelivery.NextAttemptAtLTE(time.Now().UTC())).
			Order(webhookdelivery.ByNextAttemptAt()).
			Limit(20).
			All(ctx)
		if err != nil {
			if ctx.Err() == nil {
				d.log.Error("find due webhooks", "err", err)
			}
			return
		}
		if len(due) == 0 {
			return
		}
		for _, del := range due {
			if ok := d.claim(ctx, del); ok {
				d.attempt(ctx, del)
			}
		}
	}
}

// claim pushes the delivery's next attempt past this one, conditionally on
// the value read, so that two processes sharing a database never send the
// same attempt. If this process dies mid-attempt, the delivery comes due again.
func (d *Dispatcher) claim(ctx context.Context, del *ent.WebhookDelivery) bool {
	n, err := d.client.WebhookDelivery.Update().
		Where(webhookdelivery.ID(del.ID), webhookdelivery.StatusEQ(webhookdelivery.StatusPending),
			webhookdelivery.NextAttemptAt(del.NextAttemptAt)).
		SetNextAttemptAt(time.Now().UTC().Add(2 * d.cfg.AttemptTimeout)).
		Save(ctx)
	if err != nil && ctx.Err() == nil {
		d.log.Error("claim webhook", "webhook_id", del.ID, "job_id", del.JobID, "err", err)
	}
	return err == nil && n == 1
}

func (d *Dispatcher) attempt(ctx context.Context, del *ent.WebhookDelivery) {
	log := d.log.With("webhook_id", del.ID, "job_id", del.JobID)
	attempt := del.Attempts + 1
	code, retryAfter, err := d.send(ctx, del)
	if ctx.Err() != nil {
		return
	}
	now := time.Now().UTC()
	u := d.client.WebhookDelivery.UpdateOneID(del.ID).SetAttempts(attempt).SetUpdatedAt(now)
	if code != 0 {
		u.SetLastStatusCode(code)
	}
	switch {
	case err == nil && code >= 200 && code < 300:
		u.SetStatus(webhookdelivery.StatusDelivered).ClearLastError()
		log.Info("webhook delivered", "attempt", attempt, "status", code)
	case code == http.StatusGone:
		u.SetStatus(webhookdelivery.StatusFailed).SetLastError("the receiver answered 410 Gone")
		log.Warn("webhook receiver is gone; not retrying", "attempt", attempt)
	default:
		reason := fmt.Sprintf("the receiver answered %d", code)
		if err != nil {
			reason = err.Error()
		}
		u.SetLastError(reason)
		if attempt >= d.cfg.MaxAttempts {
			u.SetStatus(webhookdelivery.StatusFailed)
			log.Warn("webhook given up", "attempt", attempt, "reason", reason)
		} else {
			wait := d.backoff(attempt, retryAfter)
			u.SetNextAttemptAt(now.Add(wait))
			log.Warn("webhook failed; will retry", "attempt", attempt, "reason", reason, "retry_in", wait)
		}
	}
	if err := u.Exec(ctx); err != nil && ctx.Err() == nil {
		log.Error("record webhook attempt", "err", err)
	}
}

// send makes one attempt and returns the status code and any Retry-After.
func (d *Dispatcher) send(ctx context.Context, del *ent.WebhookDelivery) (int, time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, d.cfg.AttemptTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, del.URL, bytes.NewReader(del.Payload))
	if err != nil {
		return 0, 0, fmt.Errorf("build request: %w", err)
	}
	ts := time.Now().Unix()
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "kino-webhook/1")
	req.Header.Set("webhook-id", del.ID)
	req.Header.Set("webhook-timestamp", strconv.FormatInt(ts, 10))
	if d.cfg.Secret != "" {
		sig, err := Sign(d.cfg.Secret, del.ID, ts, del.Payload)
		if err != nil {
			return 0, 0, err
		}
		req.Header.Set("webhook-signature", sig)
	}
	resp, err := d.hc.Do(req)
	if err != nil {
		var ue interface{ Unwrap() error }
		if errors.As(err, &ue) {
			err = ue.Unwrap()
		}
		return 0, 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	return resp.StatusCode, retryAfter(resp.Header.Get("Retry-After"), time.Now()), nil
}

// backoff is the wait before the next attempt: Retry-After when the
// receiver gave one, else BaseDelay doubled per attempt with equal jitter
// (half fixed, half random), so a receiver coming back up is not hit by
// every sender at once. Both are capped by MaxDelay.
func (d *Dispatcher) backoff(attempt int, retryAfter time.Duration) time.Duration {
	if retryAfter > 0 {
		return min(retryAfter, d.cfg.MaxDelay)
	}
	exp := d.cfg.BaseDelay << min(attempt-1, 30)
	if exp <= 0 || exp > d.cfg.MaxDelay {
		exp = d.cfg.MaxDelay
	}
	half := exp / 2
	return half + rand.N(half+1)
}

// retryAfter reads a Retry-After header: seconds, or an HTTP date.
func retryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && s > 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}
