// Package rescue carries a panic out of the goroutines a job or a request
// starts to the goroutine that waits for them. Go recovers a panic only in
// its own goroutine: one in a worker goroutine (a compositor's band, a
// download) would stop the whole process, however carefully the job's
// own goroutine recovers. Here it is caught where it happens and raised
// again in the waiting goroutine, whose recovery (the job pool's, the
// gRPC interceptors', an upload's) turns it into a failed job or an
// INTERNAL_ERROR answer, with the stack of where it happened.
package rescue

import (
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
)

// Panic is a panic caught in a goroutine: its value, and the stack where
// it happened.
type Panic struct {
	Value any
	Stack string
}

// Error says what panicked and where; it is logged, never sent.
func (p *Panic) Error() string {
	return fmt.Sprintf("panic in a worker goroutine: %v\n%s", p.Value, p.Stack)
}

// Catch runs fn and returns a panic in it as a *Panic error.
func Catch(fn func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &Panic{Value: v, Stack: string(debug.Stack())}
		}
	}()
	return fn()
}

// Func wraps fn for errgroup.Group.Go: a panic in it becomes its error,
// which Raise then raises in the waiting goroutine.
func Func(fn func() error) func() error { return func() error { return Catch(fn) } }

// Raise panics again, in the calling goroutine, with the *Panic err holds,
// if it holds one; else it does nothing.
func Raise(err error) {
	var p *Panic
	if errors.As(err, &p) {
		panic(p) //nolint:forbidigo // re-raised: Raise carries a panic recovered in another goroutine to the caller's
	}
}

// Group runs functions in goroutines of their own and waits for them all,
// as a sync.WaitGroup does, catching their panics.
type Group struct {
	wg    sync.WaitGroup
	mu    sync.Mutex
	first *Panic
}

// Go runs fn in a goroutine of its own.
func (g *Group) Go(fn func()) {
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		var p *Panic
		if errors.As(Catch(func() error { fn(); return nil }), &p) {
			g.mu.Lock()
			if g.first == nil {
				g.first = p
			}
			g.mu.Unlock()
		}
	}()
}

// Wait waits for every function, then raises the first panic among them
// in the calling goroutine.
func (g *Group) Wait() {
	g.wg.Wait()
	if g.first != nil {
		panic(g.first) //nolint:forbidigo // re-raised: Wait carries a panic recovered in a group's goroutine to the caller's
	}
}
