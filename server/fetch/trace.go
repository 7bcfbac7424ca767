package fetch

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/kinohq/kino/server/redact"
)

// redactURL is u as traces may keep it (see package redact): with its
// query values replaced, or with originOnly its origin alone, for URLs that
// are credentials as a whole: webhook URLs (Slack's and Discord's carry
// their token in the path).
func redactURL(u *url.URL, originOnly bool) string {
	if originOnly {
		return redact.Origin(u)
	}
	return redact.URL(u)
}

func urlAttr(rawURL string) attribute.KeyValue { return semconv.URLFull(redact.RawURL(rawURL)) }

// redactSpanURL keeps secrets out of the HTTP client span it runs inside:
// it replaces the url.full the span records with its redacted form, and the
// error of a cancelled request, which the span records too, with one that
// says only that: before the answer came, and while its body is read (the
// span records a failed read of the body as its status).
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
	if resp != nil && resp.Body != nil {
		resp.Body = cancellableBody{ReadCloser: resp.Body, ctx: req.Context()}
	}
	return resp, err
}

// cancellableBody words the error of a read that fails because the
// request was cancelled as cancelled does: net/http fails the read with the
// context's cause, the failure of another download of the same job.
type cancellableBody struct {
	io.ReadCloser
	ctx context.Context
}

func (b cancellableBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF && b.ctx.Err() != nil {
		err = cancelled{err}
	}
	return n, err
}

// cancelled is the error of a cancelled request, worded without its cause;
// errors.Is and errors.As still reach the cause, and it is a
// context.Canceled whatever the cause.
type cancelled struct{ cause error }

func (cancelled) Error() string        { return "request cancelled" }
func (c cancelled) Unwrap() error      { return c.cause }
func (cancelled) Is(target error) bool { return target == context.Canceled }

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
