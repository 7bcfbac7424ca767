// Package tracing is how kino takes part in OpenTelemetry traces: the
// provider the standard OTEL_* variables ask for, the W3C trace context kept
// with work that outlives its request (a queued job, a stored webhook), and
// spans started from the span a context already carries.
package tracing

import (
	"context"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/kinohq/kino/server/redact"
)

// Scope names kino's own spans, as the instrumentation scope.
const Scope = "github.com/kinohq/kino"

// Propagator passes trace context as W3C Trace Context (the traceparent
// and tracestate headers). kino names it everywhere rather than rely on the
// global propagator, which is a no-op unless a program sets one.
//
//nolint:gochecknoglobals // read-only: the one W3C propagator, stateless
var Propagator propagation.TextMapPropagator = propagation.TraceContext{}

// Start starts a span as a child of the span in ctx, through that span's own
// provider. So the packages deep in a job's work (fetch, ffmpeg, storage)
// need no provider of their own, and cost nothing when ctx carries no
// recording span: tracing off, or work outside any trace.
func Start(ctx context.Context, name string, opts ...trace.SpanStartOption) (context.Context, trace.Span) {
	return trace.SpanFromContext(ctx).TracerProvider().Tracer(Scope).Start(ctx, name, opts...)
}

// End ends span, marking it failed with err when err is not nil. The
// error's message is recorded with the URLs in it redacted: an error quotes
// the URL it is about, and a URL may be a credential.
func End(span trace.Span, err error) {
	if err != nil {
		err = redact.Error(err)
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}

// Carrier is a trace context as text fields: traceparent, and tracestate
// when there is one. Work that runs later, maybe on another node, keeps it
// to continue the trace of the request that asked for it.
type Carrier = propagation.MapCarrier

// Inject returns the trace context of the span in ctx, or nil when ctx
// carries none.
func Inject(ctx context.Context) Carrier {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return nil
	}
	c := Carrier{}
	Propagator.Inject(ctx, c)
	return c
}

// Extract returns ctx carrying the span context that c holds, as a remote
// parent; ctx unchanged when c holds none.
func Extract(ctx context.Context, c Carrier) context.Context {
	if len(c) == 0 {
		return ctx
	}
	return Propagator.Extract(ctx, c)
}
