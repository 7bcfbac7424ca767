package renderrun

import (
	"container/list"
	"context"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/kinohq/kino/server/ffmpeg"
)

// maxProbes bounds the probes a previewer remembers.
const maxProbes = 256

// probeCache remembers what ffprobe read of files that have not changed:
// a preview's sources are hard links of the node's source cache, one file
// (device and inode) for every preview of a source, and a video's probe
// costs an ffprobe run. Files are told apart by device, inode, size and
// modification time; the least recently used are forgotten first.
type probeCache struct {
	max     int
	mu      sync.Mutex
	entries map[fileID]*list.Element
	lru     *list.List // of probeEntry, most recently used first
}

type fileID struct {
	dev, ino uint64
	size     int64
	mtime    time.Time
}

type probeEntry struct {
	id   fileID
	info *ffmpeg.Info
}

func newProbeCache(n int) *probeCache {
	return &probeCache{max: n, entries: map[fileID]*list.Element{}, lru: list.New()}
}

// probe is ffmpeg.ProbeFast of path within lim, remembered: a node's
// limits do not change.
func (c *probeCache) probe(ctx context.Context, lim ffmpeg.Limits, path string) (*ffmpeg.Info, error) {
	id, ok := identify(path)
	if ok {
		c.mu.Lock()
		if e, hit := c.entries[id]; hit {
			c.lru.MoveToFront(e)
			info := e.Value.(probeEntry).info
			c.mu.Unlock()
			return info, nil
		}
		c.mu.Unlock()
	}
	info, err := ffmpeg.ProbeFast(ctx, lim, path)
	if err != nil || !ok {
		return info, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, hit := c.entries[id]; !hit {
		c.entries[id] = c.lru.PushFront(probeEntry{id: id, info: info})
		for c.lru.Len() > c.max {
			last := c.lru.Back()
			c.lru.Remove(last)
			delete(c.entries, last.Value.(probeEntry).id)
		}
	}
	return info, nil
}

// identify is the identity of the file at path; ok is false when the
// system does not tell it.
func identify(path string) (fileID, bool) {
	fi, err := os.Stat(path)
	if err != nil {
		return fileID{}, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, false
	}
	return fileID{dev: uint64(st.Dev), ino: st.Ino, size: fi.Size(), mtime: fi.ModTime()}, true
}
