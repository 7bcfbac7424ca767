package mockup

import (
	"crypto/sha256"
	"io"
	"os"
	"sync"
)

// Cache keeps the templates of the last few jobs decoded, layer pixels
// included, by the SHA-256 of their files: the same template's next job
// (the usual case: one product, many designs) skips reading and decoding
// it. Only templates of at most MaxPixels canvas pixels are kept, and at
// most Size of them; the oldest goes first.
type Cache struct {
	Size      int
	MaxPixels int64

	mu      sync.Mutex
	entries []*entry
}

type entry struct {
	sum  [32]byte
	tpl  *Template
	file io.Closer
	refs int
	gone bool
}

// Load returns the template at path, decoded now or kept from an earlier
// job, and a function to call when done with it.
func (c *Cache) Load(path string, maxPixels int64) (*Template, func(), error) {
	sum, err := fileSum(path)
	if err != nil {
		return nil, nil, err
	}
	c.mu.Lock()
	for i, e := range c.entries {
		if e.sum == sum {
			e.refs++
			// The newest last.
			c.entries = append(append(c.entries[:i:i], c.entries[i+1:]...), e)
			c.mu.Unlock()
			return e.tpl, func() { c.release(e) }, nil
		}
	}
	c.mu.Unlock()
	tpl, file, err := Load(path, maxPixels)
	if err != nil {
		return nil, nil, err
	}
	if int64(tpl.File.Width)*int64(tpl.File.Height) > c.MaxPixels || c.Size <= 0 {
		return tpl, func() { file.Close() }, nil
	}
	e := &entry{sum: sum, tpl: tpl, file: file, refs: 1}
	c.mu.Lock()
	c.entries = append(c.entries, e)
	for len(c.entries) > c.Size {
		old := c.entries[0]
		c.entries = c.entries[1:]
		old.gone = true
		if old.refs == 0 {
			old.file.Close()
		}
	}
	c.mu.Unlock()
	return tpl, func() { c.release(e) }, nil
}

func (c *Cache) release(e *entry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e.refs--
	if e.refs == 0 && e.gone {
		e.file.Close()
	}
}

func fileSum(path string) ([32]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return [32]byte{}, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return [32]byte{}, err
	}
	var sum [32]byte
	copy(sum[:], h.Sum(nil))
	return sum, nil
}
