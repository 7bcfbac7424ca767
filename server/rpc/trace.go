package rpc

import (
	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc/filters"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"

	"github.com/kinohq/kino/server/tracing"
)

// traced is which calls become spans: not health checks, which load
// balancers make every few seconds, nor reflection.
//
//nolint:gochecknoglobals // read-only: which calls become spans, a stateless filter
var traced = filters.None(
	filters.HealthCheck(),
	filters.FullMethodName("/kino.render.v1.RenderService/Health"),
	filters.ServicePrefix("grpc.reflection."),
)

// ServerTraces makes every call to the server a span of tp, continuing the
// W3C trace context (traceparent) the caller sends.
func ServerTraces(tp trace.TracerProvider) grpc.ServerOption {
	return grpc.StatsHandler(otelgrpc.NewServerHandler(
		otelgrpc.WithTracerProvider(tp), otelgrpc.WithPropagators(tracing.Propagator), otelgrpc.WithFilter(traced)))
}

// ClientTraces makes every call over a connection a span of tp and sends
// its trace context with it: the gateway's calls, so that a REST request
// and the gRPC call it becomes are one trace.
func ClientTraces(tp trace.TracerProvider) grpc.DialOption {
	return grpc.WithStatsHandler(otelgrpc.NewClientHandler(
		otelgrpc.WithTracerProvider(tp), otelgrpc.WithPropagators(tracing.Propagator), otelgrpc.WithFilter(traced)))
}
