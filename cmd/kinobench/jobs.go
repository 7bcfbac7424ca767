package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/kinohq/kino/ent"
	"github.com/kinohq/kino/ent/job"
	"github.com/kinohq/kino/server/catalog"
	"github.com/kinohq/kino/server/jobs"
	"github.com/kinohq/kino/server/media"
	"github.com/kinohq/kino/server/mediajob"
	"github.com/kinohq/kino/server/store"
)

// benchJobList measures GET /jobs?status=…&type=…&limit=100 with n jobs in
// the store, spread over statuses, types and a month of creation times.
func benchJobList(ctx context.Context, n, queries int, dbURL string) error {
	dir, err := os.MkdirTemp("", "kinobench-jobs-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if dbURL == "" {
		dbURL = "sqlite://" + filepath.Join(dir, "kino.db")
	}
	st, err := store.Open(ctx, dbURL)
	if err != nil {
		return err
	}
	seeding := time.Now()
	if err := seedJobs(ctx, st, n); err != nil {
		st.Close()
		return err
	}
	seeded := time.Since(seeding)
	// A store that has been running has statistics and, on PostgreSQL, a
	// visibility map (autovacuum keeps both); a freshly bulk-loaded one has
	// neither, and would be measured in a state production never stays in.
	analyze := "ANALYZE"
	if st.Dialect != "sqlite3" {
		analyze = "VACUUM ANALYZE jobs"
	}
	if _, err := st.DB().ExecContext(ctx, analyze); err != nil {
		st.Close()
		return fmt.Errorf("%s: %w", analyze, err)
	}
	st.Close()

	a, err := startKino(ctx, dir, dbURL, 0)
	if err != nil {
		return err
	}
	defer a.Shutdown(ctx)
	base := "http://" + a.HTTPAddr + "/jobs"
	types := catalog.Names()
	hc := &http.Client{}
	get := func() error {
		u := fmt.Sprintf("%s?status=%s&type=%s&limit=100", base, media.Statuses[rand.IntN(len(media.Statuses))], types[rand.IntN(len(types))])
		resp, err := hc.Get(u)
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("GET /jobs answered %d", resp.StatusCode)
		}
		return nil
	}
	for range 50 { // warm caches
		if err := get(); err != nil {
			return err
		}
	}
	lat := make([]time.Duration, 0, queries)
	for range queries {
		t := time.Now()
		if err := get(); err != nil {
			return err
		}
		lat = append(lat, time.Since(t))
	}
	slices.Sort(lat)
	db := "SQLite"
	if st.Dialect != "sqlite3" {
		db = "PostgreSQL"
	}
	fmt.Printf("## GET /jobs?status=…&type=…&limit=100 with %d jobs (%s)\n\n", n, db)
	fmt.Printf("Seeded in %s, then %s. %d sequential queries, random status and type, over REST on loopback.\n\n", seeded.Round(time.Second), analyze, queries)
	fmt.Println("| p50 | p90 | p99 | max |")
	fmt.Println("|---|---|---|---|")
	q := func(p float64) time.Duration { return lat[int(float64(len(lat)-1)*p)].Round(10 * time.Microsecond) }
	fmt.Printf("| %s | %s | %s | %s |\n\n", q(0.5), q(0.9), q(0.99), lat[len(lat)-1].Round(10*time.Microsecond))
	return nil
}

// seedJobs inserts n jobs of organisation "default" in batches.
func seedJobs(ctx context.Context, st *store.Store, n int) error {
	types := catalog.Names()
	now := time.Now().UnixMilli()
	const batch = 1000
	for done := 0; done < n; done += batch {
		tx, err := st.Tx(ctx)
		if err != nil {
			return err
		}
		builders := make([]*ent.JobCreate, 0, batch)
		for i := done; i < min(n, done+batch); i++ {
			created := now - int64(rand.IntN(30*24*3600*1000))
			builders = append(builders, tx.Job.Create().
				SetID(fmt.Sprintf("job_seed%09d", i)).
				SetOrgID("default").
				SetKind(mediajob.Kind).
				SetType(types[i%len(types)]).
				SetState(states[rand.IntN(len(states))]).
				SetArgs([]byte(`{"inputs":{"source":"https://cdn.example/v.mp4"},"params":{}}`)).
				SetCreatedAt(created).
				SetUpdatedAt(created))
		}
		if err := tx.Job.CreateBulk(builders...).Exec(ctx); err != nil {
			tx.Rollback()
			return fmt.Errorf("seed jobs: %w", err)
		}
		if err := tx.Commit(); err != nil {
			return err
		}
	}
	return nil
}

// states are the job core's states, each as likely as the others.
var states = []job.State{jobs.Pending, jobs.Available, jobs.Running, jobs.Completed, jobs.Failed, jobs.Cancelled}
