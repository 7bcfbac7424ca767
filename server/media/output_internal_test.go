package media

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/jobs"
	"github.com/kinohq/kino/server/mediajob"
	"github.com/kinohq/kino/server/storage"
)

// TestOutputObject: a complete caption.extract's output has its transcript
// as data, the passed-through source as file, and every stored file in
// files, the primary first; a job completed before kino recorded its
// files has them made from its outputs; an unfinished job has no output.
func TestOutputObject(t *testing.T) {
	ctx := context.Background()
	st, err := storage.Open(ctx, "", t.TempDir(), "http://kino.test")
	require.NoError(t, err)
	meta, err := json.Marshal(map[string]any{"transcript": "hello world", "contentType": "video/mp4", "sizeBytes": 1000,
		"duration": 2.5, "width": 640, "height": 360})
	require.NoError(t, err)
	prefix := "jobs/org-a/job_1/"
	j := &jobs.Job{ID: "job_1", OrgID: "org-a", Type: "caption.extract", State: jobs.Completed, Args: []byte(`{"inputs":{},"params":{}}`),
		Outputs: map[string]string{"outputUrl": prefix + "outputUrl.mp4", "captionsUrl": prefix + "captionsUrl.vtt"},
		Metadata: map[string]any{mediajob.MetaOutputMeta: string(meta), mediajob.MetaFiles: []any{
			map[string]any{"key": prefix + "captionsUrl.vtt", "field": "captionsUrl", "contentType": "text/vtt; charset=utf-8", "size": 40.0},
			map[string]any{"key": prefix + "outputUrl.mp4", "field": "outputUrl", "contentType": "video/mp4", "size": 1000.0},
		}}}
	r, err := jobRecord(ctx, st, j)
	require.NoError(t, err)
	out := r.GetOutput()
	require.NotNil(t, out)
	assert.Equal(t, map[string]any{"transcript": "hello world"}, out.GetData().AsMap())
	require.Len(t, out.GetFiles(), 2)
	assert.Equal(t, out.GetFile(), out.GetFiles()[0])
	assert.Equal(t, "outputUrl.mp4", out.GetFile().GetPath())
	assert.Equal(t, "video", out.GetFile().GetType())
	assert.Equal(t, 1000.0, out.GetFile().GetSize())
	assert.Equal(t, map[string]any{"format": "mp4", "width": 640.0, "height": 360.0, "durationMs": 2500.0}, out.GetFile().GetMeta().AsMap())
	assert.Equal(t, "captions", out.GetFiles()[1].GetType())
	assert.Equal(t, r.GetOutputUrl(), out.GetFile().GetUrl())
	assert.NotNil(t, out.ExpiresAt)
	assert.Nil(t, r.GetError())

	// Recorded before the files list: made from the outputs.
	delete(j.Metadata, mediajob.MetaFiles)
	r, err = jobRecord(ctx, st, j)
	require.NoError(t, err)
	require.Len(t, r.GetOutput().GetFiles(), 2)
	assert.Equal(t, "outputUrl.mp4", r.GetOutput().GetFile().GetPath())
	assert.Equal(t, 1000.0, r.GetOutput().GetFile().GetSize())

	code, msg := "EXECUTION_FAILED", "ffmpeg failed"
	j.State, j.ErrorCode, j.ErrorMessage = jobs.Failed, &code, &msg
	r, err = jobRecord(ctx, st, j)
	require.NoError(t, err)
	assert.Nil(t, r.GetOutput())
	assert.Equal(t, code, r.GetError().GetCode())
	assert.Equal(t, msg, r.GetError().GetMessage())
}

func TestOutputOrderAndTypes(t *testing.T) {
	assert.Less(t, outputOrder("outputUrl2"), outputOrder("outputUrl10"))
	for ct, want := range map[string]string{"application/vnd.apple.mpegurl": "playlist", "video/mp2t": "video", "image/png": "image",
		"audio/mpeg": "audio", "application/x-subrip; charset=utf-8": "captions", "application/json": "data", "": "other"} {
		assert.Equal(t, want, fileType(ct, "x"), ct)
	}
}
