// Package scratch gives a kino process a working folder of its own and
// removes those of processes that died without cleaning up. A process
// killed with SIGKILL never runs its deferred removals, so its downloads
// and partial outputs would otherwise stay on disk for good.
package scratch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// lockName is the file in each process's folder that the process holds
// locked for as long as it lives: the kernel releases the lock when the
// process dies, however it dies, so a folder whose lock can be taken has
// no owner left.
const lockName = ".owner"

// Dir is one process's working folder.
type Dir struct {
	// Path is the folder; everything the process writes goes under it.
	Path string
	lock *os.File
}

// Open creates a working folder under root for this process, after
// removing the folders of processes that are gone: those whose lock is
// free, and the loose render-*, job-* and upload-* folders that kino
// versions before this one made directly in root. It returns the names it
// removed, for the log.
func Open(root string) (*Dir, []string, error) {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, nil, fmt.Errorf("create working folder: %w", err)
	}
	removed, err := sweep(root)
	if err != nil {
		return nil, removed, err
	}
	path, err := os.MkdirTemp(root, "proc-")
	if err != nil {
		return nil, removed, fmt.Errorf("create working folder: %w", err)
	}
	lock, err := os.OpenFile(filepath.Join(path, lockName), os.O_CREATE|os.O_RDWR, 0o600)
	if err == nil {
		err = unix.Flock(int(lock.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	}
	if err != nil {
		if lock != nil {
			lock.Close()
		}
		os.RemoveAll(path)
		return nil, removed, fmt.Errorf("lock working folder: %w", err)
	}
	return &Dir{Path: path, lock: lock}, removed, nil
}

// Close removes the folder and everything in it.
func (d *Dir) Close() error {
	err := os.RemoveAll(d.Path)
	d.lock.Close()
	return err
}

// sweep removes what dead processes left in root.
func sweep(root string) ([]string, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, fmt.Errorf("read working folder: %w", err)
	}
	var removed []string
	var errs []error
	for _, e := range entries {
		name := e.Name()
		path := filepath.Join(root, name)
		switch {
		case strings.HasPrefix(name, "proc-"):
			if !abandoned(path) {
				continue
			}
		case strings.HasPrefix(name, "render-"), strings.HasPrefix(name, "job-"), strings.HasPrefix(name, "upload-"):
		default:
			continue
		}
		if err := os.RemoveAll(path); err != nil {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, name)
	}
	return removed, errors.Join(errs...)
}

// abandoned reports whether no living process holds the folder's lock.
func abandoned(path string) bool {
	f, err := os.OpenFile(filepath.Join(path, lockName), os.O_RDWR, 0)
	if err != nil {
		// No lock file: a process that died between creating the folder
		// and its lock.
		return errors.Is(err, os.ErrNotExist)
	}
	defer f.Close()
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		return false
	}
	// Released when f closes, before the folder is removed; the folder's
	// owner is gone, so nobody else wants it.
	return true
}

// RoomError is a disk with less free space than an attempt needs.
type RoomError struct {
	// Free and Need are the free bytes found and those asked for.
	Free, Need int64
}

func (e *RoomError) Error() string {
	return fmt.Sprintf("the working folder's disk has %d bytes free, under the %d an attempt needs", e.Free, e.Need)
}

// Room checks that the disk holding path has at least need bytes free for
// an unprivileged writer, and returns a *RoomError when not. It is asked
// before an attempt starts, so that a full disk fails the attempt cleanly
// instead of in the middle of a download or an encode.
func Room(path string, need int64) error {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return fmt.Errorf("measure free disk of the working folder: %w", err)
	}
	free := int64(st.Bavail) * int64(st.Bsize)
	if free < need {
		return &RoomError{Free: free, Need: need}
	}
	return nil
}
