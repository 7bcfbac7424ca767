package fetch

import (
	"errors"
	"net/http"
	"net/url"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
)

// redacted is rawURL as traces may keep it: see redactURL.
func redacted(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "(not a valid URL)"
	}
	return redactURL(u, false)
}

// redactURL is u as traces may keep it: without user info or fragment, and
// with every query value replaced, since signed URLs carry their
// credentials there. With originOnly the path goes too, for URLs that are
// credentials as a whole: webhook URLs (Slack's and Discord's carry their
// token in the path).
func redactURL(u *url.URL, originOnly bool) string {
	if originOnly {
		return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/REDACTED"}).String()
	}
	r := *u
	r.User = nil
	r.Fragment, r.RawFragment = "", ""
	if r.RawQuery != "" {
		q := r.Query()
		for k := range q {
			q[k] = []string{"REDACTED"}
		}
		r.RawQuery = q.Encode()
	}
	return r.String()
}

func urlAttr(rawURL string) attribute.KeyValue { return semconv.URLFull(redacted(rawURL)) }

// redactSpanURL keeps secrets out of the HTTP client span it runs inside:
// it replaces the url.full the span records with its redacted form, and the
// error of a cancelled request, which the span records too, with one that
// says only that.
type redactSpanURL struct {
	next       http.RoundTripper
	originOnly bool
}

func (t redactSpanURL) RoundTrip(req *http.Request) (*http.Response, error) {
	if span := trace.SpanFromContext(req.Context()); span.IsRecording() {
		span.SetAttributes(semconv.URLFull(redactURL(req.URL, t.originOnly)))
	}
	resp, err := t.next.RoundTrip(req)
	if err != nil && req.Context().Err() != nil {
		// A cancelled request fails with its context's cause, which may be
		// the failure of another download of the same job, its URL as
		// given and all.
		err = cancelled{err}
	}
	return resp, err
}

// cancelled is the error of a cancelled request, worded without its cause;
// errors.Is and errors.As still reach the cause.
type cancelled struct{ cause error }

func (cancelled) Error() string   { return "request cancelled" }
func (c cancelled) Unwrap() error { return c.cause }

// endFetch ends the span of a download. Its status names the kind of
// failure, not the message, which holds the URL as given.
func endFetch(span trace.Span, n int64, err error) {
	defer span.End()
	if err == nil {
		span.SetAttributes(attribute.Int64("kino.fetch.bytes", n))
		return
	}
	var fe *Error
	if !errors.As(err, &fe) {
		span.SetStatus(codes.Error, "the download could not be written")
		return
	}
	if fe.StatusCode != 0 {
		span.SetAttributes(semconv.HTTPResponseStatusCode(fe.StatusCode))
	}
	span.SetStatus(codes.Error, fe.Kind.String())
}
