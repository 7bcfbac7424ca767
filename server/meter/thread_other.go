//go:build !linux

package meter

import "time"

// threadCPU is not measured where no per-thread CPU clock is read: the
// in-process work of an attempt is then counted as nothing.
func threadCPU() (time.Duration, bool) { return 0, false }
