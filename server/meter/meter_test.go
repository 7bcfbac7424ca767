package meter

import (
	"context"
	"sync"
	"testing"
)

// spin burns CPU on the calling goroutine until n rounds are done.
func spin(n int) uint64 {
	var x uint64 = 1
	for i := 0; i < n; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	return x
}

// The CPU of work on several goroutines, each measured by Thread, adds up
// in the Meter; without a Meter nothing is measured.
func TestThreadAddsEachGoroutinesCPU(t *testing.T) {
	t.Parallel()
	ctx, m := With(context.Background())
	var wg sync.WaitGroup
	var sink [4]uint64
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer Thread(ctx)()
			sink[i] = spin(20_000_000)
		}()
	}
	wg.Wait()
	if m.Used().CPU <= 0 {
		t.Fatalf("no CPU measured (%v)", sink)
	}
	one, m1 := With(context.Background())
	func() {
		defer Thread(one)()
		sink[0] = spin(20_000_000)
	}()
	if got, all := m1.Used().CPU, m.Used().CPU; got <= 0 || all < 2*got {
		t.Fatalf("four goroutines used %v, one %v: not added up", all, got)
	}
	Thread(context.Background())() // no Meter: nothing to do
	if InProcess(context.Background()) || !InProcess(ctx) {
		t.Fatal("InProcess")
	}
}
