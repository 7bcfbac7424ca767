package ffmpeg

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/kinohq/kino/server/meter"
	"github.com/kinohq/kino/server/metrics"
	"github.com/kinohq/kino/server/tracing"
)

// RunOptions tune one run.
type RunOptions struct {
	// Limits are the node's: MaxMemory bounds the process's address
	// space (the pixel bound is in the arguments, InputArgs). Zero fields
	// take the defaults.
	Limits Limits
	// Dir is the working folder of the process.
	Dir string
	// Duration is the expected output length in seconds, to turn ffmpeg's
	// output time into a percentage.
	Duration float64
	// OnProgress receives the percentage, 0 to 100, never decreasing; it
	// is called on Run's goroutine, about twice a second. It reaches 100
	// only when ffmpeg has reported its end and exited successfully.
	OnProgress func(percent float64)
	// Log, when set, receives ffmpeg's log at level info (inputs, outputs,
	// stream mapping, encoder summaries, warnings and errors), each line
	// tagged with its level, at most LogKeep bytes.
	Log io.Writer
	// OnLogLine, when set, receives every line of ffmpeg's log at level
	// info, tags included, newline removed, however long the log (a line
	// over 64 KiB is cut to its head): for filters that report through the
	// log. It is called from one goroutine
	// at a time, and never after Run returns.
	OnLogLine func(line string)
	// MaxOutputBytes, when over 0, bounds what the run writes in Dir:
	// each file, and all the files it adds together. A run that reaches
	// it is stopped and fails with an *OutputTooLargeError. Dir must be
	// the run's own folder.
	MaxOutputBytes int64
	// Sandbox, when set, runs ffmpeg behind the second wall of a
	// client's own command: no network, the filesystem confined to Dir
	// (read-write) and what ffmpeg needs to read, rlimits (see
	// sandbox.go). Dir must be the run's own folder.
	Sandbox *Sandbox
}

// runFlags come before the caller's arguments: no banner, no prompt, no
// stdin, overwrite the output, a log tagged with levels on stderr (for
// RunOptions.Log; errors are picked out of it), and progress blocks on
// stdout every half second (-stats_period exists since ffmpeg 4.4).
//
//nolint:gochecknoglobals // read-only table: the flags of every ffmpeg run
var runFlags = []string{"-hide_banner", "-nostdin", "-y", "-loglevel", "level+info",
	"-progress", "pipe:1", "-nostats", "-stats_period", "0.5"}

// Run runs ffmpeg with args and reports its progress. A failed run is an
// *Error. Cancelling ctx kills ffmpeg (and anything it started) at once;
// Run then returns an error wrapping ctx.Err().
func Run(ctx context.Context, args []string, opts RunOptions) (err error) {
	ctx, span := tracing.Start(ctx, "ffmpeg", trace.WithAttributes(attribute.Float64("kino.ffmpeg.output_seconds", opts.Duration)))
	defer func() { endRun(span, err) }()
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("ffmpeg not started: %w", err)
	}
	full := append(append([]string{}, runFlags...), args...)
	cmd := exec.Command("ffmpeg", full...)
	cmd.Dir = opts.Dir
	// Its own process group, so a kill reaches every process of the run;
	// and it dies with kino, so a killed kino leaves no render behind.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if opts.Sandbox != nil {
		if cmd, err = sandboxCommand(full, opts); err != nil {
			return err
		}
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("start ffmpeg: %w", err)
	}
	stderr := newStderrSink(opts.Log, opts.OnLogLine, opts.Dir)
	cmd.Stderr = stderr
	var base int64
	watchOutput := opts.MaxOutputBytes > 0 && opts.Dir != ""
	if watchOutput {
		base = folderBytes(opts.Dir)
	}
	started := time.Now()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start ffmpeg: %w", err)
	}
	if err := limit(cmd, opts.Limits); err != nil {
		return err
	}
	var watch *outputWatch
	if watchOutput {
		if watch, err = startOutputWatch(cmd, opts.MaxOutputBytes, opts.Dir, base); err != nil {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			_ = cmd.Wait()
			meter.Process(ctx, cmd.ProcessState)
			return err
		}
	}

	// exec.CommandContext would kill ffmpeg alone; the group kill also
	// reaches anything ffmpeg started, and closes stdout at once so the
	// reader below returns.
	exited := make(chan struct{})
	killed := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			close(killed)
		case <-exited:
		}
	}()

	prog := newProgress(opts.Duration, opts.OnProgress)
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		prog.line(sc.Text())
	}
	_, _ = io.Copy(io.Discard, stdout)
	err = cmd.Wait()
	meter.Process(ctx, cmd.ProcessState)
	close(exited)
	stderr.flush()
	select {
	case <-killed:
		return fmt.Errorf("ffmpeg stopped: %w", ctx.Err())
	default:
	}
	if watch != nil && watch.end(err) {
		return &OutputTooLargeError{Limit: opts.MaxOutputBytes}
	}
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return &Error{ExitCode: exit.ExitCode(), Stderr: stderr.errs.String()}
		}
		return fmt.Errorf("run ffmpeg: %w", err)
	}
	prog.done()
	// The speed of a run is its output time over the time it took; only
	// runs of timed media (those given a Duration) have one: a picture's
	// one frame says nothing of speed.
	if opts.Duration > 0 {
		metrics.FFmpegSpeed(ctx, prog.outTime, time.Since(started))
	}
	return nil
}

// Available reports whether ffmpeg runs.
func Available(ctx context.Context) error {
	out, err := exec.CommandContext(ctx, "ffmpeg", "-hide_banner", "-version").Output()
	if err != nil {
		return fmt.Errorf("run ffmpeg -version: %w", err)
	}
	if !strings.HasPrefix(string(out), "ffmpeg version") {
		line, _, _ := strings.Cut(string(out), "\n")
		return fmt.Errorf("ffmpeg -version answered %q", line)
	}
	return nil
}
