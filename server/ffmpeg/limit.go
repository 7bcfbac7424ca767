package ffmpeg

import (
	"fmt"
	"os/exec"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// Limits bound what any ffmpeg or ffprobe process of kino may take. They
// are the process's, set once at start (SetLimits), because every probe
// and every run must honour them, however deep in the code it starts.
type Limits struct {
	// MaxPixels is the largest picture or video frame, in pixels, that
	// kino opens (--max-image-pixels). A file declaring more is refused
	// from its header, before anything decodes it.
	MaxPixels int64
	// MaxMemory is the address space, in bytes, of each ffmpeg and ffprobe
	// process (--ffmpeg-max-memory). A process that needs more fails its
	// allocation and exits with an error instead of taking the machine's
	// memory.
	MaxMemory int64
}

// The defaults of Limits.
const (
	// DefaultMaxPixels is 50 megapixels: more than any camera photo or an
	// 8K frame (33 MP), and a 200 MB RGBA frame at most.
	DefaultMaxPixels = 50_000_000
	// DefaultMaxMemory is 4 GiB of address space: several times what a 4K
	// render uses, and far below what a decompression bomb would take.
	DefaultMaxMemory = 4 << 30
)

var limits atomic.Pointer[Limits]

func init() { SetLimits(Limits{}) }

// SetLimits sets the limits of every process started from now on; zero
// fields take the defaults.
func SetLimits(l Limits) {
	if l.MaxPixels <= 0 {
		l.MaxPixels = DefaultMaxPixels
	}
	if l.MaxMemory <= 0 {
		l.MaxMemory = DefaultMaxMemory
	}
	limits.Store(&l)
}

// CurrentLimits are the limits in force.
func CurrentLimits() Limits { return *limits.Load() }

// limit applies the memory limit to a started process. It is set from
// outside (prlimit) because Go runs no code between fork and exec; the
// process is then still loading its libraries, long before it decodes.
func limit(cmd *exec.Cmd) error {
	n := uint64(limits.Load().MaxMemory)
	if err := unix.Prlimit(cmd.Process.Pid, unix.RLIMIT_AS, &unix.Rlimit{Cur: n, Max: n}, nil); err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return fmt.Errorf("limit the memory of %s: %w", cmd.Path, err)
	}
	return nil
}
