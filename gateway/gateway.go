// Package gateway is kino's REST face: grpc-gateway maps the gRPC services to
// the documented JSON paths, and this package adds what HTTP clients need
// around it: the error envelope, status codes, body limits, CORS, progress
// streams a browser can read, the OpenAPI document and local output files.
package gateway

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/genproto/googleapis/api/httpbody"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/kinohq/kino/gateway/console"
	mediav1 "github.com/kinohq/kino/gen/kino/media/v1"
	renderv1 "github.com/kinohq/kino/gen/kino/render/v1"
	"github.com/kinohq/kino/server/apierr"
	"github.com/kinohq/kino/server/auth"
	"github.com/kinohq/kino/server/demo"
	"github.com/kinohq/kino/server/idempotency"
	"github.com/kinohq/kino/server/metrics"
	"github.com/kinohq/kino/server/storage"
)

// Config is what the gateway needs.
type Config struct {
	// Conn reaches the gRPC server; calls go through its interceptors.
	Conn *grpc.ClientConn
	// Storage is served under /files/: all of a local folder, the HLS
	// playlists of other buckets.
	Storage *storage.Storage
	// Demo is kino's demo media, served under /demo/; nil serves none.
	Demo *demo.Files
	// CORSOrigins may call the API from a browser; "*" allows any. Empty: CORS off.
	CORSOrigins []string
	// MaxBodyBytes caps request bodies.
	MaxBodyBytes int64
	// Deadlines bound slow request bodies and slow readers of responses.
	Deadlines Deadlines
	// TracerProvider makes every request a span; nil makes none.
	TracerProvider trace.TracerProvider
	// Auth checks the API key of every request before anything else
	// reads it; nil, or one with no keys, checks none.
	Auth *auth.Authenticator
	// Metrics counts requests by method, route and status; nil counts nothing.
	Metrics *metrics.Metrics
	// Now is the clock signed /files/ URLs expire by; nil is time.Now.
	Now func() time.Time
	Log *slog.Logger
}

// marshaler writes the spec's JSON: camelCase names; lists present even
// when empty (EmitDefaultValues), while unset optional fields and unset
// messages stay absent (EmitUnpopulated would write them as null). Unknown
// request fields are errors, so typos surface.
//
//nolint:gochecknoglobals // read-only after init: the one JSON marshaler of every answer, stateless
var marshaler = &runtime.JSONPb{
	MarshalOptions: protojson.MarshalOptions{
		UseProtoNames:     false,
		EmitUnpopulated:   false,
		EmitDefaultValues: true,
	},
	UnmarshalOptions: protojson.UnmarshalOptions{
		DiscardUnknown: false,
	},
}

// New builds the HTTP handler.
func New(ctx context.Context, cfg Config) (http.Handler, error) {
	opts := []runtime.ServeMuxOption{
		// A preview answers its picture as the body (pictureBody).
		runtime.WithMarshalerOption(runtime.MIMEWildcard, &runtime.HTTPBodyMarshaler{Marshaler: marshaler}),
		runtime.WithForwardResponseRewriter(pictureBody),
		runtime.WithErrorHandler(writeStatusError),
		runtime.WithRoutingErrorHandler(writeRoutingError),
		runtime.WithForwardResponseOption(successStatus),
		runtime.WithIncomingHeaderMatcher(incomingHeader),
		runtime.WithOutgoingHeaderMatcher(func(string) (string, bool) { return "", false }),
		runtime.WithMiddlewares(gatewayRoute),
	}
	mux := runtime.NewServeMux(opts...)
	if err := renderv1.RegisterRenderServiceHandler(ctx, mux, cfg.Conn); err != nil {
		return nil, fmt.Errorf("register render gateway: %w", err)
	}
	if err := renderv1.RegisterTemplateServiceHandler(ctx, mux, cfg.Conn); err != nil {
		return nil, fmt.Errorf("register template gateway: %w", err)
	}
	if err := mediav1.RegisterJobServiceHandler(ctx, mux, cfg.Conn); err != nil {
		return nil, fmt.Errorf("register job gateway: %w", err)
	}
	if err := mediav1.RegisterPipelineServiceHandler(ctx, mux, cfg.Conn); err != nil {
		return nil, fmt.Errorf("register pipeline gateway: %w", err)
	}
	if err := mediav1.RegisterAssetServiceHandler(ctx, mux, cfg.Conn); err != nil {
		return nil, fmt.Errorf("register asset gateway: %w", err)
	}
	if err := mediav1.RegisterWebhookServiceHandler(ctx, mux, cfg.Conn); err != nil {
		return nil, fmt.Errorf("register webhook gateway: %w", err)
	}
	if err := mediav1.RegisterUsageServiceHandler(ctx, mux, cfg.Conn); err != nil {
		return nil, fmt.Errorf("register usage gateway: %w", err)
	}
	if err := mediav1.RegisterOrgServiceHandler(ctx, mux, cfg.Conn); err != nil {
		return nil, fmt.Errorf("register org gateway: %w", err)
	}
	if err := renderv1.RegisterNodeServiceHandler(ctx, mux, cfg.Conn); err != nil {
		return nil, fmt.Errorf("register node gateway: %w", err)
	}

	root := http.NewServeMux()
	root.Handle("/", mux)
	root.Handle("GET /api/render/{id}/events", &watchHandler{open: watchRender(renderv1.NewRenderServiceClient(cfg.Conn)), log: cfg.Log})
	root.Handle("GET /jobs/{id}/events", &watchHandler{open: watchJob(mediav1.NewJobServiceClient(cfg.Conn)), log: cfg.Log})
	root.Handle("GET /pipelines/{id}/runs/{run}/events", &watchHandler{open: watchRun(mediav1.NewPipelineServiceClient(cfg.Conn)), log: cfg.Log})
	assets := mediav1.NewAssetServiceClient(cfg.Conn)
	root.Handle("POST /assets", &uploadHandler{client: assets})
	root.Handle("GET /assets/{id}/content", &contentHandler{client: assets, storage: cfg.Storage})
	root.Handle("POST /uploads", &fileUploadHandler{client: mediav1.NewUploadServiceClient(cfg.Conn)})
	root.HandleFunc("GET /api/openapi.json", serveOpenAPI)
	// The web console: the page at "/" only (every other path keeps its
	// API answer, 404 included) and its files under /console/.
	ui := console.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, apierr.NotFound, fmt.Sprintf("no file at %s", r.URL.Path))
	}))
	root.Handle("GET /{$}", ui)
	root.Handle("GET "+console.Prefix, ui)
	if cfg.Demo != nil {
		root.Handle("GET "+demo.Path+"{name}", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !cfg.Demo.Has(r.PathValue("name")) {
				writeError(w, apierr.NotFound, fmt.Sprintf("no demo file at %s; there are %s", r.URL.Path, strings.Join(cfg.Demo.Names(), ", ")))
				return
			}
			cfg.Demo.ServeHTTP(w, r)
		}))
	}
	if cfg.Storage != nil {
		// Every object of a local bucket; the HLS playlists of others.
		root.Handle("GET "+storage.FilesPath+"{key...}", &filesHandler{storage: cfg.Storage, now: cfg.Now})
	}

	h := routed(root)
	h = limitBody(h, cfg.MaxBodyBytes)
	h = utf8URL(h)
	h = withDeadlines(h, cfg.Deadlines)
	h = requireKey(h, cfg.Auth)
	// A browser's preflight carries no key; it is answered before the key
	// is asked for, and reads no body.
	h = cors(h, cfg.CORSOrigins)
	h = recoverPanics(h, cfg.Log)
	if cfg.TracerProvider != nil {
		h = traced(h, cfg.TracerProvider)
	}
	h = countRequests(h, cfg.Metrics)
	return h, nil
}

// pictureBody makes a preview's picture the whole response body, as
// google.api.HttpBody (which HTTPBodyMarshaler writes as it is); the RPC
// keeps its own message, with the picture's size, for gRPC clients.
func pictureBody(_ context.Context, m proto.Message) (any, error) {
	if p, ok := m.(*renderv1.PreviewRenderResponse); ok {
		return &httpbody.HttpBody{ContentType: p.GetContentType(), Data: p.GetData()}, nil
	}
	return m, nil
}

// incomingHeader forwards the headers the services read as gRPC metadata.
func incomingHeader(key string) (string, bool) {
	switch http.CanonicalHeaderKey(key) {
	case "Idempotency-Key":
		return idempotency.Header, true
	case "Authorization":
		return "authorization", true
	}
	return runtime.DefaultHeaderMatcher(key)
}

// WarningsHeader is the header of a preview's response that says, once
// per warning, what the frame did not draw as asked (docs/api.md,
// Previews).
const WarningsHeader = "Kino-Warnings"

// headerText is s as a header's value: printable ASCII, anything else
// escaped as in a quoted Go string (\u00e9, \n, \").
func headerText(s string) string {
	q := strconv.QuoteToASCII(s)
	return q[1 : len(q)-1]
}

// successStatuses are the documented non-200 success statuses, by RPC method.
//
//nolint:gochecknoglobals // read-only table: the documented non-200 statuses by method
var successStatuses = map[string]int{
	"/kino.render.v1.RenderService/SubmitRender":          http.StatusAccepted,
	"/kino.media.v1.JobService/CreateJob":                 http.StatusAccepted,
	"/kino.media.v1.PipelineService/CreatePipeline":       http.StatusCreated,
	"/kino.render.v1.TemplateService/CreateTemplate":      http.StatusCreated,
	"/kino.media.v1.PipelineService/RunPipeline":          http.StatusAccepted,
	"/kino.media.v1.WebhookService/CreateWebhookEndpoint": http.StatusCreated,
}

func successStatus(ctx context.Context, w http.ResponseWriter, m protoMessage) error {
	method, _ := runtime.RPCMethod(ctx)
	if code, ok := successStatuses[method]; ok {
		w.WriteHeader(code)
		return nil
	}
	if p, ok := m.(*renderv1.PreviewRenderResponse); ok {
		// The body is the picture itself (pictureBody).
		w.Header().Set("Content-Type", p.GetContentType())
		w.Header().Set("Cache-Control", "no-store")
		for _, warning := range p.GetWarnings() {
			w.Header().Add(WarningsHeader, headerText(warning))
		}
		return nil
	}
	// A load balancer acts on the status, not the body.
	if h, ok := m.(*renderv1.HealthResponse); ok && h.GetStatus() != "healthy" {
		w.WriteHeader(http.StatusServiceUnavailable)
	}
	return nil
}
