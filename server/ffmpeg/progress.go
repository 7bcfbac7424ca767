package ffmpeg

import (
	"strconv"
	"strings"
)

// progress turns the key=value lines of ffmpeg's -progress output into
// percentages. ffmpeg writes a block every stats period, each ending with
// progress=continue, and a last one ending with progress=end.
type progress struct {
	// duration is the expected output length in seconds; 0 reports nothing
	// before the end.
	duration float64
	report   func(percent float64)
	// last is the last percentage reported, -1 before the first.
	last float64
	// outTime is the output time of the block being read, in seconds.
	outTime float64
	ended   bool
}

func newProgress(duration float64, report func(float64)) *progress {
	if report == nil {
		report = func(float64) {}
	}
	return &progress{duration: duration, report: report, last: -1}
}

// line reads one line of ffmpeg's output.
func (p *progress) line(s string) {
	key, val, ok := strings.Cut(strings.TrimSpace(s), "=")
	if !ok {
		return
	}
	switch key {
	case "out_time_us", "out_time_ms":
		// Despite its name, out_time_ms is in microseconds too; before the
		// first frame both read N/A, which keeps the last value.
		if us, err := strconv.ParseInt(val, 10, 64); err == nil && us >= 0 {
			p.outTime = float64(us) / 1e6
		}
	case "progress":
		if val == "end" {
			p.ended = true
			return
		}
		if p.duration > 0 {
			// Below 100 until the run has succeeded: the muxer still has
			// to finish after the last frame (for mp4, the faststart move).
			p.send(min(p.outTime/p.duration*100, 99.9))
		}
	}
}

// done reports 100 once ffmpeg has exited successfully, if it reported its
// end.
func (p *progress) done() {
	if p.ended {
		p.send(100)
	}
}

// send reports p if it moves forward, clamped to 0..100.
func (p *progress) send(percent float64) {
	percent = min(max(percent, 0), 100)
	if percent > p.last {
		p.last = percent
		p.report(percent)
	}
}
