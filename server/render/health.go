package render

import (
	"context"
	"sync"
	"time"

	renderv1 "github.com/kinohq/kino/gen/kino/render/v1"
	"github.com/kinohq/kino/server/ffmpeg"
	"github.com/kinohq/kino/server/store"
)

// ffmpegCheckEvery bounds how often health runs ffmpeg; load balancers poll
// often and ffmpeg does not disappear between two polls.
const ffmpegCheckEvery = 10 * time.Second

type healthCheck struct {
	st *store.Store

	mu        sync.Mutex
	checkedAt time.Time
	ffmpegErr error
}

func newHealthCheck(st *store.Store) *healthCheck { return &healthCheck{st: st} }

func (h *healthCheck) check(ctx context.Context) *renderv1.HealthResponse {
	checks := map[string]string{"store": "ok", "ffmpeg": "ok"}
	healthy := true

	pingCtx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if err := h.st.Ping(pingCtx); err != nil {
		checks["store"] = "unreachable: " + err.Error()
		healthy = false
	}
	if err := h.ffmpeg(ctx); err != nil {
		checks["ffmpeg"] = "unusable: " + err.Error()
		healthy = false
	}
	status := "healthy"
	if !healthy {
		status = "unhealthy"
	}
	return &renderv1.HealthResponse{Status: status, Timestamp: timestamp(time.Now()), Checks: checks}
}

func (h *healthCheck) ffmpeg(ctx context.Context) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if time.Since(h.checkedAt) < ffmpegCheckEvery {
		return h.ffmpegErr
	}
	runCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	h.ffmpegErr = ffmpeg.Available(runCtx)
	h.checkedAt = time.Now()
	return h.ffmpegErr
}
