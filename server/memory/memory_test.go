package memory_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/kinohq/kino/server/memory"
)

func TestDefaultLimitIsAPartOfTheMachine(t *testing.T) {
	t.Parallel()
	l := memory.DefaultLimit()
	assert.Greater(t, l, int64(64<<20), "the machine's memory is read")
}

// TestReleaseReturnsTheHeap: after a large allocation is dropped, Release
// gives its pages back to the system at once.
func TestReleaseReturnsTheHeap(t *testing.T) {
	big := make([]byte, 256<<20)
	for i := range big {
		big[i] = 1
	}
	runtime.KeepAlive(big)
	big = nil //nolint:ineffassign // drops the last reference, for the collector
	assert.True(t, memory.NewReleaser(nil).Release())
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	assert.Less(t, m.HeapIdle-m.HeapReleased, uint64(64<<20), "idle heap kept: %d MiB", (m.HeapIdle-m.HeapReleased)>>20)
}

// TestReleaseAtMostOnceASecond: drawings that end together cost one
// collection; a releaser's gap is its own, and a nil one does nothing.
func TestReleaseAtMostOnceASecond(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	r := memory.NewReleaser(func() time.Time { return now })
	assert.True(t, r.Release())
	now = now.Add(999 * time.Millisecond)
	assert.False(t, r.Release(), "within the second")
	assert.True(t, memory.NewReleaser(func() time.Time { return now }).Release(), "another node's releaser")
	now = now.Add(time.Millisecond)
	assert.True(t, r.Release(), "a second after the last")
	var none *memory.Releaser
	assert.False(t, none.Release())
}
