// Package share divides a pool of a node (preview slots, upload decoding,
// watch streams) between the organisations that use it, by their weights
// (server/org), so that one organisation filling the pool never shuts
// another out of it.
//
// An organisation alone may use the whole pool. Once others ask too, each
// has a guaranteed share: its weight's part of the pool among the
// organisations holding or waiting for slots, rounded down. An
// organisation under its guaranteed share gets a slot at once, even when
// the pool is full: the slots others hold past their shares are not
// taken back (a preview, an upload or a stream cannot be stopped halfway
// for free), so the pool lends one instead, up to twice its size. A free
// slot goes to the waiting organisation that holds the fewest slots for
// its weight, first come first served within it; an organisation at or
// over its share never takes a free slot while another that holds less
// waits. An organisation's cap, when it has one, is never passed.
package share

import (
	"context"
	"fmt"
	"sync"
)

// Limit is what one organisation may take of a pool.
type Limit struct {
	// Weight is the organisation's part of the pool beside the others';
	// below 1 counts as 1.
	Weight int
	// Cap is the most slots it holds at once, whatever is free; 0 is no cap.
	Cap int
}

// Policy answers each organisation's limit; it is asked at every
// decision, so a changed weight or cap applies at once.
type Policy func(org string) Limit

// Pool is a pool of slots shared fairly between organisations. It is safe
// for concurrent use.
type Pool struct {
	size   int
	policy Policy

	mu   sync.Mutex
	held int
	orgs map[string]*use
	seq  uint64
}

// use is what one organisation holds of the pool and its requests waiting,
// first come first.
type use struct {
	held  int
	queue []*waiter
}

// waiter is a request waiting for a slot; ready is closed when it is given one.
type waiter struct {
	org     string
	seq     uint64
	ready   chan struct{}
	granted bool
}

// New returns a pool of size slots (at least 1); a nil policy gives every
// organisation weight 1 and no cap.
func New(size int, policy Policy) *Pool {
	if policy == nil {
		policy = func(string) Limit { return Limit{Weight: 1} }
	}
	return &Pool{size: max(size, 1), policy: policy, orgs: map[string]*use{}}
}

// Size is the pool's size: what one organisation alone may hold.
func (p *Pool) Size() int { return p.size }

// Use is what an organisation holds of a pool and how many of its
// requests wait.
type Use struct {
	Held    int
	Waiting int
}

// Use reports what org holds of the pool and how many of its requests wait.
func (p *Pool) Use(org string) Use {
	p.mu.Lock()
	defer p.mu.Unlock()
	u := p.orgs[org]
	if u == nil {
		return Use{}
	}
	return Use{Held: u.held, Waiting: len(u.queue)}
}

// Uses is what every organisation holding or waiting for slots holds
// and has waiting, at one moment.
func (p *Pool) Uses() map[string]Use {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[string]Use, len(p.orgs))
	for id, u := range p.orgs {
		out[id] = Use{Held: u.held, Waiting: len(u.queue)}
	}
	return out
}

// Held is how many slots are held, by every organisation together.
func (p *Pool) Held() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.held
}

// Refusal is why a slot was not given: the pool's state when it was
// refused, for a message that says whose slots were taken.
type Refusal struct {
	// Size of the pool, Held by all, Mine held by the organisation asking.
	Size, Held, Mine int
	// Capped says the organisation holds as many as its cap.
	Capped bool
	// Cap is the organisation's cap (0: none).
	Cap int
	// Err is the context's error when the wait was cut by it, else nil.
	Err error
}

// Error says whose slots were taken.
func (r *Refusal) Error() string {
	if r.Capped {
		return fmt.Sprintf("the organisation holds %d slots, its cap", r.Mine)
	}
	return fmt.Sprintf("the %d slots are taken, %d of them by this organisation", r.Size, r.Mine)
}

// Unwrap returns the context's error, if the wait ended with it.
func (r *Refusal) Unwrap() error { return r.Err }

// TryAcquire takes a slot for org if one may be had at once, and returns
// its release; release may be called more than once. A refusal says why.
func (p *Pool) TryAcquire(org string) (release func(), err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.grantable(org, p.fairFirst(org)) {
		p.take(org)
		return p.releaser(org), nil
	}
	return nil, p.refusal(org, nil)
}

// Acquire takes a slot for org, waiting for one until ctx is done; a
// refusal (wrapping ctx's error) says whose slots were taken meanwhile.
func (p *Pool) Acquire(ctx context.Context, org string) (release func(), err error) {
	p.mu.Lock()
	if p.grantable(org, p.fairFirst(org)) {
		p.take(org)
		p.mu.Unlock()
		return p.releaser(org), nil
	}
	p.seq++
	w := &waiter{org: org, seq: p.seq, ready: make(chan struct{})}
	u := p.org(org)
	u.queue = append(u.queue, w)
	p.mu.Unlock()

	select {
	case <-w.ready:
		return p.releaser(org), nil
	case <-ctx.Done():
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if w.granted {
		// Given a slot as the wait ended: handed on, not kept.
		p.give(org)
	} else {
		p.remove(w)
		// One fewer organisation waiting may make others' shares larger.
		p.dispatch()
	}
	return nil, p.refusal(org, ctx.Err())
}

func (p *Pool) refusal(org string, err error) *Refusal {
	lim := p.policy(org)
	mine := 0
	if u := p.orgs[org]; u != nil {
		mine = u.held
	}
	return &Refusal{Size: p.size, Held: p.held, Mine: mine, Cap: lim.Cap, Capped: lim.Cap > 0 && mine >= lim.Cap, Err: err}
}

func (p *Pool) org(org string) *use {
	u := p.orgs[org]
	if u == nil {
		u = &use{}
		p.orgs[org] = u
	}
	return u
}

func (p *Pool) releaser(org string) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			p.mu.Lock()
			defer p.mu.Unlock()
			p.give(org)
		})
	}
}

// take records a slot given to org.
func (p *Pool) take(org string) {
	p.org(org).held++
	p.held++
}

// give takes back a slot of org and hands it on.
func (p *Pool) give(org string) {
	u := p.orgs[org]
	u.held--
	p.held--
	if u.held == 0 && len(u.queue) == 0 {
		delete(p.orgs, org)
	}
	p.dispatch()
}

func (p *Pool) remove(w *waiter) {
	u := p.orgs[w.org]
	for i, x := range u.queue {
		if x == w {
			u.queue = append(u.queue[:i], u.queue[i+1:]...)
			break
		}
	}
	if u.held == 0 && len(u.queue) == 0 {
		delete(p.orgs, w.org)
	}
}

// dispatch gives slots to the waiting requests that may have one, the
// organisation holding the fewest for its weight first.
func (p *Pool) dispatch() {
	for {
		var best *use
		var bestOrg string
		for id, u := range p.orgs {
			if len(u.queue) == 0 || !p.grantable(id, true) {
				continue
			}
			if best == nil || p.before(id, u, bestOrg, best) {
				best, bestOrg = u, id
			}
		}
		if best == nil {
			return
		}
		w := best.queue[0]
		best.queue = best.queue[1:]
		p.take(bestOrg)
		w.granted = true
		close(w.ready)
	}
}

// before orders two waiting organisations: fewer slots held for the
// weight first, then the one whose first request came first.
func (p *Pool) before(a string, ua *use, b string, ub *use) bool {
	wa, wb := p.weight(a), p.weight(b)
	if x, y := ua.held*wb, ub.held*wa; x != y {
		return x < y
	}
	return ua.queue[0].seq < ub.queue[0].seq
}

// fairFirst says whether a new request of org comes before every
// organisation already waiting that could be given the slot: only then
// may it take a free one.
func (p *Pool) fairFirst(org string) bool {
	mine := p.orgs[org]
	if mine != nil && len(mine.queue) > 0 {
		return false // its own earlier requests come first
	}
	held := 0
	if mine != nil {
		held = mine.held
	}
	w := p.weight(org)
	for id, u := range p.orgs {
		if id == org || len(u.queue) == 0 || !p.grantable(id, true) {
			continue
		}
		// An organisation that holds no more for its weight was there first.
		if u.held*w <= held*p.weight(id) {
			return false
		}
	}
	return true
}

// grantable says whether org may be given a slot now: never past its cap;
// always while under its guaranteed share (lent, up to twice the pool);
// otherwise when the pool has a free slot and mayFree says the slot is its
// turn.
func (p *Pool) grantable(org string, mayFree bool) bool {
	held := 0
	if u := p.orgs[org]; u != nil {
		held = u.held
	}
	if c := p.policy(org).Cap; c > 0 && held >= c {
		return false
	}
	if held < p.guaranteed(org) && p.held < 2*p.size {
		return true
	}
	return mayFree && p.held < p.size
}

// guaranteed is org's share of the pool: its weight's part of the size
// among the organisations holding or waiting for slots, org counted,
// rounded down.
func (p *Pool) guaranteed(org string) int {
	total := 0
	if _, ok := p.orgs[org]; !ok {
		total = p.weight(org)
	}
	for id := range p.orgs {
		total += p.weight(id)
	}
	return p.size * p.weight(org) / total
}

func (p *Pool) weight(org string) int { return max(1, p.policy(org).Weight) }
