package webhook_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/ent"
	"github.com/kinohq/kino/ent/webhookdelivery"
	"github.com/kinohq/kino/server/fetch"
	"github.com/kinohq/kino/server/store"
	"github.com/kinohq/kino/server/webhook"
)

const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

func TestSignMatchesTheStandardWebhooksVector(t *testing.T) {
	t.Parallel()
	sig, err := webhook.Sign(secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, []byte(`{"test": 2432232314}`))
	require.NoError(t, err)
	assert.Equal(t, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=", sig)

	h := http.Header{}
	h.Set("webhook-id", "msg_p5jXN8AQM9LWM0D4loKWxJek")
	h.Set("webhook-timestamp", "1614265330")
	h.Set("webhook-signature", "v1,bm9ub3NlbnNl "+sig)
	at := time.Unix(1614265330, 0)
	require.NoError(t, webhook.Verify(secret, h, []byte(`{"test": 2432232314}`), at, time.Minute))
	assert.Error(t, webhook.Verify(secret, h, []byte(`{"test": 2432232315}`), at, time.Minute), "tampered body")
	assert.Error(t, webhook.Verify(secret, h, []byte(`{"test": 2432232314}`), at.Add(time.Hour), time.Minute), "replayed later")
}

// receiver answers each call with the next status of a script (then 204).
type receiver struct {
	*httptest.Server
	mu      sync.Mutex
	calls   []*http.Request
	bodies  [][]byte
	times   []time.Time
	answers []func(http.ResponseWriter)
}

func newReceiver(t *testing.T, answers ...func(http.ResponseWriter)) *receiver {
	r := &receiver{answers: answers}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		n := len(r.calls)
		r.calls = append(r.calls, req)
		r.bodies = append(r.bodies, b)
		r.times = append(r.times, time.Now())
		r.mu.Unlock()
		if n < len(r.answers) {
			r.answers[n](w)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(r.Close)
	return r
}

func status(code int) func(http.ResponseWriter) {
	return func(w http.ResponseWriter) { w.WriteHeader(code) }
}

func (r *receiver) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.calls)
}

type bundle struct {
	client *ent.Client
	path   string
}

func setup(t *testing.T) *bundle {
	path := filepath.Join(t.TempDir(), "kino.db")
	st, err := store.Open(context.Background(), "sqlite://"+path)
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	return &bundle{client: st.Client, path: path}
}

func run(t *testing.T, client *ent.Client, cfg webhook.Config) *webhook.Dispatcher {
	hc := fetch.New(fetch.Options{AllowPrivate: true}).NoRedirectClient()
	d := webhook.New(client, hc, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = d.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return d
}

func delivery(t *testing.T, client *ent.Client, id string) *ent.WebhookDelivery {
	del, err := client.WebhookDelivery.Get(context.Background(), id)
	require.NoError(t, err)
	return del
}

func TestRetriesWithTheSameIDUntilDelivered(t *testing.T) {
	t.Parallel()
	b := setup(t)
	rcv := newReceiver(t, status(500), status(502))
	d := run(t, b.client, webhook.Config{Secret: secret, BaseDelay: 20 * time.Millisecond, PollInterval: 10 * time.Millisecond})
	id, err := d.Enqueue(context.Background(), nil, "job-1", rcv.URL, []byte(`{"jobId":"job-1"}`))
	require.NoError(t, err)
	d.Notify()

	require.Eventually(t, func() bool {
		return delivery(t, b.client, id).Status == webhookdelivery.StatusDelivered
	}, 10*time.Second, 10*time.Millisecond)
	require.Equal(t, 3, rcv.count())
	for i, req := range rcv.calls {
		assert.Equal(t, id, req.Header.Get("webhook-id"), "same id on every attempt")
		assert.Equal(t, "application/json", req.Header.Get("Content-Type"))
		require.NoError(t, webhook.Verify(secret, req.Header, rcv.bodies[i], time.Now(), time.Minute))
	}
	del := delivery(t, b.client, id)
	assert.Equal(t, 3, del.Attempts)
	assert.Equal(t, 204, del.LastStatusCode)
}

func TestGoneStopsAndRedirectsAreNotFollowed(t *testing.T) {
	t.Parallel()
	b := setup(t)
	redirected := newReceiver(t)
	rcv := newReceiver(t, func(w http.ResponseWriter) {
		w.Header().Set("Location", redirected.URL)
		w.WriteHeader(http.StatusTemporaryRedirect)
	}, status(http.StatusGone))
	d := run(t, b.client, webhook.Config{BaseDelay: 10 * time.Millisecond, PollInterval: 10 * time.Millisecond})
	id, err := d.Enqueue(context.Background(), nil, "job-2", rcv.URL, []byte(`{}`))
	require.NoError(t, err)
	d.Notify()
	require.Eventually(t, func() bool {
		return delivery(t, b.client, id).Status == webhookdelivery.StatusFailed
	}, 10*time.Second, 10*time.Millisecond)
	assert.Equal(t, 2, rcv.count(), "a 3xx is retried, a 410 ends it")
	assert.Zero(t, redirected.count(), "the redirect was not followed")
}

func TestMaxAttemptsAndRetryAfter(t *testing.T) {
	t.Parallel()
	b := setup(t)
	rcv := newReceiver(t, func(w http.ResponseWriter) {
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(http.StatusServiceUnavailable)
	}, status(500), status(500), status(500))
	d := run(t, b.client, webhook.Config{MaxAttempts: 3, BaseDelay: 10 * time.Millisecond, PollInterval: 10 * time.Millisecond})
	id, err := d.Enqueue(context.Background(), nil, "job-3", rcv.URL, []byte(`{}`))
	require.NoError(t, err)
	d.Notify()
	require.Eventually(t, func() bool {
		return delivery(t, b.client, id).Status == webhookdelivery.StatusFailed
	}, 10*time.Second, 10*time.Millisecond)
	assert.Equal(t, 3, rcv.count())
	assert.GreaterOrEqual(t, rcv.times[1].Sub(rcv.times[0]), 900*time.Millisecond, "Retry-After: 1 was honoured")
}

func TestDeliverySurvivesRestart(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "kino.db")
	rcv := newReceiver(t)
	// Stored by a kino that stops before sending it.
	before, err := store.Open(context.Background(), "sqlite://"+path)
	require.NoError(t, err)
	hc := fetch.New(fetch.Options{AllowPrivate: true}).NoRedirectClient()
	stopped := webhook.New(before.Client, hc, webhook.Config{}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	id, err := stopped.Enqueue(context.Background(), nil, "job-4", rcv.URL, []byte(`{}`))
	require.NoError(t, err)
	require.NoError(t, before.Close())
	assert.Zero(t, rcv.count())

	// The next start finds and sends it.
	after, err := store.Open(context.Background(), "sqlite://"+path)
	require.NoError(t, err)
	t.Cleanup(func() { after.Close() })
	run(t, after.Client, webhook.Config{PollInterval: 10 * time.Millisecond})
	require.Eventually(t, func() bool {
		return delivery(t, after.Client, id).Status == webhookdelivery.StatusDelivered
	}, 10*time.Second, 10*time.Millisecond)
	assert.Equal(t, id, rcv.calls[0].Header.Get("webhook-id"))
}
