package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

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

FILE holds the body of POST /api/render as JSON ("-" reads standard input).
Flags (before or after the arguments):
`

func renderCmd(args []string) error {
	fs := flag.NewFlagSet("kino render", flag.ExitOnError)
	cf := addClientFlags(fs)
	watch := fs.Bool("watch", false, "with submit: follow the job until it ends")
	key := fs.String("idempotency-key", "", "with submit: a repeat with the same key returns the first job")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), renderUsage)
		fs.PrintDefaults()
	}
	positional := parseClient(fs, args, 2, 2)
	conn, ctx, err := cf.dial()
	if err != nil {
		return err
	}
	defer conn.Close()
	client := renderv1.NewRenderServiceClient(conn)
	out := os.Stdout

	verb, arg := positional[0], positional[1]
	switch verb {
	case "submit":
		req, err := readSubmit(arg)
		if err != nil {
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
	case "cancel":
		resp, err := client.CancelRender(ctx, &renderv1.CancelRenderRequest{JobId: arg})
		if err != nil {
			return clientError(err)
		}
		return printJSON(out, resp)
	case "watch":
		return follow(ctx, client, arg, out)
	default:
		fs.Usage()
		os.Exit(2)
	}
	return nil
}

// parseInterspersed lets flags stand after the positional arguments too.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}

func readSubmit(path string) (*renderv1.SubmitRenderRequest, error) {
	var (
		b   []byte
		err error
	)
	if path == "-" {
		b, err = io.ReadAll(os.Stdin)
	} else {
		b, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	req := &renderv1.SubmitRenderRequest{}
	if err := protojson.Unmarshal(b, req); err != nil {
		return nil, fmt.Errorf("%s is not a render request: %w", path, err)
	}
	return req, nil
}

// follow prints a job's progress until it ends: a bar on a terminal, one
// line per change otherwise. It fails when the job does not complete.
func follow(ctx context.Context, client renderv1.RenderServiceClient, id string, out *os.File) error {
	stream, err := client.WatchRender(ctx, &renderv1.WatchRenderRequest{JobId: id})
	if err != nil {
		return clientError(err)
	}
	tty := isTerminal(out)
	var last *renderv1.RenderJob
	for {
		msg, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if tty {
				fmt.Fprintln(out)
			}
			return clientError(err)
		}
		last = msg.GetJob()
		if tty {
			fmt.Fprintf(out, "\r%s %5.1f%% %-10s", bar(last.GetProgress(), 30), last.GetProgress(), last.GetStatus())
		} else {
			fmt.Fprintf(out, "%s %s %.1f%%\n", time.Now().Format(time.TimeOnly), last.GetStatus(), last.GetProgress())
		}
	}
	if tty {
		fmt.Fprintln(out)
	}
	if last == nil {
		return fmt.Errorf("job %s: the stream ended without a record", id)
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
