package jobsdrivertest_test

import (
	"testing"

	"github.com/kinohq/kino/server/jobs/jobsdrivertest"
	"github.com/kinohq/kino/server/store/storetest"
)

func TestSQLite(t *testing.T) {
	t.Parallel()
	jobsdrivertest.Exercise(t, func(t *testing.T) storetest.DB { return storetest.SQLite(t) })
}

// TestPostgres runs when KINO_TEST_POSTGRES_URL names a server (CI sets
// it), each case in a schema of its own.
func TestPostgres(t *testing.T) {
	t.Parallel()
	storetest.Postgres(t) // skips without a server
	jobsdrivertest.Exercise(t, func(t *testing.T) storetest.DB { return storetest.Postgres(t) })
}
