// Package events tells watchers that a job changed, in this process or, on
// PostgreSQL, on every node sharing the database. A signal carries no data:
// watchers re-read the job from the store, which stays the single source of
// truth.
package events

import "context"

// Work is the topic idle workers subscribe to: a job may have become
// claimable (submitted, retried, recovered, its pipeline inputs arrived).
// Job ids never equal it.
const Work = "work"

// Bus carries change signals on topics: a job id, or Work.
type Bus interface {
	// Publish signals every subscriber of each topic. It never blocks for
	// long and never fails: a signal that cannot be sent is logged and
	// dropped, and watchers catch up on the next one. Signals of one bus
	// reach each node in the order they were published (tests wait for a
	// marker published last instead of guessing how long to wait).
	Publish(topics ...string)
	// Subscribe returns a channel that receives a signal after each publish
	// of any of the topics, and a function that ends the subscription.
	// Signals coalesce: a slow reader sees one pending signal, never a
	// backlog.
	Subscribe(topics ...string) (<-chan struct{}, func())
	// Close stops the bus; later publishes reach no other node.
	Close() error
}

// Follow calls step at once, then after each signal on changed, until step
// reports done or fails, or ctx ends. It never re-reads on a timer: every
// change reaches changed, from this process or another node.
func Follow(ctx context.Context, changed <-chan struct{}, step func() (done bool, err error)) error {
	for {
		done, err := step()
		if done || err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-changed:
		}
	}
}
