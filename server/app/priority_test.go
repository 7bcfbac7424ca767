package app_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/app"
	"github.com/kinohq/kino/server/store"
	"github.com/kinohq/kino/server/store/storetest"
)

func TestPriorityOfASubmitIsKeptAndBounded(t *testing.T) {
	t.Parallel()
	db := storetest.SQLite(t)
	k := start(t, db, func(c *app.Config) { c.Workers = 0 })

	job := transcodeJob("https://cdn.example")
	job["priority"] = 7
	r := k.do(t, http.MethodPost, "/jobs", job)
	require.Equal(t, http.StatusAccepted, r.status, "%s", r.body)
	jobID := r.json(t)["data"].(map[string]any)["id"].(string)

	render := colourRender(2)
	render["priority"] = -3
	renderID := k.submit(t, render)

	st, err := store.Open(context.Background(), db.URL)
	require.NoError(t, err)
	defer st.Close()
	for id, want := range map[string]int{jobID: 7, renderID: -3} {
		j, err := st.Job.Get(context.Background(), id)
		require.NoError(t, err)
		assert.Equal(t, want, j.Priority, id)
	}

	job["priority"] = 101
	r = k.do(t, http.MethodPost, "/jobs", job)
	assert.Equal(t, http.StatusBadRequest, r.status)
	assert.Equal(t, "VALIDATION_ERROR", r.errorCode(t))
	render["priority"] = -101
	r = k.do(t, http.MethodPost, "/api/render", render)
	assert.Equal(t, http.StatusBadRequest, r.status)
	assert.Equal(t, "VALIDATION_ERROR", r.errorCode(t))
}
