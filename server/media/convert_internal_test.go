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

// TestOutputMetaSignsOnlyTheJobsOwnFiles: a URL an earlier kino stored in
// outputMeta for the job's own file comes back signed; one that the meta
// holds because the input said it (a subtitle cue made the transcript) is
// left as it was, whatever key it names.
func TestOutputMetaSignsOnlyTheJobsOwnFiles(t *testing.T) {
	ctx := context.Background()
	st, err := storage.Open(ctx, "", t.TempDir(), "http://kino.test")
	require.NoError(t, err)
	st.SignURLs([]byte("secret"), 0, true)
	own := "http://kino.test" + storage.FilesPath + "jobs/org-a/job_1/captionsUrl.vtt"
	other := "http://kino.test" + storage.FilesPath + "jobs/org-b/job_2/outputUrl.mp4"
	meta, err := json.Marshal(map[string]any{"captionsUrl": own, "transcript": other})
	require.NoError(t, err)
	j := &jobs.Job{ID: "job_1", OrgID: "org-a", Type: "t", State: jobs.Completed, Args: []byte(`{"inputs":{},"params":{}}`),
		Metadata: map[string]any{mediajob.MetaOutputMeta: string(meta)}}

	r, err := jobRecord(ctx, st, j)
	require.NoError(t, err)
	got := map[string]any{}
	require.NoError(t, json.Unmarshal([]byte(r.GetOutputMeta()), &got))
	assert.Contains(t, got["captionsUrl"], own+"?", "the job's own file is signed")
	assert.Equal(t, other, got["transcript"], "another job's file is not")
}
