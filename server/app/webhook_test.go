package app_test

import (
	"net/http"
	"net/http/httptest"
	"sync"
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

// TestSlowWebhooksOfOneOrganisationDoNotDelayAnother: organisation A's
// receiver hangs on every callback of its nine renders; organisation B's
// callback still goes out while they hang, A holding only its own share of
// kino's webhook slots (all eight of them before, so B's callback waited
// for A's receivers to answer or time out).
func TestSlowWebhooksOfOneOrganisationDoNotDelayAnother(t *testing.T) {
	t.Parallel()
	k := start(t, storetest.SQLite(t), func(c *app.Config) {
		withKeys(c)
		c.Workers = 2
	})
	var (
		mu             sync.Mutex
		aCalls, aAtB   int
		bCalled        = make(chan struct{})
		release        = make(chan struct{})
		bCalledAlready bool
	)
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		aCalls++
		mu.Unlock()
		select {
		case <-release:
		case <-r.Context().Done():
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(slow.Close)
	t.Cleanup(func() { close(release) }) // before Close, which waits for the handlers
	quick := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if !bCalledAlready {
			bCalledAlready, aAtB = true, aCalls
			close(bCalled)
		}
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(quick.Close)

	tiny := func(hook string) map[string]any {
		return map[string]any{"provider": "provider_a", "webhook": hook,
			"composition": map[string]any{"width": 16, "height": 16, "fps": 1, "duration": 1,
				"layers": []any{map[string]any{"type": "color", "color": "#ff0000", "start": 0, "duration": 1}}}}
	}
	var aJobs []string
	for range 9 {
		r := k.as(t, keyA, http.MethodPost, "/api/render", tiny(slow.URL))
		require.Equal(t, http.StatusAccepted, r.status, "%s", r.body)
		aJobs = append(aJobs, r.json(t)["jobId"].(string))
	}
	for _, id := range aJobs {
		require.Eventually(t, func() bool {
			r := k.as(t, keyA, http.MethodGet, "/api/render/"+id, nil)
			return r.json(t)["status"] == "completed"
		}, 60*time.Second, 20*time.Millisecond)
	}
	// Every slot A may hold is held by a hanging receiver.
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return aCalls >= 4
	}, 20*time.Second, 10*time.Millisecond)

	r := k.as(t, keyB, http.MethodPost, "/api/render", tiny(quick.URL))
	require.Equal(t, http.StatusAccepted, r.status, "%s", r.body)
	select {
	case <-bCalled:
	case <-time.After(60 * time.Second):
		t.Fatal("organisation B's webhook was never sent")
	}
	mu.Lock()
	defer mu.Unlock()
	assert.LessOrEqual(t, aAtB, 4, "B's callback went out while A held only its share, its first attempts all hanging")
}
