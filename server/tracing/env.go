package tracing

import (
	"context"
	"fmt"
	"os"
	"strings"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
)

// FromEnv returns the tracer provider that the standard OpenTelemetry
// variables ask for, or nil, tracing off, when they ask for none. Spans are
// exported over OTLP only when OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set, and not even then with
// OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none.
// OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL chooses grpc or http/protobuf (the
// default). The rest is read where the SDK reads it: headers, timeout,
// certificates and compression by the exporter, OTEL_TRACES_SAMPLER and
// OTEL_BSP_* by the provider, OTEL_SERVICE_NAME (default "kino") and
// OTEL_RESOURCE_ATTRIBUTES by the resource. Shut the provider down on exit,
// so that what it buffered is sent.
func FromEnv(ctx context.Context) (*sdktrace.TracerProvider, error) {
	if strings.EqualFold(os.Getenv("OTEL_SDK_DISABLED"), "true") ||
		strings.EqualFold(os.Getenv("OTEL_TRACES_EXPORTER"), "none") ||
		os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") == "" && os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") == "" {
		return nil, nil
	}
	if e := os.Getenv("OTEL_TRACES_EXPORTER"); e != "" && !strings.EqualFold(e, "otlp") {
		return nil, fmt.Errorf("OTEL_TRACES_EXPORTER=%s: kino exports traces over OTLP only (otlp, or none for no traces)", e)
	}
	protocol := os.Getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
	if protocol == "" {
		protocol = os.Getenv("OTEL_EXPORTER_OTLP_PROTOCOL")
	}
	var (
		exp sdktrace.SpanExporter
		err error
	)
	switch protocol {
	case "", "http/protobuf":
		exp, err = otlptracehttp.New(ctx)
	case "grpc":
		exp, err = otlptracegrpc.New(ctx)
	default:
		return nil, fmt.Errorf("OTLP protocol %q: kino sends traces with grpc or http/protobuf", protocol)
	}
	if err != nil {
		return nil, fmt.Errorf("create OTLP trace exporter: %w", err)
	}
	// The variables come last, so that OTEL_SERVICE_NAME overrides the
	// default name.
	res, err := resource.New(ctx,
		resource.WithAttributes(semconv.ServiceName("kino")),
		resource.WithTelemetrySDK(),
		resource.WithHost(),
		resource.WithProcessPID(),
		resource.WithFromEnv(),
	)
	if err != nil {
		return nil, fmt.Errorf("describe kino for traces: %w", err)
	}
	return sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res)), nil
}
