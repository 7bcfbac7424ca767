package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	renderv1 "github.com/kinohq/kino/gen/kino/render/v1"
	"github.com/kinohq/kino/server/apierr"
)

const renderUsage = `Usage:
  kino render submit FILE [--watch] [--idempotency-key KEY]
  kino render get ID
  kino render cancel ID
  kino render watch ID
  kino render list [--status S] [--limit N] [--offset N]
  kino render request ID    the request the render was made from, to submit again

FILE holds the body of POST /api/render as JSON ("-" reads standard input).
Flags (before or after the arguments):
`

func renderCmd(args []string) error {
	fs, cf := newClientCommand("kino render", renderUsage)
	watch := fs.Bool("watch", false, "with submit: follow the job until it ends")
	key := fs.String("idempotency-key", "", "with submit: a repeat with the same key returns the first job")
	status := fs.String("status", "", "with list: queued, processing, completed, failed or cancelled")
	limit, offset := addPageFlags(fs, "with list")
	verb, arg := parseVerb(fs, args)
	conn, ctx, err := cf.dial()
	if err != nil {
		return err
	}
	defer conn.Close()
	client := renderv1.NewRenderServiceClient(conn)
	out := os.Stdout

	switch verb {
	case "submit":
		req := &renderv1.SubmitRenderRequest{}
		if err := readRequest(arg, "a render request", req); err != nil {
			return err
		}
		if *key != "" {
			ctx = metadata.AppendToOutgoingContext(ctx, "idempotency-key", *key)
		}
		resp, err := client.SubmitRender(ctx, req)
		if err != nil {
			return clientError(err)
		}
		if !*watch {
			return printJSON(out, resp)
		}
		fmt.Fprintf(os.Stderr, "job %s queued\n", resp.GetJobId())
		return follow(ctx, client, resp.GetJobId(), out)
	case "get":
		resp, err := client.GetRender(ctx, &renderv1.GetRenderRequest{JobId: arg})
		if err != nil {
			return clientError(err)
		}
		return printJSON(out, resp.GetJob())
	case "request":
		resp, err := client.GetRenderSubmission(ctx, &renderv1.GetRenderSubmissionRequest{JobId: arg})
		if err != nil {
			return clientError(err)
		}
		return printJSON(out, resp.GetRequest())
	case "cancel":
		resp, err := client.CancelRender(ctx, &renderv1.CancelRenderRequest{JobId: arg})
		if err != nil {
			return clientError(err)
		}
		return printJSON(out, resp)
	case "watch":
		return follow(ctx, client, arg, out)
	case "list":
		resp, err := client.ListRenders(ctx, &renderv1.ListRendersRequest{Status: *status, Limit: *limit, Offset: *offset})
		if err != nil {
			return clientError(err)
		}
		return printJSON(out, resp)
	}
	usageExit(fs)
	return nil
}

// follow prints a job's progress until it ends: a bar on a terminal, one
// line per change otherwise. It fails when the job does not complete.
func follow(ctx context.Context, client renderv1.RenderServiceClient, id string, out *os.File) error {
	stream, err := client.WatchRender(ctx, &renderv1.WatchRenderRequest{JobId: id})
	if err != nil {
		return clientError(err)
	}
	last, err := followProgress(out, id, func() (*renderv1.RenderJob, error) {
		msg, err := stream.Recv()
		return msg.GetJob(), err
	})
	if err != nil {
		return err
	}
	switch last.GetStatus() {
	case "completed":
		fmt.Fprintln(out, last.GetOutputUrl())
		return nil
	case "failed":
		return fmt.Errorf("job %s failed: %s: %s", id, last.GetError().GetCode(), last.GetError().GetMessage())
	default:
		return fmt.Errorf("job %s ended %s", id, last.GetStatus())
	}
}

func bar(progress float64, width int) string {
	filled := int(progress / 100 * float64(width))
	filled = max(0, min(width, filled))
	return "[" + strings.Repeat("#", filled) + strings.Repeat("-", width-filled) + "]"
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func printJSON(out io.Writer, m proto.Message) error {
	b, err := protojson.MarshalOptions{Multiline: true}.Marshal(m)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(out, string(b))
	return err
}

// clientError shows a service error with its documented code.
func clientError(err error) error {
	st := status.Convert(err)
	code, _ := apierr.FromStatus(st)
	return fmt.Errorf("%s: %s", code, st.Message())
}
