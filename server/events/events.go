// Package events tells watchers in this process that a job changed. A signal
// carries no data: watchers re-read the job from the store, which stays the
// single source of truth (and the only one shared between processes).
package events

import (
	"context"
	"sync"
	"time"
)

// Broker fans change signals out to the subscribers of each job.
type Broker struct {
	mu   sync.Mutex
	subs map[string]map[chan struct{}]struct{}
}

// New returns an empty broker.
func New() *Broker {
	return &Broker{subs: make(map[string]map[chan struct{}]struct{})}
}

// Subscribe returns a channel that receives a signal after each change of
// any of the jobs, and a function that ends the subscription. Signals coalesce: a slow
// reader sees one pending signal, never a backlog.
func (b *Broker) Subscribe(jobIDs ...string) (<-chan struct{}, func()) {
	// One channel for all the ids: a watcher of several jobs (a pipeline
	// run) wakes on a change of any of them.
	ch := make(chan struct{}, 1)
	b.mu.Lock()
	for _, id := range jobIDs {
		if b.subs[id] == nil {
			b.subs[id] = make(map[chan struct{}]struct{})
		}
		b.subs[id][ch] = struct{}{}
	}
	b.mu.Unlock()
	return ch, func() {
		b.mu.Lock()
		for _, id := range jobIDs {
			delete(b.subs[id], ch)
			if len(b.subs[id]) == 0 {
				delete(b.subs, id)
			}
		}
		b.mu.Unlock()
	}
}

// Publish signals every subscriber of the job without blocking.
func (b *Broker) Publish(jobID string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for ch := range b.subs[jobID] {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// PollEvery is how often a follower re-reads what it follows even without
// a signal: another process may have changed it, and signals stay in-process.
const PollEvery = time.Second

// Follow calls step at once, then after each signal on changed and at least
// every PollEvery, until step reports done or fails, or ctx ends.
func Follow(ctx context.Context, changed <-chan struct{}, step func() (done bool, err error)) error {
	tick := time.NewTicker(PollEvery)
	defer tick.Stop()
	for {
		done, err := step()
		if done || err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-changed:
		case <-tick.C:
		}
	}
}
