package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"

	"github.com/kinohq/kino/ent/webhookdelivery"
	mediav1 "github.com/kinohq/kino/gen/kino/media/v1"
	"github.com/kinohq/kino/server/app"
	"github.com/kinohq/kino/server/store"
	"github.com/kinohq/kino/server/store/storetest"
	"github.com/kinohq/kino/server/webhook"
)

// mediaHook is one media webhook as received: its envelope and who sent
// it, checked against the secret it should be signed with.
type mediaHook struct {
	Event      string         `json:"event"`
	DeliveryID string         `json:"deliveryId"`
	OrgID      string         `json:"orgId"`
	JobID      string         `json:"jobId"`
	RunID      string         `json:"runId"`
	PipelineID string         `json:"pipelineId"`
	Timestamp  float64        `json:"timestamp"`
	Data       map[string]any `json:"data"`
}

// verified decodes the calls of h, each of which must carry a valid
// signature by secret and a deliveryId that is its webhook-id.
func verified(t *testing.T, h *hookReceiver, n int, secret string) []mediaHook {
	t.Helper()
	var out []mediaHook
	for _, c := range h.waitCalls(t, n) {
		require.NoError(t, webhook.Verify(secret, c.header, c.body, time.Now(), 0), "%s", c.body)
		var m mediaHook
		require.NoError(t, json.Unmarshal(c.body, &m), "%s", c.body)
		assert.Equal(t, c.header.Get("webhook-id"), m.DeliveryID)
		assert.NotZero(t, m.Timestamp)
		out = append(out, m)
	}
	return out
}

// byEvent indexes hooks by event and subject (job or run id).
func byEvent(hs []mediaHook) map[string]mediaHook {
	out := map[string]mediaHook{}
	for _, h := range hs {
		subject := h.JobID
		if h.RunID != "" {
			subject = h.RunID
		}
		out[h.Event+" "+subject] = h
	}
	return out
}

// endpoint registers an endpoint for key and returns its id and secret.
func (k *kino) endpoint(t *testing.T, key, url string, events ...string) (string, string) {
	t.Helper()
	var auth []string
	if key != "" {
		auth = bearer(key)
	}
	r := k.do(t, http.MethodPost, "/webhooks/endpoints", map[string]any{"name": "test", "url": url, "subscribedEvents": events}, auth...)
	require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
	d := r.json(t)["data"].(map[string]any)
	assert.Equal(t, url, d["url"])
	assert.Equal(t, true, d["active"])
	secret, _ := d["signingSecret"].(string)
	require.True(t, strings.HasPrefix(secret, "whsec_"), "%v", d)
	return d["id"].(string), secret
}

// TestMediaJobAndRunWebhooks: a media job's own webhook and its
// organisation's endpoints hear of its end, signed (the job's with the
// server's secret, an endpoint's with its own), in Rendobar's envelope
// with the job record under data; a pipeline run's end reaches its
// webhook and the endpoints subscribed; an endpoint not subscribed to an
// event, and another organisation's, get nothing.
func TestMediaJobAndRunWebhooks(t *testing.T) {
	t.Parallel()
	media := serveMedia(t)
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		k := start(t, db, func(c *app.Config) {
			withKeys(c)
			c.WebhookSecret = testSecret
			c.MaxAttempts = 1
		})
		own, all, cancelledOnly, other := receiveHooks(t, 0), receiveHooks(t, 0), receiveHooks(t, 0), receiveHooks(t, 0)
		_, allSecret := k.endpoint(t, keyA, all.URL, "job.completed", "job.failed", "pipeline.run.completed")
		k.endpoint(t, keyA, cancelledOnly.URL, "job.cancelled", "pipeline.run.cancelled")
		k.endpoint(t, keyB, other.URL, "job.completed", "job.failed", "job.cancelled", "pipeline.run.completed")

		job := func(source string) string {
			r := k.as(t, keyA, http.MethodPost, "/jobs", map[string]any{"type": "image.resize", "webhook": own.URL,
				"inputs": map[string]any{"source": source}, "params": map[string]any{"width": 32}})
			require.Equal(t, http.StatusAccepted, r.status, "%s", r.body)
			return r.json(t)["data"].(map[string]any)["id"].(string)
		}
		done, failed := job(media.URL+"/image.png"), job(media.URL+"/missing.png")

		hooks := byEvent(verified(t, own, 2, testSecret))
		require.Contains(t, hooks, "job.completed "+done, "%v", hooks)
		require.Contains(t, hooks, "job.failed "+failed, "%v", hooks)
		c := hooks["job.completed "+done]
		assert.Equal(t, "org-a", c.OrgID)
		assert.Equal(t, done, c.Data["id"])
		assert.Equal(t, "complete", c.Data["status"])
		assert.Contains(t, c.Data["outputUrl"], "/files/jobs/")
		f := hooks["job.failed "+failed]
		assert.Equal(t, "failed", f.Data["status"])
		assert.NotEmpty(t, f.Data["errorCode"])
		assert.NotEmpty(t, f.Data["errorMessage"])
		// The record is the one GET answers.
		got := k.as(t, keyA, http.MethodGet, "/jobs/"+failed, nil).json(t)["data"].(map[string]any)
		assert.Equal(t, got["errorCode"], f.Data["errorCode"])

		// A run of two nodes, the second fed by the first.
		r := k.as(t, keyA, http.MethodPost, "/pipelines", map[string]any{"name": "twice",
			"nodes": []any{
				map[string]any{"id": "a", "jobType": "image.resize", "params": map[string]any{"width": 32}},
				map[string]any{"id": "b", "jobType": "image.resize", "params": map[string]any{"width": 16}},
			},
			"edges": []any{map[string]any{"from": "a", "to": "b", "outputMapping": map[string]any{"sourceField": "outputUrl", "targetField": "source"}}}})
		require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
		pid := r.json(t)["data"].(map[string]any)["id"].(string)
		r = k.as(t, keyA, http.MethodPost, "/pipelines/"+pid+"/runs", map[string]any{"webhook": own.URL,
			"inputs": map[string]any{"a": map[string]any{"source": media.URL + "/image.png"}}})
		require.Equal(t, http.StatusAccepted, r.status, "%s", r.body)
		run := r.json(t)["data"].(map[string]any)
		rid := run["id"].(string)

		hooks = byEvent(verified(t, own, 3, testSecret))
		require.Contains(t, hooks, "pipeline.run.completed "+rid, "%v", hooks)
		rh := hooks["pipeline.run.completed "+rid]
		assert.Equal(t, pid, rh.PipelineID)
		assert.Equal(t, rid, rh.Data["id"])
		assert.Equal(t, "complete", rh.Data["status"])
		require.Len(t, rh.Data["jobs"], 2)
		for _, j := range rh.Data["jobs"].([]any) {
			assert.Equal(t, "complete", j.(map[string]any)["status"])
		}

		// The endpoint hears of both jobs, both nodes and the run.
		nodes := []string{}
		for _, j := range run["jobs"].([]any) {
			nodes = append(nodes, j.(map[string]any)["id"].(string))
		}
		hooks = byEvent(verified(t, all, 5, allSecret))
		for _, want := range []string{"job.completed " + done, "job.failed " + failed, "job.completed " + nodes[0],
			"job.completed " + nodes[1], "pipeline.run.completed " + rid} {
			assert.Contains(t, hooks, want)
		}

		// Every delivery was stored with the transaction that ended its
		// job, so what is stored now is all there will be.
		st, err := store.Open(context.Background(), db.URL)
		require.NoError(t, err)
		defer st.Close()
		count := func(url string) int {
			n, err := st.WebhookDelivery.Query().Where(webhookdelivery.URL(url)).Count(context.Background())
			require.NoError(t, err)
			return n
		}
		assert.Equal(t, 3, count(own.URL), "the job's and the run's own webhook: two jobs and the run, not the nodes")
		assert.Equal(t, 5, count(all.URL))
		assert.Zero(t, count(cancelledOnly.URL), "not subscribed to what happened")
		assert.Zero(t, count(other.URL), "another organisation's endpoint")
		assert.Len(t, own.waitCalls(t, 3), 3)
		assert.Len(t, all.waitCalls(t, 5), 5)
	})
}

// TestMediaRunCancelledWebhook: a run cancelled as a whole sends one
// pipeline.run.cancelled, though its jobs end together.
func TestMediaRunCancelledWebhook(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		k := start(t, db, func(c *app.Config) {
			c.WebhookSecret = testSecret
			c.Workers = 0 // the run waits until it is cancelled
		})
		own, ep := receiveHooks(t, 0), receiveHooks(t, 0)
		_, secret := k.endpoint(t, "", ep.URL, "pipeline.run.cancelled", "job.cancelled")
		r := k.do(t, http.MethodPost, "/pipelines", specPipeline())
		require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
		pid := r.json(t)["data"].(map[string]any)["id"].(string)
		r = k.do(t, http.MethodPost, "/pipelines/"+pid+"/runs", map[string]any{"webhook": own.URL,
			"inputs": map[string]any{"extract": map[string]any{"source": "https://cdn.example/video.mp4"}}})
		require.Equal(t, http.StatusAccepted, r.status, "%s", r.body)
		rid := r.json(t)["data"].(map[string]any)["id"].(string)
		r = k.do(t, http.MethodPost, "/pipelines/"+pid+"/runs/"+rid+"/cancel", nil)
		require.Equal(t, http.StatusOK, r.status, "%s", r.body)

		hooks := verified(t, own, 1, testSecret)
		assert.Equal(t, "pipeline.run.cancelled", hooks[0].Event)
		assert.Equal(t, "cancelled", hooks[0].Data["status"])
		got := byEvent(verified(t, ep, 4, secret))
		assert.Contains(t, got, "pipeline.run.cancelled "+rid)

		st, err := store.Open(context.Background(), db.URL)
		require.NoError(t, err)
		defer st.Close()
		n, err := st.WebhookDelivery.Query().Where(webhookdelivery.RunID(rid)).Count(context.Background())
		require.NoError(t, err)
		assert.Equal(t, 2, n, "one run event to its webhook, one to the endpoint")
	})
}

// TestWebhookEndpoints: endpoints are kept per organisation, validated,
// listed without their secret, and deleted.
func TestWebhookEndpoints(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		k := start(t, db, withKeys)
		id, _ := k.endpoint(t, keyA, "https://hooks.example/a", "job.completed")

		r := k.as(t, keyA, http.MethodGet, "/webhooks/endpoints", nil)
		require.Equal(t, http.StatusOK, r.status, "%s", r.body)
		list := r.json(t)["data"].([]any)
		require.Len(t, list, 1)
		assert.Equal(t, []any{"job.completed"}, list[0].(map[string]any)["subscribedEvents"])
		assert.NotContains(t, list[0], "signingSecret")
		r = k.as(t, keyB, http.MethodGet, "/webhooks/endpoints", nil)
		assert.JSONEq(t, `{"data":[]}`, string(r.body))
		r = k.as(t, keyB, http.MethodGet, "/webhooks/endpoints/"+id, nil)
		assert.Equal(t, http.StatusNotFound, r.status)
		r = k.as(t, keyB, http.MethodDelete, "/webhooks/endpoints/"+id, nil)
		assert.Equal(t, http.StatusNotFound, r.status)
		r = k.as(t, keyA, http.MethodGet, "/webhooks/endpoints/"+id, nil)
		require.Equal(t, http.StatusOK, r.status, "%s", r.body)
		assert.NotContains(t, r.json(t)["data"], "signingSecret")

		// "events" is read as "subscribedEvents".
		r = k.as(t, keyA, http.MethodPost, "/webhooks/endpoints", map[string]any{"url": "https://hooks.example/b", "events": []string{"job.failed"}})
		require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
		assert.Equal(t, []any{"job.failed"}, r.json(t)["data"].(map[string]any)["subscribedEvents"])

		for _, tc := range []struct {
			body map[string]any
			msg  string
		}{
			{map[string]any{"url": "https://hooks.example/c"}, "subscribedEvents: name at least one event"},
			{map[string]any{"url": "https://hooks.example/c", "subscribedEvents": []string{"job.exploded"}}, "subscribedEvents[0]: unknown event"},
			{map[string]any{"url": "ftp://hooks.example/c", "subscribedEvents": []string{"job.failed"}}, "url: must be an absolute http or https URL"},
			{map[string]any{"subscribedEvents": []string{"job.failed"}}, "url: is required"},
			{map[string]any{"url": "https://hooks.example/c", "subscribedEvents": []string{"job.failed"}, "name": strings.Repeat("n", 51)}, "name: must be at most 50 characters"},
		} {
			r = k.as(t, keyA, http.MethodPost, "/webhooks/endpoints", tc.body)
			assert.Equal(t, http.StatusBadRequest, r.status, "%s", r.body)
			assert.Equal(t, "VALIDATION_ERROR", r.errorCode(t))
			assert.Contains(t, string(r.body), tc.msg)
		}

		// PATCH changes what it is given, as Rendobar's clients send it.
		r = k.as(t, keyA, http.MethodPatch, "/webhooks/endpoints/"+id, map[string]any{
			"url": "https://hooks.example/a2", "subscribedEvents": []string{"job.failed", "pipeline.run.failed"}, "active": false})
		require.Equal(t, http.StatusOK, r.status, "%s", r.body)
		d := r.json(t)["data"].(map[string]any)
		assert.Equal(t, "https://hooks.example/a2", d["url"])
		assert.Equal(t, []any{"job.failed", "pipeline.run.failed"}, d["subscribedEvents"])
		assert.Equal(t, false, d["active"])
		assert.Equal(t, "test", d["name"], "kept")
		r = k.as(t, keyA, http.MethodPatch, "/webhooks/endpoints/"+id, map[string]any{"subscribedEvents": []string{"job.nope"}})
		assert.Equal(t, http.StatusBadRequest, r.status, "%s", r.body)
		r = k.as(t, keyB, http.MethodPatch, "/webhooks/endpoints/"+id, map[string]any{"active": true})
		assert.Equal(t, http.StatusNotFound, r.status, "%s", r.body)

		// 25 creates at once: the organisation keeps 20, never more.
		var wg sync.WaitGroup
		answers := make(chan int, 25)
		for i := range 25 {
			wg.Go(func() {
				r := k.as(t, keyB, http.MethodPost, "/webhooks/endpoints", map[string]any{
					"url": fmt.Sprintf("https://hooks.example/b%d", i), "subscribedEvents": []string{"job.failed"}})
				answers <- r.status
			})
		}
		wg.Wait()
		close(answers)
		made := 0
		for c := range answers {
			if c == http.StatusCreated {
				made++
			}
		}
		assert.Equal(t, 20, made)
		r = k.as(t, keyB, http.MethodGet, "/webhooks/endpoints", nil)
		assert.Len(t, r.json(t)["data"], 20)
		r = k.as(t, keyB, http.MethodPost, "/webhooks/endpoints", map[string]any{"url": "https://hooks.example/b", "subscribedEvents": []string{"job.failed"}})
		assert.Equal(t, http.StatusBadRequest, r.status)
		assert.Contains(t, string(r.body), "the most it may have")

		r = k.as(t, keyA, http.MethodDelete, "/webhooks/endpoints/"+id, nil)
		require.Equal(t, http.StatusOK, r.status, "%s", r.body)
		r = k.as(t, keyA, http.MethodGet, "/webhooks/endpoints/"+id, nil)
		assert.Equal(t, http.StatusNotFound, r.status)
		assert.Equal(t, "NOT_FOUND", r.errorCode(t))
	})
}

// TestMediaWebhookKinoMayNotCallIsRefused: a job's, a run's or an
// endpoint's URL on a loopback, private or link-local address is refused
// at once without --allow-private-networks.
func TestMediaWebhookKinoMayNotCallIsRefused(t *testing.T) {
	t.Parallel()
	k := start(t, storetest.SQLite(t), func(c *app.Config) { c.AllowPrivateNetworks = false })
	r := k.do(t, http.MethodPost, "/pipelines", specPipeline())
	require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
	pid := r.json(t)["data"].(map[string]any)["id"].(string)
	for _, hook := range []string{"http://127.0.0.1:9/hook", "http://localhost/hook", "http://[::1]/hook", "http://10.1.2.3/hook", "http://169.254.169.254/latest"} {
		job := watermarkJob()
		job["webhook"] = hook
		for path, body := range map[string]map[string]any{
			"/jobs": job,
			"/pipelines/" + pid + "/runs": {"webhook": hook,
				"inputs": map[string]any{"extract": map[string]any{"source": "https://cdn.example/video.mp4"}}},
			"/webhooks/endpoints": {"url": hook, "subscribedEvents": []string{"job.completed"}},
		} {
			r := k.do(t, http.MethodPost, path, body)
			require.Equal(t, http.StatusBadRequest, r.status, "%s %s: %s", path, hook, r.body)
			assert.Equal(t, "VALIDATION_ERROR", r.errorCode(t))
			assert.Contains(t, string(r.body), "--allow-private-networks")
		}
	}
}

// TestRunEndingInTwoPlacesSendsOnce: the jobs of a run of four side by
// side nodes end on four workers, in transactions that may overlap, yet
// every run sends its event exactly once. (On PostgreSQL a lock per run
// makes sure of it; today the lock on the organisation's turn that ending
// a job that ran takes already orders them, so this does not fail without
// it, but it would once that lock goes.)
func TestRunEndingInTwoPlacesSendsOnce(t *testing.T) {
	t.Parallel()
	media := serveMedia(t)
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		k := start(t, db, func(c *app.Config) { c.Workers = 4 })
		own := receiveHooks(t, 0)
		node := func(id string) map[string]any {
			return map[string]any{"id": id, "jobType": "image.resize", "params": map[string]any{"width": 8}}
		}
		r := k.do(t, http.MethodPost, "/pipelines", map[string]any{"name": "side by side",
			"nodes": []any{node("a"), node("b"), node("c"), node("d")}, "edges": []any{}})
		require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
		pid := r.json(t)["data"].(map[string]any)["id"].(string)
		src := map[string]any{"source": media.URL + "/image.png"}
		const runs = 6
		var ids []string
		for range runs {
			r = k.do(t, http.MethodPost, "/pipelines/"+pid+"/runs", map[string]any{"webhook": own.URL,
				"inputs": map[string]any{"a": src, "b": src, "c": src, "d": src}})
			require.Equal(t, http.StatusAccepted, r.status, "%s", r.body)
			ids = append(ids, r.json(t)["data"].(map[string]any)["id"].(string))
		}
		for _, id := range ids {
			require.Equal(t, "complete", k.waitRun(t, pid, id)["status"])
		}
		st, err := store.Open(context.Background(), db.URL)
		require.NoError(t, err)
		defer st.Close()
		for _, id := range ids {
			n, err := st.WebhookDelivery.Query().Where(webhookdelivery.RunID(id)).Count(context.Background())
			require.NoError(t, err)
			assert.Equal(t, 1, n, "run %s", id)
		}
		hooks := byEvent(verifiedUnsigned(t, own, runs))
		for _, id := range ids {
			assert.Contains(t, hooks, "pipeline.run.completed "+id)
		}
	})
}

// verifiedUnsigned decodes the calls of h, sent without a secret.
func verifiedUnsigned(t *testing.T, h *hookReceiver, n int) []mediaHook {
	t.Helper()
	var out []mediaHook
	for _, c := range h.waitCalls(t, n) {
		var m mediaHook
		require.NoError(t, json.Unmarshal(c.body, &m), "%s", c.body)
		out = append(out, m)
	}
	return out
}

// TestMediaJobCallback: Rendobar's callback object works as webhook does,
// its headers sent with the delivery; a switched-off endpoint gets
// nothing.
func TestMediaJobCallback(t *testing.T) {
	t.Parallel()
	media := serveMedia(t)
	k := start(t, storetest.SQLite(t), func(c *app.Config) { c.WebhookSecret = testSecret })
	own, off := receiveHooks(t, 0), receiveHooks(t, 0)
	id, _ := k.endpoint(t, "", off.URL, "job.completed")
	r := k.do(t, http.MethodPatch, "/webhooks/endpoints/"+id, map[string]any{"active": false})
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)

	job := func(callback map[string]any) response {
		return k.do(t, http.MethodPost, "/jobs", map[string]any{"type": "image.resize", "callback": callback,
			"inputs": map[string]any{"source": media.URL + "/image.png"}, "params": map[string]any{"width": 32}})
	}
	for _, tc := range []struct {
		callback map[string]any
		msg      string
	}{
		{map[string]any{"headers": map[string]any{"X-A": "b"}}, "callback.url: is required"},
		{map[string]any{"url": own.URL, "headers": map[string]any{"Webhook-Signature": "v1,forged"}}, "kino sets this header itself"},
		{map[string]any{"url": own.URL, "headers": map[string]any{"Content-Type": "text/plain"}}, "kino sets this header itself"},
		{map[string]any{"url": own.URL, "headers": map[string]any{"X-A": "b\r\nX-B: c"}}, "line break"},
		{map[string]any{"url": own.URL, "events": []string{"job.running"}}, "callback.events[0]: unknown event"},
		{map[string]any{"url": "ftp://x.example/"}, "callback.url: must be an absolute http or https URL"},
	} {
		r := job(tc.callback)
		assert.Equal(t, http.StatusBadRequest, r.status, "%s", r.body)
		assert.Contains(t, string(r.body), tc.msg)
	}
	r = k.do(t, http.MethodPost, "/jobs", map[string]any{"type": "image.resize", "webhook": own.URL + "/other",
		"callback": map[string]any{"url": own.URL}, "inputs": map[string]any{"source": media.URL + "/image.png"}})
	assert.Equal(t, http.StatusBadRequest, r.status, "%s", r.body)
	assert.Contains(t, string(r.body), "give the URL once")

	r = job(map[string]any{"url": own.URL, "headers": map[string]any{"Authorization": "Bearer cf-token"}, "verify": true, "events": []string{"job.started"}})
	require.Equal(t, http.StatusAccepted, r.status, "%s", r.body)
	jobID := r.json(t)["data"].(map[string]any)["id"].(string)
	assert.NotContains(t, string(r.body), "cf-token", "the headers are never answered")

	calls := own.waitCalls(t, 1)
	assert.Equal(t, "Bearer cf-token", calls[0].header.Get("Authorization"))
	hooks := verified(t, own, 1, testSecret)
	assert.Equal(t, "job.completed", hooks[0].Event)
	assert.Equal(t, jobID, hooks[0].Data["id"])
	assert.NotContains(t, string(k.do(t, http.MethodGet, "/jobs/"+jobID, nil).body), "cf-token")

	st, err := store.Open(context.Background(), k.cfg.DatabaseURL)
	require.NoError(t, err)
	defer st.Close()
	n, err := st.WebhookDelivery.Query().Where(webhookdelivery.URL(off.URL)).Count(context.Background())
	require.NoError(t, err)
	assert.Zero(t, n, "a switched-off endpoint is sent nothing")
}

// TestWebhookEndpointsOverGRPC: the endpoints are a gRPC service too,
// whose errors carry the documented codes.
func TestWebhookEndpointsOverGRPC(t *testing.T) {
	t.Parallel()
	k := start(t, storetest.SQLite(t), nil)
	ctx := context.Background()
	hooks := mediav1.NewWebhookServiceClient(k.conn)
	made, err := hooks.CreateWebhookEndpoint(ctx, &mediav1.CreateWebhookEndpointRequest{Url: "https://hooks.example/g", Events: []string{"job.failed"}})
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(made.GetData().GetSigningSecret(), "whsec_"))
	list, err := hooks.ListWebhookEndpoints(ctx, &mediav1.ListWebhookEndpointsRequest{})
	require.NoError(t, err)
	require.Len(t, list.GetData(), 1)
	assert.Nil(t, list.GetData()[0].SigningSecret)
	_, err = hooks.CreateWebhookEndpoint(ctx, &mediav1.CreateWebhookEndpointRequest{Url: "https://hooks.example/g"})
	assertCode(t, err, codes.InvalidArgument, "VALIDATION_ERROR")
	_, err = hooks.DeleteWebhookEndpoint(ctx, &mediav1.DeleteWebhookEndpointRequest{Id: made.GetData().GetId()})
	require.NoError(t, err)
	_, err = hooks.GetWebhookEndpoint(ctx, &mediav1.GetWebhookEndpointRequest{Id: made.GetData().GetId()})
	assertCode(t, err, codes.NotFound, "NOT_FOUND")
}
