package app_test

import (
	"context"
	"io"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	renderv1 "github.com/kinohq/kino/gen/kino/render/v1"
	"github.com/kinohq/kino/server/app"
	"github.com/kinohq/kino/server/store/storetest"
)

// TestWatchSeesAnotherNodesRender: a watch on an API-only node follows a
// render that another node runs. Nothing re-reads on a timer, so every
// record after the first reached the watcher as a signal from the other
// node, through PostgreSQL.
func TestWatchSeesAnotherNodesRender(t *testing.T) {
	t.Parallel()
	db := storetest.Postgres(t)
	media := serveMedia(t)
	api := start(t, db, func(c *app.Config) { c.Workers = 0 })

	watch := func(id string) renderv1.RenderService_WatchRenderClient {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		t.Cleanup(cancel)
		stream, err := api.rpc.WatchRender(ctx, &renderv1.WatchRenderRequest{JobId: id})
		require.NoError(t, err)
		return stream
	}
	// follow reads the stream to its end and returns the statuses seen,
	// logging how long after the renderer wrote each record the api node
	// delivered it.
	follow := func(stream renderv1.RenderService_WatchRenderClient) []string {
		var statuses []string
		for {
			msg, err := stream.Recv()
			if err == io.EOF {
				return statuses
			}
			require.NoError(t, err)
			seen := time.Now()
			job := msg.GetJob()
			written, err := time.Parse(time.RFC3339Nano, job.GetUpdatedAt())
			require.NoError(t, err)
			t.Logf("api node saw %s (%.0f%%) %s after the renderer wrote it", job.GetStatus(), job.GetProgress(), seen.Sub(written).Round(time.Millisecond))
			statuses = append(statuses, job.GetStatus())
		}
	}

	id := api.submit(t, smallComposition(media))
	stream := watch(id)
	first, err := stream.Recv()
	require.NoError(t, err)
	require.Equal(t, "queued", first.GetJob().GetStatus())

	// Only now does a node that renders start: what the watcher sees next
	// comes from it.
	start(t, db, func(c *app.Config) { c.Workers = 1 })
	statuses := follow(stream)
	require.NotEmpty(t, statuses)
	assert.Equal(t, "completed", statuses[len(statuses)-1])
	assert.Contains(t, statuses, "processing")
	assert.Less(t, slices.Index(statuses, "processing"), slices.Index(statuses, "completed"))

	// The idle renderer wakes on the api node's submit (events.Work); its
	// one-second timer is only the fallback, so this is logged, not asserted.
	id = api.submit(t, smallComposition(media))
	created, err := time.Parse(time.RFC3339Nano, api.get(t, id)["createdAt"].(string))
	require.NoError(t, err)
	stream = watch(id)
	for {
		msg, err := stream.Recv()
		require.NoError(t, err)
		if msg.GetJob().GetStatus() != "queued" {
			break
		}
	}
	t.Logf("the api node saw the renderer's claim of its next job %s after the submit", time.Since(created).Round(time.Millisecond))
	rest := follow(stream)
	require.NotEmpty(t, rest)
	assert.Equal(t, "completed", rest[len(rest)-1])
}

// TestNodeRolesAndList: an API node and a worker-only node share one
// database; the worker serves nothing but its health, and an operator
// with the admin key lists both, with what each runs.
func TestNodeRolesAndList(t *testing.T) {
	t.Parallel()
	db := storetest.Postgres(t)
	keys := func(c *app.Config) {
		withKeys(c)
		c.AdminKey = adminKey
		c.HeartbeatEvery = 100 * time.Millisecond
		c.Version = "v-test"
	}
	api := start(t, db, func(c *app.Config) { keys(c); c.Role = "api"; c.Workers = 4 })
	worker := startWorker(t, db, func(c *app.Config) { keys(c); c.Role = "worker"; c.Workers = 1 })
	require.Empty(t, worker.GRPCAddr, "a worker-only node has no gRPC listener")
	wbase := "http://" + worker.HTTPAddr
	resp, err := http.Get(wbase + "/api/health")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	for _, path := range []string{"/api/render", "/jobs", "/api/nodes", "/files/x"} {
		resp, err := http.Get(wbase + path)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusNotFound, resp.StatusCode, path)
	}

	list := func() []any {
		r := api.as(t, adminKey, http.MethodGet, "/api/nodes", nil)
		require.Equal(t, http.StatusOK, r.status, "%s", r.body)
		return r.json(t)["nodes"].([]any)
	}
	nodes := list()
	require.Len(t, nodes, 2)
	roles := map[string]map[string]any{}
	for _, n := range nodes {
		m := n.(map[string]any)
		roles[m["role"].(string)] = m
		assert.Equal(t, "v-test", m["version"])
		assert.Equal(t, false, m["stale"])
		_, err := time.Parse(time.RFC3339, m["lastSeen"].(string))
		assert.NoError(t, err)
	}
	assert.Equal(t, 0.0, roles["api"]["workers"], "an API node runs nothing whatever --workers says")
	assert.Equal(t, 1.0, roles["worker"]["workers"])
	assert.Equal(t, worker.NodeID, roles["worker"]["id"])

	// A slow render shows on the worker's row while it runs.
	r := api.as(t, keyA, http.MethodPost, "/api/render", longComposition())
	require.Equal(t, http.StatusAccepted, r.status, "%s", r.body)
	id := r.json(t)["jobId"].(string)
	require.Eventually(t, func() bool {
		for _, n := range list() {
			m := n.(map[string]any)
			if m["role"] == "worker" && len(m["runningJobs"].([]any)) == 1 {
				return m["runningJobs"].([]any)[0] == id && m["runningCount"] == 1.0
			}
		}
		return false
	}, 30*time.Second, 50*time.Millisecond)
	r = api.as(t, keyA, http.MethodDelete, "/api/render/"+id, nil)
	assert.Equal(t, http.StatusOK, r.status, "%s", r.body)

	// Nodes are the operator's: an organisation's key may not list them.
	r = api.as(t, keyA, http.MethodGet, "/api/nodes", nil)
	assert.Equal(t, http.StatusForbidden, r.status)
	assert.Equal(t, "FORBIDDEN", r.errorCode(t))
}

// startWorker starts a kino with no API, so none of start's clients.
func startWorker(t *testing.T, db storetest.DB, mutate func(*app.Config)) *app.App {
	t.Helper()
	cfg := app.Config{HTTPAddr: "127.0.0.1:0", GRPCAddr: "127.0.0.1:0", DataDir: t.TempDir(), DatabaseURL: db.URL,
		AllowPrivateNetworks: true, Lease: 2 * time.Second, ShutdownGrace: 2 * time.Second, Log: testLogger(t)}
	mutate(&cfg)
	a, err := app.Start(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = a.Shutdown(ctx)
	})
	return a
}

// TestNodeConfigRefused: a role kino does not know, a worker without
// slots and a heartbeat too rare to tell a live node from a stale one
// stop kino at start.
func TestNodeConfigRefused(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mutate func(*app.Config)
		inErr  string
	}{
		{func(c *app.Config) { c.Role = "boss" }, `role "boss"`},
		{func(c *app.Config) { c.Role = "worker"; c.Workers = 0 }, "at least one worker slot"},
		{func(c *app.Config) { c.HeartbeatEvery = time.Minute }, "must be shorter than"},
	} {
		cfg := app.Config{HTTPAddr: "127.0.0.1:0", GRPCAddr: "127.0.0.1:0", DataDir: t.TempDir(), Workers: 1, Log: testLogger(t)}
		tc.mutate(&cfg)
		_, err := app.Start(context.Background(), cfg)
		require.Error(t, err)
		assert.Contains(t, err.Error(), tc.inErr)
	}
}
