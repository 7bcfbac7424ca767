// Package meter measures what one attempt of a job used: the CPU time of
// the processes it ran (ffmpeg, ffprobe) and what outside providers
// charged for it (a Whisper endpoint), and the CPU time of the work done
// in kino's own process for it (painting, reading and drawing PSDs),
// read from each working thread's CPU clock (Thread). The job core puts a
// Meter in the attempt's context, a preview and an upload in their
// request's; the code that starts a process, calls a provider or works
// adds to the one it finds there, however deep, without knowing the job.
//
// Every function is safe without a Meter in the context: such work is
// measured by nobody.
package meter

import (
	"context"
	"os"
	"runtime"
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
	// CPU is the user and system time of the processes that ended, and
	// of the threads of kino's process that worked for the attempt.
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

// Thread starts measuring the CPU time of the calling goroutine's own
// work in kino's process (planning, painting, reading and drawing a
// PSD), for the Meter of ctx; call the function it returns when the work
// ends, on the same goroutine. The goroutine is locked to its OS thread
// meanwhile, so the thread's CPU clock is the goroutine's alone: a
// locked thread runs no other goroutine, even while this one waits.
//
// Call it once per goroutine that does the work, at the goroutine's
// start (or around the work, on the goroutine that asked for it): two
// measurements open on one goroutine count its time twice. Without a
// Meter in ctx nothing is locked or measured.
func Thread(ctx context.Context) func() {
	m, ok := ctx.Value(key{}).(*Meter)
	if !ok {
		return func() {}
	}
	runtime.LockOSThread()
	start, ok := threadCPU()
	if !ok {
		runtime.UnlockOSThread()
		return func() {}
	}
	return func() {
		end, ok := threadCPU()
		runtime.UnlockOSThread()
		if ok && end > start {
			m.mu.Lock()
			m.cpu += end - start
			m.mu.Unlock()
		}
	}
}

// InProcess reports whether ctx carries a Meter: work in kino's process
// that could be measured.
func InProcess(ctx context.Context) bool {
	_, ok := ctx.Value(key{}).(*Meter)
	return ok
}
