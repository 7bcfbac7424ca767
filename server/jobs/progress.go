package jobs

import "math"

// ShownProgress is a job's progress as the records show it: to two
// decimals. The row keeps what ffmpeg's output time gave (8.248890000000001,
// say), which is noise past the second decimal.
func ShownProgress(percent float64) float64 {
	return math.Round(percent*100) / 100
}
