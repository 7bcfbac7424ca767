package webhook_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/ent/webhookdelivery"
	"github.com/kinohq/kino/server/webhook"
)

// TestEndpointDeliveryIsSignedWithItsSecret: a delivery to an
// organisation endpoint is signed with that endpoint's secret, not the
// server's; one whose endpoint was deleted is not sent.
func TestEndpointDeliveryIsSignedWithItsSecret(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	rcv := newReceiver(t, status(http.StatusOK))
	cfg := fast
	cfg.Secret = specSecret
	d := b.start(t, cfg)
	secret := webhook.NewSecret()
	for _, id := range []string{"we_1", "we_gone"} {
		require.NoError(t, b.client.WebhookEndpoint.Create().SetID(id).SetOrgID("org-a").SetURL(rcv.URL).
			SetEvents([]string{"job.completed"}).SetSecret(secret).SetCreatedAt(1).SetUpdatedAt(1).Exec(ctx))
	}
	require.NoError(t, b.client.WebhookEndpoint.DeleteOneID("we_gone").Exec(ctx))

	gone := webhook.Msg{ID: webhook.NewID(), JobID: "job-1", URL: rcv.URL, Payload: []byte(`{"n":0}`), EndpointID: "we_gone", Event: "job.completed"}
	require.NoError(t, d.Store(ctx, nil, gone))
	del := waitFor(t, b.client, gone.ID, webhookdelivery.StatusFailed)
	assert.Equal(t, "the webhook endpoint was deleted", del.LastError)

	m := webhook.Msg{ID: webhook.NewID(), JobID: "job-1", URL: rcv.URL, Payload: []byte(`{"n":1}`), EndpointID: "we_1", Event: "job.completed"}
	require.NoError(t, d.Store(ctx, nil, m))
	waitFor(t, b.client, m.ID, webhookdelivery.StatusDelivered)
	calls := rcv.got()
	require.Len(t, calls, 1, "nothing was sent for the deleted endpoint")
	assert.Equal(t, m.ID, calls[0].header.Get("webhook-id"))
	assert.NoError(t, webhook.Verify(secret, calls[0].header, calls[0].body, time.Now(), 0))
	assert.Error(t, webhook.Verify(specSecret, calls[0].header, calls[0].body, time.Now(), 0), "not the server's secret")
}
