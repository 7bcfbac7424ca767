package webhook_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/ent/webhookdelivery"
	"github.com/kinohq/kino/server/jobs/jobstest"
	"github.com/kinohq/kino/server/store"
	"github.com/kinohq/kino/server/store/storetest"
)

// blockingReceiver answers nothing until the test releases it, and counts
// the calls that are waiting.
type blockingReceiver struct {
	*httptest.Server
	mu      sync.Mutex
	waiting int
	release chan struct{}
}

func newBlockingReceiver(t *testing.T) *blockingReceiver {
	t.Helper()
	r := &blockingReceiver{release: make(chan struct{})}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.waiting++
		r.mu.Unlock()
		select {
		case <-r.release:
		case <-req.Context().Done():
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(r.Close)
	// Registered after Close, so it runs before it: Close waits for the
	// handlers.
	t.Cleanup(func() { close(r.release) })
	return r
}

func (r *blockingReceiver) calls() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.waiting
}

// addJob stores a job of org for a delivery to report.
func addJob(t *testing.T, b *bundle, id, org string) {
	t.Helper()
	jobstest.Insert(t, b.jobs, jobstest.Job(id, jobstest.OfOrg(org)))
}

// Organisation A's receiver hangs on every delivery (24 of them, as in the
// report that found B's callback 36 s late); organisation B's delivery still
// goes out while all of A's are held, and A never holds more than its share.
func TestSlowReceiversOfOneOrganisationDoNotDelayAnother(t *testing.T) {
	t.Parallel()
	// On both databases: the deliveries of organisations that hold their
	// share are left out of the query by a subquery of jobs.
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		st, err := store.Open(context.Background(), db.URL)
		require.NoError(t, err)
		t.Cleanup(func() { st.Close() })
		slowReceiversOfOneOrganisation(t, newBundle(st))
	})
}

func slowReceiversOfOneOrganisation(t *testing.T, b *bundle) {
	slow := newBlockingReceiver(t)
	quick := newReceiver(t)
	cfg := fast
	// Long enough that no attempt of A ends while the test runs.
	cfg.AttemptTimeout = 10 * time.Minute
	d := b.start(t, cfg)

	for i := range 24 {
		id := fmt.Sprintf("a-%d", i)
		addJob(t, b, id, "org-a")
		b.enqueue(t, d, id, slow.URL)
	}
	// A's receivers hold every slot A may have before B's job ends.
	require.Eventually(t, func() bool { return slow.calls() >= 4 }, 10*time.Second, 5*time.Millisecond)

	addJob(t, b, "b-1", "org-b")
	id := b.enqueue(t, d, "b-1", quick.URL)
	waitFor(t, b.client, id, webhookdelivery.StatusDelivered)
	require.Len(t, quick.got(), 1)
	assert.Equal(t, 4, slow.calls(), "organisation A holds its own share of the slots, no more, while its receivers hang")
}

// Deliveries whose job is gone count as one organisation of their own,
// which holds its share like any other.
func TestDeliveriesOfJobsThatAreGoneHoldOneShare(t *testing.T) {
	t.Parallel()
	b := setup(t)
	slow := newBlockingReceiver(t)
	quick := newReceiver(t)
	cfg := fast
	cfg.AttemptTimeout = 10 * time.Minute
	d := b.start(t, cfg)
	for i := range 10 {
		b.enqueue(t, d, fmt.Sprintf("gone-%d", i), slow.URL)
	}
	require.Eventually(t, func() bool { return slow.calls() >= 4 }, 10*time.Second, 5*time.Millisecond)
	addJob(t, b, "b-1", "org-b")
	id := b.enqueue(t, d, "b-1", quick.URL)
	waitFor(t, b.client, id, webhookdelivery.StatusDelivered)
	assert.Equal(t, 4, slow.calls())
}
