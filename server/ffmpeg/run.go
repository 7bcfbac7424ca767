package ffmpeg

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// stderrKeep is how much of ffmpeg's error output an Error keeps: the end,
// where ffmpeg says what went wrong.
const stderrKeep = 4 << 10

// Error is an ffmpeg run that exited with a failure.
type Error struct {
	ExitCode int
	Stderr   string
}

func (e *Error) Error() string {
	return fmt.Sprintf("ffmpeg exited with code %d: %s", e.ExitCode, strings.TrimSpace(e.Stderr))
}

// RunOptions tune one run.
type RunOptions struct {
	// Dir is the working folder of the process.
	Dir string
	// Duration is the expected output length in seconds, to turn ffmpeg's
	// output time into a percentage.
	Duration float64
	// OnProgress receives the percentage, 0 to 100, never decreasing; 100
	// only when ffmpeg reports the end.
	OnProgress func(percent float64)
}

// Run runs ffmpeg with args and reports its progress. Cancelling ctx kills
// ffmpeg (and anything it started) at once; Run then returns an error
// wrapping ctx.Err().
func Run(ctx context.Context, args []string, opts RunOptions) error {
	full := append([]string{"-hide_banner", "-nostdin", "-y", "-loglevel", "error",
		"-progress", "pipe:1", "-nostats", "-stats_period", "0.5"}, args...)
	cmd := exec.Command("ffmpeg", full...)
	cmd.Dir = opts.Dir
	// Its own process group, so a kill reaches every process of the run;
	// and it dies with kino, so a killed kino leaves no render behind.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("start ffmpeg: %w", err)
	}
	stderr := &tailBuffer{max: stderrKeep}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start ffmpeg: %w", err)
	}

	done := make(chan struct{})
	killed := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			close(killed)
		case <-done:
		}
	}()

	readProgress(stdout, opts)
	err = cmd.Wait()
	close(done)
	select {
	case <-killed:
		return fmt.Errorf("ffmpeg stopped: %w", ctx.Err())
	default:
	}
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return &Error{ExitCode: exit.ExitCode(), Stderr: stderr.String()}
		}
		return fmt.Errorf("run ffmpeg: %w", err)
	}
	return nil
}

// readProgress parses ffmpeg's -progress blocks of key=value lines.
func readProgress(r io.Reader, opts RunOptions) {
	sc := bufio.NewScanner(r)
	last := -1.0
	report := func(p float64) {
		p = min(max(p, 0), 100)
		if p > last && opts.OnProgress != nil {
			last = p
			opts.OnProgress(p)
		}
	}
	var outTime time.Duration
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), "=")
		if !ok {
			continue
		}
		switch key {
		case "out_time_us", "out_time_ms":
			// Despite its name, out_time_ms is in microseconds too.
			if us, err := strconv.ParseInt(val, 10, 64); err == nil && us >= 0 {
				outTime = time.Duration(us) * time.Microsecond
			}
		case "progress":
			if val == "end" {
				report(100)
				continue
			}
			if opts.Duration > 0 {
				// 100 is kept for the end, which comes after the muxer finishes.
				report(min(outTime.Seconds()/opts.Duration*100, 99.9))
			}
		}
	}
	_, _ = io.Copy(io.Discard, r)
}

// Available reports whether ffmpeg runs.
func Available(ctx context.Context) error {
	out, err := exec.CommandContext(ctx, "ffmpeg", "-hide_banner", "-version").Output()
	if err != nil {
		return fmt.Errorf("run ffmpeg -version: %w", err)
	}
	if !strings.HasPrefix(string(out), "ffmpeg version") {
		return fmt.Errorf("ffmpeg -version answered %q", firstLine(string(out)))
	}
	return nil
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
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
		t.buf = t.buf[len(t.buf)-t.max:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
