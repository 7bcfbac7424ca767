// Package org holds what each organisation may take of a kino: its share of
// the workers when several wait (weight), and its limits. A default applies
// to every organisation; a file of organisations overrides it for some.
//
// Every node must read the same policies (the same flags and file): fair
// turns and running caps are decided at claim time on whichever node
// claims, and submit limits on whichever node takes the request.
package org

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/dustin/go-humanize"
)

// Policy is what one organisation may take. Zero in a limit means no limit.
type Policy struct {
	// Weight is the organisation's share of claims while others wait too:
	// weight 2 gets two turns for another's one. At least 1.
	Weight int
	// Rate is submits a second, with a burst of Rate (at least 1).
	Rate float64
	// MaxQueued is jobs waiting (not yet running) at once.
	MaxQueued int
	// MaxRunning is jobs running at once on all nodes together; on each
	// node it also caps the previews drawn and uploads decoded at once
	// (server/share).
	MaxRunning int
	// StorageQuota is bytes of assets and outputs kept.
	StorageQuota int64
}

// Burst is how many submits may arrive at once before Rate applies.
func (p Policy) Burst() int {
	if p.Rate <= 0 {
		return 0
	}
	return max(1, int(p.Rate))
}

// Policies answers each organisation's policy. It is safe for concurrent
// use, and Replace swaps all of them at once, so a changed weight or cap
// applies to jobs already waiting from the next claim on.
type Policies struct {
	cur atomic.Pointer[table]
}

type table struct {
	def   Policy
	byOrg map[string]Policy
}

// New returns policies where every organisation has def, except those in byOrg.
func New(def Policy, byOrg map[string]Policy) *Policies {
	p := &Policies{}
	p.Replace(def, byOrg)
	return p
}

// Replace swaps every policy.
func (p *Policies) Replace(def Policy, byOrg map[string]Policy) {
	if def.Weight < 1 {
		def.Weight = 1
	}
	t := &table{def: def, byOrg: map[string]Policy{}}
	for id, pol := range byOrg {
		if pol.Weight < 1 {
			pol.Weight = 1
		}
		t.byOrg[id] = pol
	}
	p.cur.Store(t)
}

// For returns org's policy.
func (p *Policies) For(org string) Policy {
	t := p.cur.Load()
	if pol, ok := t.byOrg[org]; ok {
		return pol
	}
	return t.def
}

// Default returns the policy of every organisation not listed.
func (p *Policies) Default() Policy { return p.cur.Load().def }

// Listed returns the organisations with a policy of their own, sorted.
func (p *Policies) Listed() []string {
	t := p.cur.Load()
	out := make([]string, 0, len(t.byOrg))
	for id := range t.byOrg {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// entry is one organisation in the file; an absent field keeps the default.
type entry struct {
	Weight       *int     `json:"weight"`
	Rate         *float64 `json:"rate"`
	MaxQueued    *int     `json:"maxQueued"`
	MaxRunning   *int     `json:"maxRunning"`
	StorageQuota *string  `json:"storageQuota"`
}

var orgID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// ReadFile reads a file of organisations, a JSON object by organisation id:
//
//	{"acme": {"weight": 2, "rate": 20, "maxQueued": 5000, "maxRunning": 8, "storageQuota": "50GiB"}}
//
// Fields left out take def's value.
func ReadFile(path string, def Policy) (map[string]Policy, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read organisations: %w", err)
	}
	return Parse(data, def)
}

// Parse reads the JSON of a file of organisations (see ReadFile).
func Parse(data []byte, def Policy) (map[string]Policy, error) {
	var entries map[string]entry
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&entries); err != nil {
		return nil, fmt.Errorf("organisations file: %w (expected {\"org\": {\"weight\": 2, \"rate\": 10, \"maxQueued\": 1000, \"maxRunning\": 4, \"storageQuota\": \"10GiB\"}})", err)
	}
	out := make(map[string]Policy, len(entries))
	for id, e := range entries {
		if !orgID.MatchString(id) {
			return nil, fmt.Errorf("organisation %q: use letters, digits, _, . and - (at most 64)", id)
		}
		p, err := e.apply(def)
		if err != nil {
			return nil, fmt.Errorf("organisation %q: %w", id, err)
		}
		out[id] = p
	}
	return out, nil
}

func (e entry) apply(p Policy) (Policy, error) {
	if e.Weight != nil {
		if *e.Weight < 1 || *e.Weight > 1000 {
			return p, fmt.Errorf("weight %d: use 1 to 1000", *e.Weight)
		}
		p.Weight = *e.Weight
	}
	if e.Rate != nil {
		if *e.Rate < 0 {
			return p, fmt.Errorf("rate %v: use 0 (no limit) or more", *e.Rate)
		}
		p.Rate = *e.Rate
	}
	if e.MaxQueued != nil {
		if *e.MaxQueued < 0 {
			return p, fmt.Errorf("maxQueued %d: use 0 (no limit) or more", *e.MaxQueued)
		}
		p.MaxQueued = *e.MaxQueued
	}
	if e.MaxRunning != nil {
		if *e.MaxRunning < 0 {
			return p, fmt.Errorf("maxRunning %d: use 0 (no limit) or more", *e.MaxRunning)
		}
		p.MaxRunning = *e.MaxRunning
	}
	if e.StorageQuota != nil {
		n, err := ParseSize(*e.StorageQuota)
		if err != nil {
			return p, fmt.Errorf("storageQuota: %w", err)
		}
		p.StorageQuota = n
	}
	return p, nil
}

// ParseSize reads a byte count as people write one: digits with an
// optional unit, in either system, case and spacing aside: kB, MB, GB, TB
// (and K, M, G, T) are powers of 1000; KiB, MiB, GiB, TiB (and Ki, Mi, Gi,
// Ti) powers of 1024; a fraction is allowed before a unit (1.5GiB). This
// is the one parser of sizes: flags and the organisations file use it.
func ParseSize(v string) (int64, error) {
	n, err := humanize.ParseBytes(strings.TrimSpace(v))
	if err != nil || n > 1<<62 || strings.HasPrefix(strings.TrimSpace(v), ".") {
		return 0, fmt.Errorf("not a size: %q (a byte count, or with a unit: 50MB, 500M, 2GB, 1.5GiB, 4GiB)", v)
	}
	return int64(n), nil
}
