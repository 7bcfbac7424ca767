package memory_test

import (
	"runtime"
	"testing"

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
	memory.Release()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	assert.Less(t, m.HeapIdle-m.HeapReleased, uint64(64<<20), "idle heap kept: %d MiB", (m.HeapIdle-m.HeapReleased)>>20)
}
