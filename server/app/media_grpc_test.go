package app_test

import (
	"context"
	"io"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/types/known/structpb"

	mediav1 "github.com/kinohq/kino/gen/kino/media/v1"
	"github.com/kinohq/kino/server/app"
	"github.com/kinohq/kino/server/store/storetest"
)

func TestMediaOverGRPC(t *testing.T) {
	t.Parallel()
	k := start(t, storetest.SQLite(t), nil)
	ctx := context.Background()
	jobs := mediav1.NewJobServiceClient(k.conn)
	pipelines := mediav1.NewPipelineServiceClient(k.conn)
	assets := mediav1.NewAssetServiceClient(k.conn)

	types, err := jobs.ListJobTypes(ctx, &mediav1.ListJobTypesRequest{})
	require.NoError(t, err)
	require.Len(t, types.GetData(), 11)
	assert.True(t, slices.ContainsFunc(types.GetData(), func(jt *mediav1.JobType) bool { return jt.GetType() == "mockup.render" }))

	inputs, err := structpb.NewStruct(map[string]any{"source": "https://cdn.example/v.mp4"})
	require.NoError(t, err)
	created, err := jobs.CreateJob(ctx, &mediav1.CreateJobRequest{Type: "audio.extract", Inputs: inputs})
	require.NoError(t, err)
	assert.Equal(t, "waiting", created.GetData().GetStatus())
	got, err := jobs.GetJob(ctx, &mediav1.GetJobRequest{Id: created.GetData().GetId()})
	require.NoError(t, err)
	assert.Equal(t, created.GetData().GetId(), got.GetData().GetId())
	_, err = jobs.GetJob(ctx, &mediav1.GetJobRequest{Id: "job_missing"})
	assertCode(t, err, codes.NotFound, "JOB_NOT_FOUND")
	_, err = jobs.ListJobs(ctx, &mediav1.ListJobsRequest{Limit: "1e2"})
	assertCode(t, err, codes.InvalidArgument, "VALIDATION_ERROR")

	_, err = pipelines.CreatePipeline(ctx, &mediav1.CreatePipelineRequest{Name: "empty"})
	assertCode(t, err, codes.InvalidArgument, "VALIDATION_ERROR")
	p, err := pipelines.CreatePipeline(ctx, &mediav1.CreatePipelineRequest{Name: "one", Nodes: []*mediav1.PipelineNode{{Id: "a", JobType: "audio.extract"}}})
	require.NoError(t, err)
	_, err = pipelines.GetPipeline(ctx, &mediav1.GetPipelineRequest{Id: p.GetData().GetId()})
	require.NoError(t, err)
	_, err = pipelines.GetPipeline(ctx, &mediav1.GetPipelineRequest{Id: "pl_missing"})
	assertCode(t, err, codes.NotFound, "PIPELINE_NOT_FOUND")

	list, err := assets.ListAssets(ctx, &mediav1.ListAssetsRequest{})
	require.NoError(t, err)
	assert.Zero(t, list.GetMeta().GetTotal())
	_, err = assets.GetAsset(ctx, &mediav1.GetAssetRequest{Id: "ast_missing"})
	assertCode(t, err, codes.NotFound, "ASSET_NOT_FOUND")
}

// TestUploadsAndOrgOverGRPC: UploadFile answers its headers only once the
// key, the name and the limits are checked, and stores what follows;
// GetCurrentOrg answers the key's organisation.
func TestUploadsAndOrgOverGRPC(t *testing.T) {
	t.Parallel()
	k := start(t, storetest.SQLite(t), func(c *app.Config) {
		withKeys(c)
		c.FileUploadBytes = 1000
	})
	as := func(key string) context.Context {
		return metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+key)
	}
	orgs := mediav1.NewOrgServiceClient(k.conn)
	cur, err := orgs.GetCurrentOrg(as(keyB), &mediav1.GetCurrentOrgRequest{})
	require.NoError(t, err)
	assert.Equal(t, "org-b", cur.GetData().GetOrg().GetId())
	assert.Equal(t, 1000.0, cur.GetData().GetLimits().GetMaxUploadBytes())
	_, err = orgs.GetCurrentOrg(context.Background(), &mediav1.GetCurrentOrgRequest{})
	assertCode(t, err, codes.Unauthenticated, "UNAUTHENTICATED")

	uploads := mediav1.NewUploadServiceClient(k.conn)
	send := func(ctx context.Context, info *mediav1.UploadInfo, body []byte) (*mediav1.UploadFileResponse, error) {
		stream, err := uploads.UploadFile(ctx)
		require.NoError(t, err)
		// A call without a key is refused as it opens (the key before
		// anything): the first Send may already find the stream ended.
		if err := stream.Send(&mediav1.UploadFileRequest{Part: &mediav1.UploadFileRequest_Info{Info: info}}); err != nil {
			require.ErrorIs(t, err, io.EOF)
			return stream.CloseAndRecv()
		}
		if md, err := stream.Header(); err != nil || md == nil {
			return stream.CloseAndRecv() // refused before any byte was sent
		}
		for len(body) > 0 {
			n := min(len(body), 300)
			if stream.Send(&mediav1.UploadFileRequest{Part: &mediav1.UploadFileRequest_Chunk{Chunk: body[:n]}}) != nil {
				break
			}
			body = body[n:]
		}
		return stream.CloseAndRecv()
	}
	body := []byte("1\n00:00:00,000 --> 00:00:01,000\nhello\n")
	got, err := send(as(keyA), &mediav1.UploadInfo{Filename: "hello.srt"}, body)
	require.NoError(t, err)
	assert.Equal(t, float64(len(body)), got.GetData().GetSize())
	assert.Equal(t, "application/x-subrip", got.GetData().GetContentType())
	_, err = send(context.Background(), &mediav1.UploadInfo{Filename: "hello.srt"}, body)
	assertCode(t, err, codes.Unauthenticated, "UNAUTHENTICATED")
	_, err = send(as(keyA), &mediav1.UploadInfo{Filename: "big.bin", DeclaredSize: 1001}, nil)
	assertCode(t, err, codes.ResourceExhausted, "FILE_TOO_LARGE")
	_, err = send(as(keyA), &mediav1.UploadInfo{Filename: "big.bin"}, make([]byte, 1001))
	assertCode(t, err, codes.ResourceExhausted, "FILE_TOO_LARGE")
	_, err = send(as(keyA), &mediav1.UploadInfo{Filename: "../"}, body)
	assertCode(t, err, codes.InvalidArgument, "VALIDATION_ERROR")
	cur, err = orgs.GetCurrentOrg(as(keyA), &mediav1.GetCurrentOrgRequest{})
	require.NoError(t, err)
	assert.Equal(t, float64(len(body)), cur.GetData().GetStorage().GetUsed())
}
