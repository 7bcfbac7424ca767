package app_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/app"
	"github.com/kinohq/kino/server/store/storetest"
)

func (k *kino) waitRun(t *testing.T, pipeline, run string) map[string]any {
	t.Helper()
	var r map[string]any
	require.Eventually(t, func() bool {
		resp := k.do(t, http.MethodGet, "/pipelines/"+pipeline+"/runs/"+run, nil)
		if resp.status != http.StatusOK {
			return false
		}
		r = resp.json(t)["data"].(map[string]any)
		switch r["status"] {
		case "complete", "failed", "cancelled":
			return true
		}
		return false
	}, 90*time.Second, 100*time.Millisecond)
	return r
}

func statuses(run map[string]any) map[string]string {
	out := map[string]string{}
	for _, j := range run["jobs"].([]any) {
		m := j.(map[string]any)
		out[m["pipelineNodeId"].(string)] = m["status"].(string)
	}
	return out
}

func TestPipelineRuns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	speechVideo(t, dir)
	media := serveMedia(t)
	src := serveDir(t, http.FileServer(http.Dir(dir)))
	eachSetup(t, func(t *testing.T, su setup) {
		if su.db.Name == "postgres" {
			t.Skip("the pipeline core is the same on PostgreSQL (TestPipelineBranchRuns)")
		}
		pipelineRuns(t, su, media, src)
	})
}

func pipelineRuns(t *testing.T, su setup, media *mediaServer, src string) {
	k := su.start(t, func(c *app.Config) { c.Workers = 2 })

	spec := specPipeline()
	spec["nodes"].([]any)[2].(map[string]any)["params"] = map[string]any{"watermarks": []any{
		map[string]any{"type": "image", "url": media.URL + "/image.png", "position": "top-right"}}}
	r := k.do(t, http.MethodPost, "/pipelines", spec)
	require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
	pid := r.json(t)["data"].(map[string]any)["id"].(string)

	// Inputs no edge feeds are required, and only those.
	r = k.do(t, http.MethodPost, "/pipelines/"+pid+"/runs", map[string]any{"inputs": map[string]any{}})
	assert.Equal(t, http.StatusBadRequest, r.status)
	assert.Contains(t, string(r.body), "inputs.extract.source: is required")
	r = k.do(t, http.MethodPost, "/pipelines/"+pid+"/runs", map[string]any{"inputs": map[string]any{
		"extract": map[string]any{"source": src + "/speech.mp4"}, "burn": map[string]any{"source": src + "/speech.mp4"}}})
	assert.Equal(t, http.StatusBadRequest, r.status)
	assert.Contains(t, string(r.body), "inputs.burn.source: is fed by an edge")

	// The interface's example runs: extract -> burn -> brand.
	r = k.do(t, http.MethodPost, "/pipelines/"+pid+"/runs", map[string]any{"inputs": map[string]any{
		"extract": map[string]any{"source": src + "/speech.mp4"}}})
	require.Equal(t, http.StatusAccepted, r.status, "%s", r.body)
	run := r.json(t)["data"].(map[string]any)
	rid := run["id"].(string)
	assert.Len(t, run["jobs"], 3)
	for _, j := range run["jobs"].([]any) {
		m := j.(map[string]any)
		assert.Equal(t, rid, m["batchId"])
		assert.Equal(t, pid, m["pipelineId"])
	}
	done := k.waitRun(t, pid, rid)
	require.Equal(t, "complete", done["status"], "%v", statuses(done))
	last := done["jobs"].([]any)[2].(map[string]any)
	if su.s3 == nil {
		assert.Contains(t, last["inputs"], "/files/jobs/", "brand's source is burn's output")
	} else {
		assert.Contains(t, last["inputs"], su.s3.Endpoint+"/", "brand's source is burn's output")
	}
	info := download(t, last["outputUrl"].(string))
	require.NotNil(t, info.Video())
	assert.Equal(t, 160, info.Video().Width)

	// The stream of an ended run is its one record.
	r = k.do(t, http.MethodGet, "/pipelines/"+pid+"/runs/"+rid+"/events", nil)
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	assert.Contains(t, string(r.body), `"complete"`)

	// A failing node fails the run and cancels what depends on it.
	r = k.do(t, http.MethodPost, "/pipelines/"+pid+"/runs", map[string]any{"inputs": map[string]any{
		"extract": map[string]any{"source": src + "/missing.mp4"}}})
	require.Equal(t, http.StatusAccepted, r.status, "%s", r.body)
	failed := k.waitRun(t, pid, r.json(t)["data"].(map[string]any)["id"].(string))
	assert.Equal(t, "failed", failed["status"])
	assert.Equal(t, map[string]string{"extract": "failed", "burn": "cancelled", "brand": "cancelled"}, statuses(failed))

	// Cancelling a run cancels its jobs.
	r = k.do(t, http.MethodPost, "/pipelines/"+pid+"/runs", map[string]any{"inputs": map[string]any{
		"extract": map[string]any{"source": src + "/speech.mp4"}}})
	require.Equal(t, http.StatusAccepted, r.status)
	cid := r.json(t)["data"].(map[string]any)["id"].(string)
	r = k.do(t, http.MethodPost, "/pipelines/"+pid+"/runs/"+cid+"/cancel", nil)
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	cancelled := k.waitRun(t, pid, cid)
	assert.Equal(t, "cancelled", cancelled["status"])
	for node, st := range statuses(cancelled) {
		assert.True(t, st == "cancelled" || st == "complete", "%s is %s", node, st)
	}
	assert.NotContains(t, strings.Join([]string{statuses(cancelled)["brand"]}, ""), "complete")
}

func TestListPipelineRuns(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		media := serveMedia(t)
		k := start(t, db, nil)
		r := k.do(t, http.MethodPost, "/pipelines", map[string]any{"name": "two sizes", "nodes": []any{
			map[string]any{"id": "small", "jobType": "image.resize", "params": map[string]any{"width": 32}},
			map[string]any{"id": "smaller", "jobType": "image.resize", "params": map[string]any{"width": 16}}},
			"edges": []any{map[string]any{"from": "small", "to": "smaller",
				"outputMapping": map[string]any{"sourceField": "outputUrl", "targetField": "source"}}}})
		require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
		pid := r.json(t)["data"].(map[string]any)["id"].(string)

		r = k.do(t, http.MethodGet, "/pipelines/"+pid+"/runs", nil)
		require.Equal(t, http.StatusOK, r.status, "%s", r.body)
		assert.JSONEq(t, `{"data":[],"meta":{"total":0,"page":1,"limit":50}}`, string(r.body))

		var runs []string
		for range 3 {
			r = k.do(t, http.MethodPost, "/pipelines/"+pid+"/runs", map[string]any{"inputs": map[string]any{
				"small": map[string]any{"source": media.URL + "/image.png"}}})
			require.Equal(t, http.StatusAccepted, r.status, "%s", r.body)
			runs = append(runs, r.json(t)["data"].(map[string]any)["id"].(string))
		}
		for _, id := range runs {
			require.Equal(t, "complete", k.waitRun(t, pid, id)["status"])
		}

		r = k.do(t, http.MethodGet, "/pipelines/"+pid+"/runs", nil)
		require.Equal(t, http.StatusOK, r.status, "%s", r.body)
		list := r.json(t)
		assert.Equal(t, map[string]any{"total": 3.0, "page": 1.0, "limit": 50.0}, list["meta"])
		data := list["data"].([]any)
		require.Len(t, data, 3)
		for i, run := range data {
			m := run.(map[string]any)
			assert.Equal(t, runs[2-i], m["id"], "newest first")
			assert.Equal(t, "complete", m["status"])
			assert.Equal(t, map[string]string{"small": "complete", "smaller": "complete"}, statuses(m))
		}

		r = k.do(t, http.MethodGet, "/pipelines/"+pid+"/runs?limit=1&offset=1", nil)
		require.Equal(t, http.StatusOK, r.status, "%s", r.body)
		list = r.json(t)
		assert.Equal(t, map[string]any{"total": 3.0, "page": 2.0, "limit": 1.0}, list["meta"])
		require.Len(t, list["data"], 1)
		assert.Equal(t, runs[1], list["data"].([]any)[0].(map[string]any)["id"])

		r = k.do(t, http.MethodGet, "/pipelines/"+pid+"/runs?limit=abc", nil)
		assert.Equal(t, http.StatusBadRequest, r.status)
		assert.Equal(t, "VALIDATION_ERROR", r.errorCode(t))
		r = k.do(t, http.MethodGet, "/pipelines/pl_nope/runs", nil)
		assert.Equal(t, http.StatusNotFound, r.status)
	})
}

// A three-node pipeline with a watermark.apply branch beside caption.burn,
// both fed by caption.extract: run to the end, failing at its root, and
// cancelled half-way.
func TestPipelineBranchRuns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	speechVideo(t, dir)
	media := serveMedia(t)
	src := serveDir(t, http.FileServer(http.Dir(dir)))
	// One worker: the two branches take turns, so a cancel after the first
	// is claimed finds the other still waiting.
	k := start(t, storetest.SQLite(t), func(c *app.Config) { c.Workers = 1 })

	r := k.do(t, http.MethodPost, "/pipelines", map[string]any{"name": "caption and brand, side by side",
		"nodes": []any{
			map[string]any{"id": "extract", "jobType": "caption.extract", "params": map[string]any{}},
			map[string]any{"id": "burn", "jobType": "caption.burn", "params": map[string]any{}},
			map[string]any{"id": "brand", "jobType": "watermark.apply", "params": map[string]any{"watermarks": []any{
				map[string]any{"type": "image", "url": media.URL + "/image.png", "position": "top-left"}}}},
		},
		"edges": []any{
			map[string]any{"from": "extract", "to": "burn", "outputMapping": map[string]any{"sourceField": "captionsUrl", "targetField": "subtitles"}},
			map[string]any{"from": "extract", "to": "burn", "outputMapping": map[string]any{"sourceField": "outputUrl", "targetField": "source"}},
			map[string]any{"from": "extract", "to": "brand", "outputMapping": map[string]any{"sourceField": "outputUrl", "targetField": "source"}},
		}})
	require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
	pid := r.json(t)["data"].(map[string]any)["id"].(string)
	runWith := func(source string) string {
		r := k.do(t, http.MethodPost, "/pipelines/"+pid+"/runs", map[string]any{"inputs": map[string]any{
			"extract": map[string]any{"source": source}}})
		require.Equal(t, http.StatusAccepted, r.status, "%s", r.body)
		return r.json(t)["data"].(map[string]any)["id"].(string)
	}

	done := k.waitRun(t, pid, runWith(src+"/speech.mp4"))
	require.Equal(t, "complete", done["status"], "%v", statuses(done))
	for _, j := range done["jobs"].([]any) {
		m := j.(map[string]any)
		if m["pipelineNodeId"] != "extract" {
			assert.Contains(t, m["inputs"], "/files/jobs/", "%s is fed extract's output", m["pipelineNodeId"])
			info := download(t, m["outputUrl"].(string))
			require.NotNil(t, info.Video())
			assert.Equal(t, 160, info.Video().Width)
		}
	}

	failed := k.waitRun(t, pid, runWith(src+"/missing.mp4"))
	assert.Equal(t, "failed", failed["status"])
	assert.Equal(t, map[string]string{"extract": "failed", "burn": "cancelled", "brand": "cancelled"}, statuses(failed))

	rid := runWith(src + "/speech.mp4")
	require.Eventually(t, func() bool {
		r := k.do(t, http.MethodGet, "/pipelines/"+pid+"/runs/"+rid, nil)
		st := statuses(r.json(t)["data"].(map[string]any))
		return st["extract"] == "complete" && (st["burn"] != "waiting" || st["brand"] != "waiting")
	}, 60*time.Second, 10*time.Millisecond, "extract done and a branch claimed")
	r = k.do(t, http.MethodPost, "/pipelines/"+pid+"/runs/"+rid+"/cancel", nil)
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	half := k.waitRun(t, pid, rid)
	assert.Equal(t, "cancelled", half["status"])
	st := statuses(half)
	assert.Equal(t, "complete", st["extract"], "what ran before the cancel stays done")
	assert.True(t, st["burn"] == "cancelled" || st["brand"] == "cancelled", "a branch that had not run is cancelled: %v", st)
	for node, s := range st {
		assert.NotEqual(t, "failed", s, node)
	}
}
