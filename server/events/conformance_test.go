package events_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/events"
	"github.com/kinohq/kino/server/events/eventstest"
	"github.com/kinohq/kino/server/store/storetest"
)

// TestLocalConformance: one process, so both nodes are the same bus.
func TestLocalConformance(t *testing.T) {
	t.Parallel()
	eventstest.Run(t, func(t *testing.T) (events.Bus, events.Bus) {
		bus := events.NewLocal()
		t.Cleanup(func() { bus.Close() })
		return bus, bus
	})
}

// TestPostgresConformance: two buses on one database and schema, as two
// nodes; skipped without a PostgreSQL server to test on.
func TestPostgresConformance(t *testing.T) {
	t.Parallel()
	eventstest.Run(t, func(t *testing.T) (events.Bus, events.Bus) {
		db := storetest.Postgres(t)
		return openPostgres(t, db.URL), openPostgres(t, db.URL)
	})
}

func openPostgres(t *testing.T, url string) *events.Postgres {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	bus, err := events.NewPostgres(ctx, url, slog.New(slog.NewTextHandler(t.Output(), nil)))
	require.NoError(t, err)
	t.Cleanup(func() { bus.Close() })
	return bus
}
