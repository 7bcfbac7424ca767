// Package memory gives memory back to the system after kino's own heavy
// work. Go keeps the heap it grew for a while after the work is done (its
// scavenger returns it over minutes), so a node that drew a large PSD
// would hold gigabytes it no longer uses. Two tools, both used: a soft
// limit for the whole process (debug.SetMemoryLimit), near which the
// collector and the scavenger work harder, so the heap is returned as
// soon as it is no longer live; and a node's Releaser after in-process
// drawing that may have grown the heap by hundreds of megabytes. Both
// act on the Go runtime, which is the process's; the package itself
// keeps no state.
package memory

import (
	"bufio"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DefaultLimit is the soft limit kino sets unless told otherwise: three
// quarters of the memory the process may use (its cgroup's limit, else
// the machine's), leaving the rest to ffmpeg and the page cache; 0 when
// neither can be read.
func DefaultLimit() int64 {
	total := machineBytes()
	if c := cgroupBytes(); c > 0 && (total == 0 || c < total) {
		total = c
	}
	return total / 4 * 3
}

// SetLimit sets the process's soft memory limit; 0 or less leaves Go's
// default (none).
func SetLimit(bytes int64) {
	if bytes > 0 {
		debug.SetMemoryLimit(bytes)
	}
}

// cgroupBytes is the cgroup v2 memory limit, 0 when none is set.
func cgroupBytes() int64 {
	b, err := os.ReadFile("/sys/fs/cgroup/memory.max")
	if err != nil {
		return 0
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil { // "max"
		return 0
	}
	return n
}

// machineBytes is MemTotal of /proc/meminfo, 0 when it cannot be read.
func machineBytes() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemTotal:" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}

// minGap keeps Release from running a full collection more often than
// this when many drawings end together: one returns what all freed.
const minGap = time.Second

// Releaser returns the heap kino no longer uses to the system at once,
// after work in kino's own process that may have grown it by hundreds of
// megabytes (drawing a PSD template, compositing mockups). A node owns
// one, shared by everything that draws in it; a nil Releaser releases
// nothing, leaving the heap to Go's scavenger (tests, tools).
type Releaser struct {
	now  func() time.Time
	mu   sync.Mutex
	last time.Time
	used bool
}

// NewReleaser returns a Releaser that reads the time from now (nil is
// time.Now).
func NewReleaser(now func() time.Time) *Releaser {
	if now == nil {
		now = time.Now
	}
	return &Releaser{now: now}
}

// Release returns the heap to the system, unless it did less than a
// second ago; it reports whether it did. It costs a full collection, tens
// of milliseconds, nothing beside such work.
func (r *Releaser) Release() bool {
	if r == nil {
		return false
	}
	r.mu.Lock()
	now := r.now()
	if r.used && now.Sub(r.last) < minGap {
		r.mu.Unlock()
		return false
	}
	r.last, r.used = now, true
	r.mu.Unlock()
	debug.FreeOSMemory()
	return true
}
