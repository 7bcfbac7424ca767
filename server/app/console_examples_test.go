package app_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/gateway/console"
	"github.com/kinohq/kino/server/app"
	"github.com/kinohq/kino/server/store/storetest"
)

// TestConsoleExamplesRender: every example the console offers renders as
// the page gives it, its media kino's demo files at the page's own origin,
// on a kino that may reach no other address.
func TestConsoleExamplesRender(t *testing.T) {
	t.Parallel()
	k := start(t, storetest.SQLite(t), func(c *app.Config) { c.AllowPrivateNetworks = false; c.Workers = 2 })
	r := k.do(t, http.MethodGet, "/console/examples.json", nil)
	require.Equal(t, http.StatusOK, r.status)
	var examples []console.Example
	require.NoError(t, json.Unmarshal(r.body, &examples))
	require.NotEmpty(t, examples)
	ids := map[string]string{}
	for _, ex := range examples {
		body := strings.ReplaceAll(string(ex.Request), console.DemoOrigin+"/demo/", k.base+"/demo/")
		r := k.do(t, http.MethodPost, "/api/render", body)
		require.Equal(t, http.StatusAccepted, r.status, "%s: %s", ex.Title, r.body)
		ids[ex.Title] = r.json(t)["jobId"].(string)
	}
	for title, id := range ids {
		t.Log(title)
		k.waitStatus(t, id, "completed", 3*time.Minute)
	}
}
