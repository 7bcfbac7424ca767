package upload

import (
	"errors"
	"fmt"
	"io"

	"google.golang.org/grpc/status"

	mediav1 "github.com/kinohq/kino/gen/kino/media/v1"
)

// chunks reads an upload stream's bytes as an io.Reader, one message at a
// time, and fails once more than limit bytes have come.
type chunks struct {
	stream mediav1.UploadService_UploadFileServer
	limit  int64
	n      int64
	buf    []byte
	eof    bool
}

// overLimit is a body that passed the limit after n bytes.
type overLimit struct{ n int64 }

func (e *overLimit) Error() string {
	return fmt.Sprintf("the body passed the limit after %d bytes", e.n)
}

func (c *chunks) Read(p []byte) (int, error) {
	for len(c.buf) == 0 {
		if c.eof {
			return 0, io.EOF
		}
		msg, err := c.stream.Recv()
		if errors.Is(err, io.EOF) {
			c.eof = true
			return 0, io.EOF
		}
		if err != nil {
			return 0, err
		}
		c.buf = msg.GetChunk()
		c.n += int64(len(c.buf))
		if c.n > c.limit {
			return 0, &overLimit{n: c.n}
		}
	}
	n := copy(p, c.buf)
	c.buf = c.buf[n:]
	return n, nil
}

// WriteTo writes every message's bytes to w as they come, one write a
// message (io.Copy would cut them into 32 KiB writes, a system call each
// on a local bucket).
func (c *chunks) WriteTo(w io.Writer) (int64, error) {
	var total int64
	write := func(p []byte) error {
		n, err := w.Write(p)
		total += int64(n)
		return err
	}
	if len(c.buf) > 0 {
		if err := write(c.buf); err != nil {
			return total, err
		}
		c.buf = nil
	}
	for !c.eof {
		msg, err := c.stream.Recv()
		if errors.Is(err, io.EOF) {
			c.eof = true
			break
		}
		if err != nil {
			return total, err
		}
		chunk := msg.GetChunk()
		c.n += int64(len(chunk))
		if c.n > c.limit {
			return total, &overLimit{n: c.n}
		}
		if err := write(chunk); err != nil {
			return total, err
		}
	}
	return total, nil
}

// head reads the first n bytes (fewer when the body is shorter): what the
// content type is sniffed from.
func (c *chunks) head(n int) ([]byte, error) {
	buf := make([]byte, n)
	got, err := io.ReadFull(c, buf)
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		err = nil
	}
	return buf[:got], err
}

// statusOf is the gRPC status err carries, if any.
func statusOf(err error) (*status.Status, bool) {
	return status.FromError(err)
}
