package ffmpeg

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsyscall "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// The second wall around a client's own ffmpeg command (raw.ffmpeg): it
// does not trust the parser that checked the command. ffmpeg runs in a
// network namespace of its own (no interface but a loopback that is
// down: no connection leaves it, not even to 127.0.0.1 or 169.254.169.254
// of the host), and under a Landlock domain that lets it read and write
// its job's folder and only read what ffmpeg itself needs (its binary,
// its libraries, fonts, /usr/share); everything else, /etc/passwd and
// /tmp included, is refused by the kernel, and TCP bind and connect too.
// Its address space, CPU time, file size and open files are bounded by
// rlimits set before ffmpeg starts.
//
// Landlock restricts the process that asks and its children, never its
// parent, and Go runs no code between fork and exec. So kino starts
// itself again as a small launcher (sandboxEnv set): the launcher, single
// purpose and never returning to kino's code, applies the rules and the
// rlimits and execs ffmpeg, which keeps them. Every binary that links
// this package (kino, and each test binary) is its own launcher.

// sandboxEnv carries the launcher's configuration, as JSON.
const sandboxEnv = "KINO_FFMPEG_SANDBOX"

// sandboxSpec is the launcher's configuration.
type sandboxSpec struct {
	Dir      string   `json:"dir"`
	FFmpeg   string   `json:"ffmpeg"`
	Args     []string `json:"args"`
	Memory   uint64   `json:"memory"`
	FileSize uint64   `json:"fileSize"`
	CPU      uint64   `json:"cpu"`
	Landlock bool     `json:"landlock"`
}

func init() {
	if spec := os.Getenv(sandboxEnv); spec != "" {
		err := launch(spec)
		fmt.Fprintf(os.Stderr, "[error] kino sandbox: %v\n", err)
		os.Exit(126)
	}
}

// readOnly are the paths ffmpeg reads when it starts and runs: the loader
// and libraries, their configuration and alternatives, fonts and their
// configuration, time zones. Missing ones are skipped.
//
//nolint:gochecknoglobals // read-only table: the folders the sandbox mounts read-only
var readOnly = []string{"/usr", "/lib", "/lib64", "/lib32", "/bin", "/etc/alternatives", "/etc/fonts",
	"/etc/ld.so.conf.d", "/var/cache/fontconfig", "/sys/devices/system/cpu"}

//nolint:gochecknoglobals // read-only table: the files the sandbox mounts read-only
var readOnlyFiles = []string{"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/localtime", "/proc/cpuinfo",
	"/dev/urandom", "/dev/random"}

// launch is the launcher: it never returns on success.
func launch(raw string) error {
	var s sandboxSpec
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		return fmt.Errorf("read the sandbox: %w", err)
	}
	for _, l := range []struct {
		res int
		n   uint64
	}{{unix.RLIMIT_AS, s.Memory}, {unix.RLIMIT_FSIZE, s.FileSize}, {unix.RLIMIT_CPU, s.CPU}, {unix.RLIMIT_CORE, 0}, {unix.RLIMIT_NOFILE, 256}} {
		if l.n == 0 && l.res != unix.RLIMIT_CORE {
			continue
		}
		if err := unix.Setrlimit(l.res, &unix.Rlimit{Cur: l.n, Max: l.n}); err != nil {
			return fmt.Errorf("set limit %d: %w", l.res, err)
		}
	}
	if s.Landlock {
		ro := append([]string{filepath.Dir(s.FFmpeg)}, readOnly...)
		rules := []landlock.Rule{
			landlock.RWDirs(s.Dir),
			landlock.RODirs(ro...).IgnoreIfMissing(),
			landlock.ROFiles(readOnlyFiles...).IgnoreIfMissing(),
			landlock.RWFiles("/dev/null").IgnoreIfMissing(),
		}
		// V4 and up also refuse TCP bind and connect to every port, V6
		// abstract unix sockets and signals to processes outside; the
		// best the kernel offers of it (ProbeWalls says which version).
		if err := landlock.V6.BestEffort().Restrict(rules...); err != nil {
			return fmt.Errorf("apply landlock: %w", err)
		}
	}
	runtime.LockOSThread()
	env := []string{"PATH=/usr/bin:/bin", "HOME=" + s.Dir, "TMPDIR=" + s.Dir, "LC_ALL=C"}
	return syscall.Exec(s.FFmpeg, append([]string{"ffmpeg"}, s.Args...), env)
}

// Walls are the sandbox walls the kernel offers.
type Walls struct {
	// Network is a network namespace of ffmpeg's own (no network).
	Network bool
	// NetworkFlags are the clone flags that make it.
	NetworkFlags uintptr
	// Landlock is the Landlock ABI version, 0 when the kernel has none.
	Landlock int
	// Err says why a wall is missing.
	Err string
}

// Complete says whether both walls stand: no network, and a filesystem
// confined with Landlock ABI 1 or later.
func (w Walls) Complete() bool { return w.Network && w.Landlock > 0 }

// ProbeWalls says which walls the kernel offers: it starts a process in a
// network namespace of its own (as root, or in a user namespace of its own
// otherwise) and asks Landlock's version. A node asks once, at start, and
// hands the answer to its sandboxed runs (Sandbox.Walls).
func ProbeWalls() Walls {
	var (
		walls Walls
		errs  []error
	)
	if v, err := llsyscall.LandlockGetABIVersion(); err == nil {
		walls.Landlock = v
	} else {
		errs = append(errs, fmt.Errorf("landlock: %w", err))
	}
	for _, flags := range []uintptr{unix.CLONE_NEWNET, unix.CLONE_NEWNET | unix.CLONE_NEWUSER} {
		cmd := exec.Command("/proc/self/exe")
		cmd.Env = []string{sandboxEnv + `={"ffmpeg":"/bin/true"}`}
		cmd.SysProcAttr = netAttr(flags)
		if err := cmd.Run(); err != nil {
			errs = append(errs, fmt.Errorf("network namespace: %w", err))
			continue
		}
		walls.Network, walls.NetworkFlags = true, flags
		break
	}
	if !walls.Complete() {
		walls.Err = errors.Join(errs...).Error()
	}
	return walls
}

func netAttr(flags uintptr) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL, Cloneflags: flags}
	if flags&unix.CLONE_NEWUSER != 0 {
		a.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}}
		a.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}}
	}
	return a
}

// Sandbox is how a run is confined (RunOptions.Sandbox).
type Sandbox struct {
	// CPUSeconds bounds the CPU time of the run (RLIMIT_CPU); 0 leaves
	// it to the run's deadline.
	CPUSeconds uint64
	// Partial allows running behind the walls the kernel has when one is
	// missing (--raw-ffmpeg-unsandboxed); otherwise such a run is refused.
	Partial bool
	// Walls are the walls the node's kernel offers, as ProbeWalls found
	// them at the node's start; nil asks the kernel again for this run.
	Walls *Walls
}

// ErrNoSandbox is a sandboxed run on a kernel without both walls.
var ErrNoSandbox = errors.New("this node cannot sandbox ffmpeg")

// sandboxCommand is the command of a sandboxed run: kino itself as the
// launcher, in a network namespace of its own.
func sandboxCommand(args []string, opts RunOptions) (*exec.Cmd, error) {
	var w Walls
	if opts.Sandbox.Walls != nil {
		w = *opts.Sandbox.Walls
	} else {
		w = ProbeWalls()
	}
	if !w.Complete() && !opts.Sandbox.Partial {
		return nil, fmt.Errorf("%w (%s)", ErrNoSandbox, w.Err)
	}
	bin, err := exec.LookPath("ffmpeg")
	if err != nil {
		return nil, fmt.Errorf("find ffmpeg: %w", err)
	}
	if bin, err = filepath.EvalSymlinks(bin); err != nil {
		return nil, fmt.Errorf("find ffmpeg: %w", err)
	}
	dir, err := filepath.Abs(opts.Dir)
	if err != nil || opts.Dir == "" {
		return nil, fmt.Errorf("a sandboxed run needs its folder")
	}
	spec := sandboxSpec{Dir: dir, FFmpeg: bin, Args: args, Memory: uint64(opts.Limits.WithDefaults().MaxMemory),
		FileSize: uint64(opts.MaxOutputBytes), CPU: opts.Sandbox.CPUSeconds, Landlock: w.Landlock > 0}
	raw, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("/proc/self/exe")
	cmd.Env = []string{sandboxEnv + "=" + string(raw)}
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if w.Network {
		cmd.SysProcAttr = netAttr(w.NetworkFlags)
	}
	return cmd, nil
}
