package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"entgo.io/ent/dialect"

	"github.com/kinohq/kino/server/events"
	"github.com/kinohq/kino/server/jobs"
	"github.com/kinohq/kino/server/org"
	"github.com/kinohq/kino/server/store"
)

// claimCase is one layout of waiting jobs a claim must stay fast over.
type claimCase struct {
	name string
	// seed fills the store with n waiting jobs (and what else the case
	// needs), through add.
	seed func(add func(rows []seedRow) error, n int) error
	// orgs are the policies claims read in this case.
	orgs *org.Policies
	// noVacuum keeps PostgreSQL's autovacuum off the jobs table.
	noVacuum bool
}

// seedRow is a job written straight into the table.
type seedRow struct {
	org, typ, state string
	availableAt     int64
	created         int64
	leaseExpires    int64
}

const benchType = "t"

// claimCases are the cases of docs/benchmarks.md.
func claimCases() []claimCase {
	now := time.Now().UnixMilli()
	at := func(i int) int64 { return now - 3_600_000 + int64(i) }
	uniform := func(add func([]seedRow) error, n int, row func(i int) seedRow) error {
		const batch = 2000
		for done := 0; done < n; done += batch {
			rows := make([]seedRow, 0, batch)
			for i := done; i < min(n, done+batch); i++ {
				rows = append(rows, row(i))
			}
			if err := add(rows); err != nil {
				return err
			}
		}
		return nil
	}
	waiting := func(o, typ string, i int) seedRow {
		return seedRow{org: o, typ: typ, state: "available", availableAt: at(i), created: at(i)}
	}
	// tail is what the claims measured take, behind the n jobs ahead.
	const tail = 20_000
	return []claimCase{
		{name: "the first job claimable", seed: func(add func([]seedRow) error, n int) error {
			return uniform(add, n, func(i int) seedRow { return waiting("a", benchType, i) })
		}},
		{name: "every job ahead in backoff", seed: func(add func([]seedRow) error, n int) error {
			return uniform(add, n+tail, func(i int) seedRow {
				if i < n {
					return seedRow{org: "a", typ: benchType, state: "retrying", availableAt: now + 3_600_000, created: at(i)}
				}
				return waiting("a", benchType, i)
			})
		}},
		{name: "every job ahead of a type the node cannot run", seed: func(add func([]seedRow) error, n int) error {
			return uniform(add, n+tail, func(i int) seedRow {
				if i < n {
					return waiting("a", "other", i)
				}
				return waiting("a", benchType, i)
			})
		}},
		{name: "1,000 organisations of 100 jobs (and one of the rest)", seed: func(add func([]seedRow) error, n int) error {
			return uniform(add, n, func(i int) seedRow {
				if i < 100_000 {
					return waiting(fmt.Sprintf("o%03d", i%1000), benchType, i)
				}
				return waiting("big", benchType, i)
			})
		}},
		{
			name: "every organisation at its running cap (1,000 of them, and one without a cap)",
			orgs: org.New(org.Policy{Weight: 1, MaxRunning: 1}, map[string]org.Policy{"free": {Weight: 1}}),
			seed: func(add func([]seedRow) error, n int) error {
				return uniform(add, n+tail+1000, func(i int) seedRow {
					switch {
					case i < 1000:
						return seedRow{org: fmt.Sprintf("o%03d", i), typ: benchType, state: "running", availableAt: at(i), created: at(i), leaseExpires: now + 3_600_000}
					case i < n+1000:
						return waiting(fmt.Sprintf("o%03d", i%1000), benchType, i)
					}
					return waiting("free", benchType, i)
				})
			},
		},
		{name: "200,000 finished rows not yet vacuumed", noVacuum: true, seed: func(add func([]seedRow) error, n int) error {
			return uniform(add, n+200_000, func(i int) seedRow {
				if i < 200_000 {
					return waiting("a", benchType, i) // finished after seeding
				}
				return waiting("a", benchType, i)
			})
		}},
	}
}

// benchClaims measures claims with n jobs waiting in each case, then the
// fairness of turns: A queues each of sizes, B queues one job.
func benchClaims(ctx context.Context, n, claims int, sizes []int, only, dbURL string) error {
	db := "SQLite"
	if dbURL != "" {
		db = "PostgreSQL"
	}
	fmt.Printf("## Claims with %d jobs waiting (%s)\n\n", n, db)
	fmt.Printf("Rows bulk-inserted, then ANALYZE; %d sequential claims by one worker after 50 to warm up, each its own transaction.\n\n", claims)
	fmt.Println("| case | seeded in | p50 | p99 | max |")
	fmt.Println("|---|---|---|---|---|")
	for _, cs := range claimCases() {
		if !strings.Contains(cs.name, only) {
			continue
		}
		c, st, cleanup, err := claimStore(ctx, dbURL, cs.orgs)
		if err != nil {
			return err
		}
		t0 := time.Now()
		err = seedClaims(ctx, c, st, cs, n)
		seeded := time.Since(t0)
		if err == nil {
			var lat []time.Duration
			lat, err = timeClaims(ctx, c, claims)
			if err == nil {
				fmt.Printf("| %s | %s | %s | %s | %s |\n", cs.name, seeded.Round(time.Second), pct(lat, 0.5), pct(lat, 0.99), lat[len(lat)-1].Round(10*time.Microsecond))
			}
		}
		cleanup()
		if err != nil {
			return fmt.Errorf("%s: %w", cs.name, err)
		}
	}
	fmt.Println()
	fmt.Printf("## Fair turns (%s)\n\n", db)
	fmt.Println("A queues its jobs, one worker claims in a loop, then B queues one job: how many claims, and how long, until B's is claimed.")
	fmt.Println()
	fmt.Println("| A's jobs waiting | claims until B's | B's wait |")
	fmt.Println("|---|---|---|")
	for _, size := range sizes {
		if err := benchTurn(ctx, dbURL, size); err != nil {
			return err
		}
	}
	fmt.Println()
	return nil
}

func pct(lat []time.Duration, p float64) time.Duration {
	return lat[int(float64(len(lat)-1)*p)].Round(10 * time.Microsecond)
}

// claimStore opens an empty store: a new SQLite file, or PostgreSQL's
// tables emptied.
func claimStore(ctx context.Context, dbURL string, orgs *org.Policies) (*jobs.Client, *store.Store, func(), error) {
	dir, err := os.MkdirTemp("", "kinobench-claims-")
	if err != nil {
		return nil, nil, nil, err
	}
	url := dbURL
	if url == "" {
		url = "sqlite://" + filepath.Join(dir, "kino.db")
	}
	st, err := store.Open(ctx, url)
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, nil, err
	}
	if st.Dialect == dialect.Postgres {
		if _, err := st.DB().ExecContext(ctx, `TRUNCATE jobs, org_turns`); err != nil {
			st.Close()
			return nil, nil, nil, err
		}
	}
	if orgs == nil {
		orgs = org.New(org.Policy{Weight: 1}, nil)
	}
	c := jobs.New(st, events.NewLocal(), jobs.Config{Lease: time.Hour, Orgs: orgs})
	return c, st, func() { st.Close(); os.RemoveAll(dir) }, nil
}

// seedClaims fills the case's rows in bulk INSERTs, finishes the rows the
// case wants finished, marks the organisations waiting (as a store made
// before fair turns is), and brings the statistics up to date.
func seedClaims(ctx context.Context, c *jobs.Client, st *store.Store, cs claimCase, n int) error {
	pg := st.Dialect == dialect.Postgres
	if pg {
		v := "true"
		if cs.noVacuum {
			v = "false"
		}
		if _, err := st.DB().ExecContext(ctx, `ALTER TABLE jobs SET (autovacuum_enabled = `+v+`)`); err != nil {
			return err
		}
	}
	seq := 0
	add := func(rows []seedRow) error {
		var q strings.Builder
		q.WriteString(`INSERT INTO jobs (id, kind, type, org_id, state, args, pending_parents, progress, attempt, max_attempts, available_at, priority, created_at, updated_at, lease_owner, lease_expires_at) VALUES `)
		args := make([]any, 0, len(rows)*8)
		p := 0
		mark := func() string {
			p++
			if pg {
				return "$" + strconv.Itoa(p)
			}
			return "?"
		}
		for i, r := range rows {
			if i > 0 {
				q.WriteString(", ")
			}
			seq++
			var owner, lease any
			if r.leaseExpires > 0 {
				owner, lease = "bench", r.leaseExpires
			}
			fmt.Fprintf(&q, "(%s, 'media', %s, %s, %s, %s, 0, 0, 0, 3, %s, 0, %s, %s, %s, %s)",
				mark(), mark(), mark(), mark(), mark(), mark(), mark(), mark(), mark(), mark())
			args = append(args, fmt.Sprintf("job_%09d", seq), r.typ, r.org, r.state, []byte(`{}`), r.availableAt, r.created, r.created, owner, lease)
		}
		_, err := st.DB().ExecContext(ctx, q.String(), args...)
		return err
	}
	if err := cs.seed(add, n); err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	if cs.noVacuum {
		// Finished by updates, as workers do, so that PostgreSQL keeps
		// the old row versions until a vacuum.
		if _, err := st.DB().ExecContext(ctx, `UPDATE jobs SET state = 'completed' WHERE id <= 'job_000200000'`); err != nil {
			return err
		}
	}
	if _, err := c.Rescue(ctx); err != nil {
		return err
	}
	analyze := "ANALYZE"
	if pg && !cs.noVacuum {
		analyze = "VACUUM ANALYZE jobs"
	}
	_, err := st.DB().ExecContext(ctx, analyze)
	return err
}

// timeClaims times claims claims after a warm-up.
func timeClaims(ctx context.Context, c *jobs.Client, claims int) ([]time.Duration, error) {
	types := []string{benchType}
	for range 50 {
		if _, err := c.Claim(ctx, "bench", types); err != nil {
			return nil, err
		}
	}
	lat := make([]time.Duration, 0, claims)
	for range claims {
		t := time.Now()
		j, err := c.Claim(ctx, "bench", types)
		if err != nil {
			return nil, err
		}
		if j == nil {
			return nil, fmt.Errorf("no job claimed after %d claims", len(lat))
		}
		lat = append(lat, time.Since(t))
	}
	slices.Sort(lat)
	return lat, nil
}

// benchTurn queues size jobs of A, claims some, queues one of B, and
// counts the claims until B's.
func benchTurn(ctx context.Context, dbURL string, size int) error {
	c, st, cleanup, err := claimStore(ctx, dbURL, nil)
	if err != nil {
		return err
	}
	defer cleanup()
	cs := claimCase{seed: func(add func([]seedRow) error, n int) error {
		now := time.Now().UnixMilli()
		for done := 0; done < n; done += 2000 {
			rows := make([]seedRow, 0, 2000)
			for i := done; i < min(n, done+2000); i++ {
				rows = append(rows, seedRow{org: "A", typ: benchType, state: "available", availableAt: now, created: now + int64(i)})
			}
			if err := add(rows); err != nil {
				return err
			}
		}
		return nil
	}}
	if err := seedClaims(ctx, c, st, cs, size); err != nil {
		return err
	}
	types := []string{benchType}
	for range 100 { // A is being served when B arrives
		if _, err := c.Claim(ctx, "bench", types); err != nil {
			return err
		}
	}
	t0 := time.Now()
	if _, err := c.Insert(ctx, jobs.NewJob{ID: "job_B", Kind: "media", Type: benchType, Org: "B", Args: []byte(`{}`)}); err != nil {
		return err
	}
	for n := 1; ; n++ {
		j, err := c.Claim(ctx, "bench", types)
		if err != nil {
			return err
		}
		if j == nil {
			return fmt.Errorf("the job of B was never claimed")
		}
		if j.OrgID == "B" {
			fmt.Printf("| %d | %d (bound: 2 active organisations + 1 = 3) | %s |\n", size, n, time.Since(t0).Round(10*time.Microsecond))
			return nil
		}
	}
}
