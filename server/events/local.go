package events

import "sync"

// Local is a Bus within one process: enough for SQLite, which one process
// owns, and the part of Postgres that reaches this node's subscribers.
type Local struct {
	mu   sync.Mutex
	subs map[string]map[chan struct{}]struct{}
}

// NewLocal returns a bus without subscribers.
func NewLocal() *Local {
	return &Local{subs: make(map[string]map[chan struct{}]struct{})}
}

// Subscribe implements Bus.
func (l *Local) Subscribe(topics ...string) (<-chan struct{}, func()) {
	// One channel for all the topics: a watcher of several jobs (a
	// pipeline run) wakes on a change of any of them.
	ch := make(chan struct{}, 1)
	l.mu.Lock()
	for _, t := range topics {
		if l.subs[t] == nil {
			l.subs[t] = make(map[chan struct{}]struct{})
		}
		l.subs[t][ch] = struct{}{}
	}
	l.mu.Unlock()
	return ch, func() {
		l.mu.Lock()
		for _, t := range topics {
			delete(l.subs[t], ch)
			if len(l.subs[t]) == 0 {
				delete(l.subs, t)
			}
		}
		l.mu.Unlock()
	}
}

// Publish implements Bus without blocking.
func (l *Local) Publish(topics ...string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, t := range topics {
		for ch := range l.subs[t] {
			signal(ch)
		}
	}
}

// signalAll signals every subscriber of every topic.
func (l *Local) signalAll() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, chans := range l.subs {
		for ch := range chans {
			signal(ch)
		}
	}
}

// Close implements Bus; a Local holds nothing to release.
func (l *Local) Close() error { return nil }

func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}
