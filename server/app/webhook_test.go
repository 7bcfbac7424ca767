package app_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/app"
	"github.com/kinohq/kino/server/store/storetest"
)

// TestWebhookKinoMayNotCallIsRefusedAtSubmit: without
// --allow-private-networks, a webhook on a loopback, private or link-local
// address would be accepted and then dropped; it is refused at once.
func TestWebhookKinoMayNotCallIsRefusedAtSubmit(t *testing.T) {
	t.Parallel()
	k := start(t, storetest.SQLite(t), func(c *app.Config) { c.AllowPrivateNetworks = false })
	for _, hook := range []string{"http://127.0.0.1:9/hook", "http://localhost/hook", "http://[::1]/hook", "http://10.1.2.3/hook", "http://169.254.169.254/latest"} {
		body := longComposition()
		body["webhook"] = hook
		r := k.do(t, http.MethodPost, "/api/render", body)
		require.Equal(t, http.StatusBadRequest, r.status, "%s: %s", hook, r.body)
		assert.Equal(t, "VALIDATION_ERROR", r.errorCode(t))
		assert.Contains(t, string(r.body), "webhook:")
		assert.Contains(t, string(r.body), "--allow-private-networks")
	}
}

// TestWebhookDeliveryIsShownOnTheJob: once a job ends, its record says how
// its webhook fared: delivered, or failed after every attempt with the
// receiver's last answer.
func TestWebhookDeliveryIsShownOnTheJob(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		media := serveMedia(t)
		k := start(t, db, func(c *app.Config) { c.WebhookMaxAttempts = 2 })

		ok, broken := receiveHooks(t, 0), receiveHooks(t, 1000)
		ids := map[string]string{}
		for name, hook := range map[string]string{"delivered": ok.URL, "failed": broken.URL} {
			body := smallComposition(media)
			body["webhook"] = hook
			ids[name] = k.submit(t, body)
		}
		// Not there while the job runs.
		assert.NotContains(t, k.get(t, ids["failed"]), "webhookDelivery")
		for want, id := range ids {
			var rec map[string]any
			require.Eventually(t, func() bool {
				rec = k.get(t, id)
				d, _ := rec["webhookDelivery"].(map[string]any)
				return d["status"] == want
			}, 30*time.Second, 50*time.Millisecond, "%s: %v", want, rec)
			d := rec["webhookDelivery"].(map[string]any)
			if want == "failed" {
				assert.Equal(t, 2.0, d["attempts"])
				assert.Equal(t, 500.0, d["lastStatusCode"])
				assert.NotEmpty(t, d["lastError"])
			} else {
				assert.Equal(t, 1.0, d["attempts"])
				assert.Equal(t, 204.0, d["lastStatusCode"])
			}
		}
		// A list shows each job's own delivery, read for the page at once.
		r := k.do(t, http.MethodGet, "/api/render", nil)
		require.Equal(t, http.StatusOK, r.status, "%s", r.body)
		listed := map[string]string{}
		for _, d := range r.json(t)["data"].([]any) {
			rec := d.(map[string]any)
			wd, _ := rec["webhookDelivery"].(map[string]any)
			listed[rec["jobId"].(string)], _ = wd["status"].(string)
		}
		assert.Equal(t, map[string]string{ids["delivered"]: "delivered", ids["failed"]: "failed"}, listed)
	})
}
