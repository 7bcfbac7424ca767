package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/kinohq/kino/docs"
	mediav1 "github.com/kinohq/kino/gen/kino/media/v1"
	renderv1 "github.com/kinohq/kino/gen/kino/render/v1"
	"github.com/kinohq/kino/server/fetch"
)

const mcpUsage = `Usage:
  kino mcp [--addr A] [--api-key K] [--url U] [--http ADDR]

A Model Context Protocol server: an AI agent renders compositions, previews
frames, runs media jobs and pipelines, uploads files and reads usage through
its tools, and reads the job types and the composition guide as resources.
It speaks MCP on standard input and output (how agents start a local server),
or streamable HTTP with --http, and calls kino over gRPC at --addr with
--api-key.

Flags:
`

// mcpServer is kino mcp's state: the gRPC clients of one kino, the key
// sent with every call, and kino's REST address, which the tools' texts
// name for the demo media.
type mcpServer struct {
	renders   renderv1.RenderServiceClient
	templates renderv1.TemplateServiceClient
	jobs      mediav1.JobServiceClient
	pipelines mediav1.PipelineServiceClient
	uploads   mediav1.UploadServiceClient
	usage     mediav1.UsageServiceClient
	apiKey    string
	restURL   string
	// fetch downloads the URLs the upload tool is given, refusing
	// private and loopback addresses as kino's own downloads do: an
	// agent's URL must not reach into the machine it runs on.
	fetch *fetch.Client
}

func mcpCmd(args []string) error {
	fs, cf := newClientCommand("kino mcp", mcpUsage)
	restURL := fs.String("url", "http://127.0.0.1:8080", "kino's REST address, whose /demo/ media the tools tell the agent about")
	httpAddr := fs.String("http", "", "serve MCP over streamable HTTP at this address (e.g. 127.0.0.1:8765, path /mcp) instead of standard input and output")
	allowPrivate := fs.Bool("allow-private-networks", false, "let the upload tool download from private and loopback addresses")
	positional, err := parseInterspersed(fs, args)
	if err == nil {
		err = envFlags(fs)
	}
	if err != nil || len(positional) != 0 {
		usageExit(fs)
	}
	conn, _, err := cf.dial()
	if err != nil {
		return err
	}
	defer conn.Close()
	s := &mcpServer{
		renders:   renderv1.NewRenderServiceClient(conn),
		templates: renderv1.NewTemplateServiceClient(conn),
		jobs:      mediav1.NewJobServiceClient(conn),
		pipelines: mediav1.NewPipelineServiceClient(conn),
		uploads:   mediav1.NewUploadServiceClient(conn),
		usage:     mediav1.NewUsageServiceClient(conn),
		apiKey:    *cf.apiKey,
		restURL:   strings.TrimRight(*restURL, "/"),
		fetch:     fetch.New(fetch.Options{AllowPrivate: *allowPrivate}),
	}
	server := s.server()
	ctx := context.Background()
	if *httpAddr == "" {
		return server.Run(ctx, &mcp.StdioTransport{})
	}
	if err := loopbackOnly(*httpAddr); err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	ln, err := net.Listen("tcp", *httpAddr)
	if err != nil {
		return err
	}
	// The address is printed once listening, so that a port 0 is known.
	fmt.Fprintf(os.Stderr, "kino mcp: streamable HTTP at http://%s/mcp\n", ln.Addr())
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	return hs.Serve(ln)
}

// loopbackOnly refuses an HTTP address other machines could reach: the
// MCP endpoint acts with kino's API key and has no authentication of its
// own, so only processes of this machine may call it.
func loopbackOnly(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--http: %w", err)
	}
	if ip := net.ParseIP(host); host == "localhost" || (ip != nil && ip.IsLoopback()) {
		return nil
	}
	return fmt.Errorf("--http %s: the MCP endpoint has no authentication of its own and acts with the API key; give a loopback address (127.0.0.1:PORT)", addr)
}

// call is ctx with the API key, as every call to kino needs it.
func (s *mcpServer) call(ctx context.Context) context.Context {
	if s.apiKey == "" {
		return ctx
	}
	return metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+s.apiKey)
}

// demo describes the demo media for the agent, with their URLs on this kino.
func (s *mcpServer) demo() string {
	return "kino serves demo media, usable as sources with no network: " + s.restURL + "/demo/talk.mp4 (7 s, 640x360, a voice), " +
		"/demo/picture1.jpg and /demo/picture2.jpg (1280x720), /demo/music.mp3 (12 s), /demo/logo.png (160x160, transparent), " +
		"/demo/font.ttf, /demo/captions.srt (the talk's words), /demo/screen.psd and /demo/shirt.psd (PSD templates with smart objects Screen and Front/Design)."
}

// server builds the MCP server: its tools and resources.
func (s *mcpServer) server() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "kino", Title: "kino: video renders and media jobs", Version: version()}, &mcp.ServerOptions{
		Instructions: "kino renders videos from JSON compositions and runs media jobs (transcode, resize, captions, mockups…). " +
			"Read the resource kino://docs/compositions.md before writing a composition, and kino://job-types before creating a media job. " +
			"Renders and jobs run for a while: the render and job_create tools wait for the end (sending progress) unless wait is false; " +
			"then poll with render_get or job_get. " + s.demo(),
	})
	s.renderTools(srv)
	s.jobTools(srv)
	s.otherTools(srv)
	srv.AddResource(&mcp.Resource{
		URI: "kino://docs/compositions.md", Name: "compositions", Title: "The composition guide", MIMEType: "text/markdown",
		Description: "How to write a render's composition: both formats, every layer type, motion, transitions, captions, outputs, with examples.",
	}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/markdown", Text: docs.Compositions}}}, nil
	})
	srv.AddResource(&mcp.Resource{
		URI: "kino://job-types", Name: "job-types", Title: "The media job types", MIMEType: "application/json",
		Description: "kino's catalogue of media job types: each type's inputs, outputs, params as JSON Schema, and cost model.",
	}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		resp, err := s.jobs.ListJobTypes(s.call(ctx), &mediav1.ListJobTypesRequest{})
		if err != nil {
			return nil, clientError(err)
		}
		b, err := protojson.Marshal(resp)
		if err != nil {
			return nil, err
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "application/json", Text: string(b)}}}, nil
	})
	return srv
}

// renderIn is the input of the render and preview tools.
type renderIn struct {
	Request map[string]any `json:"request" jsonschema:"the render request, as POST /api/render takes it: provider (provider_a or unified), composition, assetUrls; see kino://docs/compositions.md"`
	Wait    *bool          `json:"wait,omitempty" jsonschema:"wait for the render to end, sending progress notifications (default true)"`
}

type previewIn struct {
	Request map[string]any `json:"request" jsonschema:"the render request, as the render tool takes it"`
	Time    float64        `json:"time" jsonschema:"the time in seconds of the frame, from 0 to before the composition's end"`
	Width   int            `json:"width,omitempty" jsonschema:"the picture's width in pixels, from 16 to the composition's width (default the composition's)"`
	Format  string         `json:"format,omitempty" jsonschema:"jpg (default) or png"`
}

type idIn struct {
	ID string `json:"id" jsonschema:"the job's id"`
}

type listIn struct {
	Status string `json:"status,omitempty" jsonschema:"only jobs in this state"`
	Type   string `json:"type,omitempty" jsonschema:"media jobs only: only jobs of this type"`
	Limit  int    `json:"limit,omitempty" jsonschema:"page size, 1 to 100 (default 20)"`
	Offset int    `json:"offset,omitempty" jsonschema:"how many to skip"`
}

func (s *mcpServer) renderTools(srv *mcp.Server) {
	mcp.AddTool(srv, &mcp.Tool{
		Name:  "render",
		Title: "Render a video",
		Description: "Submits a render of a composition and, unless wait is false, waits for its end with progress notifications. " +
			"Answers the job's status record: status (completed, failed, cancelled, or queued/processing when not waited for) and outputUrl, " +
			"the video's URL, when completed. " + s.demo(),
	}, func(ctx context.Context, req *mcp.CallToolRequest, in renderIn) (*mcp.CallToolResult, any, error) {
		sub := &renderv1.SubmitRenderRequest{}
		if err := fromMap(in.Request, sub); err != nil {
			return nil, nil, fmt.Errorf("request: %w", err)
		}
		resp, err := s.renders.SubmitRender(s.call(ctx), sub)
		if err != nil {
			return nil, nil, clientError(err)
		}
		if in.Wait != nil && !*in.Wait {
			return textResult(resp)
		}
		return s.waitRender(ctx, req, resp.GetJobId())
	})
	mcp.AddTool(srv, &mcp.Tool{
		Name:        "preview",
		Title:       "Preview a frame",
		Description: "Draws the frame a render of the request shows at time, at once, and answers it as an image. Nothing is queued. " + s.demo(),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in previewIn) (*mcp.CallToolResult, any, error) {
		m := map[string]any{}
		for k, v := range in.Request {
			m[k] = v
		}
		m["time"] = in.Time
		if in.Width != 0 {
			m["width"] = in.Width
		}
		if in.Format != "" {
			m["format"] = in.Format
		}
		pr := &renderv1.PreviewRenderRequest{}
		if err := fromMap(m, pr); err != nil {
			return nil, nil, fmt.Errorf("request: %w", err)
		}
		resp, err := s.renders.PreviewRender(s.call(ctx), pr, grpc.MaxCallRecvMsgSize(64<<20))
		if err != nil {
			return nil, nil, clientError(err)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.ImageContent{Data: resp.GetData(), MIMEType: resp.GetContentType()},
			&mcp.TextContent{Text: fmt.Sprintf("the frame at %gs, %dx%d %s", in.Time, resp.GetWidth(), resp.GetHeight(), resp.GetContentType())},
		}}, nil, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "render_get", Title: "A render's record", Description: "A render's status record: status, progress, outputUrl when completed, error when failed."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in idIn) (*mcp.CallToolResult, any, error) {
			resp, err := s.renders.GetRender(s.call(ctx), &renderv1.GetRenderRequest{JobId: in.ID})
			if err != nil {
				return nil, nil, clientError(err)
			}
			return textResult(resp.GetJob())
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "render_wait", Title: "Wait for a render", Description: "Waits for a render to end, sending progress notifications, and answers its last record."},
		func(ctx context.Context, req *mcp.CallToolRequest, in idIn) (*mcp.CallToolResult, any, error) {
			return s.waitRender(ctx, req, in.ID)
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "render_cancel", Title: "Cancel a render", Description: "Cancels a render that has not ended."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in idIn) (*mcp.CallToolResult, any, error) {
			resp, err := s.renders.CancelRender(s.call(ctx), &renderv1.CancelRenderRequest{JobId: in.ID})
			if err != nil {
				return nil, nil, clientError(err)
			}
			return textResult(resp)
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "render_list", Title: "List renders", Description: "The organisation's renders, newest first; status is queued, processing, completed, failed or cancelled."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in listIn) (*mcp.CallToolResult, any, error) {
			resp, err := s.renders.ListRenders(s.call(ctx), &renderv1.ListRendersRequest{Status: in.Status, Limit: page(in.Limit), Offset: page(in.Offset)})
			if err != nil {
				return nil, nil, clientError(err)
			}
			return textResult(resp)
		})
}

// jobIn is the input of job_create.
type jobIn struct {
	Type   string         `json:"type" jsonschema:"a job type of kino://job-types (job_types lists them), e.g. image.resize, audio.extract, video.transcode"`
	Inputs map[string]any `json:"inputs" jsonschema:"the type's inputs by field name: URLs (an upload's downloadUrl, kino's /demo/ media, http(s)) or asset ids"`
	Params map[string]any `json:"params,omitempty" jsonschema:"the type's params, checked against its JSON Schema"`
	Wait   *bool          `json:"wait,omitempty" jsonschema:"wait for the job to end, sending progress notifications (default true)"`
}

type mockupIn struct {
	Template    string         `json:"template" jsonschema:"the PSD template: an asset id (psd_template) or a URL such as kino's /demo/shirt.psd"`
	Design      string         `json:"design,omitempty" jsonschema:"the picture placed into the smart object: an asset id or a URL (PNG, JPEG or WebP); absent, the template is drawn as it is"`
	SmartObject string         `json:"smartObject,omitempty" jsonschema:"the smart object's name or path (e.g. Front/Design); absent, the template's first"`
	Params      map[string]any `json:"params,omitempty" jsonschema:"more params of mockup.render (format, hide, …)"`
	Wait        *bool          `json:"wait,omitempty" jsonschema:"wait for the job to end (default true)"`
}

func (s *mcpServer) jobTools(srv *mcp.Server) {
	mcp.AddTool(srv, &mcp.Tool{
		Name:  "job_create",
		Title: "Run a media job",
		Description: "Creates a media job (see kino://job-types for every type's inputs and params) and, unless wait is false, waits for its end " +
			"with progress notifications. Answers the job's record: status (complete, failed, cancelled) and outputUrl. " + s.demo(),
	}, func(ctx context.Context, req *mcp.CallToolRequest, in jobIn) (*mcp.CallToolResult, any, error) {
		return s.createJob(ctx, req, in)
	})
	mcp.AddTool(srv, &mcp.Tool{
		Name:        "mockup",
		Title:       "Render a product mockup",
		Description: "Places a design into a PSD template's smart object (the media job mockup.render) and waits for the picture. " + s.demo(),
	}, func(ctx context.Context, req *mcp.CallToolRequest, in mockupIn) (*mcp.CallToolResult, any, error) {
		params := map[string]any{}
		for k, v := range in.Params {
			params[k] = v
		}
		if in.SmartObject != "" {
			params["smartObject"] = in.SmartObject
		}
		inputs := map[string]any{"template": in.Template}
		if in.Design != "" {
			inputs["design"] = in.Design
		}
		return s.createJob(ctx, req, jobIn{Type: "mockup.render", Inputs: inputs, Params: params, Wait: in.Wait})
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "job_get", Title: "A media job's record", Description: "A media job's record: status, progress, outputUrl and output when complete, error when failed."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in idIn) (*mcp.CallToolResult, any, error) {
			resp, err := s.jobs.GetJob(s.call(ctx), &mediav1.GetJobRequest{Id: in.ID})
			if err != nil {
				return nil, nil, clientError(err)
			}
			return textResult(resp.GetData())
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "job_wait", Title: "Wait for a media job", Description: "Waits for a media job to end, sending progress notifications, and answers its last record."},
		func(ctx context.Context, req *mcp.CallToolRequest, in idIn) (*mcp.CallToolResult, any, error) {
			return s.waitJob(ctx, req, in.ID)
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "job_cancel", Title: "Cancel a media job", Description: "Cancels a media job that has not ended."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in idIn) (*mcp.CallToolResult, any, error) {
			resp, err := s.jobs.CancelJob(s.call(ctx), &mediav1.CancelJobRequest{Id: in.ID})
			if err != nil {
				return nil, nil, clientError(err)
			}
			return textResult(resp.GetData())
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "job_list", Title: "List media jobs", Description: "The organisation's media jobs, newest first; status is waiting, dispatched, running, complete, failed or cancelled."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in listIn) (*mcp.CallToolResult, any, error) {
			resp, err := s.jobs.ListJobs(s.call(ctx), &mediav1.ListJobsRequest{Status: in.Status, Type: in.Type, Limit: page(in.Limit), Offset: page(in.Offset)})
			if err != nil {
				return nil, nil, clientError(err)
			}
			return textResult(resp)
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "job_types", Title: "The media job types", Description: "kino's catalogue of media job types: inputs, outputs, params (JSON Schema) and cost model of each; also the resource kino://job-types."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			resp, err := s.jobs.ListJobTypes(s.call(ctx), &mediav1.ListJobTypesRequest{})
			if err != nil {
				return nil, nil, clientError(err)
			}
			return textResult(resp)
		})
}

type uploadIn struct {
	Path     string `json:"path,omitempty" jsonschema:"a local file to upload (give path or url)"`
	URL      string `json:"url,omitempty" jsonschema:"an http(s) URL to download and upload (give path or url)"`
	Filename string `json:"filename,omitempty" jsonschema:"the name to store it under (default the file's own)"`
}

type pipelineIn struct {
	PipelineID string         `json:"pipelineId,omitempty" jsonschema:"a stored pipeline's id (give pipelineId or definition)"`
	Definition map[string]any `json:"definition,omitempty" jsonschema:"a pipeline to store and run, as POST /pipelines takes it: name, nodes [{id, jobType, params}], edges [{from, to, outputMapping}]"`
	Inputs     map[string]any `json:"inputs" jsonschema:"each first node's inputs, as an object under the node's id"`
	Wait       *bool          `json:"wait,omitempty" jsonschema:"wait for the run to end (default true)"`
}

type usageIn struct {
	From string `json:"from,omitempty" jsonschema:"first UTC day, YYYY-MM-DD"`
	To   string `json:"to,omitempty" jsonschema:"last UTC day, YYYY-MM-DD"`
}

func (s *mcpServer) otherTools(srv *mcp.Server) {
	mcp.AddTool(srv, &mcp.Tool{
		Name:  "upload",
		Title: "Upload a file",
		Description: "Stores a local file, or a file downloaded from a URL, in kino for a while (24 h by default). " +
			"Answers the upload with its downloadUrl, a source any render or media job may use.",
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in uploadIn) (*mcp.CallToolResult, any, error) {
		var resp *mediav1.UploadFileResponse
		var err error
		switch {
		case (in.Path == "") == (in.URL == ""):
			return nil, nil, errors.New("VALIDATION_ERROR: give path or url, one of them")
		case in.Path != "":
			resp, err = uploadFile(s.call(ctx), s.uploads, in.Path, in.Filename, "")
		default:
			resp, err = s.uploadURL(ctx, in.URL, in.Filename)
		}
		if err != nil {
			return nil, nil, err
		}
		return textResult(resp.GetData())
	})
	mcp.AddTool(srv, &mcp.Tool{
		Name:        "pipeline_run",
		Title:       "Run a pipeline",
		Description: "Runs a stored pipeline (pipelineId), or stores a definition and runs it, then waits for the run to end unless wait is false. Answers the run with each node's job.",
	}, func(ctx context.Context, req *mcp.CallToolRequest, in pipelineIn) (*mcp.CallToolResult, any, error) {
		return s.runPipeline(ctx, req, in)
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "usage", Title: "Usage and cost", Description: "What the organisation's jobs and renders used and cost, by UTC day and job type."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in usageIn) (*mcp.CallToolResult, any, error) {
			resp, err := s.usage.GetUsage(s.call(ctx), &mediav1.GetUsageRequest{From: in.From, To: in.To})
			if err != nil {
				return nil, nil, clientError(err)
			}
			return textResult(resp)
		})
}

func (s *mcpServer) createJob(ctx context.Context, req *mcp.CallToolRequest, in jobIn) (*mcp.CallToolResult, any, error) {
	cr := &mediav1.CreateJobRequest{}
	if err := fromMap(map[string]any{"type": in.Type, "inputs": orEmpty(in.Inputs), "params": orEmpty(in.Params)}, cr); err != nil {
		return nil, nil, err
	}
	resp, err := s.jobs.CreateJob(s.call(ctx), cr)
	if err != nil {
		return nil, nil, clientError(err)
	}
	if in.Wait != nil && !*in.Wait {
		return textResult(resp.GetData())
	}
	return s.waitJob(ctx, req, resp.GetData().GetId())
}

func (s *mcpServer) waitRender(ctx context.Context, req *mcp.CallToolRequest, id string) (*mcp.CallToolResult, any, error) {
	stream, err := s.renders.WatchRender(s.call(ctx), &renderv1.WatchRenderRequest{JobId: id})
	if err != nil {
		return nil, nil, clientError(err)
	}
	last, err := followMCP(ctx, req, func() (*renderv1.RenderJob, error) {
		m, err := stream.Recv()
		return m.GetJob(), err
	})
	if err != nil {
		return nil, nil, err
	}
	return textResult(last)
}

func (s *mcpServer) waitJob(ctx context.Context, req *mcp.CallToolRequest, id string) (*mcp.CallToolResult, any, error) {
	stream, err := s.jobs.WatchJob(s.call(ctx), &mediav1.WatchJobRequest{Id: id})
	if err != nil {
		return nil, nil, clientError(err)
	}
	last, err := followMCP(ctx, req, func() (*mediav1.Job, error) {
		m, err := stream.Recv()
		return m.GetData(), err
	})
	if err != nil {
		return nil, nil, err
	}
	return textResult(last)
}

func (s *mcpServer) runPipeline(ctx context.Context, req *mcp.CallToolRequest, in pipelineIn) (*mcp.CallToolResult, any, error) {
	id := in.PipelineID
	if (id == "") == (in.Definition == nil) {
		return nil, nil, errors.New("VALIDATION_ERROR: give pipelineId or definition, one of them")
	}
	if id == "" {
		def := &mediav1.CreatePipelineRequest{}
		if err := fromMap(in.Definition, def); err != nil {
			return nil, nil, fmt.Errorf("definition: %w", err)
		}
		p, err := s.pipelines.CreatePipeline(s.call(ctx), def)
		if err != nil {
			return nil, nil, clientError(err)
		}
		id = p.GetData().GetId()
	}
	rr := &mediav1.RunPipelineRequest{}
	if err := fromMap(map[string]any{"id": id, "inputs": orEmpty(in.Inputs)}, rr); err != nil {
		return nil, nil, err
	}
	run, err := s.pipelines.RunPipeline(s.call(ctx), rr)
	if err != nil {
		return nil, nil, clientError(err)
	}
	if in.Wait != nil && !*in.Wait {
		return textResult(run.GetData())
	}
	stream, err := s.pipelines.WatchPipelineRun(s.call(ctx), &mediav1.WatchPipelineRunRequest{Id: id, RunId: run.GetData().GetId()})
	if err != nil {
		return nil, nil, clientError(err)
	}
	var last *mediav1.PipelineRun
	for {
		m, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, clientError(err)
		}
		last = m.GetData()
		done := 0
		for _, j := range last.GetJobs() {
			if jobEnded(j.GetStatus()) {
				done++
			}
		}
		notify(ctx, req, float64(done), float64(len(last.GetJobs())), last.GetStatus())
	}
	if last == nil {
		return nil, nil, fmt.Errorf("run %s: the stream ended without a record", run.GetData().GetId())
	}
	return textResult(last)
}

func jobEnded(status string) bool {
	return status == "complete" || status == "completed" || status == "failed" || status == "cancelled"
}

// uploadURL downloads a URL (through kino's guarded client) and sends it
// to kino as an upload.
func (s *mcpServer) uploadURL(ctx context.Context, rawURL, name string) (*mediav1.UploadFileResponse, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("VALIDATION_ERROR: url: %w", err)
	}
	dir, err := os.MkdirTemp("", "kino-mcp-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "download")
	if _, err := s.fetch.Download(ctx, rawURL, file); err != nil {
		return nil, fmt.Errorf("ASSET_FETCH_FAILED: %w", err)
	}
	if name == "" {
		name = path.Base(u.Path)
	}
	return uploadFile(s.call(ctx), s.uploads, file, name, "")
}

// followMCP reads a watch stream to its end, telling the client each record's
// progress when it asked for progress, and returns the last record.
func followMCP[R progressRecord](ctx context.Context, req *mcp.CallToolRequest, recv func() (R, error)) (R, error) {
	var last R
	for {
		rec, err := recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return last, clientError(err)
		}
		last = rec
		notify(ctx, req, rec.GetProgress(), 100, rec.GetStatus())
	}
	if !last.ProtoReflect().IsValid() {
		return last, errors.New("the stream ended without a record")
	}
	return last, nil
}

// notify sends a progress notification when the call carries a progress
// token; a client that went away is no reason to stop the work.
func notify(ctx context.Context, req *mcp.CallToolRequest, progress, total float64, message string) {
	tok := req.Params.GetProgressToken()
	if tok == nil || req.Session == nil {
		return
	}
	_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: progress, Total: total, Message: message})
}

// textResult answers a record as JSON text, the form every MCP client shows.
func textResult(m proto.Message) (*mcp.CallToolResult, any, error) {
	b, err := protojson.MarshalOptions{Indent: "  "}.Marshal(m)
	if err != nil {
		return nil, nil, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil, nil
}

// fromMap reads a JSON object the agent gave into a request message.
func fromMap(m map[string]any, into proto.Message) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if err := protojson.Unmarshal(b, into); err != nil {
		return fmt.Errorf("VALIDATION_ERROR: %w", err)
	}
	return nil
}

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

func page(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprint(n)
}
