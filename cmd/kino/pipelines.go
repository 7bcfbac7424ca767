package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"

	mediav1 "github.com/kinohq/kino/gen/kino/media/v1"
)

const pipelinesUsage = `Usage:
  kino pipelines run FILE [--input NODE.FIELD=URL ...] [--watch]

FILE holds a pipeline as POST /pipelines takes it ("-" reads standard input).
It is created, then run with the inputs no edge feeds; --watch follows every
node until the run ends.

Flags (before or after the arguments):
`

// inputFlag collects NODE.FIELD=VALUE pairs.
type inputFlag map[string]map[string]any

func (f inputFlag) String() string { return "" }

func (f inputFlag) Set(v string) error {
	key, value, ok := strings.Cut(v, "=")
	node, field, ok2 := strings.Cut(key, ".")
	if !ok || !ok2 || node == "" || field == "" {
		return fmt.Errorf("want NODE.FIELD=VALUE, got %q", v)
	}
	if f[node] == nil {
		f[node] = map[string]any{}
	}
	f[node][field] = value
	return nil
}

func pipelinesCmd(args []string) error {
	fs := flag.NewFlagSet("kino pipelines", flag.ExitOnError)
	cf := addClientFlags(fs)
	inputs := inputFlag{}
	fs.Var(inputs, "input", "an input no edge feeds, NODE.FIELD=URL or asset id (repeatable)")
	watch := fs.Bool("watch", false, "follow the run until it ends")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), pipelinesUsage)
		fs.PrintDefaults()
	}
	positional := parseClient(fs, args, 2, 2)
	if positional[0] != "run" {
		fs.Usage()
		os.Exit(2)
	}
	b, err := readFile(positional[1])
	if err != nil {
		return err
	}
	req := &mediav1.CreatePipelineRequest{}
	if err := protojson.Unmarshal(b, req); err != nil {
		return fmt.Errorf("%s is not a pipeline: %w", positional[1], err)
	}
	conn, ctx, err := cf.dial()
	if err != nil {
		return err
	}
	defer conn.Close()
	client := mediav1.NewPipelineServiceClient(conn)
	created, err := client.CreatePipeline(ctx, req)
	if err != nil {
		return clientError(err)
	}
	in := map[string]any{}
	for node, fields := range inputs {
		in[node] = fields
	}
	st, err := structpb.NewStruct(in)
	if err != nil {
		return err
	}
	pid := created.GetData().GetId()
	started, err := client.RunPipeline(ctx, &mediav1.RunPipelineRequest{Id: pid, Inputs: st})
	if err != nil {
		return clientError(err)
	}
	rid := started.GetData().GetId()
	fmt.Fprintf(os.Stderr, "pipeline %s, run %s\n", pid, rid)
	if !*watch {
		return printJSON(os.Stdout, started)
	}
	stream, err := client.WatchPipelineRun(ctx, &mediav1.WatchPipelineRunRequest{Id: pid, RunId: rid})
	if err != nil {
		return clientError(err)
	}
	var last *mediav1.PipelineRun
	for {
		msg, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return clientError(err)
		}
		last = msg.GetData()
		var nodes []string
		for _, j := range last.GetJobs() {
			node := fmt.Sprintf("%s:%s", j.GetPipelineNodeId(), j.GetStatus())
			if j.GetStatus() == "running" {
				node += fmt.Sprintf("(%.0f%%)", j.GetProgress())
			}
			nodes = append(nodes, node)
		}
		fmt.Printf("%s %-9s %s\n", time.Now().Format(time.TimeOnly), last.GetStatus(), strings.Join(nodes, " "))
	}
	if last == nil || last.GetStatus() != "complete" {
		for _, j := range last.GetJobs() {
			if j.GetStatus() == "failed" {
				return fmt.Errorf("run %s failed at %s: %s: %s", rid, j.GetPipelineNodeId(), j.GetErrorCode(), j.GetErrorMessage())
			}
		}
		return fmt.Errorf("run %s ended %s", rid, last.GetStatus())
	}
	for _, j := range last.GetJobs() {
		if j.GetOutputUrl() != "" {
			fmt.Printf("%s: %s\n", j.GetPipelineNodeId(), j.GetOutputUrl())
		}
	}
	return nil
}

func readFile(path string) ([]byte, error) {
	if path == "-" {
		return io.ReadAll(os.Stdin)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return b, nil
}
