package webhook

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestBackoff(t *testing.T) {
	t.Parallel()
	c := Config{}.withDefaults() // 2 s doubling, at most 1 h
	for _, tc := range []struct {
		attempt int
		ceiling time.Duration // BaseDelay·2^(attempt-1), capped
	}{
		{1, 2 * time.Second},
		{2, 4 * time.Second},
		{3, 8 * time.Second},
		{7, 128 * time.Second},
		{11, 2048 * time.Second},
		{12, time.Hour},
		{1000, time.Hour},
	} {
		for range 50 {
			got := c.backoff(tc.attempt, 0)
			assert.GreaterOrEqual(t, got, tc.ceiling/2, "attempt %d", tc.attempt)
			assert.LessOrEqual(t, got, tc.ceiling, "attempt %d", tc.attempt)
		}
	}

	t.Run("Retry-After replaces the backoff, capped", func(t *testing.T) {
		assert.Equal(t, 90*time.Second, c.backoff(1, 90*time.Second))
		assert.Equal(t, time.Hour, c.backoff(1, 48*time.Hour))
	})
	t.Run("no overflow with long delays", func(t *testing.T) {
		long := Config{BaseDelay: 24 * time.Hour, MaxDelay: 1 << 62}.withDefaults()
		for _, attempt := range []int{1, 30, 63, 64, 1 << 20} {
			got := long.backoff(attempt, 0)
			assert.Positive(t, got, "attempt %d", attempt)
			assert.LessOrEqual(t, got, long.MaxDelay, "attempt %d", attempt)
		}
	})
}

func TestParseRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		header string
		want   time.Duration
	}{
		{"", 0},
		{"120", 2 * time.Minute},
		{" 5 ", 5 * time.Second},
		{"0", 0},
		{"-3", 0},
		{"99999999999999999", maxRetryAfter * time.Second},
		{"Sun, 01 Mar 2026 12:00:30 GMT", 30 * time.Second},
		{"Sunday, 01-Mar-26 12:01:00 GMT", time.Minute},
		{"Sun, 01 Mar 2026 11:59:00 GMT", 0}, // in the past
		{"soon", 0},
		{"1.5", 0},
	} {
		assert.Equal(t, tc.want, parseRetryAfter(tc.header, now), "%q", tc.header)
	}
}
