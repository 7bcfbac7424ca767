package events

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/store/storetest"
)

func TestChannelFor(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("s", 60)
	for _, tc := range []struct {
		searchPath, want string
	}{
		{"", "kino_events"},
		{"t_0a1b", "kino_events_t_0a1b"},
		{"Public", "kino_events_" + hashOf("Public")},
		{"a, b", "kino_events_" + hashOf("a, b")},
		{long, "kino_events_" + hashOf(long)},
	} {
		got := channelFor(tc.searchPath)
		assert.Equal(t, tc.want, got, "search_path %q", tc.searchPath)
		assert.LessOrEqual(t, len(got), maxIdent)
	}
	assert.NotEqual(t, channelFor("a"), channelFor("b"))
}

func hashOf(s string) string { return strings.TrimPrefix(channelFor(s), "kino_events_") }

func TestPayloadsStayUnderTheLimit(t *testing.T) {
	t.Parallel()
	var topics []string
	for i := range 500 {
		topics = append(topics, fmt.Sprintf("%036d", i))
	}
	out, dropped := payloads("origin", append(topics, "bad\nid", "", strings.Repeat("x", maxPayload)))
	assert.Len(t, dropped, 3)
	require.Len(t, out, 3, "500 ids of 37 bytes fill three payloads")
	var seen []string
	for _, p := range out {
		assert.LessOrEqual(t, len(p), maxPayload)
		lines := strings.Split(p, sep)
		assert.Equal(t, "origin", lines[0])
		seen = append(seen, lines[1:]...)
	}
	assert.Equal(t, topics, seen)
}

// TestPostgresSchemasAreApart: nodes on another schema of the same server
// hear nothing of this schema's topics.
func TestPostgresSchemasAreApart(t *testing.T) {
	t.Parallel()
	db1, db2 := storetest.Postgres(t), storetest.Postgres(t)
	a1, a2 := newPostgres(t, db1.URL), newPostgres(t, db1.URL)
	b1, b2 := newPostgres(t, db2.URL), newPostgres(t, db2.URL)
	onA2, stop := a2.Subscribe("job-1")
	defer stop()
	onB1, stop := b1.Subscribe("job-1")
	defer stop()
	marker, stop := b1.Subscribe("marker")
	defer stop()

	a1.Publish("job-1")
	await(t, onA2, time.Now())
	// b2's notification commits after a1's; had b1 heard a1's, it would
	// have heard it first.
	b2.Publish("marker")
	await(t, marker, time.Now())
	assert.False(t, pending(onB1), "another schema's publish woke a subscriber")
}

// TestPostgresLargePublishIsSplit: more topics than one payload holds go
// out as several notifications, all delivered.
func TestPostgresLargePublishIsSplit(t *testing.T) {
	t.Parallel()
	db := storetest.Postgres(t)
	a, b := newPostgres(t, db.URL), newPostgres(t, db.URL)
	var topics []string
	var subs []<-chan struct{}
	for i := range 400 {
		topic := fmt.Sprintf("%036d", i)
		ch, stop := b.Subscribe(topic)
		defer stop()
		topics, subs = append(topics, topic), append(subs, ch)
	}
	sent := time.Now()
	a.Publish(topics...)
	for _, ch := range subs {
		await(t, ch, sent)
	}
}

// TestPostgresReconnects: when the listening connection is killed, the bus
// listens again, signals every subscriber (a notification may have been
// lost meanwhile), and hears later publishes.
func TestPostgresReconnects(t *testing.T) {
	t.Parallel()
	db := storetest.Postgres(t)
	a, b := newPostgres(t, db.URL), newPostgres(t, db.URL)
	x, stop := a.Subscribe("x")
	defer stop()
	yz, stop := a.Subscribe("y", "z")
	defer stop()

	admin, err := sql.Open("pgx", os.Getenv(storetest.PostgresEnv))
	require.NoError(t, err)
	defer admin.Close()
	old := a.listenerPID()
	var killed bool
	require.NoError(t, admin.QueryRow("SELECT pg_terminate_backend($1)", int64(old)).Scan(&killed))
	require.True(t, killed)

	killedAt := time.Now()
	await(t, x, killedAt)
	took := await(t, yz, killedAt)
	t.Logf("listening again and every subscriber signalled %s after the kill", took)
	assert.NotEqual(t, old, a.listenerPID())

	sent := time.Now()
	b.Publish("x")
	await(t, x, sent)
}

func newPostgres(t *testing.T, url string) *Postgres {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	bus, err := NewPostgres(ctx, url, slog.New(slog.NewTextHandler(t.Output(), nil)))
	require.NoError(t, err)
	t.Cleanup(func() { bus.Close() })
	return bus
}

// await waits up to 2 s for a signal on ch and returns how long after
// since it came.
func await(t *testing.T, ch <-chan struct{}, since time.Time) time.Duration {
	t.Helper()
	select {
	case <-ch:
		return time.Since(since)
	case <-time.After(2 * time.Second):
		t.Fatalf("no signal within 2 s")
		return 0
	}
}
