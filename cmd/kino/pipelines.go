package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	mediav1 "github.com/kinohq/kino/gen/kino/media/v1"
	"github.com/kinohq/kino/server/paging"
)

const pipelinesUsage = `Usage:
  kino pipeline create FILE
  kino pipeline list [--limit N] [--offset N]
  kino pipeline runs ID [--limit N] [--offset N]
  kino pipeline run FILE|ID [--input NODE.FIELD=URL ...] [--watch]

FILE holds a pipeline as POST /pipelines takes it ("-" reads standard input).
run with a FILE runs the stored pipeline with the same definition (name,
description, nodes, edges), creating it the first time; with the id of a
pipeline (pl_…) it runs that one. The run gets the inputs no edge feeds; --watch
follows every node until the run ends. "kino pipelines" is the same command.

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
	fs, cf := newClientCommand("kino pipelines", pipelinesUsage)
	inputs := inputFlag{}
	fs.Var(inputs, "input", "an input no edge feeds, NODE.FIELD=URL or asset id (repeatable)")
	watch := fs.Bool("watch", false, "with run: follow the run until it ends")
	limit, offset := addPageFlags(fs, "with list and runs")
	verb, arg := parseVerb(fs, args)
	conn, ctx, err := cf.dial()
	if err != nil {
		return err
	}
	defer conn.Close()
	client := mediav1.NewPipelineServiceClient(conn)
	switch verb {
	case "create":
		req, err := readPipeline(arg)
		if err != nil {
			return err
		}
		created, err := client.CreatePipeline(ctx, req)
		if err != nil {
			return clientError(err)
		}
		return printJSON(os.Stdout, created)
	case "list":
		resp, err := client.ListPipelines(ctx, &mediav1.ListPipelinesRequest{Limit: *limit, Offset: *offset})
		if err != nil {
			return clientError(err)
		}
		return printJSON(os.Stdout, resp)
	case "runs":
		resp, err := client.ListPipelineRuns(ctx, &mediav1.ListPipelineRunsRequest{Id: arg, Limit: *limit, Offset: *offset})
		if err != nil {
			return clientError(err)
		}
		return printJSON(os.Stdout, resp)
	case "run":
	default:
		usageExit(fs)
	}
	pid := arg
	if _, err := os.Stat(arg); err == nil || arg == "-" || !strings.HasPrefix(arg, "pl_") {
		req, err := readPipeline(arg)
		if err != nil {
			return err
		}
		if pid, err = storedPipeline(ctx, client, req); err != nil {
			return err
		}
	}
	in := map[string]any{}
	for node, fields := range inputs {
		in[node] = fields
	}
	st, err := structpb.NewStruct(in)
	if err != nil {
		return err
	}
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

// readPipeline reads a pipeline definition, the body of POST /pipelines.
func readPipeline(path string) (*mediav1.CreatePipelineRequest, error) {
	req := &mediav1.CreatePipelineRequest{}
	if err := readRequest(path, "a pipeline", req); err != nil {
		return nil, err
	}
	return req, nil
}

// storedPipeline is the id of the pipeline defined as req: a stored one
// with the same definition (name, description, nodes and edges), or one
// created now. So running the same file again runs the same pipeline, and
// its runs gather under one id, instead of a copy a run.
func storedPipeline(ctx context.Context, client mediav1.PipelineServiceClient, req *mediav1.CreatePipelineRequest) (string, error) {
	limit := strconv.Itoa(paging.MaxLimit)
	for offset := 0; ; offset += paging.MaxLimit {
		page, err := client.ListPipelines(ctx, &mediav1.ListPipelinesRequest{Limit: limit, Offset: strconv.Itoa(offset)})
		if err != nil {
			return "", clientError(err)
		}
		for _, p := range page.GetData() {
			stored := &mediav1.CreatePipelineRequest{Name: p.GetName(), Description: p.GetDescription(), Nodes: p.GetNodes(), Edges: p.GetEdges()}
			if proto.Equal(definition(stored), definition(req)) {
				fmt.Fprintf(os.Stderr, "pipeline %s has this definition; running it\n", p.GetId())
				return p.GetId(), nil
			}
		}
		if len(page.GetData()) < paging.MaxLimit {
			break
		}
	}
	created, err := client.CreatePipeline(ctx, req)
	if err != nil {
		return "", clientError(err)
	}
	return created.GetData().GetId(), nil
}

// definition is req with what means nothing taken out, for comparing two
// definitions: empty params are the same as none.
func definition(req *mediav1.CreatePipelineRequest) *mediav1.CreatePipelineRequest {
	d := proto.Clone(req).(*mediav1.CreatePipelineRequest)
	for _, n := range d.GetNodes() {
		if len(n.GetParams().GetFields()) == 0 {
			n.Params = nil
		}
	}
	return d
}
