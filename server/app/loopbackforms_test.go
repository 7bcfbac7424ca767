package app_test

import (
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/app"
	"github.com/kinohq/kino/server/store/storetest"
)

// TestNumericLoopbackFormsAreRefusedAtOnce: a source or webhook whose host
// is the loopback address in another spelling (127.1, 0x7f000001,
// localhost.) is read as what it is, without DNS: a webhook is 400 at
// submit, a source fails the render at once as the request's fault, naming
// the address, and the host is never contacted.
func TestNumericLoopbackFormsAreRefusedAtOnce(t *testing.T) {
	t.Parallel()
	media := serveMedia(t)
	var asked atomic.Int64
	counted := serveDir(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		media.Config.Handler.ServeHTTP(w, r)
	}))
	port := counted[strings.LastIndex(counted, ":"):]
	k := start(t, storetest.SQLite(t), func(c *app.Config) {
		c.AllowPrivateNetworks = false
		c.MaxAttempts = 3
		c.JobRetryDelay = time.Hour // a retry would leave the job queued
	})

	for _, host := range []string{"127.1", "0x7f000001", "2130706433", "0177.0.0.1", "localhost.", "[::ffff:127.0.0.1]", "[::1]"} {
		t.Run(host, func(t *testing.T) {
			t.Parallel()
			body := smallComposition(media)
			body["webhook"] = "http://" + host + port + "/hook"
			r := k.do(t, http.MethodPost, "/api/render", body)
			require.Equal(t, http.StatusBadRequest, r.status, "%s", r.body)
			assert.Contains(t, string(r.body), "webhook")

			body = smallComposition(media)
			body["assetUrls"] = map[string]any{"logo": "http://" + host + port + "/image.png", "tone": "http://" + host + port + "/tone.wav"}
			id := k.submit(t, body)
			job := k.waitStatus(t, id, "failed", 30*time.Second)
			e := job["error"].(map[string]any)
			assert.Equal(t, "ASSET_FETCH_FAILED", e["code"])
			assert.Contains(t, e["message"], "--allow-private-networks")
			assert.NotContains(t, e["message"], "no such host")
		})
	}
	assert.Zero(t, asked.Load(), "no refused host is contacted")
}
