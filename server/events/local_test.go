package events

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLocalForgetsEndedSubscriptions: what every bus does is the
// conformance suite's (conformance_test.go); a Local also lets go of a
// subscription that ended, so topics of finished jobs do not pile up.
func TestLocalForgetsEndedSubscriptions(t *testing.T) {
	t.Parallel()
	bus := NewLocal()
	_, stopAB := bus.Subscribe("a", "b")
	_, stopB := bus.Subscribe("b")
	defer stopB()
	stopAB()
	assert.Empty(t, bus.subs["a"], "an ended subscription is forgotten")
	assert.Len(t, bus.subs["b"], 1, "only the ended one")
}

func TestLocalSignalAllReachesEverySubscriber(t *testing.T) {
	t.Parallel()
	bus := NewLocal()
	a, stopA := bus.Subscribe("a")
	defer stopA()
	bc, stopBC := bus.Subscribe("b", "c")
	defer stopBC()
	bus.signalAll()
	assert.True(t, pending(a))
	assert.True(t, pending(bc))
	assert.False(t, pending(bc))
}

// TestFollowWaitsForSignals: Follow re-reads after a signal and at no other
// time; a watcher that polled would step again within the quiet window.
func TestFollowWaitsForSignals(t *testing.T) {
	t.Parallel()
	changed := make(chan struct{}, 1)
	steps := make(chan int, 10)
	n := 0
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- Follow(ctx, changed, func() (bool, error) {
			n++
			steps <- n
			return n == 3, nil
		})
	}()
	require.Equal(t, 1, <-steps, "the first step comes at once")
	select {
	case s := <-steps:
		t.Fatalf("step %d without a signal", s)
	case <-time.After(300 * time.Millisecond):
	}
	changed <- struct{}{}
	require.Equal(t, 2, <-steps)
	changed <- struct{}{}
	require.Equal(t, 3, <-steps)
	require.NoError(t, <-done, "done ends the follow")

	// A context that ends ends the follow, with its error.
	ctx2, cancel2 := context.WithCancel(context.Background())
	go func() {
		done <- Follow(ctx2, make(chan struct{}), func() (bool, error) { return false, nil })
	}()
	cancel2()
	assert.ErrorIs(t, <-done, context.Canceled)

	boom := errors.New("boom")
	assert.ErrorIs(t, Follow(context.Background(), nil, func() (bool, error) { return false, boom }), boom)
}

// pending takes the signal waiting on ch, if any.
func pending(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
