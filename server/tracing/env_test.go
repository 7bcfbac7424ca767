package tracing

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
)

// collector receives OTLP trace exports on 127.0.0.1, over HTTP or gRPC.
type collector struct {
	coltracepb.UnimplementedTraceServiceServer
	got chan *coltracepb.ExportTraceServiceRequest
}

func (c *collector) Export(_ context.Context, req *coltracepb.ExportTraceServiceRequest) (*coltracepb.ExportTraceServiceResponse, error) {
	c.got <- req
	return &coltracepb.ExportTraceServiceResponse{}, nil
}

// serveHTTP starts an OTLP/HTTP collector and returns its base URL.
func (c *collector) serveHTTP(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		req := &coltracepb.ExportTraceServiceRequest{}
		if r.URL.Path != "/v1/traces" || err != nil || proto.Unmarshal(body, req) != nil {
			http.Error(w, "not an OTLP trace export", http.StatusBadRequest)
			return
		}
		c.got <- req
		w.Header().Set("Content-Type", "application/x-protobuf")
		b, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
		_, _ = w.Write(b)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// serveGRPC starts an OTLP/gRPC collector and returns its URL.
func (c *collector) serveGRPC(t *testing.T) string {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := grpc.NewServer()
	coltracepb.RegisterTraceServiceServer(srv, c)
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	return "http://" + lis.Addr().String()
}

// TestFromEnvExportsOverOTLP: with an endpoint in the standard variables,
// spans reach the collector over the protocol they name, from a service
// named kino unless OTEL_SERVICE_NAME names another.
func TestFromEnvExportsOverOTLP(t *testing.T) {
	cases := []struct {
		name, protocol, service, want string
		serve                         func(*collector, *testing.T) string
	}{
		{"http by default", "", "", "kino", (*collector).serveHTTP},
		{"grpc", "grpc", "render-farm", "render-farm", (*collector).serveGRPC},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := &collector{got: make(chan *coltracepb.ExportTraceServiceRequest, 4)}
			for _, v := range []string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_SDK_DISABLED", "OTEL_TRACES_EXPORTER"} {
				t.Setenv(v, "")
			}
			t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", tc.serve(c, t))
			t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", tc.protocol)
			t.Setenv("OTEL_SERVICE_NAME", tc.service)
			ctx := context.Background()
			tp, err := FromEnv(ctx)
			require.NoError(t, err)
			require.NotNil(t, tp)

			_, span := tp.Tracer(Scope).Start(ctx, "ffmpeg")
			span.End()
			// Shutdown sends what the batcher holds.
			require.NoError(t, tp.Shutdown(ctx))
			var req *coltracepb.ExportTraceServiceRequest
			select {
			case req = <-c.got:
			case <-time.After(10 * time.Second):
				t.Fatal("the collector received nothing")
			}
			require.Len(t, req.ResourceSpans, 1)
			rs := req.ResourceSpans[0]
			service := ""
			for _, a := range rs.Resource.Attributes {
				if a.Key == "service.name" {
					service = a.Value.GetStringValue()
				}
			}
			assert.Equal(t, tc.want, service)
			require.Len(t, rs.ScopeSpans, 1)
			assert.Equal(t, Scope, rs.ScopeSpans[0].Scope.Name)
			require.Len(t, rs.ScopeSpans[0].Spans, 1)
			assert.Equal(t, "ffmpeg", rs.ScopeSpans[0].Spans[0].Name)
		})
	}
}

// TestFromEnvIsOffUnlessAsked: no endpoint, or tracing turned off by the
// standard variables, gives no provider; an unknown exporter or protocol is
// an error rather than silence.
func TestFromEnvIsOffUnlessAsked(t *testing.T) {
	cases := []struct {
		name    string
		env     map[string]string
		wantErr string
	}{
		{"nothing set", nil, ""},
		{"only a protocol", map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, ""},
		{"disabled", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_SDK_DISABLED": "true"}, ""},
		{"exporter none", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:4318/v1/traces", "OTEL_TRACES_EXPORTER": "none"}, ""},
		{"other exporter", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_TRACES_EXPORTER": "zipkin"}, "OTEL_TRACES_EXPORTER=zipkin"},
		{"json protocol", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/json"}, "http/json"},
	}
	vars := []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_PROTOCOL",
		"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_SDK_DISABLED", "OTEL_TRACES_EXPORTER"}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, v := range vars {
				t.Setenv(v, tc.env[v])
			}
			tp, err := FromEnv(context.Background())
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Nil(t, tp)
		})
	}
}
