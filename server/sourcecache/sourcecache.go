// Package sourcecache keeps the sources a node downloaded, so that the
// parts of a split render on one node (and any later render of the same
// file) share one download instead of asking a third-party host again for
// each part. Entries are keyed by URL and kept with the validators the
// server gave (ETag, Last-Modified); the cache is bounded on disk, the
// least recently used entries going first; and concurrent requests for one
// URL wait for a single download.
//
// Within one scope (the render whose parts ask) a cached file is used as
// it is: the parts of a render see one version of each source, and the
// host sees one request. A request of another scope asks the host whether
// the file changed (a conditional GET with the validators) and downloads
// it again when it did, or when the host gave no validators.
package sourcecache

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/kinohq/kino/server/fetch"
)

// DefaultMaxBytes is the default bound of a node's cache on disk
// (--source-cache-size).
const DefaultMaxBytes = 2 << 30

// maxScopes bounds the scopes an entry remembers as having seen it.
const maxScopes = 64

// Cache is one node's cache of downloaded sources. It is safe for
// concurrent use.
type Cache struct {
	dir      string
	maxBytes int64
	fetch    *fetch.Client

	mu      sync.Mutex
	entries map[string]*entry
	lru     *list.List // of *entry, most recently used first
	size    int64
	flights map[string]chan struct{}
	seq     int
}

// entry is one cached file.
type entry struct {
	url        string
	path       string
	size       int64
	validators fetch.Validators
	scopes     []string
	elem       *list.Element
}

// New returns a cache that keeps at most maxBytes of files in dir, which
// it empties first: an index lives only as long as its process. It
// downloads with fc.
func New(dir string, maxBytes int64, fc *fetch.Client) (*Cache, error) {
	if err := os.RemoveAll(dir); err != nil {
		return nil, fmt.Errorf("empty source cache: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create source cache: %w", err)
	}
	return &Cache{dir: dir, maxBytes: maxBytes, fetch: fc, entries: map[string]*entry{},
		lru: list.New(), flights: map[string]chan struct{}{}}, nil
}

// Download puts the file at rawURL at dst, as fetch.Client.Download does,
// from the cache when it can: at once when scope (a render's id) has seen
// the cached copy, else after the host says the copy is current. It
// returns the file's size.
func (c *Cache) Download(ctx context.Context, scope, rawURL, dst string) (int64, error) {
	for {
		c.mu.Lock()
		if e, ok := c.entries[rawURL]; ok && e.seenBy(scope) {
			c.lru.MoveToFront(e.elem)
			n, err := c.place(e, dst)
			c.mu.Unlock()
			return n, err
		}
		if wait, busy := c.flights[rawURL]; busy {
			c.mu.Unlock()
			select {
			case <-wait:
				continue // look again: the download may serve this scope
			case <-ctx.Done():
				return 0, ctx.Err()
			}
		}
		done := make(chan struct{})
		c.flights[rawURL] = done
		have := fetch.Validators{}
		if e, ok := c.entries[rawURL]; ok {
			have = e.validators
		}
		c.seq++
		tmp := filepath.Join(c.dir, "dl-"+strconv.Itoa(c.seq))
		c.mu.Unlock()

		n, got, err := c.fetch.DownloadIfChanged(ctx, rawURL, tmp, have)

		c.mu.Lock()
		delete(c.flights, rawURL)
		close(done)
		switch {
		case errors.Is(err, fetch.ErrNotModified):
			e, ok := c.entries[rawURL]
			if !ok {
				// Evicted while the host was asked: ask again, for all of it.
				c.mu.Unlock()
				continue
			}
			e.addScope(scope)
			c.lru.MoveToFront(e.elem)
			n, err = c.place(e, dst)
			c.mu.Unlock()
			return n, err
		case err != nil:
			c.mu.Unlock()
			return 0, err
		}
		e := c.store(rawURL, tmp, n, got, scope)
		if e == nil {
			// Larger than the whole cache: the caller's alone.
			c.mu.Unlock()
			if err := os.Rename(tmp, dst); err != nil {
				os.Remove(tmp)
				return 0, fmt.Errorf("move download to %s: %w", dst, err)
			}
			return n, nil
		}
		n, err = c.place(e, dst)
		c.mu.Unlock()
		return n, err
	}
}

// store keeps a downloaded file as the entry of rawURL, replacing an older
// one, and evicts the least recently used entries past maxBytes. It
// returns nil, keeping nothing, for a file larger than maxBytes. c.mu is
// held.
func (c *Cache) store(rawURL, tmp string, n int64, v fetch.Validators, scope string) *entry {
	if old, ok := c.entries[rawURL]; ok {
		c.remove(old)
	}
	if n > c.maxBytes {
		return nil
	}
	e := &entry{url: rawURL, path: tmp, size: n, validators: v}
	e.addScope(scope)
	e.elem = c.lru.PushFront(e)
	c.entries[rawURL] = e
	c.size += n
	for c.size > c.maxBytes {
		last := c.lru.Back().Value.(*entry)
		c.remove(last)
	}
	return e
}

// remove forgets an entry and deletes its file; copies placed from it are
// links of their own and stay. c.mu is held.
func (c *Cache) remove(e *entry) {
	c.lru.Remove(e.elem)
	delete(c.entries, e.url)
	c.size -= e.size
	os.Remove(e.path)
}

// place puts a copy of e at dst: a hard link, which costs no space and
// outlives the entry, or a copy where dst is on another disk. c.mu is held
// so that e is not evicted meanwhile.
func (c *Cache) place(e *entry, dst string) (int64, error) {
	os.Remove(dst)
	if err := os.Link(e.path, dst); err == nil {
		return e.size, nil
	}
	src, err := os.Open(e.path)
	if err != nil {
		return 0, fmt.Errorf("read cached source: %w", err)
	}
	defer src.Close()
	out, err := os.Create(dst)
	if err != nil {
		return 0, fmt.Errorf("create %s: %w", dst, err)
	}
	n, err := io.Copy(out, src)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(dst)
		return 0, fmt.Errorf("copy cached source to %s: %w", dst, err)
	}
	return n, nil
}

func (e *entry) seenBy(scope string) bool {
	for _, s := range e.scopes {
		if s == scope {
			return true
		}
	}
	return false
}

func (e *entry) addScope(scope string) {
	if e.seenBy(scope) {
		return
	}
	if len(e.scopes) == maxScopes {
		e.scopes = e.scopes[1:]
	}
	e.scopes = append(e.scopes, scope)
}
