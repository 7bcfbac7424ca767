package gateway

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	"google.golang.org/protobuf/proto"

	mediav1 "github.com/kinohq/kino/gen/kino/media/v1"
	renderv1 "github.com/kinohq/kino/gen/kino/render/v1"
)

// watchHandler serves WatchRender over HTTP. With Accept: text/event-stream
// it speaks Server-Sent Events, which a browser's EventSource reads: one
// event "job" per record, data the record's JSON. Otherwise it writes one
// JSON object {"result": record} a line, as grpc-gateway streams do. An
// error before the first record is the usual envelope with its status; an
// error after it is a final event "error" (or line {"error": {...}}).
type watchHandler struct {
	// open starts the stream of the job named in the request; the records
	// it returns are written as they are.
	open func(ctx context.Context, r *http.Request) (recv func() (proto.Message, error), err error)
	log  *slog.Logger
}

// opener adapts one server-streaming RPC to the handler: start opens the
// stream for the request, and record picks the record out of each message.
func opener[Resp any](start func(context.Context, *http.Request) (grpc.ServerStreamingClient[Resp], error), record func(*Resp) proto.Message) func(context.Context, *http.Request) (func() (proto.Message, error), error) {
	return func(ctx context.Context, r *http.Request) (func() (proto.Message, error), error) {
		stream, err := start(ctx, r)
		if err != nil {
			return nil, err
		}
		return func() (proto.Message, error) {
			m, err := stream.Recv()
			if err != nil {
				return nil, err
			}
			return record(m), nil
		}, nil
	}
}

func watchRender(c renderv1.RenderServiceClient) func(context.Context, *http.Request) (func() (proto.Message, error), error) {
	return opener(func(ctx context.Context, r *http.Request) (grpc.ServerStreamingClient[renderv1.WatchRenderResponse], error) {
		return c.WatchRender(ctx, &renderv1.WatchRenderRequest{JobId: r.PathValue("id")})
	}, func(m *renderv1.WatchRenderResponse) proto.Message { return m.GetJob() })
}

func watchJob(c mediav1.JobServiceClient) func(context.Context, *http.Request) (func() (proto.Message, error), error) {
	return opener(func(ctx context.Context, r *http.Request) (grpc.ServerStreamingClient[mediav1.WatchJobResponse], error) {
		return c.WatchJob(ctx, &mediav1.WatchJobRequest{Id: r.PathValue("id")})
	}, func(m *mediav1.WatchJobResponse) proto.Message { return m.GetData() })
}

func watchRun(c mediav1.PipelineServiceClient) func(context.Context, *http.Request) (func() (proto.Message, error), error) {
	return opener(func(ctx context.Context, r *http.Request) (grpc.ServerStreamingClient[mediav1.WatchPipelineRunResponse], error) {
		return c.WatchPipelineRun(ctx, &mediav1.WatchPipelineRunRequest{Id: r.PathValue("id"), RunId: r.PathValue("run")})
	}, func(m *mediav1.WatchPipelineRunResponse) proto.Message { return m.GetData() })
}

func (h *watchHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if v := r.Header.Get("Authorization"); v != "" {
		ctx = metadata.AppendToOutgoingContext(ctx, "authorization", v)
	}
	recv, err := h.open(ctx, r)
	if err != nil {
		writeStatusError(ctx, nil, nil, w, r, err)
		return
	}
	first, err := recv()
	if err != nil {
		writeStatusError(ctx, nil, nil, w, r, err)
		return
	}
	sse := acceptsEventStream(r)
	if sse {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
		// Proxies such as nginx would otherwise hold events back.
		w.Header().Set("X-Accel-Buffering", "no")
	} else {
		w.Header().Set("Content-Type", "application/x-ndjson")
	}
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)

	write := func(event string, body []byte) error {
		var err error
		if sse {
			_, err = io.WriteString(w, "event: "+event+"\ndata: ")
			if err == nil {
				_, err = w.Write(body)
			}
			if err == nil {
				_, err = io.WriteString(w, "\n\n")
			}
		} else {
			key := "result"
			if event == "error" {
				key = "error"
			}
			_, err = io.WriteString(w, `{"`+key+`":`)
			if err == nil {
				_, err = w.Write(body)
			}
			if err == nil {
				_, err = io.WriteString(w, "}\n")
			}
		}
		if flusher != nil {
			flusher.Flush()
		}
		return err
	}

	msg := first
	for {
		body, err := marshaler.Marshal(msg)
		if err != nil {
			h.log.Error("marshal watch record", "err", err)
			return
		}
		if err := write("job", body); err != nil {
			return
		}
		msg, err = recv()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			code, message := describe(err)
			body, _ := marshaler.Marshal(errorBody(code, message))
			_ = write("error", body)
			return
		}
	}
}
