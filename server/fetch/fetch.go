// Package fetch is kino's one outbound HTTP client, used for asset downloads
// and webhooks. It refuses private, loopback and link-local addresses unless
// allowed, checking the resolved address of every connection at dial time so
// that neither a redirect nor DNS rebinding can get past it, and it caps
// size, redirects and time.
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
	"time"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/trace"

	"github.com/kinohq/kino/server/metrics"
	"github.com/kinohq/kino/server/tracing"
)

// Options tune a Client. Zero values mean the defaults.
type Options struct {
	// AllowPrivate lets requests reach private, loopback, link-local and
	// other non-public addresses (--allow-private-networks).
	AllowPrivate bool
	// MaxBytes caps a download; default 512 MiB.
	MaxBytes int64
	// Timeout caps a whole request, body included; default 2 minutes.
	Timeout time.Duration
	// MaxRedirects caps the redirects HTTPClient and Download follow;
	// default 5. NoRedirectClient follows none.
	MaxRedirects int
	// UserAgent is sent when a request sets none; default "kino/1".
	UserAgent string
	// TracerProvider makes every request a client span, child of the span
	// in its context, and sends that span's context on (traceparent); nil
	// makes none.
	TracerProvider trace.TracerProvider
	// Metrics counts the bytes Download receives; nil counts nothing.
	Metrics *metrics.Metrics
	// MinRate is the slowest accepted download body in bytes a second,
	// measured over RateWindow: each window must bring MinRate ×
	// RateWindow bytes, or the end of the body, else the download fails
	// as TooSlow, which is not Temporary (--fetch-min-rate,
	// --fetch-rate-window). Zero: no minimum.
	MinRate    int64
	RateWindow time.Duration
	// Local answers, without a request, the URLs that name the node's own
	// files (kino's demo media): the file's bytes and ETag, ok false for
	// every other URL. Nothing is dialled for them, so the guard has
	// nothing to refuse; every other local address is still refused.
	Local func(rawURL string) (data []byte, etag string, ok bool)
	// Unknown says why a URL of the node's own files names nothing (a
	// demo file that does not exist): the download fails with it as a
	// 404, at once, rather than being refused as a loopback address.
	// nil for every other URL.
	Unknown func(rawURL string) error
}

// The defaults of Options.
const (
	defaultMaxBytes     = 512 << 20
	defaultTimeout      = 2 * time.Minute
	defaultMaxRedirects = 5
	defaultUserAgent    = "kino/1"
)

// Client makes guarded requests. It is safe for concurrent use, and its
// connections are shared by Download and both http.Clients.
type Client struct {
	opts     Options
	follow   *http.Client
	noFollow *http.Client
}

// New returns a client that refuses non-public addresses unless
// opts.AllowPrivate is set.
func New(opts Options) *Client {
	check := checkPublic
	if opts.AllowPrivate {
		check = nil
	}
	return newClient(opts, check)
}

// newClient builds a client whose dialer runs check on every resolved
// address; tests pass their own check to tell two loopback servers apart.
func newClient(opts Options, check func(netip.AddrPort) error) *Client {
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = defaultMaxBytes
	}
	if opts.Timeout <= 0 {
		opts.Timeout = defaultTimeout
	}
	if opts.MaxRedirects <= 0 {
		opts.MaxRedirects = defaultMaxRedirects
	}
	if opts.UserAgent == "" {
		opts.UserAgent = defaultUserAgent
	}
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	if check != nil {
		dialer.Control = guard(check)
	}
	transport := &http.Transport{
		// Never a proxy from the environment: the proxy would make the
		// connection, and the guard would only ever see the proxy's address.
		Proxy: nil,
		// TLS and HTTP/2 connections are dialled through DialContext too,
		// so every connection passes the guard.
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          50,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 30 * time.Second,
	}
	// Both clients share the transport, and so its connections.
	traced := func(originOnly bool) http.RoundTripper {
		var rt http.RoundTripper = transport
		if opts.TracerProvider != nil {
			rt = otelhttp.NewTransport(redactSpanURL{next: transport, originOnly: originOnly},
				otelhttp.WithTracerProvider(opts.TracerProvider), otelhttp.WithPropagators(tracing.Propagator))
		}
		if check != nil {
			rt = &literalGuard{next: rt, check: check}
		}
		return &userAgent{next: rt, ua: opts.UserAgent}
	}
	c := &Client{opts: opts}
	c.follow = &http.Client{Transport: traced(false), Timeout: opts.Timeout, CheckRedirect: c.checkRedirect}
	c.noFollow = &http.Client{Transport: traced(true), Timeout: opts.Timeout, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}
	return c
}

// HTTPClient returns the guarded client that follows up to MaxRedirects
// redirects, each dialled through the guard like the first request. A
// refusal comes back as a *url.Error wrapping an *Error of Kind Blocked.
func (c *Client) HTTPClient() *http.Client { return c.follow }

// NoRedirectClient returns the guarded client that never follows a
// redirect: a 3xx comes back as the response. Webhooks use it, so that a
// receiver cannot bounce a signed POST elsewhere; as a webhook URL may be a
// credential as a whole, the spans of its requests keep only the URL's
// origin.
func (c *Client) NoRedirectClient() *http.Client { return c.noFollow }

// hops remembers the last redirect a Download followed or refused, so that
// its errors name a redirect only when there was one: comparing URLs does
// not tell, as Go writes some differently from how they were given (an
// upper-case scheme, a space, a password).
type hops struct{ last string }

type hopsKey struct{}

func (c *Client) checkRedirect(req *http.Request, via []*http.Request) error {
	if h, ok := req.Context().Value(hopsKey{}).(*hops); ok {
		h.last = req.URL.Redacted()
	}
	if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
		return &Error{Kind: BadURL, Err: fmt.Errorf("the server redirected to a %s URL; only http and https are fetched", req.URL.Scheme)}
	}
	// via holds the requests made so far, so its length is the number of
	// redirects this one would make.
	if len(via) > c.opts.MaxRedirects {
		code := 0
		if req.Response != nil {
			code = req.Response.StatusCode
		}
		return &Error{Kind: Status, StatusCode: code, Err: fmt.Errorf("the server redirected more than %d times", c.opts.MaxRedirects)}
	}
	return nil
}

// Download GETs rawURL through HTTPClient and streams the body into the file
// at dstPath, which it creates or truncates, and returns the number of bytes
// written. A non-2xx answer, a body over MaxBytes (by Content-Length or by
// the bytes actually sent) and every other failure of the request are an
// *Error; on any error the file is removed. Errors writing the file are not
// an *Error. Within a trace the download is a span, "fetch".
func (c *Client) Download(ctx context.Context, rawURL, dstPath string) (int64, error) {
	n, _, err := c.DownloadIfChanged(ctx, rawURL, dstPath, Validators{})
	return n, err
}

// Validators are what a server said identifies one version of a file, for
// asking later whether it changed (a conditional GET).
type Validators struct {
	ETag         string
	LastModified string
}

// IsZero reports whether the server gave no validator.
func (v Validators) IsZero() bool { return v == Validators{} }

// ErrNotModified is DownloadIfChanged's answer when the server says the
// file is still the version of the validators given; nothing is written.
var ErrNotModified = errors.New("not modified")

// DownloadIfChanged is Download with a conditional GET: given validators
// of a copy the caller holds, a server that answers 304 Not Modified makes
// it return ErrNotModified and write nothing. It returns the validators of
// what it downloaded.
func (c *Client) DownloadIfChanged(ctx context.Context, rawURL, dstPath string, have Validators) (int64, Validators, error) {
	ctx, span := tracing.Start(ctx, "fetch")
	if span.IsRecording() {
		span.SetAttributes(urlAttr(rawURL))
	}
	n, got, err := c.download(ctx, rawURL, dstPath, have)
	if errors.Is(err, ErrNotModified) {
		endFetch(span, 0, nil)
	} else {
		endFetch(span, n, err)
	}
	return n, got, err
}

func (c *Client) download(ctx context.Context, rawURL, dstPath string, have Validators) (int64, Validators, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return 0, Validators{}, &Error{Kind: BadURL, URL: rawURL, Err: errors.New("not a valid URL")}
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return 0, Validators{}, &Error{Kind: BadURL, URL: rawURL, Err: errors.New("not an absolute http or https URL")}
	}
	if c.opts.Local != nil {
		if data, etag, ok := c.opts.Local(rawURL); ok {
			return c.local(rawURL, data, etag, dstPath, have)
		}
	}
	if c.opts.Unknown != nil {
		if err := c.opts.Unknown(rawURL); err != nil {
			return 0, Validators{}, &Error{Kind: Status, StatusCode: http.StatusNotFound, URL: rawURL, Err: err}
		}
	}
	limit := c.opts.Timeout
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < limit {
		limit = time.Until(dl).Round(time.Millisecond)
	}
	var h hops
	// The rate's watch cuts a slow body through the request's context.
	reqCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	req, err := http.NewRequestWithContext(context.WithValue(reqCtx, hopsKey{}, &h), http.MethodGet, rawURL, nil)
	if err != nil {
		return 0, Validators{}, &Error{Kind: BadURL, URL: rawURL, Err: err}
	}
	if have.ETag != "" {
		req.Header.Set("If-None-Match", have.ETag)
	}
	if have.LastModified != "" {
		req.Header.Set("If-Modified-Since", have.LastModified)
	}
	resp, err := c.follow.Do(req)
	if err != nil {
		return 0, Validators{}, classify(ctx, rawURL, err, limit, h.last)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotModified && !have.IsZero() {
		return 0, have, ErrNotModified
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		e := &Error{Kind: Status, StatusCode: resp.StatusCode, URL: rawURL}
		if h.last != "" {
			e.Err = fmt.Errorf("redirected to %s: the server answered %d %s", h.last, resp.StatusCode, http.StatusText(resp.StatusCode))
		}
		return 0, Validators{}, e
	}
	// Content-Length is checked first to refuse early, but a server may
	// send no length (chunked) or a wrong one, so the bytes are counted too.
	if resp.ContentLength > c.opts.MaxBytes {
		return 0, Validators{}, c.tooLarge(rawURL)
	}
	f, err := os.Create(dstPath)
	if err != nil {
		return 0, Validators{}, fmt.Errorf("create %s: %w", dstPath, err)
	}
	w := &fileWriter{f: f}
	var body io.Reader = resp.Body
	var watch *rateWatch
	if c.opts.MinRate > 0 && c.opts.RateWindow > 0 {
		watch = watchRate(c.opts.MinRate, c.opts.RateWindow, rawURL, cancel)
		body = watch.reader(body)
	}
	n, err := io.Copy(w, io.LimitReader(body, c.opts.MaxBytes+1))
	var slow *Error
	if watch != nil {
		slow = watch.stop()
	}
	// Counted whatever happens next: they crossed the network.
	c.opts.Metrics.Fetched(n)
	cerr := f.Close()
	switch {
	case w.err != nil:
		err = fmt.Errorf("write %s: %w", dstPath, w.err)
	case err != nil && slow != nil && ctx.Err() == nil:
		err = slow
	case err != nil:
		err = classify(ctx, rawURL, err, limit, h.last)
	case cerr != nil:
		err = fmt.Errorf("write %s: %w", dstPath, cerr)
	case n > c.opts.MaxBytes:
		err = c.tooLarge(rawURL)
	}
	if err != nil {
		os.Remove(dstPath)
		return 0, Validators{}, err
	}
	return n, Validators{ETag: resp.Header.Get("ETag"), LastModified: resp.Header.Get("Last-Modified")}, nil
}

// local is a download of one of the node's own files (Options.Local).
func (c *Client) local(rawURL string, data []byte, etag, dstPath string, have Validators) (int64, Validators, error) {
	got := Validators{ETag: etag}
	if have.ETag != "" && have.ETag == etag {
		return 0, have, ErrNotModified
	}
	if int64(len(data)) > c.opts.MaxBytes {
		return 0, Validators{}, c.tooLarge(rawURL)
	}
	if err := os.WriteFile(dstPath, data, 0o600); err != nil {
		os.Remove(dstPath)
		return 0, Validators{}, fmt.Errorf("write %s: %w", dstPath, err)
	}
	return int64(len(data)), got, nil
}

func (c *Client) tooLarge(rawURL string) error {
	return &Error{Kind: TooLarge, URL: rawURL, Err: fmt.Errorf("the file is larger than the limit of %d bytes (--max-asset-bytes)", c.opts.MaxBytes)}
}

// fileWriter remembers a write error, so that Download can tell a full disk
// (kino's problem) from a broken download (the server's).
type fileWriter struct {
	f   *os.File
	err error
}

func (w *fileWriter) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	if err != nil {
		w.err = err
	}
	return n, err
}

// userAgent sets the client's User-Agent on requests that carry none, so
// that receivers can tell kino's traffic apart from Go's default.
type userAgent struct {
	next http.RoundTripper
	ua   string
}

func (t *userAgent) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get("User-Agent") == "" {
		// A RoundTripper must not change the caller's request.
		req = req.Clone(req.Context())
		req.Header.Set("User-Agent", t.ua)
	}
	return t.next.RoundTrip(req)
}

// CloseIdleConnections lets http.Client.CloseIdleConnections reach the
// transport through the wrapper.
func (t *userAgent) CloseIdleConnections() {
	if c, ok := t.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// IsHTTPURL reports whether s is an absolute http or https URL that a
// download could be asked for (at most 4 KiB long).
func IsHTTPURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && len(s) <= 4096
}
