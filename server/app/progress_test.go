package app_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/app"
	"github.com/kinohq/kino/server/store/storetest"
)

// TestProgressNeverGoesBack: a render interrupted part way (here by a
// shutdown that could not wait for it) and picked up again keeps the
// progress it had reached in its record: the next attempt starts from 0,
// and its reports show only once they pass it.
func TestProgressNeverGoesBack(t *testing.T) {
	t.Parallel()
	db := storetest.SQLite(t)
	dir := t.TempDir()
	first := start(t, db, func(c *app.Config) {
		c.DataDir = dir
		c.ShutdownGrace = 100 * time.Millisecond
	})
	id := first.submit(t, longComposition())
	var reached float64
	require.Eventually(t, func() bool {
		reached = first.get(t, id)["progress"].(float64)
		return reached > 0
	}, 30*time.Second, 20*time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, first.app.Shutdown(ctx))

	// A node that runs nothing reads the record as the shutdown left it.
	idle := start(t, db, func(c *app.Config) { c.DataDir = dir; c.Workers = 0 })
	rec := idle.get(t, id)
	assert.Equal(t, "queued", rec["status"])
	assert.GreaterOrEqual(t, rec["progress"].(float64), reached, "the record keeps the progress reached")

	// A worker runs it again from the start; what it shows never drops.
	second := start(t, db, func(c *app.Config) { c.DataDir = dir })
	var shown []float64
	require.Eventually(t, func() bool {
		shown = append(shown, second.get(t, id)["progress"].(float64))
		return shown[len(shown)-1] > reached
	}, 60*time.Second, 20*time.Millisecond, "the second attempt passes the first's progress")
	for i, p := range shown {
		require.GreaterOrEqual(t, p, reached, "the progress went back: %v", shown[:i+1])
		reached = p
	}
	second.do(t, "DELETE", "/api/render/"+id, nil)
}
