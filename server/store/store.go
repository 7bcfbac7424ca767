// Package store opens kino's database: embedded SQLite by default, PostgreSQL
// for many nodes, behind one ent client and one Open. Files (outputs,
// assets) are not here but in blob storage, package storage.
package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
	_ "modernc.org/sqlite"             // registers the pure-Go "sqlite" driver

	"github.com/kinohq/kino/ent"
	"github.com/kinohq/kino/ent/job"
)

//nolint:gochecknoglobals // guards ent's own package-level schema tables during migration
var migrateMu sync.Mutex

// Store is an open database with its migrated schema.
type Store struct {
	*ent.Client
	// Dialect is dialect.SQLite or dialect.Postgres; claims differ by it.
	Dialect string
	db      *sql.DB
}

// Open connects to the database named by url and migrates the schema. A url
// of the form postgres://… selects PostgreSQL; sqlite://PATH or a bare file
// path selects SQLite.
func Open(ctx context.Context, rawURL string) (*Store, error) {
	var (
		db  *sql.DB
		dia string
		err error
	)
	switch {
	case strings.HasPrefix(rawURL, "postgres://"), strings.HasPrefix(rawURL, "postgresql://"):
		dia = dialect.Postgres
		db, err = sql.Open("pgx", rawURL)
		if err != nil {
			return nil, fmt.Errorf("open postgres: %w", err)
		}
		// Keep as many idle connections as open ones: database/sql keeps 2
		// by default, and a new PostgreSQL connection (a forked backend)
		// costs more than the query it serves.
		db.SetMaxOpenConns(20)
		db.SetMaxIdleConns(20)
		db.SetConnMaxIdleTime(5 * time.Minute)
	default:
		dia = dialect.SQLite
		db, err = openSQLite(strings.TrimPrefix(rawURL, "sqlite://"))
		if err != nil {
			return nil, err
		}
	}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("connect to %s database: %w", dia, err)
	}
	unlock, err := lockMigration(ctx, db, dia)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("wait for other nodes to migrate the %s schema: %w", dia, err)
	}
	defer unlock()
	if err := setAsideLegacy(ctx, db, dia); err != nil {
		db.Close()
		return nil, fmt.Errorf("upgrade %s database: %w", dia, err)
	}
	drv := entsql.OpenDB(dia, db)
	client := ent.NewClient(ent.Driver(drv))
	// ent's migration fills in package-level table descriptions as it runs,
	// so two stores opening at once in one process must take turns.
	migrateMu.Lock()
	err = client.Schema.Create(ctx)
	migrateMu.Unlock()
	if err != nil {
		client.Close()
		return nil, fmt.Errorf("migrate %s schema: %w", dia, err)
	}
	// Indexes a newer schema replaced, which ent's migration leaves.
	for _, idx := range []string{"job_state_created_at", "job_state_lease_expires_at"} {
		if _, err := db.ExecContext(ctx, "DROP INDEX IF EXISTS "+idx); err != nil {
			client.Close()
			return nil, fmt.Errorf("drop replaced index %s: %w", idx, err)
		}
	}
	st := &Store{Client: client, Dialect: dia, db: db}
	if err := copyLegacy(ctx, st); err != nil {
		client.Close()
		return nil, fmt.Errorf("upgrade %s database: %w", dia, err)
	}
	return st, nil
}

// lockMigration makes nodes that start at once on one PostgreSQL schema
// upgrade and migrate it one after the other: two CREATE TABLEs of one name
// at once fail on PostgreSQL's catalogue (pg_type_typname_nsp_index)
// instead of waiting, and the loser exits. The lock is per schema, so
// schemas of one server do not wait for each other. SQLite needs none: one
// process owns its file.
func lockMigration(ctx context.Context, db *sql.DB, dia string) (unlock func(), err error) {
	if dia != dialect.Postgres {
		return func() {}, nil
	}
	const key = `hashtext('kino migrate ' || coalesce(current_schema(), ''))`
	// A session lock, so one connection holds it throughout; it goes back
	// to the pool unlocked.
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock(`+key+`)`); err != nil {
		conn.Close()
		return nil, err
	}
	return func() {
		if _, err := conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(`+key+`)`); err != nil {
			// The session is broken, and its locks went with it; keep
			// it out of the pool.
			_ = conn.Raw(func(any) error { return driver.ErrBadConn })
		}
		conn.Close()
	}, nil
}

func openSQLite(path string) (*sql.DB, error) {
	if path == "" {
		return nil, fmt.Errorf("open sqlite: empty path")
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("create database folder: %w", err)
		}
	}
	// WAL lets readers run beside the one writer; synchronous=FULL syncs
	// every commit, so an accepted job survives even a power cut;
	// busy_timeout makes a second writer wait instead of failing;
	// _txlock=immediate takes the write lock at BEGIN so two
	// read-then-write transactions cannot deadlock on lock upgrade.
	q := url.Values{}
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "synchronous(FULL)")
	q.Add("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("open sqlite %s: %w", path, err)
	}
	// One connection: SQLite has one writer, and a pool would only queue on
	// its lock while holding Go-side resources.
	db.SetMaxOpenConns(1)
	return db, nil
}

// DB is the underlying connection pool, for health checks and raw claims.
func (s *Store) DB() *sql.DB { return s.db }

// Ping reports whether the database answers.
func (s *Store) Ping(ctx context.Context) error { return s.db.PingContext(ctx) }

// ErrUnreachable marks a Check that failed because the database does not
// answer at all, as opposed to answering with errors.
var ErrUnreachable = errors.New("database unreachable")

// Check reports whether the database answers and its job table reads: it
// pings, then reads the newest job through its primary key, as GetRender
// and GetJob do. A ping alone passes on a SQLite file
// whose table pages are corrupt, while every request fails. Older rows are
// not read: a full integrity check would hold SQLite's one connection for as
// long as the file is large.
func (s *Store) Check(ctx context.Context) error {
	if err := s.db.PingContext(ctx); err != nil {
		return fmt.Errorf("%w: %w", ErrUnreachable, err)
	}
	if _, err := s.Job.Query().Order(ent.Desc(job.FieldID)).First(ctx); err != nil && !ent.IsNotFound(err) {
		return fmt.Errorf("read newest job: %w", err)
	}
	return nil
}
