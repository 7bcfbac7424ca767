package webhook_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"entgo.io/ent/dialect"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/ent/job"
	"github.com/kinohq/kino/ent/webhookdelivery"
	"github.com/kinohq/kino/server/events"
	"github.com/kinohq/kino/server/fetch"
	"github.com/kinohq/kino/server/jobs"
	"github.com/kinohq/kino/server/store"
	"github.com/kinohq/kino/server/store/storetest"
	"github.com/kinohq/kino/server/webhook"
)

// A burst of deliveries as many jobs ending at once make: benchBurst
// deliveries of benchOrgs organisations, stored one a transaction; and a
// trickle of benchTrickle deliveries, each stored once the last arrived.
const (
	benchBurst   = 256
	benchTrickle = 64
	benchOrgs    = 8
)

// BenchmarkDeliveries sends deliveries to a receiver on loopback that
// answers 204 at once, two ways: through the dispatcher, and as jobs of
// the core (a job a delivery, claimed by a pool of as many slots as the
// dispatcher's MaxInFlight, whose handler makes the POST). "burst" stores
// benchBurst deliveries, then starts the sender and reports deliveries a
// second until the last outcome is recorded; "trickle" stores one at a
// time with the sender running, the next once the last arrived, and
// reports the latency from its store to its arrival.
//
//	go test ./server/webhook -run '^$' -bench Deliveries -benchtime 3x
func BenchmarkDeliveries(b *testing.B) {
	for _, db := range []struct {
		name string
		open func(testing.TB) storetest.DB
	}{{"sqlite", storetest.SQLite}, {"postgres", storetest.Postgres}} {
		for _, way := range []struct {
			name string
			open func(*testing.B, storetest.DB) *queue
		}{{"dispatcher", dispatcherQueue}, {"jobs", jobsQueue}} {
			b.Run(db.name+"/"+way.name+"/burst", func(b *testing.B) { benchBurstOf(b, way.open(b, db.open(b))) })
			b.Run(db.name+"/"+way.name+"/trickle", func(b *testing.B) { benchTrickleOf(b, way.open(b, db.open(b))) })
		}
	}
}

// queue is one way to send deliveries.
type queue struct {
	rcv *timedReceiver
	// add stores delivery i of run n, to be sent to path.
	add func(n, i int, path string)
	// start sets the sender going; stop stops it.
	start func() (stop func())
	// pending counts the deliveries without a recorded outcome.
	pending func() int
}

func benchBurstOf(b *testing.B, q *queue) {
	var took time.Duration
	for n := range b.N {
		for i := range benchBurst {
			q.add(n, i, fmt.Sprintf("/%d/%d", n, i))
		}
		began := time.Now()
		stop := q.start()
		poll := time.NewTicker(time.Millisecond)
		for q.pending() > 0 {
			<-poll.C
		}
		poll.Stop()
		took += time.Since(began)
		stop()
	}
	b.ReportMetric(float64(b.N*benchBurst)/took.Seconds(), "deliveries/s")
	b.ReportMetric(0, "ns/op")
}

func benchTrickleOf(b *testing.B, q *queue) {
	stop := q.start()
	defer stop()
	var lat []time.Duration
	for n := range b.N {
		for i := range benchTrickle {
			path := fmt.Sprintf("/%d/%d", n, i)
			stored := time.Now()
			q.add(n, i, path)
			arrived := q.rcv.wait(path)
			lat = append(lat, arrived.Sub(stored))
		}
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(0, "ns/op")
}

// timedReceiver notes when each delivery, named by its path, arrived.
type timedReceiver struct {
	*httptest.Server
	mu      sync.Mutex
	arrived map[string]time.Time
	// got is signalled on each arrival.
	got chan struct{}
}

func newTimedReceiver(b *testing.B) *timedReceiver {
	r := &timedReceiver{arrived: map[string]time.Time{}, got: make(chan struct{}, 1)}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		_, _ = io.Copy(io.Discard, req.Body)
		r.mu.Lock()
		r.arrived[req.URL.Path] = time.Now()
		r.mu.Unlock()
		select {
		case r.got <- struct{}{}:
		default:
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	b.Cleanup(r.Close)
	return r
}

// wait returns when the delivery to path arrived, once it has.
func (r *timedReceiver) wait(path string) time.Time {
	for {
		r.mu.Lock()
		at, ok := r.arrived[path]
		r.mu.Unlock()
		if ok {
			return at
		}
		<-r.got
	}
}

func benchStore(b *testing.B, db storetest.DB) *store.Store {
	st, err := store.Open(context.Background(), db.URL)
	require.NoError(b, err)
	b.Cleanup(func() { st.Close() })
	return st
}

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// dispatcherQueue sends through a dispatcher with its default
// configuration; each delivery reports a job of one of benchOrgs
// organisations, stored beforehand.
func dispatcherQueue(b *testing.B, db storetest.DB) *queue {
	ctx := context.Background()
	st := benchStore(b, db)
	rcv := newTimedReceiver(b)
	hc := fetch.New(fetch.Options{AllowPrivate: true}).NoRedirectClient()
	d := webhook.New(st.Client, hc, webhook.Config{}, quietLog())
	return &queue{
		rcv: rcv,
		add: func(n, i int, path string) {
			id := fmt.Sprintf("job-%d-%d", n, i)
			now := time.Now().UnixMilli()
			require.NoError(b, st.Client.Job.Create().SetID(id).SetKind("render").SetType("render").
				SetOrgID(fmt.Sprintf("org-%d", i%benchOrgs)).SetArgs([]byte(`{}`)).SetCreatedAt(now).SetUpdatedAt(now).Exec(ctx))
			_, err := d.Enqueue(ctx, nil, id, rcv.URL+path, []byte(`{"jobId":"`+id+`"}`))
			require.NoError(b, err)
		},
		start: func() func() {
			runCtx, cancel := context.WithCancel(ctx)
			stopped := make(chan struct{})
			go func() { _ = d.Run(runCtx); close(stopped) }()
			return func() { cancel(); <-stopped }
		},
		pending: func() int {
			n, err := st.Client.WebhookDelivery.Query().Where(webhookdelivery.StatusEQ(webhookdelivery.StatusPending)).Count(ctx)
			require.NoError(b, err)
			return n
		},
	}
}

// postHandler makes a job's POST as a delivery's attempt would.
type postHandler struct{ hc *http.Client }

func (postHandler) Types() []string { return []string{"webhook"} }

func (h postHandler) Run(ctx context.Context, j *jobs.Job, _ func(float64)) jobs.Outcome {
	url, _ := j.Metadata["url"].(string)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(j.Args))
	if err == nil {
		req.Header.Set("Content-Type", "application/json")
		var resp *http.Response
		if resp, err = h.hc.Do(req); err == nil {
			resp.Body.Close()
		}
	}
	if err != nil {
		return jobs.Outcome{Failure: &jobs.Failure{Code: "WEBHOOK_FAILED", Message: err.Error(), Retry: true}}
	}
	return jobs.Outcome{}
}

// jobsQueue sends each delivery as a job of the core, of one of benchOrgs
// organisations, claimed by a pool of 32 slots.
func jobsQueue(b *testing.B, db storetest.DB) *queue {
	ctx := context.Background()
	st := benchStore(b, db)
	var bus events.Bus = events.NewLocal()
	if st.Dialect == dialect.Postgres {
		pg, err := events.NewPostgres(ctx, db.URL, quietLog())
		require.NoError(b, err)
		bus = pg
	}
	b.Cleanup(func() { bus.Close() })
	rcv := newTimedReceiver(b)
	c := jobs.New(st, bus, jobs.Config{})
	hc := fetch.New(fetch.Options{AllowPrivate: true}).NoRedirectClient()
	return &queue{
		rcv: rcv,
		add: func(n, i int, path string) {
			id := fmt.Sprintf("hook-%d-%d", n, i)
			_, err := c.Insert(ctx, jobs.NewJob{ID: id, Kind: "webhook", Type: "webhook", Org: fmt.Sprintf("org-%d", i%benchOrgs),
				Args: []byte(`{"jobId":"` + id + `"}`), Metadata: map[string]any{"url": rcv.URL + path}})
			require.NoError(b, err)
		},
		start: func() func() {
			p := jobs.NewPool(c, jobs.PoolConfig{Owner: "bench", Slots: 32,
				Handlers: map[string]jobs.Handler{"webhook": postHandler{hc}}, Log: quietLog()})
			runCtx, cancel := context.WithCancel(ctx)
			p.Start(runCtx)
			return func() {
				stopCtx, done := context.WithTimeout(ctx, 10*time.Second)
				defer done()
				p.Stop(stopCtx)
				cancel()
			}
		},
		pending: func() int {
			n, err := st.Client.Job.Query().Where(job.StateNEQ(job.StateCompleted)).Count(ctx)
			require.NoError(b, err)
			return n
		},
	}
}
