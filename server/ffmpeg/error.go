package ffmpeg

import (
	"fmt"
	"strings"
	"sync"
)

// stderrKeep is how much of ffmpeg's error output an Error keeps: the end,
// where ffmpeg says what went wrong.
const stderrKeep = 4 << 10

// Error is an ffmpeg run that exited with a failure.
type Error struct {
	// ExitCode is ffmpeg's exit status (-1 when a signal ended it).
	ExitCode int
	// Stderr is the last 4 KiB of ffmpeg's error output.
	Stderr string
}

// LastLine is the most telling part of a failure, for a user: the last
// line of ffmpeg's errors, where it says what went wrong, or the exit code
// when it said nothing.
func (e *Error) LastLine() string {
	lines := strings.Split(strings.TrimSpace(e.Stderr), "\n")
	if l := strings.TrimSpace(lines[len(lines)-1]); l != "" {
		return l
	}
	return fmt.Sprintf("exit code %d", e.ExitCode)
}

func (e *Error) Error() string {
	return fmt.Sprintf("ffmpeg exited with code %d: %s", e.ExitCode, strings.TrimSpace(e.Stderr))
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		// Copy down rather than reslice, so a long run's output does not
		// pin an ever larger array.
		n := copy(t.buf, t.buf[len(t.buf)-t.max:])
		t.buf = t.buf[:n]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
