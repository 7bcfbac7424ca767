package quota

import (
	"context"
	"fmt"
	"time"

	"github.com/kinohq/kino/ent"
	"github.com/kinohq/kino/server/apierr"
)

// Room refuses with QUOTA_EXCEEDED, before anything is stored, what would
// put organisation o's kept bytes past its StorageQuota. It is a quick
// check: Keep decides.
func (l *Limiter) Room(ctx context.Context, o string, bytes int64) error {
	if l == nil {
		return nil
	}
	quota := l.orgs.For(o).StorageQuota
	if quota <= 0 {
		return nil
	}
	used, err := keptBytes(ctx, l.st.Client, o, l.now())
	if err != nil {
		return apierr.Wrap(err, apierr.Internal, "the organisation's storage could not be counted; try again")
	}
	return overQuota(o, used, bytes, quota)
}

// Used is what organisation o keeps now: the bytes of its assets and of
// its uploads that have not expired.
func (l *Limiter) Used(ctx context.Context, o string) (int64, error) {
	if l == nil {
		return 0, nil
	}
	return keptBytes(ctx, l.st.Client, o, l.now())
}

// Keep records bytes more of organisation o's with record, in one
// transaction that counts what o keeps first and refuses with
// QUOTA_EXCEEDED what would pass its StorageQuota. Organisation o's
// records take turns on every node, so two at once cannot both fit in
// the room of one.
func (l *Limiter) Keep(ctx context.Context, st *ent.Client, o string, bytes int64, record func(tx *ent.Tx) error) error {
	tx, err := st.Tx(ctx)
	if err != nil {
		return fmt.Errorf("begin transaction: %w", err)
	}
	err = l.keep(ctx, tx, o, bytes, record)
	if err != nil {
		if rerr := tx.Rollback(); rerr != nil {
			return fmt.Errorf("%w (rollback: %v)", err, rerr)
		}
		return err
	}
	return tx.Commit()
}

func (l *Limiter) keep(ctx context.Context, tx *ent.Tx, o string, bytes int64, record func(tx *ent.Tx) error) error {
	if l != nil {
		if quota := l.orgs.For(o).StorageQuota; quota > 0 {
			if err := l.lock(ctx, tx, o); err != nil {
				return err
			}
			used, err := keptBytes(ctx, tx, o, l.now())
			if err != nil {
				return apierr.Wrap(err, apierr.Internal, "the organisation's storage could not be counted; try again")
			}
			if err := overQuota(o, used, bytes, quota); err != nil {
				return err
			}
		}
	}
	return record(tx)
}

func overQuota(o string, used, bytes, quota int64) error {
	if used+bytes <= quota {
		return nil
	}
	return apierr.New(apierr.QuotaExceeded,
		"organisation %q keeps %d bytes of assets and uploads and this adds %d, over its storage quota of %d bytes; delete assets it no longer needs, or wait for uploads to expire, to make room",
		o, used, bytes, quota)
}

// keptBytes is what organisation o keeps at now: the bytes of its assets
// and of its uploads that have not expired (an expired one is no longer
// served, whether or not the sweeper has deleted it yet).
func keptBytes(ctx context.Context, q querier, o string, now time.Time) (int64, error) {
	rows, err := q.QueryContext(ctx, `SELECT CAST((SELECT coalesce(sum(file_size), 0) FROM assets WHERE org_id = $1)
		+ (SELECT coalesce(sum(size), 0) FROM uploads WHERE org_id = $1 AND expires_at > $2) AS BIGINT)`, o, now.UnixMilli())
	if err != nil {
		return 0, fmt.Errorf("count the bytes of %s: %w", o, err)
	}
	return scanInt(rows)
}
