package webhook

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/ent"
	"github.com/kinohq/kino/ent/webhookdelivery"
	"github.com/kinohq/kino/server/store"
	"github.com/kinohq/kino/server/store/storetest"
)

// openTwice opens the database twice, as two kino processes would.
func openTwice(t *testing.T, db storetest.DB) (*ent.Client, *ent.Client) {
	t.Helper()
	var clients [2]*ent.Client
	for i := range clients {
		st, err := store.Open(context.Background(), db.URL)
		require.NoError(t, err)
		t.Cleanup(func() { st.Close() })
		clients[i] = st.Client
	}
	return clients[0], clients[1]
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func TestOnlyOneProcessClaimsAnAttempt(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		ctx := context.Background()
		c1, c2 := openTwice(t, db)
		d1 := New(c1, nil, Config{}, quiet())
		d2 := New(c2, nil, Config{}, quiet())
		id, err := d1.Enqueue(ctx, nil, "job-1", "http://127.0.0.1:1/", []byte(`{}`))
		require.NoError(t, err)

		// Both processes read the delivery before either claims it.
		seen1, err := c1.WebhookDelivery.Get(ctx, id)
		require.NoError(t, err)
		seen2, err := c2.WebhookDelivery.Get(ctx, id)
		require.NoError(t, err)
		require.True(t, seen1.NextAttemptAt.Equal(seen2.NextAttemptAt))

		first, ok := d1.claim(ctx, seen1)
		require.True(t, ok, "the first claim wins")
		assert.Equal(t, 1, first.attempt)
		_, ok = d2.claim(ctx, seen2)
		assert.False(t, ok, "the second claim, on the same read, loses")

		stored, err := c2.WebhookDelivery.Get(ctx, id)
		require.NoError(t, err)
		assert.Equal(t, 1, stored.Attempts, "the attempt is counted once")
		assert.True(t, stored.NextAttemptAt.Equal(first.until), "the claim holds it until %s", first.until)

		// When the claim has run out and another process has taken the
		// delivery, the first process's late outcome is not recorded.
		again, ok := d2.claim(ctx, stored)
		require.True(t, ok)
		assert.ErrorIs(t, d1.record(ctx, first, result{code: 200}), errLostClaim)
		require.NoError(t, d2.record(ctx, again, result{code: 200}))
		stored, err = c1.WebhookDelivery.Get(ctx, id)
		require.NoError(t, err)
		assert.Equal(t, webhookdelivery.StatusDelivered, stored.Status)
		assert.Equal(t, 2, stored.Attempts)
	})
}

func TestInterruptedAttemptIsPutBack(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	client, _ := openTwice(t, storetest.SQLite(t))
	d := New(client, nil, Config{}, quiet())
	id, err := d.Enqueue(ctx, nil, "job-1", "http://127.0.0.1:1/", []byte(`{}`))
	require.NoError(t, err)
	del, err := client.WebhookDelivery.Get(ctx, id)
	require.NoError(t, err)
	c, ok := d.claim(ctx, del)
	require.True(t, ok)

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	d.release(cancelled, c)
	del, err = client.WebhookDelivery.Get(ctx, id)
	require.NoError(t, err)
	assert.Zero(t, del.Attempts, "the interrupted attempt is not counted")
	assert.False(t, del.NextAttemptAt.After(time.Now()), "due again at once")
	assert.Equal(t, webhookdelivery.StatusPending, del.Status)
}

func TestDeliveryOutOfAttemptsIsGivenUp(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	client, _ := openTwice(t, storetest.SQLite(t))
	d := New(client, nil, Config{MaxAttempts: 2}, quiet())
	id, err := d.Enqueue(ctx, nil, "job-1", "http://127.0.0.1:1/", []byte(`{}`))
	require.NoError(t, err)
	// A process claimed the last attempt and died before recording it.
	require.NoError(t, client.WebhookDelivery.UpdateOneID(id).SetAttempts(2).Exec(ctx))
	del, err := client.WebhookDelivery.Get(ctx, id)
	require.NoError(t, err)

	_, ok := d.claim(ctx, del)
	assert.False(t, ok)
	del, err = client.WebhookDelivery.Get(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, webhookdelivery.StatusFailed, del.Status)
	assert.Equal(t, 2, del.Attempts)
	assert.Contains(t, del.LastError, "given up after 2 attempts")
}
