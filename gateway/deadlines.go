package gateway

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/kinohq/kino/server/apierr"
)

// Deadlines bounds how slowly a client may send a request body or take a
// response. A flat read or write timeout would cut a 100 MiB upload on a
// modest link and every watch stream, so both are rates instead.
type Deadlines struct {
	// BodyMinRate is the slowest accepted request body in bytes per second,
	// measured over BodyRateWindow: each window must bring BodyMinRate ×
	// BodyRateWindow bytes, or the end of the body. Zero: no limit.
	BodyMinRate    int64
	BodyRateWindow time.Duration
	// WriteTimeout bounds each write of a response: a client that takes
	// longer to accept one is cut. Streams may stay quiet for longer;
	// only a write in progress is timed. Zero: no limit.
	WriteTimeout time.Duration
}

// errBodyTooSlow is what reads of a body return once it fell below the rate.
type errBodyTooSlow struct {
	rate   int64
	window time.Duration
}

func (e *errBodyTooSlow) Error() string {
	return fmt.Sprintf("the request body arrived slower than the minimum of %d bytes/s over %s and was cut", e.rate, e.window)
}

// writeBodyError answers a failed read of the request body: 408 when it was
// too slow, otherwise VALIDATION_ERROR with message.
func writeBodyError(w http.ResponseWriter, err error, message string) {
	var slow *errBodyTooSlow
	if errors.As(err, &slow) {
		writeError(w, apierr.RequestTimeout, slow.Error())
		return
	}
	writeError(w, apierr.Validation, message)
}

// withDeadlines applies d to every request through the connection's
// deadlines (http.ResponseController), so it holds for any handler,
// streaming or not.
func withDeadlines(next http.Handler, d Deadlines) http.Handler {
	if d.BodyMinRate <= 0 && d.WriteTimeout <= 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		if d.BodyMinRate > 0 && d.BodyRateWindow > 0 && r.Body != nil && r.Body != http.NoBody {
			if rc.SetReadDeadline(time.Now().Add(d.BodyRateWindow)) == nil {
				quota := max(1, d.BodyMinRate*int64(d.BodyRateWindow)/int64(time.Second))
				// On a copy of the request: net/http keeps the original,
				// whose body it knows, and so answers a refusal of a large
				// unread body at once (closing the connection) instead of
				// reading up to 256 KiB of it first, waiting on the client.
				r = r.WithContext(r.Context())
				r.Body = &minRateBody{ReadCloser: r.Body, rc: rc, quota: quota, window: d.BodyRateWindow,
					slow: &errBodyTooSlow{rate: d.BodyMinRate, window: d.BodyRateWindow}}
			}
		}
		if d.WriteTimeout > 0 {
			// The connection keeps the last deadline of the request before
			// it; this one's writes start untimed until they happen.
			if rc.SetWriteDeadline(time.Time{}) == nil {
				dw := &deadlineWriter{ResponseWriter: w, rc: rc, timeout: d.WriteTimeout}
				// The server flushes what is buffered after the handler returns.
				defer dw.extend()
				w = dw
			}
		}
		next.ServeHTTP(w, r)
	})
}

// minRateBody moves the connection's read deadline one window ahead each
// time a window's quota of bytes has arrived, so a body that keeps the rate
// never meets it and one that falls behind does. The deadline, not a timer
// checked between reads, is what cuts a client that sends nothing at all.
type minRateBody struct {
	io.ReadCloser
	rc     *http.ResponseController
	quota  int64
	window time.Duration
	got    int64
	slow   *errBodyTooSlow
	err    error
}

func (b *minRateBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	n, err := b.ReadCloser.Read(p)
	b.got += int64(n)
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		b.err = b.slow
		return n, b.err
	case errors.Is(err, io.EOF):
		// The handler may run long after the body ended; the server's
		// background read of the idle connection must not time out then.
		_ = b.rc.SetReadDeadline(time.Time{})
	case b.got >= b.quota:
		b.got = 0
		_ = b.rc.SetReadDeadline(time.Now().Add(b.window))
	}
	return n, err
}

// deadlineWriter gives each write of a response WriteTimeout to complete.
type deadlineWriter struct {
	http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
}

func (w *deadlineWriter) extend() { _ = w.rc.SetWriteDeadline(time.Now().Add(w.timeout)) }

func (w *deadlineWriter) WriteHeader(code int) {
	w.extend()
	w.ResponseWriter.WriteHeader(code)
}

func (w *deadlineWriter) Write(p []byte) (int, error) {
	w.extend()
	return w.ResponseWriter.Write(p)
}

// Flush lets watch streams and grpc-gateway flush through the wrapper.
func (w *deadlineWriter) Flush() {
	w.extend()
	_ = w.rc.Flush()
}

// Unwrap lets http.ResponseController reach the connection.
func (w *deadlineWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
