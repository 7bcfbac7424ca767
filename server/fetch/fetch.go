// Package fetch is kino's one outbound HTTP client, used for asset downloads
// and webhooks. It refuses private, loopback and link-local addresses (checked
// on the resolved address at dial time, so DNS tricks cannot bypass it) unless
// allowed, and caps size, redirects and time.
package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"syscall"
	"time"
)

// Options tune the client.
type Options struct {
	// AllowPrivate lets requests reach private, loopback and link-local addresses.
	AllowPrivate bool
	// MaxBytes caps a download; default 512 MiB.
	MaxBytes int64
	// Timeout caps a whole request, body included; default 2 minutes.
	Timeout time.Duration
	// MaxRedirects caps the redirects a download follows; default 5.
	MaxRedirects int
	UserAgent    string
}

// Kind says what went wrong with a request.
type Kind int

// The kinds of fetch errors.
const (
	BadURL Kind = iota + 1
	Blocked
	Status
	TooLarge
	Timeout
	Network
)

// Error is a failed request, with a message a user can act on.
type Error struct {
	Kind       Kind
	StatusCode int
	URL        string
	Err        error
}

func (e *Error) Error() string {
	switch e.Kind {
	case Status:
		return fmt.Sprintf("fetch %s: the server answered %d %s", e.URL, e.StatusCode, http.StatusText(e.StatusCode))
	default:
		return fmt.Sprintf("fetch %s: %v", e.URL, e.Err)
	}
}

func (e *Error) Unwrap() error { return e.Err }

// Temporary reports whether the same request may succeed later.
func (e *Error) Temporary() bool {
	switch e.Kind {
	case Network, Timeout:
		return true
	case Status:
		return e.StatusCode >= 500 || e.StatusCode == http.StatusTooManyRequests
	}
	return false
}

// errBlocked is returned by the dialer for a refused address.
type blockedError struct{ addr netip.Addr }

func (e *blockedError) Error() string {
	return fmt.Sprintf("address %s is private, loopback or link-local; kino refuses such addresses unless --allow-private-networks is set", e.addr)
}

// Client makes guarded requests.
type Client struct {
	opts      Options
	transport *http.Transport
}

// New returns a client.
func New(opts Options) *Client {
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = 512 << 20
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 2 * time.Minute
	}
	if opts.MaxRedirects <= 0 {
		opts.MaxRedirects = 5
	}
	if opts.UserAgent == "" {
		opts.UserAgent = "kino/1"
	}
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	if !opts.AllowPrivate {
		dialer.Control = func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("unexpected dial address %q", address)
			}
			if blocked(ap.Addr()) {
				return &blockedError{addr: ap.Addr().Unmap()}
			}
			return nil
		}
	}
	return &Client{opts: opts, transport: &http.Transport{
		// Never a proxy from the environment: it would see every URL and
		// hide the address that the guard must check.
		Proxy:                 nil,
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          50,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 30 * time.Second,
	}}
}

// HTTPClient is a guarded client that follows up to MaxRedirects redirects,
// each checked like the first request.
func (c *Client) HTTPClient() *http.Client {
	return &http.Client{Transport: c.transport, Timeout: c.opts.Timeout, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) > c.opts.MaxRedirects {
			return fmt.Errorf("more than %d redirects", c.opts.MaxRedirects)
		}
		if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
			return fmt.Errorf("redirect to a %s URL", req.URL.Scheme)
		}
		return nil
	}}
}

// NoRedirectClient is a guarded client that returns redirects as they are.
func (c *Client) NoRedirectClient() *http.Client {
	return &http.Client{Transport: c.transport, Timeout: c.opts.Timeout, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}
}

// Download fetches rawURL into the file at dst and returns its size.
func (c *Client) Download(ctx context.Context, rawURL, dst string) (int64, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return 0, &Error{Kind: BadURL, URL: rawURL, Err: errors.New("not an absolute http or https URL")}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return 0, &Error{Kind: BadURL, URL: rawURL, Err: err}
	}
	req.Header.Set("User-Agent", c.opts.UserAgent)
	resp, err := c.HTTPClient().Do(req)
	if err != nil {
		return 0, c.classify(rawURL, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return 0, &Error{Kind: Status, StatusCode: resp.StatusCode, URL: rawURL}
	}
	if resp.ContentLength > c.opts.MaxBytes {
		return 0, c.tooLarge(rawURL)
	}
	f, err := os.Create(dst)
	if err != nil {
		return 0, fmt.Errorf("create %s: %w", dst, err)
	}
	n, err := io.Copy(f, io.LimitReader(resp.Body, c.opts.MaxBytes+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(dst)
		return 0, c.classify(rawURL, err)
	}
	if n > c.opts.MaxBytes {
		os.Remove(dst)
		return 0, c.tooLarge(rawURL)
	}
	return n, nil
}

func (c *Client) tooLarge(rawURL string) error {
	return &Error{Kind: TooLarge, URL: rawURL, Err: fmt.Errorf("the file is larger than the limit of %d bytes (--max-asset-bytes)", c.opts.MaxBytes)}
}

func (c *Client) classify(rawURL string, err error) error {
	var be *blockedError
	var ne net.Error
	switch {
	case errors.As(err, &be):
		return &Error{Kind: Blocked, URL: rawURL, Err: be}
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return &Error{Kind: Timeout, URL: rawURL, Err: fmt.Errorf("no complete answer within %s", c.opts.Timeout)}
	default:
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return &Error{Kind: Network, URL: rawURL, Err: err}
	}
}
