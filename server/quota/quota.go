// Package quota enforces each organisation's submit limits (server/org):
// the rate of submits, the jobs waiting, and the bytes kept. Every check
// reads or writes the shared database, so limits hold across nodes, and
// each organisation's own rows alone: one never limits another.
//
// A submission is accepted or refused whole, before anything of it is
// stored; nothing accepted is ever dropped by a limit.
package quota

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"entgo.io/ent/dialect"

	"github.com/kinohq/kino/ent"
	"github.com/kinohq/kino/ent/job"
	"github.com/kinohq/kino/server/apierr"
	"github.com/kinohq/kino/server/jobs"
	"github.com/kinohq/kino/server/org"
	"github.com/kinohq/kino/server/store"
)

// QueueRetry is the Retry-After of QUEUE_FULL: when the organisation's
// jobs start depends on the workers, so this is a polite interval to
// poll at, not a promise.
const QueueRetry = 5 * time.Second

// waiting are the states of a job that holds a place in its
// organisation's queue: not yet running, not ended.
//
//nolint:gochecknoglobals // read-only table: the states that hold a place in the queue
var waiting = []job.State{job.StatePending, job.StateAvailable, job.StateRetrying}

// Limiter checks submits against the organisations' policies. A nil
// *Limiter limits nothing.
type Limiter struct {
	st   *store.Store
	orgs *org.Policies
	// now is the clock of the rate and of uploads' expiry.
	now func() time.Time
}

// New returns a limiter over the store's rows with the policies.
func New(st *store.Store, orgs *org.Policies) *Limiter {
	return &Limiter{st: st, orgs: orgs, now: time.Now}
}

// WithClock makes the limiter read time from now (time.Now by default):
// the rate refills by it, and uploads stop counting against the storage
// quota when they expire by it.
func (l *Limiter) WithClock(now func() time.Time) *Limiter {
	if l != nil && now != nil {
		l.now = now
	}
	return l
}

type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// Admit decides one submission of n jobs by organisation o: QUEUE_FULL
// when o's jobs waiting and these would pass its MaxQueued, else
// RATE_LIMITED when o's rate has no submit left, else nil with one submit
// taken. It runs in the transaction that inserts the jobs, so that what it
// counted cannot change before they commit (PostgreSQL: a lock of the
// organisation; SQLite: the transaction's write lock) and a refusal takes
// nothing. A submission of more jobs than MaxQueued is accepted when none
// of o's jobs wait, so that no render or pipeline is refused for good.
func (l *Limiter) Admit(ctx context.Context, tx *ent.Tx, o string, n int) error {
	return l.admit(ctx, tx, o, n)
}

// Jobs is Admit as the job core takes it, for a submission of n jobs of o:
// the APIs hand it to jobs.Client.InsertAdmitted without seeing the database.
func (l *Limiter) Jobs(o string, n int) jobs.Admit {
	return func(ctx context.Context, tx *ent.Tx) error { return l.admit(ctx, tx, o, n) }
}

func (l *Limiter) admit(ctx context.Context, tx *ent.Tx, o string, n int) error {
	if l == nil {
		return nil
	}
	p := l.orgs.For(o)
	if p.MaxQueued > 0 {
		if err := l.lock(ctx, tx, o); err != nil {
			return err
		}
		w, err := countWaiting(ctx, tx, o, p.MaxQueued)
		if err != nil {
			return apierr.Wrap(err, apierr.TriggerSubmitFailed, "the organisation's queue could not be counted; try again")
		}
		if w > 0 && w+n > p.MaxQueued {
			return apierr.Retry(QueueRetry, apierr.QueueFull,
				"organisation %q has %d jobs waiting and this submit adds %d, over its limit of %d waiting jobs; try again when some have started",
				o, w, n, p.MaxQueued)
		}
	}
	return l.take(ctx, tx, o, p)
}

// Take takes one submit of organisation o's rate outside any transaction
// (an upload, which stores its file before its row), or refuses with
// RATE_LIMITED.
func (l *Limiter) Take(ctx context.Context, o string) error {
	if l == nil {
		return nil
	}
	return l.take(ctx, l.st.Client, o, l.orgs.For(o))
}

// lock makes the organisation's checks and inserts on every node take
// turns until the transaction ends. SQLite's transactions already do.
func (l *Limiter) lock(ctx context.Context, tx *ent.Tx, o string) error {
	if l.st.Dialect != dialect.Postgres {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtext('kino org ' || coalesce(current_schema(), '') || ' ' || $1))`, o); err != nil {
		return apierr.Wrap(err, apierr.TriggerSubmitFailed, "the organisation's limits could not be checked; try again")
	}
	return nil
}

// countWaiting counts o's jobs waiting, up to limit: enough to decide.
func countWaiting(ctx context.Context, q querier, o string, limit int) (int, error) {
	rows, err := q.QueryContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM jobs WHERE org_id = $1 AND state IN ($2, $3, $4) LIMIT $5) w`,
		o, string(waiting[0]), string(waiting[1]), string(waiting[2]), limit)
	if err != nil {
		return 0, fmt.Errorf("count waiting jobs of %s: %w", o, err)
	}
	n, err := scanInt(rows)
	return int(n), err
}

// scanInt reads the one number a query answers (0 for no row).
func scanInt(rows *sql.Rows) (int64, error) {
	defer rows.Close()
	var n int64
	if rows.Next() {
		if err := rows.Scan(&n); err != nil {
			return 0, err
		}
	}
	return n, rows.Err()
}
