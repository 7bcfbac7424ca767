package app_test

import (
	"context"
	"io"
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
