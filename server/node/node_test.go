package node_test

import (
	"context"
	"database/sql"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	renderv1 "github.com/kinohq/kino/gen/kino/render/v1"
	"github.com/kinohq/kino/server/apierr"
	"github.com/kinohq/kino/server/auth"
	"github.com/kinohq/kino/server/node"
	"github.com/kinohq/kino/server/store"
	"github.com/kinohq/kino/server/store/storetest"
)

// TestStaleAndPrunedNodes: a node silent for StaleAfter is listed as
// stale, one silent for PruneAfter is gone after any node's next
// heartbeat, and a node that stops cleanly removes itself.
func TestStaleAndPrunedNodes(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		ctx := context.Background()
		st, err := store.Open(ctx, db.URL)
		require.NoError(t, err)
		t.Cleanup(func() { st.Close() })
		log := slog.New(slog.NewTextHandler(io.Discard, nil))
		now := time.Now()
		for id, ago := range map[string]time.Duration{"stale": node.StaleAfter + time.Second, "gone": node.PruneAfter + time.Second} {
			require.NoError(t, st.Node.Create().SetID(id).SetHostname("h").SetVersion("v").SetRole(node.RoleWorker).
				SetWorkers(1).SetRunningCount(0).SetStartedAt(now.Add(-time.Hour).UnixMilli()).SetLastSeen(now.Add(-ago).UnixMilli()).Exec(ctx))
		}
		hb := node.NewHeartbeat(st, node.Info{ID: "live", Role: node.RoleAll, Version: "test", Workers: 2},
			func() []string { return []string{"job-b", "job-a"} }, log)
		require.NoError(t, hb.Start(ctx))

		svc := node.NewService(st, log)
		list, err := svc.ListNodes(auth.WithAdmin(ctx), &renderv1.ListNodesRequest{})
		require.NoError(t, err)
		byID := map[string]*renderv1.Node{}
		for _, n := range list.GetNodes() {
			byID[n.GetId()] = n
		}
		require.Len(t, byID, 2, "the node silent past the prune window is deleted: %v", byID)
		assert.True(t, byID["stale"].GetStale())
		live := byID["live"]
		assert.False(t, live.GetStale())
		assert.Equal(t, []string{"job-a", "job-b"}, live.GetRunningJobs())
		assert.Equal(t, int32(2), live.GetRunningCount())
		assert.Equal(t, int32(2), live.GetWorkers())
		assert.Equal(t, "all", live.GetRole())

		_, err = svc.ListNodes(auth.WithOrg(ctx, "org-a"), &renderv1.ListNodesRequest{})
		var e *apierr.Error
		require.ErrorAs(t, err, &e)
		assert.Equal(t, apierr.Forbidden, e.Code)

		hb.Stop(ctx)
		list, err = svc.ListNodes(auth.WithAdmin(ctx), &renderv1.ListNodesRequest{})
		require.NoError(t, err)
		require.Len(t, list.GetNodes(), 1)
		assert.Equal(t, "stale", list.GetNodes()[0].GetId())
	})
}

// TestHeartbeatGoesOnAfterAFailedFirstBeat: a node whose first heartbeat
// failed (the database was busy at start) is listed once a later one
// succeeds.
func TestHeartbeatGoesOnAfterAFailedFirstBeat(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.SQLite(t)
	st, err := store.Open(ctx, db.URL)
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	// A second connection to the file refuses the first heartbeat's write.
	raw, err := sql.Open("sqlite", "file:"+strings.TrimPrefix(db.URL, "sqlite://"))
	require.NoError(t, err)
	t.Cleanup(func() { raw.Close() })
	_, err = raw.ExecContext(ctx, `CREATE TRIGGER refuse BEFORE INSERT ON nodes BEGIN SELECT RAISE(ABORT, 'refused'); END`)
	require.NoError(t, err)

	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	hb := node.NewHeartbeat(st, node.Info{ID: "late", Role: node.RoleAll, Version: "test", Every: 20 * time.Millisecond}, nil, log)
	require.Error(t, hb.Start(ctx))
	t.Cleanup(func() { hb.Stop(ctx) })
	_, err = raw.ExecContext(ctx, `DROP TRIGGER refuse`)
	require.NoError(t, err)

	svc := node.NewService(st, log)
	require.Eventually(t, func() bool {
		list, err := svc.ListNodes(auth.WithAdmin(ctx), &renderv1.ListNodesRequest{})
		require.NoError(t, err)
		return len(list.GetNodes()) == 1 && list.GetNodes()[0].GetId() == "late"
	}, 5*time.Second, 20*time.Millisecond)
}
