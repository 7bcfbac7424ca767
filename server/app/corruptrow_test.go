package app_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/app"
	"github.com/kinohq/kino/server/store"
	"github.com/kinohq/kino/server/store/storetest"
)

// TestCorruptJobRowFailsLoudly: a media job whose stored params no longer
// decode fails INTERNAL_ERROR saying so, and is never run on empty params.
func TestCorruptJobRowFailsLoudly(t *testing.T) {
	t.Parallel()
	media := serveMedia(t)
	db := storetest.SQLite(t)
	dir := t.TempDir()
	api := start(t, db, func(c *app.Config) { c.DataDir = dir; c.Workers = 0 })
	id := api.createJob(t, map[string]any{"type": "image.resize",
		"inputs": map[string]any{"source": media.URL + "/image.png"}, "params": map[string]any{"width": 32}})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, api.app.Shutdown(ctx))

	st, err := store.Open(ctx, db.URL)
	require.NoError(t, err)
	_, err = st.DB().ExecContext(ctx, `UPDATE jobs SET args = '{"inputs":{"source":"`+media.URL+`/image.png"},"params":"width=32"}' WHERE id = ?`, id)
	require.NoError(t, err)
	require.NoError(t, st.Close())

	worker := start(t, db, func(c *app.Config) { c.DataDir = dir })
	j := worker.waitJob(t, id)
	assert.Equal(t, "failed", j["status"], "%v", j)
	assert.Equal(t, "INTERNAL_ERROR", j["errorCode"], "%v", j)
	assert.Contains(t, j["errorMessage"], "params")
}
