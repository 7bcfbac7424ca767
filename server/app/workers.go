package app

import "runtime"

// DefaultWorkers is how many jobs run at once by default. ffmpeg's
// encoders use several threads each, so one render per two cores keeps a
// machine busy without renders starving each other.
func DefaultWorkers() int {
	return max(1, runtime.NumCPU()/2)
}
