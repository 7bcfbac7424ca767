package upload

import (
	"context"
	"fmt"
	"time"

	entupload "github.com/kinohq/kino/ent/upload"
)

// SweepEvery is how often the sweeper looks for expired uploads.
const SweepEvery = time.Minute

// sweepBatch is how many expired uploads one pass deletes at most.
const sweepBatch = 500

// Sweep deletes the uploads expired at the service's now: each file first,
// then its row, so a crash between the two leaves a row the next pass
// deletes again, never a file no row names. It returns how many it
// deleted. Any node may sweep: deleting twice is harmless.
func (s *Service) Sweep(ctx context.Context) (int, error) {
	rows, err := s.cfg.Store.Upload.Query().
		Where(entupload.ExpiresAtLTE(s.cfg.Now().UnixMilli())).
		Order(entupload.ByExpiresAt()).Limit(sweepBatch).All(ctx)
	if err != nil {
		return 0, fmt.Errorf("list expired uploads: %w", err)
	}
	n := 0
	for _, u := range rows {
		if err := s.cfg.Storage.Delete(ctx, u.StorageKey); err != nil {
			return n, fmt.Errorf("delete expired upload %s: %w", u.ID, err)
		}
		if err := s.cfg.Store.Upload.DeleteOneID(u.ID).Exec(ctx); err != nil {
			return n, fmt.Errorf("forget expired upload %s: %w", u.ID, err)
		}
		n++
	}
	return n, nil
}

// RunSweeper sweeps every SweepEvery until ctx ends; a failed pass is
// logged and tried again at the next.
func (s *Service) RunSweeper(ctx context.Context) {
	t := time.NewTicker(SweepEvery)
	defer t.Stop()
	for {
		if n, err := s.Sweep(ctx); err != nil {
			if ctx.Err() != nil {
				return
			}
			s.cfg.Log.WarnContext(ctx, "sweep expired uploads", "err", err)
		} else if n > 0 {
			s.cfg.Log.InfoContext(ctx, "expired uploads deleted", "uploads", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
