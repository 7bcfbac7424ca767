package app

import "sync"

// afterWork runs work that follows a commit (removing a split render's
// parts from storage: up to a minute) off the goroutine that committed,
// which may be a client's request (DELETE /api/render/{id}) waiting for
// its answer. Nothing is lost: close waits for what runs, and what is
// asked for after close runs at once, in the caller's goroutine.
type afterWork struct {
	mu     sync.Mutex
	closed bool
	wg     sync.WaitGroup
}

// run runs fn in a goroutine of its own, or at once after close.
func (w *afterWork) run(fn func()) {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		fn()
		return
	}
	w.wg.Add(1)
	w.mu.Unlock()
	go func() {
		defer w.wg.Done()
		fn()
	}()
}

// close waits for every fn started by run.
func (w *afterWork) close() {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	w.wg.Wait()
}
