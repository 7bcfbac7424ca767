package webhook_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/ent"
	"github.com/kinohq/kino/ent/webhookdelivery"
	"github.com/kinohq/kino/server/events"
	"github.com/kinohq/kino/server/fetch"
	"github.com/kinohq/kino/server/jobs"
	"github.com/kinohq/kino/server/store"
	"github.com/kinohq/kino/server/store/storetest"
	"github.com/kinohq/kino/server/webhook"
)

// fast keeps the waits of a test in milliseconds.
var fast = webhook.Config{BaseDelay: 10 * time.Millisecond, PollInterval: 10 * time.Millisecond}

// call is one request a receiver got.
type call struct {
	path   string
	header http.Header
	body   []byte
	at     time.Time
}

// receiver is a webhook endpoint on loopback that answers each call with
// the next answer of its script, then 204.
type receiver struct {
	*httptest.Server
	mu      sync.Mutex
	calls   []call
	answers []func(http.ResponseWriter, *http.Request)
}

func newReceiver(t *testing.T, answers ...func(http.ResponseWriter, *http.Request)) *receiver {
	t.Helper()
	r := &receiver{answers: answers}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		n := len(r.calls)
		r.calls = append(r.calls, call{path: req.URL.Path, header: req.Header.Clone(), body: body, at: time.Now()})
		r.mu.Unlock()
		if n < len(r.answers) {
			r.answers[n](w, req)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(r.Close)
	return r
}

// got returns the calls so far.
func (r *receiver) got() []call {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]call(nil), r.calls...)
}

func status(code int) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(code) }
}

// hangUp closes the connection without an answer: a network error.
func hangUp(w http.ResponseWriter, _ *http.Request) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err == nil {
		conn.Close()
	}
}

// logBuffer collects a dispatcher's JSON log lines.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) lines(t *testing.T) []map[string]any {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(b.buf.Bytes()))
	for sc.Scan() {
		var m map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &m))
		out = append(out, m)
	}
	return out
}

type bundle struct {
	client *ent.Client
	// jobs makes the jobs whose deliveries a test sends.
	jobs *jobs.Client
	logs *logBuffer
}

func newBundle(st *store.Store) *bundle {
	return &bundle{client: st.Client, jobs: jobs.New(st, events.NewLocal(), jobs.Config{}), logs: &logBuffer{}}
}

func setup(t *testing.T) *bundle {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "kino.db"))
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	return newBundle(st)
}

// start runs a dispatcher on the bundle's database until the test ends.
func (b *bundle) start(t *testing.T, cfg webhook.Config) *webhook.Dispatcher {
	t.Helper()
	return start(t, b.client, cfg, slog.New(slog.NewJSONHandler(b.logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
}

func start(t *testing.T, client *ent.Client, cfg webhook.Config, log *slog.Logger) *webhook.Dispatcher {
	t.Helper()
	hc := fetch.New(fetch.Options{AllowPrivate: true}).NoRedirectClient()
	d := webhook.New(client, hc, cfg, log)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		assert.ErrorIs(t, <-done, context.Canceled)
	})
	return d
}

func (b *bundle) enqueue(t *testing.T, d *webhook.Dispatcher, jobID, url string) string {
	t.Helper()
	id, err := d.Enqueue(context.Background(), nil, jobID, url, []byte(`{"jobId":"`+jobID+`"}`))
	require.NoError(t, err)
	return id
}

// waitFor waits until the delivery reaches status and returns it.
func waitFor(t *testing.T, client *ent.Client, id string, status webhookdelivery.Status) *ent.WebhookDelivery {
	t.Helper()
	var del *ent.WebhookDelivery
	require.Eventually(t, func() bool {
		var err error
		del, err = client.WebhookDelivery.Get(context.Background(), id)
		require.NoError(t, err)
		return del.Status == status
	}, 10*time.Second, 5*time.Millisecond, "delivery %s never became %s", id, status)
	return del
}

func TestDeliversASignedPOST(t *testing.T) {
	t.Parallel()
	b := setup(t)
	rcv := newReceiver(t, status(http.StatusOK))
	cfg := fast
	cfg.Secret = specSecret
	d := b.start(t, cfg)
	payload := []byte(`{"jobId":"job-1","status":"completed","outputUrl":"https://cdn.example/job-1.mp4","duration":10,"format":"mp4","resolution":{"width":1280,"height":720}}`)
	id, err := d.Enqueue(context.Background(), nil, "job-1", rcv.URL+"/hooks?token=abc", payload)
	require.NoError(t, err)
	assert.Regexp(t, `^msg_[0-9a-f]{32}$`, id)

	del := waitFor(t, b.client, id, webhookdelivery.StatusDelivered)
	assert.Equal(t, 1, del.Attempts)
	assert.Equal(t, http.StatusOK, del.LastStatusCode)
	assert.Empty(t, del.LastError)

	calls := rcv.got()
	require.Len(t, calls, 1)
	c := calls[0]
	assert.JSONEq(t, `{"jobId":"job-1","status":"completed","outputUrl":"https://cdn.example/job-1.mp4","duration":10,"format":"mp4","resolution":{"width":1280,"height":720}}`, string(c.body))
	assert.Equal(t, payload, c.body, "the body is sent byte for byte as stored")
	assert.Equal(t, "application/json", c.header.Get("Content-Type"))
	assert.Equal(t, "kino-webhook/1", c.header.Get("User-Agent"))
	assert.Equal(t, id, c.header.Get("webhook-id"))
	ts, err := strconv.ParseInt(c.header.Get("webhook-timestamp"), 10, 64)
	require.NoError(t, err)
	assert.InDelta(t, c.at.Unix(), ts, 2, "the timestamp is the attempt's")
	require.NoError(t, webhook.Verify(specSecret, c.header, c.body, time.Now(), time.Minute))
	want, err := webhook.Sign(specSecret, id, ts, payload)
	require.NoError(t, err)
	assert.Equal(t, want, c.header.Get("webhook-signature"))

	for _, line := range b.logs.lines(t) {
		assert.Equal(t, "job-1", line["job_id"], "%v", line)
		assert.Equal(t, id, line["webhook_id"], "%v", line)
		assert.NotContains(t, fmt.Sprint(line), "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "the secret is never logged")
		assert.NotContains(t, fmt.Sprint(line), "token=abc", "the URL, which may hold a token, is not logged")
	}
}

func TestUnsignedWithoutASecret(t *testing.T) {
	t.Parallel()
	b := setup(t)
	rcv := newReceiver(t)
	d := b.start(t, fast)
	id := b.enqueue(t, d, "job-1", rcv.URL)
	waitFor(t, b.client, id, webhookdelivery.StatusDelivered)
	require.Len(t, rcv.got(), 1)
	assert.Empty(t, rcv.got()[0].header.Values("webhook-signature"))
}

func TestRetriesWithTheSameIDUntilDelivered(t *testing.T) {
	t.Parallel()
	b := setup(t)
	rcv := newReceiver(t, status(http.StatusInternalServerError), hangUp, status(http.StatusBadGateway))
	cfg := fast
	cfg.Secret = "a plain secret"
	d := b.start(t, cfg)
	id := b.enqueue(t, d, "job-1", rcv.URL)

	del := waitFor(t, b.client, id, webhookdelivery.StatusDelivered)
	assert.Equal(t, 4, del.Attempts)
	assert.Equal(t, http.StatusNoContent, del.LastStatusCode)
	assert.Empty(t, del.LastError, "cleared on delivery")
	calls := rcv.got()
	require.Len(t, calls, 4)
	for i, c := range calls {
		assert.Equal(t, id, c.header.Get("webhook-id"), "call %d: the same id on every attempt", i)
		assert.NoError(t, webhook.Verify(cfg.Secret, c.header, c.body, time.Now(), time.Minute), "call %d: signed afresh", i)
	}
	lines := b.logs.lines(t)
	require.NotEmpty(t, lines)
	for _, line := range lines {
		assert.Equal(t, id, line["webhook_id"], "%v", line)
		assert.Equal(t, "job-1", line["job_id"], "%v", line)
	}
}

func TestGoneEndsTheDelivery(t *testing.T) {
	t.Parallel()
	b := setup(t)
	rcv := newReceiver(t, status(http.StatusServiceUnavailable), status(http.StatusGone))
	d := b.start(t, fast)
	id := b.enqueue(t, d, "job-1", rcv.URL)

	del := waitFor(t, b.client, id, webhookdelivery.StatusFailed)
	assert.Equal(t, 2, del.Attempts)
	assert.Equal(t, http.StatusGone, del.LastStatusCode)
	assert.Contains(t, del.LastError, "410 Gone")
	// Failed is final: no claim takes a delivery that is not pending, so
	// the count cannot grow after this.
	assert.Len(t, rcv.got(), 2)
}

func TestRedirectsAreNotFollowed(t *testing.T) {
	t.Parallel()
	b := setup(t)
	elsewhere := newReceiver(t)
	rcv := newReceiver(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL, http.StatusTemporaryRedirect)
	})
	cfg := fast
	cfg.MaxAttempts = 1
	d := b.start(t, cfg)
	id := b.enqueue(t, d, "job-1", rcv.URL)

	del := waitFor(t, b.client, id, webhookdelivery.StatusFailed)
	assert.Equal(t, http.StatusTemporaryRedirect, del.LastStatusCode)
	assert.Contains(t, del.LastError, "redirects are not followed")
	assert.Len(t, rcv.got(), 1)
	assert.Empty(t, elsewhere.got(), "the redirect target got nothing")
}

func TestRedirectIsRetriedLikeAnyFailure(t *testing.T) {
	t.Parallel()
	b := setup(t)
	rcv := newReceiver(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/elsewhere", http.StatusMovedPermanently)
	})
	d := b.start(t, fast)
	id := b.enqueue(t, d, "job-1", rcv.URL)
	del := waitFor(t, b.client, id, webhookdelivery.StatusDelivered)
	assert.Equal(t, 2, del.Attempts)
	calls := rcv.got()
	require.Len(t, calls, 2)
	assert.Equal(t, "/", calls[1].path, "the retry went to the same URL, not to /elsewhere")
}

func TestMaxAttempts(t *testing.T) {
	t.Parallel()
	b := setup(t)
	rcv := newReceiver(t, status(500), status(500), status(500), status(500))
	cfg := fast
	cfg.MaxAttempts = 3
	d := b.start(t, cfg)
	id := b.enqueue(t, d, "job-1", rcv.URL)

	del := waitFor(t, b.client, id, webhookdelivery.StatusFailed)
	assert.Equal(t, 3, del.Attempts)
	assert.Equal(t, 500, del.LastStatusCode)
	assert.Equal(t, "the receiver answered 500 Internal Server Error", del.LastError)
	assert.Len(t, rcv.got(), 3)
}

func TestNetworkErrorsAreRecorded(t *testing.T) {
	t.Parallel()
	b := setup(t)
	rcv := newReceiver(t, status(500), hangUp)
	cfg := fast
	cfg.MaxAttempts = 2
	d := b.start(t, cfg)
	id := b.enqueue(t, d, "job-1", rcv.URL)
	del := waitFor(t, b.client, id, webhookdelivery.StatusFailed)
	assert.Zero(t, del.LastStatusCode, "no answer, no status")
	assert.Contains(t, del.LastError, "EOF")
	assert.NotContains(t, del.LastError, rcv.URL, "the URL is stored beside the error, not in it")
}

func TestAttemptTimeout(t *testing.T) {
	t.Parallel()
	b := setup(t)
	rcv := newReceiver(t, func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	cfg := fast
	// Long enough for an answered attempt on a loaded machine; the hung
	// one is cut at it whatever the load.
	cfg.AttemptTimeout = 300 * time.Millisecond
	d := b.start(t, cfg)
	id := b.enqueue(t, d, "job-1", rcv.URL)
	del := waitFor(t, b.client, id, webhookdelivery.StatusDelivered)
	// The hung attempt was cut and retried; a loaded machine may cut an
	// answered one too, so more attempts are no failure of the rule.
	assert.GreaterOrEqual(t, del.Attempts, 2)
}

func TestRetryAfterIsHonoured(t *testing.T) {
	t.Parallel()
	b := setup(t)
	rcv := newReceiver(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(http.StatusServiceUnavailable)
	})
	d := b.start(t, fast) // the backoff alone would retry within 10 ms
	id := b.enqueue(t, d, "job-1", rcv.URL)
	// The first failure, as recorded: the retry is set for a second after
	// it (a second is the window this wait has to see it in).
	var failed *ent.WebhookDelivery
	require.Eventually(t, func() bool {
		var err error
		failed, err = b.client.WebhookDelivery.Get(context.Background(), id)
		require.NoError(t, err)
		return failed.Attempts == 1 && failed.LastStatusCode == http.StatusServiceUnavailable
	}, 10*time.Second, 5*time.Millisecond)
	assert.GreaterOrEqual(t, failed.NextAttemptAt.Sub(failed.UpdatedAt), time.Second, "the retry waits Retry-After")
	waitFor(t, b.client, id, webhookdelivery.StatusDelivered)
	require.Len(t, rcv.got(), 2)
}

func TestRetryAfterIsCappedByMaxDelay(t *testing.T) {
	t.Parallel()
	b := setup(t)
	rcv := newReceiver(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Retry-After", time.Now().Add(time.Hour).UTC().Format(http.TimeFormat))
		w.WriteHeader(http.StatusTooManyRequests)
	})
	cfg := fast
	cfg.MaxDelay = 20 * time.Millisecond
	d := b.start(t, cfg)
	id := b.enqueue(t, d, "job-1", rcv.URL)
	// Within waitFor's 10 s only if the hour was capped to 20 ms.
	del := waitFor(t, b.client, id, webhookdelivery.StatusDelivered)
	assert.Equal(t, 2, del.Attempts)
}

func TestRefusedAddressIsNotRetried(t *testing.T) {
	t.Parallel()
	b := setup(t)
	rcv := newReceiver(t)
	// The default client refuses loopback.
	d := webhook.New(b.client, nil, fast, slog.New(slog.NewTextHandler(io.Discard, nil)))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = d.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	id := b.enqueue(t, d, "job-1", rcv.URL)

	del := waitFor(t, b.client, id, webhookdelivery.StatusFailed)
	assert.Equal(t, 1, del.Attempts)
	assert.Contains(t, del.LastError, "address 127.0.0.1 is loopback")
	assert.Contains(t, del.LastError, "--allow-private-networks")
	assert.Empty(t, rcv.got())
}

func TestEnqueueCommitsWithTheTransaction(t *testing.T) {
	t.Parallel()
	b := setup(t)
	rcv := newReceiver(t)
	cfg := fast
	// Only Notify can wake the dispatcher after its first look.
	cfg.PollInterval = time.Hour
	d := b.start(t, cfg)
	ctx := context.Background()

	tx, err := b.client.Tx(ctx)
	require.NoError(t, err)
	rolledBack, err := d.Enqueue(ctx, tx, "job-1", rcv.URL, []byte(`{}`))
	require.NoError(t, err)
	require.NoError(t, tx.Rollback())
	_, err = b.client.WebhookDelivery.Get(ctx, rolledBack)
	assert.True(t, ent.IsNotFound(err), "a rolled back delivery does not exist")

	tx, err = b.client.Tx(ctx)
	require.NoError(t, err)
	committed, err := d.Enqueue(ctx, tx, "job-2", rcv.URL, []byte(`{}`))
	require.NoError(t, err)
	require.NoError(t, tx.Commit())
	waitFor(t, b.client, committed, webhookdelivery.StatusDelivered)
	calls := rcv.got()
	require.Len(t, calls, 1)
	assert.Equal(t, committed, calls[0].header.Get("webhook-id"))
}

func TestEnqueueRefusesAPayloadThatIsNotJSON(t *testing.T) {
	t.Parallel()
	b := setup(t)
	d := webhook.New(b.client, nil, fast, nil)
	_, err := d.Enqueue(context.Background(), nil, "job-1", "http://127.0.0.1:1/", []byte(`{"jobId":`))
	assert.ErrorContains(t, err, "not JSON")
}

func TestRunRefusesABadSecret(t *testing.T) {
	t.Parallel()
	b := setup(t)
	d := webhook.New(b.client, nil, webhook.Config{Secret: "whsec_%%%"}, nil)
	err := d.Run(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "whsec_")
	assert.NotContains(t, err.Error(), "%%%")
}

func TestDeliverySurvivesRestart(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "kino.db")
	rcv := newReceiver(t)
	discard := slog.New(slog.NewTextHandler(io.Discard, nil))

	// A kino stores the delivery and stops before sending it.
	before, err := store.Open(context.Background(), path)
	require.NoError(t, err)
	stopped := webhook.New(before.Client, nil, fast, discard)
	id, err := stopped.Enqueue(context.Background(), nil, "job-1", rcv.URL, []byte(`{}`))
	require.NoError(t, err)
	require.NoError(t, before.Close())
	assert.Empty(t, rcv.got())

	// The next kino on the same file finds and sends it.
	after, err := store.Open(context.Background(), path)
	require.NoError(t, err)
	t.Cleanup(func() { after.Close() })
	start(t, after.Client, fast, discard)
	waitFor(t, after.Client, id, webhookdelivery.StatusDelivered)
	require.Len(t, rcv.got(), 1)
	assert.Equal(t, id, rcv.got()[0].header.Get("webhook-id"))
}

func TestAttemptCutShortByShutdownIsSentOnTheNextStart(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "kino.db")
	arrived := make(chan struct{})
	rcv := newReceiver(t, func(_ http.ResponseWriter, r *http.Request) {
		close(arrived)
		<-r.Context().Done() // hangs until the sender goes away
	})
	discard := slog.New(slog.NewTextHandler(io.Discard, nil))
	// With the default AttemptTimeout the claim would hold the delivery
	// for 30 s; only putting it back lets the next start send it at once.
	cfg := webhook.Config{PollInterval: 10 * time.Millisecond}

	first, err := store.Open(context.Background(), path)
	require.NoError(t, err)
	d := webhook.New(first.Client, fetch.New(fetch.Options{AllowPrivate: true}).NoRedirectClient(), cfg, discard)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	id, err := d.Enqueue(context.Background(), nil, "job-1", rcv.URL, []byte(`{}`))
	require.NoError(t, err)
	select {
	case <-arrived:
	case <-time.After(10 * time.Second):
		t.Fatal("the first attempt never arrived")
	}
	cancel()
	require.ErrorIs(t, <-done, context.Canceled, "Run returns once its attempts are put back")
	require.NoError(t, first.Close())

	second, err := store.Open(context.Background(), path)
	require.NoError(t, err)
	t.Cleanup(func() { second.Close() })
	start(t, second.Client, cfg, discard)
	del := waitFor(t, second.Client, id, webhookdelivery.StatusDelivered)
	assert.Equal(t, 1, del.Attempts, "the interrupted attempt was not counted")
	calls := rcv.got()
	require.Len(t, calls, 2)
	assert.Equal(t, calls[0].header.Get("webhook-id"), calls[1].header.Get("webhook-id"))
}

func TestProcessesSharingADatabaseSendEachDeliveryOnce(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		rcv := newReceiver(t)
		discard := slog.New(slog.NewTextHandler(io.Discard, nil))
		var dispatchers []*webhook.Dispatcher
		var clients []*ent.Client
		for range 3 {
			st, err := store.Open(context.Background(), db.URL)
			require.NoError(t, err)
			t.Cleanup(func() { st.Close() })
			clients = append(clients, st.Client)
			dispatchers = append(dispatchers, start(t, st.Client, fast, discard))
		}
		const n = 30
		ids := make([]string, n)
		for i := range ids {
			d := dispatchers[i%len(dispatchers)]
			id, err := d.Enqueue(context.Background(), nil, fmt.Sprintf("job-%d", i), rcv.URL, []byte(`{}`))
			require.NoError(t, err)
			ids[i] = id
			// Wake every process, so that they race for each delivery.
			for _, d := range dispatchers {
				d.Notify()
			}
		}
		for _, id := range ids {
			del := waitFor(t, clients[0], id, webhookdelivery.StatusDelivered)
			assert.Equal(t, 1, del.Attempts)
		}
		seen := map[string]int{}
		for _, c := range rcv.got() {
			seen[c.header.Get("webhook-id")]++
		}
		assert.Len(t, seen, n)
		for id, count := range seen {
			assert.Equal(t, 1, count, "delivery %s was sent %d times", id, count)
		}
	})
}
