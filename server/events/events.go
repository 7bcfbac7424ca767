// Package events tells watchers in this process that a job changed. A signal
// carries no data: watchers re-read the job from the store, which stays the
// single source of truth (and the only one shared between processes).
package events

import "sync"

// Broker fans change signals out to the subscribers of each job.
type Broker struct {
	mu   sync.Mutex
	subs map[string]map[chan struct{}]struct{}
}

// New returns an empty broker.
func New() *Broker {
	return &Broker{subs: make(map[string]map[chan struct{}]struct{})}
}

// Subscribe returns a channel that receives a signal after each change of the
// job, and a function that ends the subscription. Signals coalesce: a slow
// reader sees one pending signal, never a backlog.
func (b *Broker) Subscribe(jobID string) (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	b.mu.Lock()
	if b.subs[jobID] == nil {
		b.subs[jobID] = make(map[chan struct{}]struct{})
	}
	b.subs[jobID][ch] = struct{}{}
	b.mu.Unlock()
	return ch, func() {
		b.mu.Lock()
		delete(b.subs[jobID], ch)
		if len(b.subs[jobID]) == 0 {
			delete(b.subs, jobID)
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
