package ffmpeg

import (
	"errors"
	"fmt"
	"io/fs"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// DefaultMaxOutputBytes is the default bound of what one run writes
// (--max-output-size): 4 GiB holds ten minutes of 4K H.264 at 50 Mbit/s,
// far more than an ordinary video needs, and stops a lossless or noisy
// ProRes render (65 MB a second at 4K 60 fps) before it fills a disk.
const DefaultMaxOutputBytes = 4 << 30

// OutputTooLargeError is a run stopped because what it wrote grew past
// RunOptions.MaxOutputBytes.
type OutputTooLargeError struct {
	// Limit is the bound that was reached, in bytes.
	Limit int64
}

func (e *OutputTooLargeError) Error() string {
	return fmt.Sprintf("the output grew past the limit of %s", FormatBytes(e.Limit))
}

// FormatBytes writes n in the largest binary unit that keeps it whole
// enough to read: 4 GiB, 1.5 MiB, 512 bytes.
func FormatBytes(n int64) string {
	units := []string{"KiB", "MiB", "GiB", "TiB"}
	if n < 1024 {
		return fmt.Sprintf("%d bytes", n)
	}
	v, unit := float64(n), ""
	for _, u := range units {
		if v < 1024 {
			break
		}
		v, unit = v/1024, u
	}
	return fmt.Sprintf("%.4g %s", v, unit)
}

// watchEvery is how often the growth of a run's folder is measured.
const watchEvery = 250 * time.Millisecond

// outputWatch bounds what one ffmpeg run writes: any single file by the
// kernel (RLIMIT_FSIZE: the write past it ends the process with SIGXFSZ,
// or fails with EFBIG where that signal is ignored), and every file of
// its folder together (a playlist's segments, a poster beside a video) by
// measuring the folder's growth a few times a second and killing the run
// when it passes the bound. What it overshoots is what ffmpeg writes in
// watchEvery, and no single file ever passes the bound.
type outputWatch struct {
	limit int64
	dir   string
	base  int64
	over  atomic.Bool
	stop  chan struct{}
	done  chan struct{}
}

// startOutputWatch applies the bound to a started process, whose folder
// held base bytes before it started.
func startOutputWatch(cmd *exec.Cmd, limit int64, dir string, base int64) (*outputWatch, error) {
	n := uint64(limit)
	if err := unix.Prlimit(cmd.Process.Pid, unix.RLIMIT_FSIZE, &unix.Rlimit{Cur: n, Max: n}, nil); err != nil {
		return nil, fmt.Errorf("limit the output of %s: %w", cmd.Path, err)
	}
	w := &outputWatch{limit: limit, dir: dir, base: base, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		tick := time.NewTicker(watchEvery)
		defer tick.Stop()
		for {
			select {
			case <-w.stop:
				return
			case <-tick.C:
				if folderBytes(w.dir)-w.base > w.limit {
					w.over.Store(true)
					_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
					return
				}
			}
		}
	}()
	return w, nil
}

// end stops watching a run that exited with err, and says whether it
// was stopped by the bound: killed by the watch or by SIGXFSZ, or its
// folder grew to the bound by the end (a write that failed with EFBIG).
func (w *outputWatch) end(err error) bool {
	close(w.stop)
	<-w.done
	if w.over.Load() {
		return true
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGXFSZ {
			return true
		}
	}
	return err != nil && folderBytes(w.dir)-w.base >= w.limit
}

// folderBytes is the size of the files under dir; files that vanish while
// it walks count as nothing.
func folderBytes(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if info, err := d.Info(); err == nil {
			n += info.Size()
		}
		return nil
	})
	return n
}
