package share

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// take acquires n slots for org at once, failing the test otherwise.
func take(t *testing.T, p *Pool, org string, n int) []func() {
	t.Helper()
	var out []func()
	for range n {
		r, err := p.TryAcquire(org)
		require.NoError(t, err, "%s", org)
		out = append(out, r)
	}
	return out
}

// waiting starts Acquire for org in a goroutine and returns once the pool
// counts it waiting; the channel gets its outcome.
func waiting(t *testing.T, ctx context.Context, p *Pool, org string) <-chan func() {
	t.Helper()
	before := p.Use(org).Waiting
	got := make(chan func(), 1)
	go func() {
		r, err := p.Acquire(ctx, org)
		if err != nil {
			r = nil
		}
		got <- r
	}()
	for p.Use(org).Waiting == before {
		select {
		case r := <-got:
			t.Fatalf("%s did not wait (got a slot: %v)", org, r != nil)
		default:
		}
		// Spin on the pool's own count: it is what the goroutine changes.
		runtime.Gosched()
	}
	return got
}

// pending says whether a waiter has had no answer yet.
func pending(c <-chan func()) bool {
	select {
	case r := <-c:
		panic(fmt.Sprintf("answered already (slot %v)", r != nil)) //nolint:forbidigo // programmer error: a test helper's precondition, in a goroutine-free select
	default:
		return true
	}
}

func TestAloneAnOrganisationUsesTheWholePool(t *testing.T) {
	t.Parallel()
	p := New(3, nil)
	rel := take(t, p, "a", 3)
	_, err := p.TryAcquire("a")
	var r *Refusal
	require.ErrorAs(t, err, &r)
	assert.Equal(t, Refusal{Size: 3, Held: 3, Mine: 3}, *r)
	rel[0]()
	rel[0]() // a second release is nothing
	assert.Equal(t, 2, p.Held())
	take(t, p, "a", 1)
}

func TestAnOrganisationUnderItsShareGetsASlotAtOnceFromAFullPool(t *testing.T) {
	t.Parallel()
	p := New(2, nil)
	take(t, p, "a", 2)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	aWaits := waiting(t, ctx, p, "a") // a's own next one waits

	// b's share is 1 of 2: it is lent one at once, beyond the pool.
	rb, err := p.Acquire(ctx, "b")
	require.NoError(t, err)
	assert.Equal(t, 3, p.Held())
	// At its share, b waits like a; a never takes more while b waits.
	_, err = p.TryAcquire("b")
	require.Error(t, err)
	_, err = p.TryAcquire("a")
	require.Error(t, err)
	assert.True(t, pending(aWaits))

	rb()
	assert.Equal(t, 2, p.Held(), "b's lent slot is not handed to a: the pool is full")
	assert.True(t, pending(aWaits))
}

func TestAFreeSlotGoesToTheOrganisationHoldingLeastForItsWeight(t *testing.T) {
	t.Parallel()
	// b's weight gives it under one slot of 2: nothing is lent, it waits.
	p := New(2, func(org string) Limit { return Limit{Weight: map[string]int{"a": 3, "b": 1}[org]} })
	rel := take(t, p, "a", 2)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	aWaits := waiting(t, ctx, p, "a") // first in line
	bWaits := waiting(t, ctx, p, "b")
	assert.Equal(t, 2, p.Held())
	assert.Equal(t, map[string]Use{"a": {Held: 2, Waiting: 1}, "b": {Waiting: 1}}, p.Uses())

	rel[0]()
	rb := <-bWaits
	require.NotNil(t, rb, "b holds none: the free slot is b's though a asked first")
	assert.True(t, pending(aWaits))
	assert.Equal(t, Use{Held: 1, Waiting: 1}, p.Use("a"))
	assert.Equal(t, Use{Held: 1}, p.Use("b"))

	rb()
	require.NotNil(t, <-aWaits, "b waits no more: the slot is a's")
	assert.Equal(t, Use{Held: 2}, p.Use("a"))
}

func TestWeightsDecideTheFreeSlots(t *testing.T) {
	t.Parallel()
	p := New(4, func(org string) Limit { return Limit{Weight: map[string]int{"a": 3, "b": 1}[org]} })
	relA := take(t, p, "a", 4)
	// b's share is 1 of 4 (weight 1 of 4): lent at once.
	relB := take(t, p, "b", 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	bWaits := waiting(t, ctx, p, "b")
	aWaits := waiting(t, ctx, p, "a")

	for _, r := range relA[:2] {
		r()
	}
	// 3 held of 4: a holds 2 for weight 3, b 1 for weight 1; a is further
	// under its part, so the free slot is a's though b asked first.
	require.NotNil(t, <-aWaits)
	assert.True(t, pending(bWaits))
	relA[2]()
	require.NotNil(t, <-bWaits, "now a holds 2 for 3 and b 1 for 1: a's part is not smaller")
	relB[0]()
}

func TestACappedOrganisationWaitsWhateverIsFree(t *testing.T) {
	t.Parallel()
	p := New(4, func(org string) Limit {
		if org == "small" {
			return Limit{Weight: 1, Cap: 1}
		}
		return Limit{Weight: 1}
	})
	r1 := take(t, p, "small", 1)
	_, err := p.TryAcquire("small")
	var ref *Refusal
	require.ErrorAs(t, err, &ref)
	assert.True(t, ref.Capped)
	assert.Equal(t, 1, ref.Cap)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := waiting(t, ctx, p, "small")
	take(t, p, "big", 2) // a capped waiter does not hold others back
	assert.True(t, pending(w))
	r1[0]()
	require.NotNil(t, <-w)
}

func TestACancelledWaitLeavesNothingBehind(t *testing.T) {
	t.Parallel()
	p := New(1, nil)
	rel := take(t, p, "a", 1)
	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan error, 1)
	go func() {
		_, err := p.Acquire(ctx, "a")
		got <- err
	}()
	for p.Use("a").Waiting == 0 {
		runtime.Gosched()
	}
	cancel()
	err := <-got
	var ref *Refusal
	require.ErrorAs(t, err, &ref)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, Use{Held: 1}, p.Use("a"))
	rel[0]()
	assert.Equal(t, 0, p.Held())
	assert.Empty(t, p.orgs, "an organisation holding and waiting for nothing is forgotten")
}

func TestLendingStopsAtTwiceThePool(t *testing.T) {
	t.Parallel()
	p := New(2, nil)
	take(t, p, "a", 2)
	take(t, p, "b", 1) // share 1 of 2: lent
	// c's share among three is 0 of 2: nothing lent.
	_, err := p.TryAcquire("c")
	require.Error(t, err)
	assert.Equal(t, 3, p.Held())

	// Shares shrink as organisations arrive, and a slot lent is not
	// taken back: without a ceiling d would be lent a ninth.
	q := New(4, func(org string) Limit {
		if org == "a" {
			return Limit{Weight: 1}
		}
		return Limit{Weight: 1000}
	})
	take(t, q, "a", 4)
	take(t, q, "b", 3) // 4 × 1000/1001
	take(t, q, "c", 1) // 4 × 1000/2001
	assert.Equal(t, 8, q.Held())
	_, err = q.TryAcquire("d") // 4 × 1000/3001 is 1, but the pool lends no further than its size
	require.Error(t, err)
}

// TestManyOrganisationsAtOnce races acquires, waits, cancels and releases
// of several organisations: the pool never holds more than twice its size
// and ends empty.
func TestManyOrganisationsAtOnce(t *testing.T) {
	t.Parallel()
	p := New(3, func(org string) Limit { return Limit{Weight: len(org), Cap: 5} })
	var wg sync.WaitGroup
	var mu sync.Mutex
	most := 0
	for g := range 12 {
		org := []string{"a", "bb", "ccc"}[g%3]
		wg.Go(func() {
			for i := range 200 {
				ctx, cancel := context.WithCancel(context.Background())
				if i%7 == 0 {
					cancel()
				}
				r, err := p.Acquire(ctx, org)
				if err == nil {
					mu.Lock()
					most = max(most, p.Held())
					mu.Unlock()
					r()
				} else if !errors.Is(err, context.Canceled) {
					t.Errorf("%s: %v", org, err)
				}
				cancel()
			}
		})
	}
	wg.Wait()
	assert.LessOrEqual(t, most, 6)
	assert.Equal(t, 0, p.Held())
	assert.Empty(t, p.orgs)
}
