package main

import (
	"context"
	"fmt"
	"os"

	"google.golang.org/grpc/metadata"

	mediav1 "github.com/kinohq/kino/gen/kino/media/v1"
)

const jobUsage = `Usage:
  kino job create FILE [--watch] [--idempotency-key KEY]
  kino job get ID
  kino job list [--status S] [--type T] [--limit N] [--offset N]
  kino job cancel ID
  kino job watch ID

FILE holds the body of POST /jobs as JSON ("-" reads standard input), for
example {"type":"image.resize","inputs":{"source":"https://…/in.png"},"params":{"width":320}}.
Flags (before or after the arguments):
`

func jobCmd(args []string) error {
	fs, cf := newClientCommand("kino job", jobUsage)
	watch := fs.Bool("watch", false, "with create: follow the job until it ends")
	key := fs.String("idempotency-key", "", "with create: a repeat with the same key returns the first job")
	status := fs.String("status", "", "with list: waiting, dispatched, running, complete, failed or cancelled")
	typ := fs.String("type", "", "with list: a job type (GET /jobs/types lists them)")
	limit, offset := addPageFlags(fs, "with list")
	verb, arg := parseVerb(fs, args)
	conn, ctx, err := cf.dial()
	if err != nil {
		return err
	}
	defer conn.Close()
	client := mediav1.NewJobServiceClient(conn)
	out := os.Stdout
	switch verb {
	case "create":
		req := &mediav1.CreateJobRequest{}
		if err := readRequest(arg, "a job", req); err != nil {
			return err
		}
		if *key != "" {
			ctx = metadata.AppendToOutgoingContext(ctx, "idempotency-key", *key)
		}
		resp, err := client.CreateJob(ctx, req)
		if err != nil {
			return clientError(err)
		}
		if !*watch {
			return printJSON(out, resp)
		}
		fmt.Fprintf(os.Stderr, "job %s waiting\n", resp.GetData().GetId())
		return followJob(ctx, client, resp.GetData().GetId(), out)
	case "get":
		resp, err := client.GetJob(ctx, &mediav1.GetJobRequest{Id: arg})
		if err != nil {
			return clientError(err)
		}
		return printJSON(out, resp)
	case "list":
		resp, err := client.ListJobs(ctx, &mediav1.ListJobsRequest{Status: *status, Type: *typ, Limit: *limit, Offset: *offset})
		if err != nil {
			return clientError(err)
		}
		return printJSON(out, resp)
	case "cancel":
		resp, err := client.CancelJob(ctx, &mediav1.CancelJobRequest{Id: arg})
		if err != nil {
			return clientError(err)
		}
		return printJSON(out, resp)
	case "watch":
		return followJob(ctx, client, arg, out)
	}
	usageExit(fs)
	return nil
}

// followJob prints a media job's progress until it ends, as follow does a
// render's, and fails when the job does not complete.
func followJob(ctx context.Context, client mediav1.JobServiceClient, id string, out *os.File) error {
	stream, err := client.WatchJob(ctx, &mediav1.WatchJobRequest{Id: id})
	if err != nil {
		return clientError(err)
	}
	last, err := followProgress(out, id, func() (*mediav1.Job, error) {
		msg, err := stream.Recv()
		return msg.GetData(), err
	})
	if err != nil {
		return err
	}
	switch last.GetStatus() {
	case "complete":
		fmt.Fprintln(out, last.GetOutputUrl())
		return nil
	case "failed":
		return fmt.Errorf("job %s failed: %s: %s", id, last.GetErrorCode(), last.GetErrorMessage())
	default:
		return fmt.Errorf("job %s ended %s", id, last.GetStatus())
	}
}
