package jobs

import (
	"context"

	"go.opentelemetry.io/otel/trace"

	"github.com/kinohq/kino/server/tracing"
)

// MetaTraceContext is the metadata key of the W3C trace context (traceparent,
// tracestate) of the request that inserted the job.
const MetaTraceContext = "traceContext"

// traceOf is the trace context stored in a job's metadata; nil when it was
// inserted outside any trace.
func traceOf(meta map[string]any) tracing.Carrier {
	// Metadata is JSON, so the fields come back as a map of any.
	fields, _ := meta[MetaTraceContext].(map[string]any)
	if len(fields) == 0 {
		return nil
	}
	c := make(tracing.Carrier, len(fields))
	for k, v := range fields {
		if s, ok := v.(string); ok {
			c[k] = s
		}
	}
	return c
}

// TraceContext returns ctx placed in j's trace: unchanged when its span
// already belongs to that trace (an attempt of j), otherwise carrying the
// context of the request that inserted j as parent (a cancel, a rescue).
// What runs on j's behalf after it ended, such as its webhook, so stays in
// the trace of the request that made it.
func TraceContext(ctx context.Context, j *Job) context.Context {
	stored := traceOf(j.Metadata)
	if stored == nil {
		return ctx
	}
	parent := trace.SpanContextFromContext(tracing.Extract(context.Background(), stored))
	if !parent.IsValid() {
		return ctx
	}
	if cur := trace.SpanContextFromContext(ctx); cur.IsValid() && cur.TraceID() == parent.TraceID() {
		return ctx
	}
	return trace.ContextWithRemoteSpanContext(ctx, parent)
}
