package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/kinohq/kino/ent"
	"github.com/kinohq/kino/ent/webhookdelivery"
	"github.com/kinohq/kino/server/fetch"
	"github.com/kinohq/kino/server/metrics"
	"github.com/kinohq/kino/server/tracing"
)

// userAgent names kino's webhook sender; the version changes only with the
// delivery format.
const userAgent = "kino-webhook/1"

// maxLastError bounds the stored last_error; a receiver's error text is
// not ours to store in full.
const maxLastError = 1000

// errLostClaim reports an outcome that was not recorded because the claim
// had run out and another process had taken the delivery.
var errLostClaim = errors.New("the claim ran out before the attempt was recorded")

// result is what one attempt got back.
type result struct {
	// code is the HTTP status, 0 when no answer came.
	code       int
	retryAfter time.Duration
	// err is why no answer came, written for the person who owns the URL.
	err error
	// permanent is set when trying again cannot help: the URL is not
	// valid or resolves to an address kino refuses.
	permanent bool
}

// attempt sends a claimed delivery once and records the outcome, as a span
// in the trace the delivery was stored in.
func (d *Dispatcher) attempt(ctx context.Context, c claimed) {
	ctx, span := d.tracer.Start(tracing.Extract(ctx, c.del.TraceContext), "webhook.deliver", trace.WithAttributes(
		attribute.String("kino.webhook.id", c.del.ID), attribute.String("kino.job.id", c.del.JobID),
		attribute.Int("kino.webhook.attempt", c.attempt)))
	defer span.End()
	res := d.sendSigned(ctx, c)
	if res.code != 0 {
		span.SetAttributes(semconv.HTTPResponseStatusCode(res.code))
	}
	if why := describe(res); why != "" {
		span.SetStatus(codes.Error, why)
	}
	if ctx.Err() != nil {
		// Shutting down: the answer, if any, is lost with the request.
		d.release(ctx, c)
		return
	}
	err := d.record(ctx, c, res)
	switch {
	case errors.Is(err, errLostClaim):
		// Possible only when recording took longer than the claim's
		// margin; the receiver may get this attempt twice.
		c.log.Warn("webhook claim ran out before the attempt was recorded; another process has taken the delivery over")
	case err != nil && ctx.Err() == nil:
		c.log.Error("record webhook attempt", "err", err)
	}
}

// sendSigned makes one POST of the delivery, signed with its endpoint's
// secret when it goes to an organisation endpoint, else with the server's.
func (d *Dispatcher) sendSigned(ctx context.Context, c claimed) result {
	key := d.key
	if c.del.EndpointID != "" {
		ep, err := d.client.WebhookEndpoint.Get(ctx, c.del.EndpointID)
		if ent.IsNotFound(err) {
			return result{err: errors.New("the webhook endpoint was deleted"), permanent: true}
		}
		if err != nil {
			return result{err: errors.New("the endpoint's secret could not be read")}
		}
		if key, err = secretKey(ep.Secret); err != nil {
			return result{err: err, permanent: true}
		}
	}
	return d.send(ctx, c, key)
}

// send makes one POST of the delivery, signed with key when there is one.
func (d *Dispatcher) send(ctx context.Context, c claimed, key []byte) result {
	ctx, cancel := context.WithTimeout(ctx, d.cfg.AttemptTimeout)
	defer cancel()
	u, err := url.Parse(c.del.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return result{err: errors.New("the webhook URL is not an absolute http or https URL"), permanent: true}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.del.URL, bytes.NewReader(c.del.Payload))
	if err != nil {
		return result{err: fmt.Errorf("the webhook URL cannot be requested: %w", err), permanent: true}
	}
	// The timestamp is this attempt's, so a receiver's replay window holds
	// for retries too; the id stays the same so it can deduplicate.
	ts := time.Now().Unix()
	for k, v := range c.del.Headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", userAgent)
	req.Header.Set("webhook-id", c.del.ID)
	req.Header.Set("webhook-timestamp", strconv.FormatInt(ts, 10))
	if key != nil {
		req.Header.Set("webhook-signature", sign(key, c.del.ID, ts, c.del.Payload))
	}
	// The receiver may continue the trace; a traced client replaces this
	// with the context of its own span for the request.
	tracing.Propagator.Inject(ctx, propagation.HeaderCarrier(req.Header))
	resp, err := d.hc.Do(req)
	if err != nil {
		return d.failedRequest(err)
	}
	defer resp.Body.Close()
	// Reading a little of the body lets the connection be reused; a
	// receiver's page of HTML is not worth more.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	return result{code: resp.StatusCode, retryAfter: parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())}
}

// failedRequest explains an attempt that got no answer. The URL is left
// out: it is stored beside the error and may carry a token.
func (d *Dispatcher) failedRequest(err error) result {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var fe *fetch.Error
	var ne net.Error
	switch {
	case errors.As(err, &fe) && (fe.Kind == fetch.Blocked || fe.Kind == fetch.BadURL):
		return result{err: fe, permanent: true}
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return result{err: fmt.Errorf("no answer within %s", d.cfg.AttemptTimeout)}
	}
	return result{err: err}
}

// record stores the outcome of an attempt: delivered on 2xx, failed on 410,
// on a permanent error or with no attempts left, else pending again after
// the backoff. It changes the row only if this process's claim still holds.
func (d *Dispatcher) record(ctx context.Context, c claimed, res result) error {
	now := time.Now()
	u := d.client.WebhookDelivery.Update().
		Where(
			webhookdelivery.ID(c.del.ID),
			webhookdelivery.StatusEQ(webhookdelivery.StatusPending),
			webhookdelivery.NextAttemptAt(c.until),
		).
		SetUpdatedAt(dbTime(now))
	if res.code != 0 {
		u.SetLastStatusCode(res.code)
	} else {
		u.ClearLastStatusCode()
	}
	reason := describe(res)
	log := c.log
	if res.code != 0 {
		log = log.With("status", res.code)
	}
	var logResult func()
	outcome := metrics.WebhookFailed
	switch {
	case res.err == nil && res.code >= 200 && res.code <= 299:
		u.SetStatus(webhookdelivery.StatusDelivered).ClearLastError()
		outcome = metrics.WebhookDelivered
		logResult = func() { log.Info("webhook delivered") }
	case res.err == nil && res.code == http.StatusGone:
		u.SetStatus(webhookdelivery.StatusFailed).SetLastError(reason)
		logResult = func() { log.Warn("webhook receiver is gone; not retrying") }
	case res.permanent:
		u.SetStatus(webhookdelivery.StatusFailed).SetLastError(reason)
		logResult = func() { log.Warn("webhook cannot be sent; not retrying", "reason", reason) }
	case c.attempt >= d.cfg.MaxAttempts:
		u.SetStatus(webhookdelivery.StatusFailed).SetLastError(reason)
		logResult = func() { log.Warn("webhook given up", "reason", reason, "attempts", c.attempt) }
	default:
		wait := d.cfg.backoff(c.attempt, res.retryAfter)
		u.SetNextAttemptAt(dbTime(now.Add(wait))).SetLastError(reason)
		outcome = metrics.WebhookRetry
		logResult = func() { log.Warn("webhook attempt failed; will retry", "reason", reason, "retry_in", wait) }
	}
	n, err := u.Save(ctx)
	if err != nil {
		return err
	}
	if n == 0 {
		return errLostClaim
	}
	d.cfg.Metrics.WebhookAttempt(outcome)
	logResult()
	return nil
}

// describe is the last_error of an attempt, "" when it delivered.
func describe(res result) string {
	var s string
	switch {
	case res.err != nil:
		s = res.err.Error()
	case res.code >= 200 && res.code <= 299:
		return ""
	case res.code == http.StatusGone:
		s = "the receiver answered 410 Gone, which ends the delivery"
	case res.code >= 300 && res.code <= 399:
		s = fmt.Sprintf("the receiver answered %d %s; redirects are not followed, so give kino the final URL", res.code, http.StatusText(res.code))
	default:
		s = fmt.Sprintf("the receiver answered %d %s", res.code, http.StatusText(res.code))
	}
	if len(s) > maxLastError {
		s = strings.ToValidUTF8(s[:maxLastError], "")
	}
	return s
}

// release puts back a delivery whose attempt was cut short by shutdown, so
// that the next process to start sends it at once instead of after the
// claim runs out, and does not count the attempt.
func (d *Dispatcher) release(ctx context.Context, c claimed) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	now := dbTime(time.Now())
	_, err := d.client.WebhookDelivery.Update().
		Where(
			webhookdelivery.ID(c.del.ID),
			webhookdelivery.StatusEQ(webhookdelivery.StatusPending),
			webhookdelivery.NextAttemptAt(c.until),
		).
		SetNextAttemptAt(now).
		SetAttempts(c.attempt - 1).
		SetUpdatedAt(now).
		Save(ctx)
	if err != nil {
		c.log.Warn("put back interrupted webhook attempt; it is retried when its claim runs out", "err", err)
		return
	}
	c.log.Info("webhook attempt interrupted by shutdown; it is sent again on the next start")
}
