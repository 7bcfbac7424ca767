package app_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"

	mediav1 "github.com/kinohq/kino/gen/kino/media/v1"
	renderv1 "github.com/kinohq/kino/gen/kino/render/v1"
	"github.com/kinohq/kino/server/app"
	"github.com/kinohq/kino/server/node"
	"github.com/kinohq/kino/server/org"
	"github.com/kinohq/kino/server/store/storetest"
)

// shortRender is one job (too short to split) that needs no download.
func shortRender() map[string]any {
	return map[string]any{
		"provider": "provider_a",
		"composition": map[string]any{
			"width": 160, "height": 90, "fps": 10, "duration": 1,
			"layers": []any{map[string]any{"type": "color", "color": "#ff0000", "start": 0, "duration": 1}},
		},
	}
}

// limited starts an API node (it runs nothing, so every job stays
// waiting) with keys for org-a and org-b and the default policy pol.
func limited(t *testing.T, db storetest.DB, pol org.Policy, mutate func(*app.Config)) *kino {
	return start(t, db, func(c *app.Config) {
		withKeys(c)
		c.Role = node.RoleAPI
		pol.Weight = 1
		c.Orgs = org.New(pol, nil)
		if mutate != nil {
			mutate(c)
		}
	})
}

// refused checks a 429 envelope with code and returns its Retry-After.
func refused(t *testing.T, r response, code string) time.Duration {
	t.Helper()
	require.Equal(t, http.StatusTooManyRequests, r.status, "%s", r.body)
	require.Equal(t, code, r.errorCode(t))
	secs, err := strconv.Atoi(r.header.Get("Retry-After"))
	require.NoError(t, err, "Retry-After %q", r.header.Get("Retry-After"))
	require.GreaterOrEqual(t, secs, 1)
	return time.Duration(secs) * time.Second
}

// grpcRefused checks a RESOURCE_EXHAUSTED status whose ErrorInfo reason
// is code, and returns its RetryInfo's delay.
func grpcRefused(t *testing.T, err error, code string) time.Duration {
	t.Helper()
	st, ok := status.FromError(err)
	require.True(t, ok, "%v", err)
	require.Equal(t, codes.ResourceExhausted, st.Code(), "%v", err)
	var reason string
	var delay time.Duration
	for _, d := range st.Details() {
		switch d := d.(type) {
		case *errdetails.ErrorInfo:
			reason = d.GetReason()
		case *errdetails.RetryInfo:
			delay = d.GetRetryDelay().AsDuration()
		}
	}
	require.Equal(t, code, reason)
	return delay
}

func asOrg(key string) context.Context {
	return metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+key)
}

func mediaJobRequest(t *testing.T) *mediav1.CreateJobRequest {
	t.Helper()
	in, err := structpb.NewStruct(map[string]any{"source": "https://cdn.example/video.mp4"})
	require.NoError(t, err)
	params, err := structpb.NewStruct(map[string]any{"format": "mp3"})
	require.NoError(t, err)
	return &mediav1.CreateJobRequest{Type: "audio.extract", Inputs: in, Params: params}
}

// TestRateLimit: past its burst an organisation's submits of every kind
// answer 429 RATE_LIMITED with Retry-After (RESOURCE_EXHAUSTED with a
// RetryInfo over gRPC); another organisation is not limited; after the
// wait, the next submit is taken.
func TestRateLimit(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		clock := newTestClock()
		k := limited(t, db, org.Policy{Rate: 2}, clock.config)
		jobs := mediav1.NewJobServiceClient(k.conn)

		require.Equal(t, http.StatusAccepted, k.as(t, keyA, http.MethodPost, "/api/render", shortRender()).status)
		_, err := jobs.CreateJob(asOrg(keyA), mediaJobRequest(t))
		require.NoError(t, err)

		wait := refused(t, k.as(t, keyA, http.MethodPost, "/api/render", shortRender()), "RATE_LIMITED")
		require.LessOrEqual(t, wait, time.Second, "a rate of 2 a second frees a submit within half a second")
		refused(t, k.as(t, keyA, http.MethodPost, "/jobs", watermarkJob()), "RATE_LIMITED")
		_, err = jobs.CreateJob(asOrg(keyA), mediaJobRequest(t))
		require.Positive(t, grpcRefused(t, err, "RATE_LIMITED"))
		png, err := os.ReadFile(filepath.Join(testMedia(t), "image.png"))
		require.NoError(t, err)
		refused(t, k.upload(t, keyA, [][2]string{{"type", "image"}}, "logo.png", png), "RATE_LIMITED")

		// Another organisation has a bucket of its own.
		require.Equal(t, http.StatusAccepted, k.as(t, keyB, http.MethodPost, "/api/render", shortRender()).status)
		require.Equal(t, http.StatusAccepted, k.as(t, keyB, http.MethodPost, "/jobs", watermarkJob()).status)

		// The wait Retry-After gave is enough: the refusals took nothing.
		clock.add(wait)
		r := k.as(t, keyA, http.MethodPost, "/api/render", shortRender())
		require.Equal(t, http.StatusAccepted, r.status, "%s", r.body)
	})
}

// TestRateLimitSharedByNodes: two nodes on one PostgreSQL schema take
// submits from one bucket per organisation.
func TestRateLimitSharedByNodes(t *testing.T) {
	t.Parallel()
	db := storetest.Postgres(t)
	clock := newTestClock() // the nodes' clocks, in step
	a := limited(t, db, org.Policy{Rate: 2}, clock.config)
	b := limited(t, db, org.Policy{Rate: 2}, clock.config)

	require.Equal(t, http.StatusAccepted, a.as(t, keyA, http.MethodPost, "/api/render", shortRender()).status)
	require.Equal(t, http.StatusAccepted, b.as(t, keyA, http.MethodPost, "/api/render", shortRender()).status)
	wait := refused(t, a.as(t, keyA, http.MethodPost, "/api/render", shortRender()), "RATE_LIMITED")
	refused(t, b.as(t, keyA, http.MethodPost, "/api/render", shortRender()), "RATE_LIMITED")
	_, err := b.rpc.SubmitRender(asOrg(keyA), &renderv1.SubmitRenderRequest{})
	require.Equal(t, codes.InvalidArgument, status.Code(err), "validation comes first: %v", err)
	require.Equal(t, http.StatusAccepted, b.as(t, keyB, http.MethodPost, "/api/render", shortRender()).status)

	clock.add(wait)
	r := b.as(t, keyA, http.MethodPost, "/api/render", shortRender())
	require.Equal(t, http.StatusAccepted, r.status, "%s", r.body)
}

// TestQueueFull: an organisation's submits past its jobs waiting answer
// 429 QUEUE_FULL, whole (a pipeline run of two nodes when one place is
// left); another organisation is not limited; when a worker starts one
// of its jobs, the next submit is accepted.
func TestQueueFull(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		k := limited(t, db, org.Policy{MaxQueued: 3}, nil)

		first := k.submitAs(t, keyA, shortRender())
		require.Equal(t, http.StatusAccepted, k.as(t, keyA, http.MethodPost, "/jobs", watermarkJob()).status)
		r := k.as(t, keyA, http.MethodPost, "/pipelines", specPipeline())
		require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
		pipeline := r.json(t)["data"].(map[string]any)["id"].(string)
		// Two places taken of three: a run of three nodes does not fit.
		wait := refused(t, k.as(t, keyA, http.MethodPost, "/pipelines/"+pipeline+"/runs", map[string]any{
			"inputs": map[string]any{"extract": map[string]any{"source": "https://cdn.example/video.mp4"}},
		}), "QUEUE_FULL")
		require.Equal(t, 5*time.Second, wait)
		require.Equal(t, http.StatusAccepted, k.as(t, keyA, http.MethodPost, "/api/render", shortRender()).status)
		refused(t, k.as(t, keyA, http.MethodPost, "/jobs", watermarkJob()), "QUEUE_FULL")
		_, err := k.rpc.SubmitRender(asOrg(keyA), &renderv1.SubmitRenderRequest{Provider: "provider_a", Composition: composition(t, shortRender())})
		require.Positive(t, grpcRefused(t, err, "QUEUE_FULL"))

		require.Equal(t, http.StatusAccepted, k.as(t, keyB, http.MethodPost, "/api/render", shortRender()).status)

		// A worker node on the same database starts the oldest job.
		start(t, db, func(c *app.Config) {
			withKeys(c)
			c.Role = node.RoleWorker
		})
		require.Eventually(t, func() bool {
			return k.getAs(t, keyA, first)["status"] != "queued"
		}, 30*time.Second, 50*time.Millisecond)
		r = k.as(t, keyA, http.MethodPost, "/api/render", shortRender())
		require.Equal(t, http.StatusAccepted, r.status, "%s", r.body)
	})
}

// TestStorageQuota: an upload past the organisation's storage quota is
// refused 413 QUOTA_EXCEEDED and nothing is kept; another organisation
// is not limited; deleting an asset makes room.
func TestStorageQuota(t *testing.T) {
	t.Parallel()
	png, err := os.ReadFile(filepath.Join(testMedia(t), "image.png"))
	require.NoError(t, err)
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		k := limited(t, db, org.Policy{StorageQuota: int64(2 * len(png))}, nil)
		upload := func(key string) response {
			return k.upload(t, key, [][2]string{{"type", "image"}}, "logo.png", png)
		}
		r := upload(keyA)
		require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
		id := r.json(t)["data"].(map[string]any)["id"].(string)
		require.Equal(t, http.StatusCreated, upload(keyA).status, "exactly at the quota")
		r = upload(keyA)
		require.Equal(t, http.StatusRequestEntityTooLarge, r.status, "%s", r.body)
		require.Equal(t, "QUOTA_EXCEEDED", r.errorCode(t))
		require.Empty(t, r.header.Get("Retry-After"), "waiting frees no storage")
		list := k.as(t, keyA, http.MethodGet, "/assets", nil)
		require.Equal(t, http.StatusOK, list.status, "%s", list.body)
		require.Len(t, list.json(t)["data"], 2, "nothing of the refused upload is kept")

		require.Equal(t, http.StatusCreated, upload(keyB).status)

		require.Equal(t, http.StatusOK, k.as(t, keyA, http.MethodDelete, "/assets/"+id, nil).status)
		r = upload(keyA)
		require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
	})
}

func (k *kino) submitAs(t *testing.T, key string, body any) string {
	t.Helper()
	r := k.as(t, key, http.MethodPost, "/api/render", body)
	require.Equal(t, http.StatusAccepted, r.status, "submit: %s", r.body)
	return r.json(t)["jobId"].(string)
}

func (k *kino) getAs(t *testing.T, key, id string) map[string]any {
	t.Helper()
	r := k.as(t, key, http.MethodGet, "/api/render/"+id, nil)
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	return r.json(t)
}

func composition(t *testing.T, body map[string]any) *structpb.Struct {
	t.Helper()
	c, err := structpb.NewStruct(body["composition"].(map[string]any))
	require.NoError(t, err)
	return c
}
