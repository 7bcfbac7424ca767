package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"
)

// Kind says what went wrong with a request.
type Kind int

// The kinds of fetch errors.
const (
	// BadURL means the URL is not an absolute http or https URL, or a
	// redirect leads to one that is not.
	BadURL Kind = iota + 1
	// Blocked means the host resolves to an address kino refuses (private,
	// loopback, link-local, …) and private networks are not allowed.
	Blocked
	// Status means the server answered with a status that is not 2xx, or
	// kept redirecting past the limit; StatusCode holds the last status.
	Status
	// TooLarge means the body is larger than Options.MaxBytes.
	TooLarge
	// Timeout means no complete answer came within the time limit.
	Timeout
	// Network means the connection failed or broke (refused, reset, DNS,
	// TLS), or the caller cancelled the request.
	Network
	// TooSlow means the body arrived slower than Options.MinRate: the
	// source's to mend, not a failure that passes by itself.
	TooSlow
)

// String names the kind, for logs.
func (k Kind) String() string {
	switch k {
	case BadURL:
		return "bad URL"
	case Blocked:
		return "blocked"
	case Status:
		return "status"
	case TooLarge:
		return "too large"
	case Timeout:
		return "timeout"
	case Network:
		return "network"
	case TooSlow:
		return "too slow"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Error is a failed request, with a message a user can act on. Download
// returns it for every failure of the request itself; the guarded
// http.Clients return it wrapped (in a *url.Error) when the guard refuses an
// address or a redirect, so errors.As finds it either way.
type Error struct {
	Kind Kind
	// StatusCode is the HTTP status for Kind Status, else 0.
	StatusCode int
	// URL is the URL that was requested; empty when the error comes from
	// inside a guarded http.Client, whose *url.Error names the URL.
	URL string
	// Err is the cause, worded for the person who supplied the URL.
	Err error
}

// Error returns "fetch URL: reason", the reason written for the person who
// supplied the URL.
func (e *Error) Error() string {
	var reason string
	switch {
	case e.Err != nil:
		reason = e.Err.Error()
	case e.Kind == Status:
		reason = fmt.Sprintf("the server answered %d %s", e.StatusCode, http.StatusText(e.StatusCode))
	default:
		reason = e.Kind.String()
	}
	if e.URL == "" {
		return reason
	}
	return fmt.Sprintf("fetch %s: %s", e.URL, reason)
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Temporary reports whether the same request may succeed later: network
// failures, time-outs, 5xx and 429 answers.
func (e *Error) Temporary() bool {
	switch e.Kind {
	case Network, Timeout:
		return true
	case Status:
		return e.StatusCode >= 500 || e.StatusCode == http.StatusTooManyRequests
	}
	return false
}

// classify turns an error of a guarded http.Client into an *Error about
// rawURL. limit is the time limit the request ran under, for the message;
// hop is where the last redirect led, empty when nothing redirected.
func classify(ctx context.Context, rawURL string, err error, limit time.Duration, hop string) *Error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	out := &Error{Kind: Network, URL: rawURL, Err: err}
	var fe *Error
	var ne net.Error
	switch {
	case errors.Is(ctx.Err(), context.Canceled):
		// First: the error may be the cancel's cause, another download's
		// *Error, which is not this request's failure.
		out.Err = cancelled{err}
	case errors.As(err, &fe):
		out.Kind, out.StatusCode, out.Err = fe.Kind, fe.StatusCode, fe.Err
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		out.Kind = Timeout
		out.Err = fmt.Errorf("no complete answer within %s: %w", limit, context.DeadlineExceeded)
	case errors.Is(err, io.EOF):
		out.Err = fmt.Errorf("the server closed the connection without answering: %w", err)
	}
	if hop != "" && out.Err != nil {
		out.Err = fmt.Errorf("redirected to %s: %w", hop, out.Err)
	}
	return out
}
