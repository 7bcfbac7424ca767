package ffmpeg

import (
	"fmt"
	"os/exec"

	"golang.org/x/sys/unix"
)

// Limits bound what one ffmpeg or ffprobe process of kino may take. A node
// derives them once from its configuration (--max-image-pixels,
// --ffmpeg-max-memory) and hands them to every run and probe it starts
// (RunOptions.Limits, and the probes' argument), so that several nodes in
// one process (the tests' apps) each keep their own. Zero fields take the
// defaults.
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

// WithDefaults is l with its zero fields set to the defaults: the limits
// a process started with l has.
func (l Limits) WithDefaults() Limits {
	if l.MaxPixels <= 0 {
		l.MaxPixels = DefaultMaxPixels
	}
	if l.MaxMemory <= 0 {
		l.MaxMemory = DefaultMaxMemory
	}
	return l
}

// limit applies the memory limit to a started process. It is set from
// outside (prlimit) because Go runs no code between fork and exec; the
// process is then still loading its libraries, long before it decodes.
func limit(cmd *exec.Cmd, l Limits) error {
	n := uint64(l.WithDefaults().MaxMemory)
	if err := unix.Prlimit(cmd.Process.Pid, unix.RLIMIT_AS, &unix.Rlimit{Cur: n, Max: n}, nil); err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return fmt.Errorf("limit the memory of %s: %w", cmd.Path, err)
	}
	return nil
}
