package quota

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/kinohq/kino/server/apierr"
	"github.com/kinohq/kino/server/org"
)

// The rate is a generic cell rate algorithm over one row an organisation:
// tat is when its next submit would be due if it submitted at exactly its
// rate. A submit is taken when tat, moved on by one interval from now or
// from itself, whichever is later, stays within a burst of intervals of
// now; it is one conditional upsert, atomic on either database, so nodes
// share the bucket without a lock of their own. Times are microseconds.
const takeSQL = `INSERT INTO org_rates (id, tat) VALUES ($1, NOW + $2)
ON CONFLICT (id) DO UPDATE SET tat = (CASE WHEN org_rates.tat > NOW THEN org_rates.tat ELSE NOW END) + $2
WHERE (CASE WHEN org_rates.tat > NOW THEN org_rates.tat ELSE NOW END) + $2 - NOW <= $3
RETURNING tat`

// aheadSQL is how far the organisation's tat is ahead of now.
const aheadSQL = `SELECT tat - NOW FROM org_rates WHERE id = $1`

// statement fills in NOW as parameter n, the limiter's clock in
// microseconds, on either database: a test moves the clock, and nodes
// share the bucket as they share leases, by clocks kept in step (the job
// core decides leases by the nodes' clocks too).
func (l *Limiter) statement(q string, n int, args []any) (string, []any) {
	return strings.ReplaceAll(q, "NOW", fmt.Sprintf("CAST($%d AS BIGINT)", n)), append(args, l.now().UnixMicro())
}

// interval is the time one submit takes of the rate, in microseconds.
func interval(p org.Policy) int64 {
	return max(1, int64(float64(time.Second/time.Microsecond)/p.Rate))
}

func (l *Limiter) take(ctx context.Context, q querier, o string, p org.Policy) error {
	if p.Rate <= 0 {
		return nil
	}
	t := interval(p)
	burst := int64(p.Burst()) * t
	query, args := l.statement(takeSQL, 4, []any{o, t, burst})
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return apierr.Wrap(fmt.Errorf("take a submit of %s: %w", o, err), apierr.TriggerSubmitFailed, "the organisation's rate could not be checked; try again")
	}
	taken := rows.Next()
	if err := rows.Close(); err != nil {
		return apierr.Wrap(fmt.Errorf("take a submit of %s: %w", o, err), apierr.TriggerSubmitFailed, "the organisation's rate could not be checked; try again")
	}
	if taken {
		return nil
	}
	query, args = l.statement(aheadSQL, 2, []any{o})
	rows, err = q.QueryContext(ctx, query, args...)
	if err != nil {
		return apierr.Wrap(fmt.Errorf("read the rate of %s: %w", o, err), apierr.TriggerSubmitFailed, "the organisation's rate could not be checked; try again")
	}
	ahead, err := scanInt(rows)
	if err != nil {
		return apierr.Wrap(fmt.Errorf("read the rate of %s: %w", o, err), apierr.TriggerSubmitFailed, "the organisation's rate could not be checked; try again")
	}
	// The next submit is taken once ahead+t fits in the burst again.
	wait := time.Duration(max(ahead+t-burst, 1)) * time.Microsecond
	return apierr.Retry(wait, apierr.RateLimited,
		"organisation %q may submit %g times a second (renders, media jobs, pipeline runs and uploads together), in bursts of at most %d; try again in %s",
		o, p.Rate, p.Burst(), wait.Round(time.Millisecond))
}
