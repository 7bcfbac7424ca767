// Package meter measures what one attempt of a job used: the CPU time of
// the processes it ran (ffmpeg, ffprobe) and what outside providers
// charged for it (a Whisper endpoint). The job core puts a Meter in the
// attempt's context; the code that starts a process or calls a provider
// adds to the one it finds there, however deep, without knowing the job.
//
// Every function is safe without a Meter in the context: work outside a
// job (an upload's probe) is measured by nobody.
package meter

import (
	"context"
	"os"
	"sync"
	"time"
)

// Meter adds up what an attempt used. It is safe for concurrent use: an
// attempt probes its inputs a few at once.
type Meter struct {
	mu           sync.Mutex
	cpu          time.Duration
	providerCost float64
}

// Used is what a Meter added up.
type Used struct {
	// CPU is the user and system time of the processes that ended.
	CPU time.Duration
	// ProviderCost is what outside providers charged, in USD.
	ProviderCost float64
}

type key struct{}

// With returns ctx carrying a new Meter, and the Meter.
func With(ctx context.Context) (context.Context, *Meter) {
	m := &Meter{}
	return context.WithValue(ctx, key{}, m), m
}

// Process adds the CPU time of a process that ended (its state after
// Wait) to the Meter of ctx. A process that never started has no state.
func Process(ctx context.Context, ps *os.ProcessState) {
	m, ok := ctx.Value(key{}).(*Meter)
	if !ok || ps == nil {
		return
	}
	m.mu.Lock()
	m.cpu += ps.UserTime() + ps.SystemTime()
	m.mu.Unlock()
}

// Provider adds what an outside provider charged, in USD, to the Meter of ctx.
func Provider(ctx context.Context, usd float64) {
	m, ok := ctx.Value(key{}).(*Meter)
	if !ok || usd <= 0 {
		return
	}
	m.mu.Lock()
	m.providerCost += usd
	m.mu.Unlock()
}

// Used returns what m added up so far; nil has used nothing.
func (m *Meter) Used() Used {
	if m == nil {
		return Used{}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return Used{CPU: m.cpu, ProviderCost: m.providerCost}
}
