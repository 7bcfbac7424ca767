package app_test

import (
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/types/known/structpb"

	mediav1 "github.com/kinohq/kino/gen/kino/media/v1"
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
	require.Len(t, types.GetData(), 9)
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
