package webhook

import (
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// backoff is the wait after the given failed attempt (1 for the first):
// what Retry-After asked for when the receiver gave one, else BaseDelay
// doubled per attempt with equal jitter, so that the wait is between half
// and all of BaseDelay·2^(attempt-1). The jitter spreads the retries of
// many deliveries to a receiver that comes back up, instead of sending them
// all in the same second; keeping half fixed keeps the schedule readable.
// Both are capped by MaxDelay.
func (c Config) backoff(attempt int, retryAfter time.Duration) time.Duration {
	if retryAfter > 0 {
		return min(retryAfter, c.MaxDelay)
	}
	exp := c.BaseDelay
	for i := 1; i < attempt && exp < c.MaxDelay && exp <= math.MaxInt64/2; i++ {
		exp *= 2
	}
	exp = min(exp, c.MaxDelay)
	half := exp / 2
	return exp - half + rand.N(half+1)
}

// maxRetryAfter bounds a Retry-After in seconds before it becomes a
// Duration, which would overflow past 292 years; MaxDelay caps it anyway.
const maxRetryAfter = 100 * 365 * 24 * 60 * 60

// parseRetryAfter reads a Retry-After header, in seconds or as an HTTP
// date. It returns 0 when there is none, it cannot be read, or it asks for
// no wait, and the usual backoff then applies.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseInt(v, 10, 64); err == nil {
		return time.Duration(min(max(s, 0), maxRetryAfter)) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}
