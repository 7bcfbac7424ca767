package jobs

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"entgo.io/ent/dialect"

	"github.com/kinohq/kino/ent"
	"github.com/kinohq/kino/ent/job"
	"github.com/kinohq/kino/server/org"
)

// Claims go round the organisations in fair turns (stride scheduling):
// each organisation has a pass in org_turns, and a claim serves the waiting
// organisation with the lowest pass that has a job of the node's types and
// is under its running cap, then advances that pass by 1/weight. Within the
// organisation it takes the job of highest priority, oldest first.
//
// The organisation's row is locked for the claim (FOR UPDATE SKIP LOCKED on
// PostgreSQL; SQLite runs one write at a time), so claims of one
// organisation run one at a time on every node and its running count, read
// under the lock, cannot be overtaken: a cap holds across nodes. Claims of
// other organisations skip the locked row and go on in parallel.
//
// An organisation is marked waiting by every transaction that makes one of
// its jobs available (activate), after locking its row, and unmarked by the
// claim that takes its last available job, under the same lock; so the mark
// is never lost, and an idle organisation costs a claim nothing.

// promoteBatch bounds how many due retries one claim makes available.
const promoteBatch = 100

// noCap stands for an organisation without a running cap in SQL.
const noCap = int64(1) << 50

// Claim takes a job of one of types for owner, or nil when none is
// claimable: the first job, by priority then age, of the organisation whose
// turn it is.
func (c *Client) Claim(ctx context.Context, owner string, types []string) (*ent.Job, error) {
	if len(types) == 0 {
		return nil, nil
	}
	var claimed *ent.Job
	err := c.withTx(ctx, func(tx *ent.Tx) error {
		now := c.nowMs()
		if err := c.promote(ctx, tx, now); err != nil {
			return err
		}
		var tried []string
		for {
			o, err := c.nextOrg(ctx, tx, types, tried, false)
			if err == nil && o == "" && len(tried) == 0 && c.st.Dialect == dialect.Postgres {
				// Every organisation with work may be locked by other
				// claims: wait for one rather than leave this worker idle
				// beside waiting jobs. Only while holding no row of our
				// own, and for one row named first (a waiting FOR UPDATE
				// keeps the rows whose recheck failed locked as it reads
				// on), so that two claims never wait for each other.
				o, err = c.nextOrg(ctx, tx, types, tried, true)
				if err == nil && o != "" {
					_, err = tx.ExecContext(ctx, `SELECT id FROM org_turns WHERE id = $1 FOR UPDATE`, o)
				}
			}
			if err != nil || o == "" {
				return err
			}
			tried = append(tried, o)
			pol := c.policy(o)
			running := 0
			if pol.MaxRunning > 0 {
				// Under the lock the count includes every claim
				// committed before, and no other claim of o runs.
				running, err = tx.Job.Query().Where(job.StateEQ(Running), job.OrgID(o)).Count(ctx)
				if err != nil {
					return fmt.Errorf("count running jobs of %s: %w", o, err)
				}
				if running >= pol.MaxRunning {
					if err := c.advance(ctx, tx, o, false, pol, running); err != nil {
						return err
					}
					continue
				}
			}
			id, err := c.firstJob(ctx, tx, o, types)
			if err != nil {
				return err
			}
			if id != "" {
				claimed, err = c.take(ctx, tx, id, owner, now)
				if err != nil {
					return err
				}
			}
			if claimed != nil && pol.MaxRunning > 0 {
				running++
			}
			if err := c.advance(ctx, tx, o, claimed != nil, pol, running); err != nil {
				return err
			}
			if claimed != nil {
				return nil
			}
		}
	})
	if err != nil || claimed == nil {
		return nil, err
	}
	c.bus.Publish(claimed.ID)
	return claimed, nil
}

func (c *Client) policy(o string) org.Policy {
	if c.cfg.Orgs == nil {
		return org.Policy{Weight: 1}
	}
	return c.cfg.Orgs.For(o)
}

// take moves the available job id to running for owner; nil if it is no
// longer available (cancelled meanwhile).
func (c *Client) take(ctx context.Context, tx *ent.Tx, id, owner string, now int64) (*ent.Job, error) {
	j, err := tx.Job.Get(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("read job %s: %w", id, err)
	}
	u := tx.Job.UpdateOne(j).Where(job.StateEQ(Available)).
		SetState(Running).AddAttempt(1).
		SetLeaseOwner(owner).SetLeaseExpiresAt(now + c.cfg.Lease.Milliseconds()).
		SetClaimedAt(now).ClearStartedAt().SetUpdatedAt(now)
	claimed, err := u.Save(ctx)
	if ent.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("claim job %s: %w", id, err)
	}
	return claimed, nil
}

// nextOrg locks and returns the waiting organisation with the lowest pass
// that has an available job of types and is under its running cap, leaving
// out tried; "" when there is none. On PostgreSQL it skips organisations
// other claims hold, or with peek reads without locking.
func (c *Client) nextOrg(ctx context.Context, tx *ent.Tx, types, tried []string, peek bool) (string, error) {
	var q strings.Builder
	var args []any
	q.WriteString(`SELECT t.id FROM org_turns t WHERE t.waiting = true`)
	if len(tried) > 0 {
		q.WriteString(` AND t.id NOT IN (` + marks(len(tried)) + `)`)
		args = appendAll(args, tried)
	}
	// OFFSET 0 keeps the EXISTS a seek per organisation, in pass order,
	// until one has work: PostgreSQL would otherwise make it a join and
	// may read an organisation's jobs by another index, past all those in
	// backoff or of other types.
	q.WriteString(` AND EXISTS (SELECT 1 FROM jobs j WHERE j.state = 'available' AND j.org_id = t.id AND j.type IN (` + marks(len(types)) + `) LIMIT 1 OFFSET 0)`)
	args = appendAll(args, types)
	if expr, capArgs := c.capExpr(); expr != "" {
		// t.running never overstates: an organisation it shows under
		// its cap is counted exactly once locked.
		q.WriteString(` AND t.running < ` + expr)
		args = append(args, capArgs...)
	}
	q.WriteString(` ORDER BY t.pass, t.id LIMIT 1`)
	if c.st.Dialect == dialect.Postgres && !peek {
		q.WriteString(` FOR UPDATE SKIP LOCKED`)
	}
	var o string
	err := c.queryRow(ctx, tx, q.String(), args, &o)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("find the organisation whose turn it is: %w", err)
	}
	return o, nil
}

// capExpr is each organisation's running cap as SQL over t.id, read from
// the policies at every claim so that a changed cap applies at once; ""
// when no organisation has one.
func (c *Client) capExpr() (string, []any) {
	if c.cfg.Orgs == nil {
		return "", nil
	}
	capOf := func(p org.Policy) int64 {
		if p.MaxRunning <= 0 {
			return noCap
		}
		return int64(p.MaxRunning)
	}
	// Caps are written as numbers: a placeholder would leave PostgreSQL
	// to guess their type from the organisation ids around them.
	def := capOf(c.cfg.Orgs.Default())
	var when strings.Builder
	var args []any
	for _, o := range c.cfg.Orgs.Listed() {
		if v := capOf(c.cfg.Orgs.For(o)); v != def {
			when.WriteString(` WHEN ? THEN ` + strconv.FormatInt(v, 10))
			args = append(args, o)
		}
	}
	if len(args) == 0 {
		if def == noCap {
			return "", nil
		}
		return strconv.FormatInt(def, 10), nil
	}
	return `CASE t.id` + when.String() + ` ELSE ` + strconv.FormatInt(def, 10) + ` END`, args
}

// firstJob is the id of org's first available job of types, by priority
// then age: one index seek per type, as an IN list would make the
// databases read every job of the organisation to order them.
func (c *Client) firstJob(ctx context.Context, tx *ent.Tx, o string, types []string) (string, error) {
	parts := make([]string, len(types))
	var args []any
	for i, t := range types {
		parts[i] = fmt.Sprintf(`SELECT * FROM (SELECT id, priority, created_at FROM jobs WHERE state = 'available' AND org_id = ? AND type = ?
			ORDER BY priority DESC, created_at, id LIMIT 1) f%d`, i)
		args = append(args, o, t)
	}
	q := `SELECT id FROM (` + strings.Join(parts, ` UNION ALL `) + `) u ORDER BY priority DESC, created_at, id LIMIT 1`
	var id string
	err := c.queryRow(ctx, tx, q, args, &id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("find a job of %s: %w", o, err)
	}
	return id, nil
}

// advance moves org's pass on by a turn when it was served, records the
// running jobs counted (0 when not counted), and keeps it waiting only
// while it has available jobs (its row is locked, so no job becomes
// available meanwhile unseen).
func (c *Client) advance(ctx context.Context, tx *ent.Tx, o string, served bool, pol org.Policy, running int) error {
	step := 0.0
	if served {
		step = 1 / float64(max(1, pol.Weight))
	}
	_, err := tx.ExecContext(ctx, c.rebind(`UPDATE org_turns SET pass = pass + ?, running = ?,
		waiting = EXISTS (SELECT 1 FROM jobs WHERE state = 'available' AND org_id = ?) WHERE id = ?`), step, running, o, o)
	if err != nil {
		return fmt.Errorf("advance the turn of %s: %w", o, err)
	}
	return nil
}

// activate marks orgs waiting, each after locking its row (see above). An
// organisation that was not waiting rejoins at the current turn, the lowest
// pass of those waiting (or, when none waits, the highest of all): it
// neither keeps credit from its idle time nor waits behind the others'
// backlog.
func (c *Client) activate(ctx context.Context, tx *ent.Tx, orgs ...string) error {
	orgs = slices.Compact(slices.Sorted(slices.Values(orgs))) // one lock order, no deadlock
	for _, o := range orgs {
		_, err := tx.ExecContext(ctx, c.rebind(`INSERT INTO org_turns (id, pass, waiting)
			VALUES (?, COALESCE((SELECT min(pass) FROM org_turns WHERE waiting = true), (SELECT max(pass) FROM org_turns), 0), true)
			ON CONFLICT (id) DO UPDATE SET waiting = true,
				pass = CASE WHEN org_turns.waiting OR org_turns.pass >= excluded.pass THEN org_turns.pass ELSE excluded.pass END`), o)
		if err != nil {
			return fmt.Errorf("mark organisation %s waiting: %w", o, err)
		}
	}
	return nil
}

// stopped records that a job of org stopped running, if a claim had
// counted its running jobs: the count is unknown again. On PostgreSQL the
// update waits for a claim holding the row, so it lands after that
// claim's count, never before.
func (c *Client) stopped(ctx context.Context, tx *ent.Tx, o string) error {
	if _, err := tx.ExecContext(ctx, c.rebind(`UPDATE org_turns SET running = 0 WHERE id = ? AND running > 0`), o); err != nil {
		return fmt.Errorf("count a stopped job of %s: %w", o, err)
	}
	return nil
}

// promote makes retries whose backoff has ended available, a batch at a
// time: they wait in their own state so that claims never read past them.
func (c *Client) promote(ctx context.Context, tx *ent.Tx, now int64) error {
	lock := ""
	if c.st.Dialect == dialect.Postgres {
		lock = ` FOR UPDATE SKIP LOCKED`
	}
	rows, err := tx.QueryContext(ctx, c.rebind(`UPDATE jobs SET state = 'available', updated_at = ?
		WHERE id IN (SELECT id FROM jobs WHERE state = 'retrying' AND available_at <= ? ORDER BY available_at LIMIT `+
		strconv.Itoa(promoteBatch)+lock+`) RETURNING org_id`), now, now)
	if err != nil {
		return fmt.Errorf("make due retries available: %w", err)
	}
	var orgs []string
	for rows.Next() {
		var o string
		if err := rows.Scan(&o); err != nil {
			rows.Close()
			return err
		}
		orgs = append(orgs, o)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("make due retries available: %w", err)
	}
	return c.activate(ctx, tx, orgs...)
}

// tidy keeps the turns true: the first time, it marks waiting every
// organisation with available jobs (a store made before fair turns has
// none marked); each time, it unmarks organisations whose available jobs
// were all cancelled, so that they stop holding the current turn back.
func (c *Client) tidy(ctx context.Context) error {
	if !c.tidied.Load() {
		err := c.withTx(ctx, func(tx *ent.Tx) error {
			_, err := tx.ExecContext(ctx, `INSERT INTO org_turns (id, pass, waiting)
				SELECT DISTINCT org_id, 0, true FROM jobs WHERE state = 'available'
				ON CONFLICT (id) DO UPDATE SET waiting = true`)
			return err
		})
		if err != nil {
			return fmt.Errorf("mark organisations with jobs waiting: %w", err)
		}
		c.tidied.Store(true)
	}
	// A running job that a cancel ended while a claim counted it may be
	// left in a count; such a count is set back to unknown here.
	if _, err := c.st.ExecContext(ctx, `UPDATE org_turns SET running = 0 WHERE running > 0
		AND running > (SELECT count(*) FROM jobs WHERE state = 'running' AND org_id = org_turns.id)`); err != nil {
		return fmt.Errorf("correct running counts: %w", err)
	}
	var idle []string
	rows, err := c.st.QueryContext(ctx, `SELECT t.id FROM org_turns t WHERE t.waiting = true
		AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.state = 'available' AND j.org_id = t.id) LIMIT 100`)
	if err != nil {
		return fmt.Errorf("find idle organisations: %w", err)
	}
	for rows.Next() {
		var o string
		if err := rows.Scan(&o); err != nil {
			rows.Close()
			return err
		}
		idle = append(idle, o)
	}
	rows.Close()
	for _, o := range idle {
		err := c.withTx(ctx, func(tx *ent.Tx) error {
			// Locked first, so that the check below sees every job an
			// activation before it made available.
			if c.st.Dialect == dialect.Postgres {
				if _, err := tx.ExecContext(ctx, `SELECT id FROM org_turns WHERE id = $1 FOR UPDATE`, o); err != nil {
					return err
				}
			}
			return c.advance(ctx, tx, o, false, org.Policy{}, 0)
		})
		if err != nil {
			return fmt.Errorf("unmark idle organisation %s: %w", o, err)
		}
	}
	return rows.Err()
}

func (c *Client) queryRow(ctx context.Context, tx *ent.Tx, q string, args []any, dst ...any) error {
	rows, err := tx.QueryContext(ctx, c.rebind(q), args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return err
		}
		return sql.ErrNoRows
	}
	if err := rows.Scan(dst...); err != nil {
		return err
	}
	return rows.Close()
}

// rebind writes the ? placeholders of q as the dialect wants them.
func (c *Client) rebind(q string) string {
	if c.st.Dialect != dialect.Postgres {
		return q
	}
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func marks(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

func appendAll(args []any, vs []string) []any {
	for _, v := range vs {
		args = append(args, v)
	}
	return args
}
