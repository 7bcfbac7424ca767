package gateway

import (
	"net/http"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/kinohq/kino/server/tracing"
)

// traced makes every request but health checks a server span of tp,
// continuing the W3C trace context (traceparent) the client sends. The span
// is named by method and route, "POST /api/render", once the route is
// known: by routed for routes' own patterns, by gatewayRoute for
// grpc-gateway's.
func traced(next http.Handler, tp trace.TracerProvider) http.Handler {
	// A copy of the request goes on, so that the pattern the mux sets on it
	// ("/" for all of grpc-gateway's) stays out of sight of otelhttp, which
	// would rename the span after it.
	named := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(r.Context()))
	})
	return otelhttp.NewHandler(named, "kino",
		otelhttp.WithTracerProvider(tp),
		otelhttp.WithPropagators(tracing.Propagator),
		otelhttp.WithFilter(func(r *http.Request) bool { return r.URL.Path != "/api/health" }),
	)
}

// nameSpan names the request's server span after its route; without
// tracing the span is a no-op.
func nameSpan(r *http.Request, route string) {
	span := trace.SpanFromContext(r.Context())
	span.SetName(r.Method + " " + route)
	span.SetAttributes(semconv.HTTPRoute(route))
}
