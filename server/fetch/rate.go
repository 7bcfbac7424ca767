package fetch

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"
)

// rateWatch cuts a download whose body arrives slower than a minimum rate:
// each window must bring rate × window bytes (or the end of the body), else
// the request is cancelled with a TooSlow error as its cause. A timer, not a
// check between reads, is what cuts a server that sends nothing at all.
type rateWatch struct {
	rate   int64
	window time.Duration
	quota  int64
	url    string
	cancel context.CancelCauseFunc

	mu    sync.Mutex
	timer *time.Timer
	since time.Time // start of the current window
	got   int64     // bytes of the current window
	done  bool
	slow  *Error
}

// watchRate starts watching a body that begins now; stop ends the watch.
func watchRate(rate int64, window time.Duration, rawURL string, cancel context.CancelCauseFunc) *rateWatch {
	w := &rateWatch{rate: rate, window: window, url: rawURL, cancel: cancel,
		quota: max(1, rate*int64(window)/int64(time.Second)), since: time.Now()}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.timer = time.AfterFunc(window, w.expire)
	return w
}

// reader counts what body brings.
func (w *rateWatch) reader(body io.Reader) io.Reader { return &countingReader{r: body, w: w} }

type countingReader struct {
	r io.Reader
	w *rateWatch
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	w := c.w
	w.mu.Lock()
	w.got += int64(n)
	if w.got >= w.quota {
		// The window's quota came: a new window starts; the timer
		// finds it when it fires and waits for its end.
		w.got, w.since = 0, time.Now()
	}
	w.mu.Unlock()
	return n, err
}

// expire ends a window: cuts the download if the window's quota did not
// come, or waits for the end of the window that started since.
func (w *rateWatch) expire() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return
	}
	if left := w.window - time.Since(w.since); left > 0 {
		w.timer.Reset(left)
		return
	}
	w.slow = &Error{Kind: TooSlow, URL: w.url, Err: fmt.Errorf("the server sent %d bytes in %s, slower than the minimum of %d bytes/s (--fetch-min-rate over --fetch-rate-window)", w.got, w.window, w.rate)}
	w.done = true
	w.cancel(w.slow)
}

// stop ends the watch and returns the error it cut the download with, nil
// if it did not.
func (w *rateWatch) stop() *Error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.done = true
	w.timer.Stop()
	return w.slow
}
