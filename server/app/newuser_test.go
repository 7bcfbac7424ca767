package app_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"

	renderv1 "github.com/kinohq/kino/gen/kino/render/v1"
	"github.com/kinohq/kino/server/app"
	"github.com/kinohq/kino/server/store/storetest"
)

// A render request with four mistakes is answered with all four, in the
// message and one by one in error.details, over REST and gRPC.
func TestValidationAnswersEveryProblemAtOnce(t *testing.T) {
	t.Parallel()
	k := start(t, storetest.SQLite(t), nil)
	composition := map[string]any{"width": 641, "height": 360, "layers": []any{
		map[string]any{"type": "text", "text": "hi", "duration": 2, "colour": "#fff"},
		map[string]any{"type": "rectangle", "duration": 2, "width": 10, "height": 10, "color": "pink-ish"},
		map[string]any{"type": "nope", "duration": 2},
	}}
	r := k.do(t, http.MethodPost, "/api/render", map[string]any{"provider": "provider_a", "composition": composition})
	require.Equal(t, http.StatusBadRequest, r.status, "%s", r.body)
	var body struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
			Details []struct{ Field, Message string }
		} `json:"error"`
	}
	require.NoError(t, json.Unmarshal(r.body, &body))
	require.Equal(t, "VALIDATION_ERROR", body.Error.Code)
	require.Contains(t, body.Error.Message, "composition.width: must be an even integer")
	require.Contains(t, body.Error.Message, "(and 3 more problems: composition.layers[0].colour: unknown field;")
	var fields []string
	for _, d := range body.Error.Details {
		require.NotEmpty(t, d.Message)
		fields = append(fields, d.Field)
	}
	require.Equal(t, []string{"composition.width", "composition.layers[0].colour", "composition.layers[1].color", "composition.layers[2].type"}, fields)

	// A request with one problem keeps the plain envelope.
	composition["layers"] = []any{}
	composition["width"] = 640
	composition["duration"] = -1
	r = k.do(t, http.MethodPost, "/api/render", map[string]any{"provider": "provider_a", "composition": composition})
	require.Equal(t, "VALIDATION_ERROR", r.errorCode(t), "%s", r.body)

	c, err := structpb.NewStruct(map[string]any{"width": 641, "height": 361, "layers": []any{}})
	require.NoError(t, err)
	_, err = k.rpc.SubmitRender(context.Background(), &renderv1.SubmitRenderRequest{Provider: "provider_a", Composition: c})
	st := status.Convert(err)
	require.Equal(t, codes.InvalidArgument, st.Code())
	var violations []string
	for _, d := range st.Details() {
		if br, ok := d.(*errdetails.BadRequest); ok {
			for _, v := range br.GetFieldViolations() {
				violations = append(violations, v.GetField())
			}
		}
	}
	require.Equal(t, []string{"composition.width", "composition.height"}, violations)
}

// The command line names a pipeline's input "extract.source"; sent as a
// key of a REST run's inputs it is answered with how to write it there,
// not with "no node has this id" beside "is required".
func TestPipelineRunExplainsTheCommandLinesKey(t *testing.T) {
	t.Parallel()
	k := start(t, storetest.SQLite(t), nil)
	def, err := os.ReadFile("../../examples/pipeline.json")
	require.NoError(t, err)
	r := k.do(t, http.MethodPost, "/pipelines", def)
	require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
	id := r.json(t)["data"].(map[string]any)["id"].(string)

	r = k.do(t, http.MethodPost, "/pipelines/"+id+"/runs", map[string]any{"inputs": map[string]any{"extract.source": demoTalk}})
	require.Equal(t, "VALIDATION_ERROR", r.errorCode(t))
	msg := r.json(t)["error"].(map[string]any)["message"].(string)
	require.Equal(t, `inputs.extract.source: names node "extract" and its input "source" as the command line does; in the request body write "inputs": {"extract": {"source": …}}`, msg)

	// As the README writes it, the run starts.
	r = k.do(t, http.MethodPost, "/pipelines/"+id+"/runs", map[string]any{"inputs": map[string]any{"extract": map[string]any{"source": demoTalk}}})
	require.Equal(t, http.StatusAccepted, r.status, "%s", r.body)
}

// A demo name that does not exist fails the job saying so, and naming the
// demo files, not as a refused loopback address.
func TestWrongDemoNameSaysSo(t *testing.T) {
	t.Parallel()
	k := start(t, storetest.SQLite(t), func(c *app.Config) { c.AllowPrivateNetworks = false })
	id := k.createJob(t, map[string]any{"type": "image.resize", "inputs": map[string]any{"source": "http://localhost:8080/demo/nothere.png"}, "params": map[string]any{"width": 32}})
	j := k.waitJob(t, id)
	require.Equal(t, "failed", j["status"], "%v", j)
	require.Contains(t, j["errorMessage"], `there is no demo file "nothere.png"; the demo files are captions.srt,`)
	require.NotContains(t, j["errorMessage"], "loopback")
}

// 100 blurred pictures need more memory in ffmpeg's graph than one ffmpeg
// may use: ffmpeg failed to configure its filters ("Cannot allocate
// memory") and the preview answered 500 INTERNAL_ERROR, the render failed
// the same. The plan refuses first, naming the layer where the memory runs
// out; fewer layers draw.
func TestBlurredLayersPastTheGraphsMemoryAreRefusedByName(t *testing.T) {
	t.Parallel()
	k := start(t, storetest.SQLite(t), func(c *app.Config) { c.AllowPrivateNetworks = false })
	blurred := func(n int) map[string]any {
		var layers []any
		for range n {
			layers = append(layers, map[string]any{"type": "image", "src": k.base + "/demo/picture1.jpg", "filters": map[string]any{"blur": 100}, "duration": 2})
		}
		return map[string]any{"provider": "provider_a", "composition": map[string]any{"width": 1920, "height": 1080, "fps": 25, "layers": layers}}
	}
	preview := withFields(blurred(100), "time", 0.5, "width", 320)
	r := k.do(t, http.MethodPost, "/api/render/preview", preview)
	require.Equal(t, "VALIDATION_ERROR", r.errorCode(t), "%s", r.body)
	require.Contains(t, string(r.body), "composition.layers[46].filters.blur: with the layers under it, drawing needs about")
	require.Contains(t, string(r.body), "--ffmpeg-max-memory")

	id := k.submit(t, blurred(100))
	job := k.waitStatus(t, id, "failed", time.Minute)
	require.Contains(t, job["error"].(map[string]any)["message"], "composition.layers[46].filters.blur")

	r = k.do(t, http.MethodPost, "/api/render/preview", withFields(blurred(20), "time", 0.5, "width", 320))
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
}
