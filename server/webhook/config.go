package webhook

import (
	"time"

	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/kinohq/kino/server/metrics"
)

// Config tunes deliveries. Zero values mean the defaults.
type Config struct {
	// Secret signs deliveries when set: "whsec_" and base64 (the Standard
	// Webhooks form, whose decoded bytes are the key) or any other string
	// (whose bytes are the key).
	Secret string
	// MaxAttempts is how many times one delivery is tried before it is
	// given up; default 8.
	MaxAttempts int
	// BaseDelay is the wait before the second attempt; it doubles for each
	// attempt after that. Default 2 s.
	BaseDelay time.Duration
	// MaxDelay caps any wait between attempts, Retry-After included;
	// default 1 h.
	MaxDelay time.Duration
	// AttemptTimeout caps one attempt, from connecting to reading the
	// answer; default 15 s. A claim holds a delivery for twice as long.
	AttemptTimeout time.Duration
	// PollInterval is how often the database is checked for deliveries
	// that came due, such as retries and deliveries stored by other
	// processes; default 1 s.
	PollInterval time.Duration
	// TracerProvider records each attempt as a span "webhook.deliver" in
	// the trace the delivery was stored in; nil records none. The request
	// carries the attempt's trace context (traceparent) either way.
	TracerProvider trace.TracerProvider
	// MaxInFlight bounds the attempts one dispatcher makes at once: enough
	// that receivers which hang until AttemptTimeout do not hold back
	// everyone else's callbacks, few enough that a burst of finished jobs
	// does not open hundreds of connections. Default 32.
	MaxInFlight int
	// MaxInFlightPerOrg bounds the attempts of one organisation's
	// deliveries at once, so that its slow receivers take only its own
	// share of MaxInFlight and never delay another organisation's
	// callbacks. Default 4.
	MaxInFlightPerOrg int
	// Metrics counts attempts by outcome; nil counts nothing.
	Metrics *metrics.Metrics
}

func (c Config) withDefaults() Config {
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = 8
	}
	if c.BaseDelay <= 0 {
		c.BaseDelay = 2 * time.Second
	}
	if c.MaxDelay <= 0 {
		c.MaxDelay = time.Hour
	}
	if c.AttemptTimeout <= 0 {
		c.AttemptTimeout = 15 * time.Second
	}
	if c.PollInterval <= 0 {
		c.PollInterval = time.Second
	}
	if c.MaxInFlight <= 0 {
		c.MaxInFlight = 32
	}
	if c.MaxInFlightPerOrg <= 0 {
		c.MaxInFlightPerOrg = 4
	}
	if c.TracerProvider == nil {
		c.TracerProvider = noop.NewTracerProvider()
	}
	return c
}
