package render

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	renderv1 "github.com/kinohq/kino/gen/kino/render/v1"
	"github.com/kinohq/kino/server/ffmpeg"
	"github.com/kinohq/kino/server/store"
)

// ffmpegCheckEvery bounds how often health runs ffmpeg; load balancers poll
// often and ffmpeg does not disappear between two polls.
const ffmpegCheckEvery = 10 * time.Second

// storeCheckTimeout bounds the store check: a database slower than this is
// as good as down for a load balancer.
const storeCheckTimeout = 2 * time.Second

type healthCheck struct {
	st  *store.Store
	log *slog.Logger

	mu        sync.Mutex
	checkedAt time.Time
	ffmpegErr error
}

func newHealthCheck(st *store.Store, log *slog.Logger) *healthCheck {
	return &healthCheck{st: st, log: log}
}

func (h *healthCheck) check(ctx context.Context) *renderv1.HealthResponse {
	checks := map[string]string{"store": "ok", "ffmpeg": "ok"}
	healthy := true

	storeCtx, cancel := context.WithTimeout(ctx, storeCheckTimeout)
	defer cancel()
	// Health is public: the driver's message names the user, database and
	// address, so it goes to the log and the answer only names the check.
	if err := h.st.Check(storeCtx); err != nil {
		h.log.ErrorContext(ctx, "health: store check failed", "err", err)
		checks["store"] = "failing: the job tables could not be read"
		if errors.Is(err, store.ErrUnreachable) {
			checks["store"] = "unreachable: the database does not answer"
		}
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
	return &renderv1.HealthResponse{Status: status, Timestamp: timestamp(time.Now().UnixMilli()), Checks: checks}
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
