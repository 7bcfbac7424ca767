// Package eventstest is the conformance suite of events.Bus: what every
// caller (watch streams, idle workers) relies on, run against each
// implementation, as River runs one driver suite against each driver.
package eventstest

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/events"
)

// Wait bounds how long a signal may take to arrive, from this process or
// another node. Negative answers never wait on it: they wait for a marker
// published after the signal that must not arrive.
const Wait = 2 * time.Second

// Nodes returns two buses that share one medium, as two nodes of one
// deployment: a publish on either reaches subscribers of both. An
// implementation confined to one process returns the same bus twice. The
// factory closes the buses when the test ends.
type Nodes func(t *testing.T) (a, b events.Bus)

// Run runs the suite on the buses nodes returns. Each case runs on one node
// (publisher and subscriber share a bus) and across two (they do not).
func Run(t *testing.T, nodes Nodes) {
	for _, tc := range []struct {
		name string
		run  func(t *testing.T, pub, sub, far events.Bus)
	}{
		{"SubscriberHearsPublish", subscriberHearsPublish},
		{"EverySubscriberHears", everySubscriberHears},
		{"OneChannelForSeveralTopics", oneChannelForSeveralTopics},
		{"TopicsStayApart", topicsStayApart},
		{"WorkWakesIdleWorkers", workWakesIdleWorkers},
		{"SignalsCoalesce", signalsCoalesce},
		{"UnsubscribeStopsDelivery", unsubscribeStopsDelivery},
		{"PublishNeverBlocks", publishNeverBlocks},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Run("OneNode", func(t *testing.T) {
				t.Parallel()
				a, b := nodes(t)
				tc.run(t, a, a, b)
			})
			t.Run("TwoNodes", func(t *testing.T) {
				t.Parallel()
				a, b := nodes(t)
				tc.run(t, a, b, b)
			})
		})
	}
	t.Run("CloseIsHarmless", func(t *testing.T) {
		t.Parallel()
		a, _ := nodes(t)
		on, stop := a.Subscribe("job-1")
		defer stop()
		require.NoError(t, a.Close())
		require.NoError(t, a.Close(), "closing twice is harmless")
		returnsSoon(t, func() { a.Publish("job-1") }, "a publish after Close")
		// Close promises nothing to this process's subscribers; only
		// that later publishes reach no other node. Drain either way.
		Pending(on)
	})
}

func subscriberHearsPublish(t *testing.T, pub, sub, far events.Bus) {
	on, stop := sub.Subscribe("job-1")
	defer stop()
	pub.Publish("job-1")
	Await(t, on)
	settle(t, pub, sub, far)
	assert.False(t, Pending(on), "one publish, one signal: a node does not hear its own publish twice")
}

func everySubscriberHears(t *testing.T, pub, sub, far events.Bus) {
	var subs []<-chan struct{}
	for range 3 {
		on, stop := sub.Subscribe("job-1")
		defer stop()
		subs = append(subs, on)
	}
	// A subscriber on the publishing node too, when there are two.
	here, stop := pub.Subscribe("job-1")
	defer stop()
	pub.Publish("job-1")
	for i, on := range append(subs, here) {
		Await(t, on)
		t.Logf("subscriber %d signalled", i)
	}
}

func oneChannelForSeveralTopics(t *testing.T, pub, sub, far events.Bus) {
	on, stop := sub.Subscribe("job-1", "job-2")
	defer stop()
	pub.Publish("job-2")
	Await(t, on)
	pub.Publish("job-1")
	Await(t, on)
}

func topicsStayApart(t *testing.T, pub, sub, far events.Bus) {
	one, stop := sub.Subscribe("job-1")
	defer stop()
	two, stop := sub.Subscribe("job-2")
	defer stop()
	pub.Publish("job-1")
	Await(t, one)
	settle(t, pub, sub, far)
	assert.False(t, Pending(two), "job-2's subscriber woke on job-1")
	assert.False(t, Pending(one))
}

// workWakesIdleWorkers: idle workers wait on events.Work; a change of a
// job alone does not wake them, and Work does not wake a job's watchers.
func workWakesIdleWorkers(t *testing.T, pub, sub, far events.Bus) {
	idle, stop := sub.Subscribe(events.Work)
	defer stop()
	watcher, stop := sub.Subscribe("job-1")
	defer stop()
	pub.Publish("job-1")
	Await(t, watcher)
	settle(t, pub, sub, far)
	assert.False(t, Pending(idle), "a job's change woke an idle worker")

	pub.Publish("job-1", events.Work)
	Await(t, idle)
	Await(t, watcher)

	pub.Publish(events.Work)
	Await(t, idle)
	settle(t, pub, sub, far)
	assert.False(t, Pending(watcher), "work woke a job's watcher")
}

// signalsCoalesce: a reader that is slow sees one pending signal for many
// publishes, never a backlog.
func signalsCoalesce(t *testing.T, pub, sub, far events.Bus) {
	on, stop := sub.Subscribe("job-1", "job-2")
	defer stop()
	pub.Publish("job-1")
	pub.Publish("job-1", "job-2")
	pub.Publish("job-2")
	settle(t, pub, sub, far)
	assert.True(t, Pending(on), "one signal for many publishes")
	assert.False(t, Pending(on), "never a backlog")
}

func unsubscribeStopsDelivery(t *testing.T, pub, sub, far events.Bus) {
	on, stop := sub.Subscribe("job-1", events.Work)
	stayed, stopStayed := sub.Subscribe("job-1")
	defer stopStayed()
	stop()
	pub.Publish("job-1", events.Work)
	Await(t, stayed)
	settle(t, pub, sub, far)
	assert.False(t, Pending(on), "an ended subscription heard a publish")
}

// publishNeverBlocks: neither a subscriber that stopped reading (its
// watcher's context ended, it has not unsubscribed yet) nor one that has
// gone holds up the publisher, and a publish without subscribers or topics
// returns at once.
func publishNeverBlocks(t *testing.T, pub, sub, far events.Bus) {
	asleep, stop := sub.Subscribe("job-1")
	defer stop()
	_, gone := sub.Subscribe("job-1")
	gone()
	returnsSoon(t, func() {
		for i := range 1000 {
			pub.Publish("job-1", fmt.Sprintf("nobody-%d", i))
		}
		pub.Publish()
	}, "1000 publishes to a subscriber that does not read")
	settle(t, pub, sub, far)
	assert.True(t, Pending(asleep))
	assert.False(t, Pending(asleep), "never a backlog")
}

// settle returns once every signal pub sent so far has reached sub's
// subscribers, its own echo included when signals travel between nodes.
// Signals from one node reach every node in the order they were published,
// so: a marker from pub that far has heard means pub's signals have left;
// then a marker from far that sub has heard means they have arrived.
// far is another node than pub, when there are two.
func settle(t *testing.T, pub, sub, far events.Bus) {
	t.Helper()
	marker := fmt.Sprintf("marker-%d", time.Now().UnixNano())
	there, stop := far.Subscribe(marker + "-sent")
	defer stop()
	pub.Publish(marker + "-sent")
	Await(t, there)
	here, stop := sub.Subscribe(marker + "-heard")
	defer stop()
	far.Publish(marker + "-heard")
	Await(t, here)
}

func returnsSoon(t *testing.T, fn func(), what string) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(Wait):
		t.Fatalf("%s did not return within %s", what, Wait)
	}
}

// Await waits up to Wait for a signal on ch.
func Await(t testing.TB, ch <-chan struct{}) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(Wait):
		t.Fatalf("no signal within %s", Wait)
	}
}

// Pending takes the signal waiting on ch, if any.
func Pending(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
