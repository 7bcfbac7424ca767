package media

import (
	"context"
	"encoding/json"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/ent"
	"github.com/kinohq/kino/server/jobs"
	"github.com/kinohq/kino/server/storage"
)

// TestJobRecordSignsOnlyTheJobsFiles: a value of outputMeta that names a
// /files/ URL is signed again only when it is one of the job's own files.
// A transcript read from the input's subtitles is the user's text: were it
// signed, a subtitle line naming another org's object would come back as
// a valid URL for it.
func TestJobRecordSignsOnlyTheJobsFiles(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const public = "http://kino.test"
	st, err := storage.Open(ctx, "", t.TempDir(), public)
	require.NoError(t, err)
	st.SignURLs([]byte("secret"), time.Hour, true)

	foreign := public + storage.FilesPath + "assets/org_b/ast_1/secret.png"
	old := public + storage.FilesPath + "jobs/org_a/job_1/thumbnail.png"
	meta, _ := json.Marshal(map[string]any{"transcript": foreign, "thumbnailUrl": old})
	j := &ent.Job{
		ID: "job_1", OrgID: "org_a", Type: "captions", State: jobs.Completed, Args: []byte(`{}`),
		Metadata: map[string]any{MetaOutputMeta: string(meta)},
	}
	rec, err := jobRecord(ctx, st, j)
	require.NoError(t, err)
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(rec.GetOutputMeta()), &got))
	assert.Equal(t, foreign, got["transcript"], "the user's text is left as it was, unsigned")

	u, err := url.Parse(got["thumbnailUrl"].(string))
	require.NoError(t, err)
	require.NoError(t, st.Signer().Check("jobs/org_a/job_1/thumbnail.png", u.Query(), time.Now()), "the job's own file is signed")
}
