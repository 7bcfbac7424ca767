package app_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"

	renderv1 "github.com/kinohq/kino/gen/kino/render/v1"
	"github.com/kinohq/kino/server/app"
	"github.com/kinohq/kino/server/store/storetest"
)

// smallComposition renders quickly: 2 s of 160x90 at 10 fps.
func smallComposition(media *mediaServer) map[string]any {
	return map[string]any{
		"provider": "provider_a",
		"composition": map[string]any{
			"width": 160, "height": 90, "fps": 10, "duration": 2, "background": "#203040",
			"layers": []any{
				map[string]any{"type": "image", "src": "logo", "start": 0, "duration": 2, "x": "center", "y": "center", "width": 64, "height": 48, "fadeIn": 0.5},
				map[string]any{"type": "text", "text": `He said: 'kino' \ %{pts} [out];`, "start": 0.5, "duration": 1.5, "fontSize": 14, "color": "#ffffff", "x": "center", "y": 10},
				map[string]any{"type": "audio", "src": "tone", "start": 0, "duration": 2, "volume": 0.5},
			},
		},
		"assetUrls": map[string]any{"logo": media.URL + "/image.png", "tone": media.URL + "/tone.wav"},
	}
}

// longComposition keeps a worker busy for many seconds.
func longComposition() map[string]any {
	return map[string]any{
		"provider": "provider_a",
		"composition": map[string]any{
			"width": 1280, "height": 720, "fps": 30, "duration": 300,
			"layers": []any{map[string]any{"type": "color", "color": "#ff0000", "start": 0, "duration": 300}},
		},
	}
}

func TestHealth(t *testing.T) {
	t.Parallel()
	k := start(t, storetest.SQLite(t), nil)

	r := k.do(t, http.MethodGet, "/api/health", nil)
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	m := r.json(t)
	assert.Equal(t, "healthy", m["status"])
	ts, err := time.Parse(time.RFC3339, m["timestamp"].(string))
	require.NoError(t, err)
	assert.WithinDuration(t, time.Now(), ts, 5*time.Second)

	conn, err := grpc.NewClient(k.app.GRPCAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer conn.Close()
	hc, err := healthpb.NewHealthClient(conn).Check(context.Background(), &healthpb.HealthCheckRequest{})
	require.NoError(t, err)
	assert.Equal(t, healthpb.HealthCheckResponse_SERVING, hc.GetStatus())
}

func TestSubmitValidation(t *testing.T) {
	t.Parallel()
	k := start(t, storetest.SQLite(t), func(c *app.Config) { c.MaxBodyBytes = 4096 })
	valid := `{"provider":"provider_a","composition":{"width":160,"height":90,"fps":10,"layers":[{"type":"color","color":"#000000","start":0,"duration":1}]}}`

	cases := []struct {
		name        string
		body        string
		contentType string
		inMessage   string
	}{
		{"malformed JSON", `{"provider":`, "application/json", "not valid"},
		{"not an object", `[1,2]`, "application/json", "not valid"},
		{"empty body", ``, "application/json", "empty"},
		{"wrong content type", valid, "text/plain", "Content-Type"},
		{"over the body limit", `{"provider":"provider_a","composition":{"pad":"` + strings.Repeat("x", 5000) + `"}}`, "application/json", "limit of 4096 bytes"},
		{"unknown provider", strings.Replace(valid, "provider_a", "provider_z", 1), "application/json", "provider"},
		{"missing composition", `{"provider":"provider_a"}`, "application/json", "composition"},
		{"unknown top-level field", strings.Replace(valid, `"provider"`, `"extra":1,"provider"`, 1), "application/json", "extra"},
		{"bad webhook", strings.Replace(valid, `"provider"`, `"webhook":"ftp://x","provider"`, 1), "application/json", "webhook"},
		{"unknown asset key", `{"provider":"provider_a","composition":{"width":160,"height":90,"fps":10,"layers":[{"type":"image","src":"logo","start":0,"duration":1}]}}`, "application/json", "composition.layers[0].src"},
		{"width out of range", strings.Replace(valid, `"width":160`, `"width":100000`, 1), "application/json", "composition.width"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := k.do(t, http.MethodPost, "/api/render", []byte(tc.body), "Content-Type", tc.contentType)
			assert.Equal(t, http.StatusBadRequest, r.status, "%s", r.body)
			assert.Equal(t, "VALIDATION_ERROR", r.errorCode(t))
			assert.Contains(t, r.json(t)["error"].(map[string]any)["message"], tc.inMessage)
		})
	}
}

func TestNotFoundAndRouting(t *testing.T) {
	t.Parallel()
	k := start(t, storetest.SQLite(t), nil)

	r := k.do(t, http.MethodGet, "/api/render/nope", nil)
	assert.Equal(t, http.StatusNotFound, r.status)
	assert.Equal(t, "JOB_NOT_FOUND", r.errorCode(t))

	r = k.do(t, http.MethodDelete, "/api/render/nope", nil)
	assert.Equal(t, http.StatusNotFound, r.status)
	assert.Equal(t, "JOB_NOT_FOUND", r.errorCode(t))

	r = k.do(t, http.MethodGet, "/api/render/nope/events", nil)
	assert.Equal(t, http.StatusNotFound, r.status)
	assert.Equal(t, "JOB_NOT_FOUND", r.errorCode(t))

	r = k.do(t, http.MethodGet, "/api/nothing-here", nil)
	assert.Equal(t, http.StatusNotFound, r.status)
	assert.Equal(t, "NOT_FOUND", r.errorCode(t))

	r = k.do(t, http.MethodPut, "/api/health", "{}")
	assert.Equal(t, http.StatusMethodNotAllowed, r.status, "%s", r.body)
	assert.Equal(t, "METHOD_NOT_ALLOWED", r.errorCode(t))

	r = k.do(t, http.MethodGet, "/files/renders/missing.mp4", nil)
	assert.Equal(t, http.StatusNotFound, r.status)
	assert.Equal(t, "NOT_FOUND", r.errorCode(t))
}

func TestGRPCErrorsCarryTheCode(t *testing.T) {
	t.Parallel()
	k := start(t, storetest.SQLite(t), nil)
	ctx := context.Background()

	_, err := k.rpc.GetRender(ctx, &renderv1.GetRenderRequest{JobId: "nope"})
	assertCode(t, err, codes.NotFound, "JOB_NOT_FOUND")

	comp, err := structpb.NewStruct(map[string]any{"width": 7})
	require.NoError(t, err)
	_, err = k.rpc.SubmitRender(ctx, &renderv1.SubmitRenderRequest{Provider: "provider_a", Composition: comp})
	assertCode(t, err, codes.InvalidArgument, "VALIDATION_ERROR")
}

func assertCode(t *testing.T, err error, want codes.Code, reason string) {
	t.Helper()
	st, ok := status.FromError(err)
	require.True(t, ok, "not a status: %v", err)
	assert.Equal(t, want, st.Code())
	var got string
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			got = info.GetReason()
		}
	}
	assert.Equal(t, reason, got, "ErrorInfo reason")
}

func TestIdempotencyKey(t *testing.T) {
	t.Parallel()
	k := start(t, storetest.SQLite(t), nil)
	body := longComposition()

	first := k.submit(t, body, "Idempotency-Key", "order-42")
	again := k.submit(t, body, "Idempotency-Key", "order-42")
	assert.Equal(t, first, again, "a repeat returns the first job")

	other := longComposition()
	other["composition"].(map[string]any)["width"] = 640
	r := k.do(t, http.MethodPost, "/api/render", other, "Idempotency-Key", "order-42")
	assert.Equal(t, http.StatusUnprocessableEntity, r.status, "%s", r.body)
	assert.Equal(t, "IDEMPOTENCY_KEY_REUSED", r.errorCode(t))

	fresh := k.submit(t, body, "Idempotency-Key", "order-43")
	assert.NotEqual(t, first, fresh)

	// The same key over gRPC metadata.
	comp, err := structpb.NewStruct(body["composition"].(map[string]any))
	require.NoError(t, err)
	ctx := metadata.AppendToOutgoingContext(context.Background(), "idempotency-key", "order-42")
	resp, err := k.rpc.SubmitRender(ctx, &renderv1.SubmitRenderRequest{Provider: "provider_a", Composition: comp})
	require.NoError(t, err)
	assert.Equal(t, first, resp.GetJobId())
	for _, id := range []string{first, fresh} {
		k.do(t, http.MethodDelete, "/api/render/"+id, nil)
	}
}

func TestCORSAndOpenAPI(t *testing.T) {
	t.Parallel()
	k := start(t, storetest.SQLite(t), func(c *app.Config) { c.CORSOrigins = []string{"https://app.example"} })

	r := k.do(t, http.MethodOptions, "/api/render", nil,
		"Origin", "https://app.example", "Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "content-type")
	assert.Equal(t, http.StatusNoContent, r.status)
	assert.Equal(t, "https://app.example", r.header.Get("Access-Control-Allow-Origin"))
	assert.Contains(t, r.header.Get("Access-Control-Allow-Methods"), "POST")

	r = k.do(t, http.MethodGet, "/api/health", nil, "Origin", "https://evil.example")
	assert.Empty(t, r.header.Get("Access-Control-Allow-Origin"))

	r = k.do(t, http.MethodGet, "/api/openapi.json", nil)
	require.Equal(t, http.StatusOK, r.status)
	var doc struct {
		Paths map[string]map[string]struct {
			Responses map[string]any `json:"responses"`
		} `json:"paths"`
	}
	require.NoError(t, json.Unmarshal(r.body, &doc))
	assert.Contains(t, doc.Paths["/api/render"]["post"].Responses, "202")
	assert.Contains(t, doc.Paths["/api/render/{jobId}"]["delete"].Responses, "200")
	assert.Contains(t, doc.Paths["/pipelines/{id}/runs"]["post"].Responses, "202")
	// Every operation says what it answers on success.
	for path, ops := range doc.Paths {
		for method, op := range ops {
			ok := false
			for code := range op.Responses {
				ok = ok || strings.HasPrefix(code, "2")
			}
			assert.True(t, ok, "%s %s documents no success response", method, path)
		}
	}
	assert.Contains(t, string(r.body), `"ErrorResponse"`)
}
