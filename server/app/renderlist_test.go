package app_test

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"

	renderv1 "github.com/kinohq/kino/gen/kino/render/v1"
	"github.com/kinohq/kino/server/app"
	"github.com/kinohq/kino/server/store/storetest"
)

// listRenders reads GET /api/render?query with API key key (none when empty) and returns the ids in
// order and the meta object.
func (k *kino) listRenders(t *testing.T, key, query string) ([]string, map[string]any) {
	t.Helper()
	var header []string
	if key != "" {
		header = bearer(key)
	}
	r := k.do(t, http.MethodGet, "/api/render?"+query, nil, header...)
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	m := r.json(t)
	require.Len(t, m, 2, "a list holds data and meta: %s", r.body)
	data, ok := m["data"].([]any)
	require.True(t, ok, "data is a list, present when empty: %s", r.body)
	ids := []string{}
	for _, d := range data {
		rec := d.(map[string]any)
		ids = append(ids, rec["jobId"].(string))
	}
	return ids, m["meta"].(map[string]any)
}

func TestListRenders(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		k := start(t, db, apiOnly)
		var a []string // org-a's renders, oldest first
		for range 3 {
			a = append(a, dataOrJobID(t, k.as(t, keyA, http.MethodPost, "/api/render", longComposition())))
		}
		b := dataOrJobID(t, k.as(t, keyB, http.MethodPost, "/api/render", longComposition()))
		require.Equal(t, http.StatusOK, k.as(t, keyA, http.MethodDelete, "/api/render/"+a[1], nil).status)

		ids, meta := k.listRenders(t, keyA, "")
		assert.Equal(t, []string{a[2], a[1], a[0]}, ids, "newest first, only the caller's")
		assert.Equal(t, map[string]any{"total": 3.0, "page": 1.0, "limit": 50.0}, meta)

		ids, meta = k.listRenders(t, keyA, "limit=2&offset=2")
		assert.Equal(t, []string{a[0]}, ids)
		assert.Equal(t, map[string]any{"total": 3.0, "page": 2.0, "limit": 2.0}, meta)

		ids, meta = k.listRenders(t, keyA, "status=queued")
		assert.Equal(t, []string{a[2], a[0]}, ids)
		assert.Equal(t, 2.0, meta["total"])
		ids, _ = k.listRenders(t, keyA, "status=cancelled")
		assert.Equal(t, []string{a[1]}, ids)
		ids, meta = k.listRenders(t, keyA, "status=failed")
		assert.Empty(t, ids)
		assert.Equal(t, 0.0, meta["total"])
		ids, _ = k.listRenders(t, keyB, "")
		assert.Equal(t, []string{b}, ids)

		// The records are the status records GET /api/render/{id} answers.
		r := k.as(t, keyA, http.MethodGet, "/api/render?limit=1", nil)
		one := k.as(t, keyA, http.MethodGet, "/api/render/"+a[2], nil)
		assert.JSONEq(t, `{"data":[`+string(one.body)+`],"meta":{"total":3,"page":1,"limit":1}}`, string(r.body))

		for query, field := range map[string]string{
			"status=running": "status:", "status=complete": "status:", "limit=0": "limit:", "limit=101": "limit:",
			"limit=abc": "limit:", "offset=-1": "offset:",
		} {
			r := k.as(t, keyA, http.MethodGet, "/api/render?"+query, nil)
			assert.Equal(t, http.StatusBadRequest, r.status, query)
			assert.Equal(t, "VALIDATION_ERROR", r.errorCode(t), query)
			assert.True(t, strings.HasPrefix(r.json(t)["error"].(map[string]any)["message"].(string), field), "%s: %s", query, r.body)
		}
		assert.Equal(t, http.StatusUnauthorized, k.do(t, http.MethodGet, "/api/render", nil).status)

		// The same over gRPC.
		ctx := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+keyA)
		resp, err := k.rpc.ListRenders(ctx, &renderv1.ListRendersRequest{Status: "queued", Limit: "1"})
		require.NoError(t, err)
		require.Len(t, resp.GetData(), 1)
		assert.Equal(t, a[2], resp.GetData()[0].GetJobId())
		assert.Equal(t, "queued", resp.GetData()[0].GetStatus())
		assert.Equal(t, int32(2), resp.GetMeta().GetTotal())
		_, err = k.rpc.ListRenders(ctx, &renderv1.ListRendersRequest{Status: "done"})
		assertCode(t, err, codes.InvalidArgument, "VALIDATION_ERROR")
	})
}

func dataOrJobID(t *testing.T, r response) string {
	t.Helper()
	require.Equal(t, http.StatusAccepted, r.status, "%s", r.body)
	return r.json(t)["jobId"].(string)
}

// A running render is listed as processing, then completed; the progress
// it shows, over HTTP and gRPC, has at most two decimals, while ffmpeg's
// output time over the duration has many (1/30 s of a 10 s render is
// 0.333… percent).
func TestRenderProgressHasTwoDecimals(t *testing.T) {
	t.Parallel()
	k := start(t, storetest.SQLite(t), func(c *app.Config) { c.Workers = 1 })
	id := k.submit(t, colourRender(10))

	stream, err := k.rpc.WatchRender(context.Background(), &renderv1.WatchRenderRequest{JobId: id})
	require.NoError(t, err)
	var seen []float64
	listedProcessing := false
	for {
		msg, err := stream.Recv()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		p := msg.GetJob().GetProgress()
		seen = append(seen, p)
		if msg.GetJob().GetStatus() == "processing" && !listedProcessing {
			ids, _ := k.listRenders(t, "", "status=processing")
			listedProcessing = len(ids) == 1 && ids[0] == id
		}
		if p > 0 && p < 100 {
			// Read over HTTP too while it runs.
			rec := k.get(t, id)
			assertTwoDecimals(t, rec["progress"].(float64))
		}
		assertTwoDecimals(t, p)
	}
	require.Equal(t, "completed", k.get(t, id)["status"])
	assert.True(t, listedProcessing, "listed as processing while it ran")
	ids, _ := k.listRenders(t, "", "status=completed")
	assert.Equal(t, []string{id}, ids)
	mid := 0
	for _, p := range seen {
		if p > 0 && p < 100 {
			mid++
		}
	}
	assert.Positive(t, mid, "progress seen while rendering: %v", seen)
}

func assertTwoDecimals(t *testing.T, p float64) {
	t.Helper()
	s := strconv.FormatFloat(p, 'f', -1, 64)
	if _, frac, ok := strings.Cut(s, "."); ok {
		assert.LessOrEqual(t, len(frac), 2, "progress %s has more than two decimals", s)
	}
}
