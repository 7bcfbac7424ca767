package ffmpeg

import (
	"context"
	"errors"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/kinohq/kino/server/redact"
	"github.com/kinohq/kino/server/tracing"
)

// How a probe read the file, as the span's kino.probe.reader.
const (
	readerKino    = "kino"    // the container's headers, read by ProbeFast
	readerFFprobe = "ffprobe" // an ffprobe process
)

func readerAttr(reader string) attribute.KeyValue {
	return attribute.String("kino.probe.reader", reader)
}

func startProbe(ctx context.Context, reader string) (context.Context, trace.Span) {
	return tracing.Start(ctx, "probe", trace.WithAttributes(readerAttr(reader)))
}

// endProbe ends a probe's span with what it found, and returns its result.
func endProbe(span trace.Span, info *Info, err error) (*Info, error) {
	if err != nil {
		tracing.End(span, err)
		return nil, err
	}
	span.SetAttributes(attribute.String("kino.probe.format", info.FormatName), attribute.Float64("kino.probe.duration", info.Duration))
	span.End()
	return info, nil
}

// endRun ends the span of an ffmpeg run; a failure's status is the line
// where ffmpeg said what went wrong, not its whole error output.
func endRun(span trace.Span, err error) {
	var fe *Error
	if errors.As(err, &fe) {
		span.SetAttributes(semconv.ProcessExitCode(fe.ExitCode))
		// ffmpeg names its inputs in its errors; kino's are local files,
		// but a line is redacted like every other error a span keeps.
		span.SetStatus(codes.Error, redact.Text(fe.LastLine()))
		span.End()
		return
	}
	tracing.End(span, err)
}
