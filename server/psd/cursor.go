package psd

import (
	"encoding/binary"
	"io"
	"math"
	"unicode/utf16"
)

// readerAt is the file: every read is checked against its size first.
type readerAt struct {
	r    io.ReaderAt
	size int64
}

// cursor reads big-endian fields from one section [pos, end) of a
// reader. The first failure sticks: later reads return zero values and
// err names what ran past which end, so parsers check err once per record.
type cursor struct {
	r    io.ReaderAt
	pos  int64
	end  int64
	err  error
	what string // the section, for error messages
	buf  [8]byte
}

func newCursor(r io.ReaderAt, pos, end int64, what string) *cursor {
	return &cursor{r: r, pos: pos, end: end, what: what}
}

func (c *cursor) left() int64 {
	if c.err != nil {
		return 0
	}
	return c.end - c.pos
}

func (c *cursor) fail(format string, args ...any) {
	if c.err == nil {
		c.err = errorf(format, args...)
	}
}

// need checks that n more bytes lie in the section.
func (c *cursor) need(n int64) bool {
	if c.err != nil {
		return false
	}
	if n < 0 || n > c.end-c.pos {
		c.fail("%s: %d bytes needed at offset %d, %d left: the data is truncated or a length is wrong", c.what, n, c.pos, c.end-c.pos)
		return false
	}
	return true
}

func (c *cursor) fixed(n int) []byte {
	if !c.need(int64(n)) {
		return nil
	}
	b := c.buf[:n]
	if _, err := c.r.ReadAt(b, c.pos); err != nil {
		c.fail("%s: read at offset %d: %v", c.what, c.pos, err)
		return nil
	}
	c.pos += int64(n)
	return b
}

func (c *cursor) u8() uint8 {
	b := c.fixed(1)
	if b == nil {
		return 0
	}
	return b[0]
}

func (c *cursor) u16() uint16 {
	b := c.fixed(2)
	if b == nil {
		return 0
	}
	return binary.BigEndian.Uint16(b)
}

func (c *cursor) u32() uint32 {
	b := c.fixed(4)
	if b == nil {
		return 0
	}
	return binary.BigEndian.Uint32(b)
}

func (c *cursor) u64() uint64 {
	b := c.fixed(8)
	if b == nil {
		return 0
	}
	return binary.BigEndian.Uint64(b)
}

func (c *cursor) i16() int16 { return int16(c.u16()) }
func (c *cursor) i32() int32 { return int32(c.u32()) }
func (c *cursor) f64() float64 {
	return math.Float64frombits(c.u64())
}

// length reads a section length: 4 bytes, or 8 when wide (PSB).
func (c *cursor) length(wide bool) int64 {
	if wide {
		v := c.u64()
		if v > math.MaxInt64/2 {
			c.fail("%s: length %d at offset %d is beyond any file", c.what, v, c.pos-8)
			return 0
		}
		return int64(v)
	}
	return int64(c.u32())
}

// sig reads a 4-byte key.
func (c *cursor) sig() string {
	b := c.fixed(4)
	if b == nil {
		return ""
	}
	return string(b)
}

// bytes reads n bytes into a new slice; n is checked against the section
// before anything is allocated.
func (c *cursor) bytes(n int64) []byte {
	if !c.need(n) {
		return nil
	}
	b := make([]byte, n)
	if _, err := c.r.ReadAt(b, c.pos); err != nil {
		c.fail("%s: read %d bytes at offset %d: %v", c.what, n, c.pos, err)
		return nil
	}
	c.pos += n
	return b
}

func (c *cursor) skip(n int64) {
	if c.need(n) {
		c.pos += n
	}
}

// sub returns a cursor over the next n bytes, named what, and moves past
// them.
func (c *cursor) sub(n int64, what string) *cursor {
	s := &cursor{r: c.r, pos: c.pos, end: c.pos, what: what}
	if c.need(n) {
		s.end = c.pos + n
		c.pos += n
	} else {
		s.err = c.err
	}
	return s
}

// pascal reads a Pascal string whose whole (length byte included) is
// padded to a multiple of pad.
func (c *cursor) pascal(pad int) string {
	n := int(c.u8())
	b := c.fixed8(n)
	total := 1 + n
	for total%pad != 0 {
		total++
	}
	// Some writers leave the padding out at the end of a record.
	c.skip(min(int64(total-1-n), c.left()))
	return b
}

func (c *cursor) fixed8(n int) string {
	if !c.need(int64(n)) {
		return ""
	}
	b := make([]byte, n)
	if _, err := c.r.ReadAt(b, c.pos); err != nil {
		c.fail("%s: read at offset %d: %v", c.what, c.pos, err)
		return ""
	}
	c.pos += int64(n)
	return string(b)
}

// unicode reads a length-prefixed UTF-16 string (the count is in code
// units), dropping a trailing NUL.
func (c *cursor) unicode() string {
	n := int64(c.u32())
	if !c.need(2 * n) {
		return ""
	}
	raw := c.bytes(2 * n)
	u := make([]uint16, n)
	for i := range u {
		u[i] = binary.BigEndian.Uint16(raw[2*i:])
	}
	for len(u) > 0 && u[len(u)-1] == 0 {
		u = u[:len(u)-1]
	}
	return string(utf16.Decode(u))
}
