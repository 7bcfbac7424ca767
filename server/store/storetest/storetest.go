// Package storetest gives tests a database of their own on every dialect
// kino supports: a fresh SQLite file always, and a fresh PostgreSQL schema
// when KINO_TEST_POSTGRES_URL names a server.
package storetest

import (
	"context"
	"database/sql"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"
	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver
)

// PostgresEnv names the PostgreSQL server the tests may use.
const PostgresEnv = "KINO_TEST_POSTGRES_URL"

// DB is one database a test may use.
type DB struct {
	// Name is "sqlite" or "postgres", for subtest names.
	Name string
	// URL is what store.Open takes.
	URL string
}

// Databases returns a fresh SQLite database and, when PostgreSQL is
// configured, a fresh schema on it, each removed when the test ends.
func Databases(t testing.TB) []DB {
	t.Helper()
	dbs := []DB{SQLite(t)}
	if os.Getenv(PostgresEnv) != "" {
		dbs = append(dbs, Postgres(t))
	}
	return dbs
}

// SQLite returns a fresh SQLite database in the test's temporary folder.
func SQLite(t testing.TB) DB {
	return DB{Name: "sqlite", URL: "sqlite://" + filepath.Join(t.TempDir(), "kino.db")}
}

// Postgres returns a fresh schema on the configured PostgreSQL server, or
// skips the test when none is configured.
func Postgres(t testing.TB) DB {
	t.Helper()
	base := os.Getenv(PostgresEnv)
	if base == "" {
		t.Skipf("%s is not set", PostgresEnv)
	}
	schema := "t_" + strings.ReplaceAll(uuid.NewString(), "-", "")
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatalf("open %s: %v", PostgresEnv, err)
	}
	if _, err := admin.Exec("CREATE SCHEMA " + schema); err != nil {
		admin.Close()
		t.Fatalf("create schema on %s: %v", PostgresEnv, err)
	}
	t.Cleanup(func() {
		if _, err := admin.ExecContext(context.Background(), "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Logf("drop schema %s: %v", schema, err)
		}
		admin.Close()
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("parse %s: %v", PostgresEnv, err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return DB{Name: "postgres", URL: u.String()}
}

// Each runs fn as a parallel subtest on every database.
func Each(t *testing.T, fn func(t *testing.T, db DB)) {
	for _, db := range Databases(t) {
		t.Run(db.Name, func(t *testing.T) {
			t.Parallel()
			fn(t, db)
		})
	}
}
