package app_test

import (
	"context"
	"fmt"
	"net/http"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"

	mediav1 "github.com/kinohq/kino/gen/kino/media/v1"
	"github.com/kinohq/kino/server/app"
	"github.com/kinohq/kino/server/store/storetest"
)

// childCPU is the CPU time of this test binary's children that ended: the
// ffmpeg and ffprobe processes of every kino it runs.
func childCPU(t *testing.T) float64 {
	t.Helper()
	var ru syscall.Rusage
	require.NoError(t, syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru))
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// selfCPU is the CPU time of this test binary's own threads: every kino it
// runs, and what they do in process (painting, drawing templates).
func selfCPU(t *testing.T) float64 {
	t.Helper()
	var ru syscall.Rusage
	require.NoError(t, syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// usageRows is GET /usage of an organisation, by type (one day).
func (k *kino) usageRows(t *testing.T, key string) (map[string]map[string]any, map[string]any) {
	t.Helper()
	r := k.do(t, http.MethodGet, "/usage", nil, bearer(key)...)
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	body := r.json(t)
	rows := map[string]map[string]any{}
	for _, row := range body["data"].([]any) {
		row := row.(map[string]any)
		rows[row["type"].(string)] = row
	}
	return rows, body["meta"].(map[string]any)
}

// The cost fields of media jobs and GET /usage agree with the CPU time the
// jobs' processes used: infraCost is cpuSeconds × --cpu-second-cost, the
// CPU time is more than nothing and no more than the cores could give in
// the job's time, and all of it is no more than what the test binary's
// children used. An organisation sees its own usage only; renders are in
// it; Prometheus has each named organisation's totals.
func TestCostFieldsAndUsage(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		const rate = 0.001 // USD a CPU second
		media := serveMedia(t)
		before := childCPU(t) + selfCPU(t)
		k := start(t, db, func(c *app.Config) {
			c.APIKeys = map[string]string{"key-a": "org-a", "key-b": "org-b"}
			c.CPUSecondCost = rate
			c.MetricsAddr = "127.0.0.1:0"
		})
		create := func(key string, body map[string]any) map[string]any {
			r := k.do(t, http.MethodPost, "/jobs", body, bearer(key)...)
			require.Equal(t, http.StatusAccepted, r.status, "%s", r.body)
			created := r.json(t)["data"].(map[string]any)
			assert.Greater(t, created["estimatedPrice"], 0.0, "%s: estimated at submit", body["type"])
			id := created["id"].(string)
			var j map[string]any
			require.Eventually(t, func() bool {
				j = k.do(t, http.MethodGet, "/jobs/"+id, nil, bearer(key)...).json(t)["data"].(map[string]any)
				return j["status"] == "complete" || j["status"] == "failed"
			}, time.Minute, 50*time.Millisecond)
			require.Equal(t, "complete", j["status"], "%v", j)
			return j
		}
		transcode := create("key-a", map[string]any{"type": "video.transcode", "inputs": map[string]any{"source": media.URL + "/clip.mp4"},
			"params": map[string]any{"preset": "webm", "width": 48}})
		picture := create("key-a", map[string]any{"type": "image.resize", "inputs": map[string]any{"source": media.URL + "/image.png"},
			"params": map[string]any{"width": 32, "height": 32, "format": "png"}})
		sound := create("key-b", map[string]any{"type": "audio.extract", "inputs": map[string]any{"source": media.URL + "/clip.mp4"}})
		render := k.submit(t, map[string]any{"provider": "provider_a", "composition": map[string]any{
			"width": 64, "height": 36, "fps": 10, "background": "#102030",
			"layers": []any{map[string]any{"type": "color", "color": "#ff6600", "start": 0, "duration": 2, "x": 0, "y": 0, "width": 32, "height": 18}},
		}}, bearer("key-a")...)
		require.Eventually(t, func() bool {
			return k.do(t, http.MethodGet, "/api/render/"+render, nil, bearer("key-a")...).json(t)["status"] == "completed"
		}, time.Minute, 50*time.Millisecond)

		cpuOf := map[string]float64{}
		for _, j := range []map[string]any{transcode, picture, sound} {
			typ := j["type"].(string)
			price, infra, provider := j["price"].(float64), j["infraCost"].(float64), j["providerCost"].(float64)
			cpu := infra / rate
			cpuOf[typ] = cpu
			wall := (j["completedAt"].(float64) - j["startedAt"].(float64)) / 1000
			assert.Greater(t, cpu, 0.0, "%s: its ffprobe and ffmpeg used CPU", typ)
			assert.LessOrEqual(t, cpu, wall*float64(runtime.NumCPU()), "%s: no more CPU than the cores give in its time", typ)
			assert.Zero(t, provider, "%s: no outside provider", typ)
			assert.InDelta(t, price-provider-infra, j["margin"], 1e-12, "%s: margin", typ)
			assert.Greater(t, price, 0.0, "%s", typ)
			t.Logf("%s: %.3f CPU s in %.3f s, price %g, infraCost %g, margin %g", typ, cpu, wall, price, infra, j["margin"])
		}
		// 3 s of video at 0.003 USD a second; a picture costs its least, 0.0005 USD.
		assert.InDelta(t, 0.009, transcode["price"], 0.0005)
		assert.Equal(t, 0.0005, picture["price"])
		assert.Equal(t, 0.0005, picture["estimatedPrice"])

		rowsA, metaA := k.usageRows(t, "key-a")
		require.Len(t, rowsA, 3, "%v", rowsA)
		today := time.Now().UTC().Format(time.DateOnly)
		for typ, cpu := range map[string]float64{"video.transcode": cpuOf["video.transcode"], "image.resize": cpuOf["image.resize"]} {
			row := rowsA[typ]
			require.NotNil(t, row, typ)
			assert.Equal(t, today, row["day"])
			assert.Equal(t, 1.0, row["jobs"], typ)
			assert.InDelta(t, cpu, row["cpuSeconds"], 1e-9, typ)
		}
		assert.InDelta(t, transcode["price"], rowsA["video.transcode"]["price"], 1e-12)
		assert.InDelta(t, 3, rowsA["video.transcode"]["mediaSeconds"], 0.1)
		// The render: 2 s of output at 0.002 USD a second, metered too.
		rendered := rowsA["render"]
		require.NotNil(t, rendered, "renders are in usage: %v", rowsA)
		assert.Equal(t, 1.0, rendered["jobs"])
		assert.InDelta(t, 2, rendered["mediaSeconds"], 0.01)
		assert.InDelta(t, 0.004, rendered["price"], 1e-9)
		assert.Greater(t, rendered["cpuSeconds"], 0.0)
		assert.Equal(t, 3.0, metaA["jobs"])
		assert.Equal(t, today, metaA["to"])

		// org-b sees its own job only, and org-a none of org-b's.
		rowsB, metaB := k.usageRows(t, "key-b")
		require.Len(t, rowsB, 1, "%v", rowsB)
		assert.InDelta(t, cpuOf["audio.extract"], rowsB["audio.extract"]["cpuSeconds"], 1e-9)
		assert.Equal(t, 1.0, metaB["jobs"])
		assert.NotContains(t, rowsA, "audio.extract")

		// All the CPU metered is CPU this binary's children (ffmpeg,
		// ffprobe) and the threads of kino's process really used.
		metered := metaA["cpuSeconds"].(float64) + metaB["cpuSeconds"].(float64)
		assert.LessOrEqual(t, metered, childCPU(t)+selfCPU(t)-before+1e-6)

		// Prometheus: the organisations named by --api-keys have their own series.
		s := k.scrape(t)
		assert.Equal(t, 2.0, s.value("kino_org_jobs_total", "org", "org-a", "kind", "media"))
		assert.Equal(t, 1.0, s.value("kino_org_jobs_total", "org", "org-a", "kind", "render"))
		assert.InDelta(t, rendered["cpuSeconds"], s.value("kino_org_cpu_seconds_total", "org", "org-a", "kind", "render"), 1e-9)
		assert.InDelta(t, sound["price"], s.value("kino_org_price_usd_total", "org", "org-b", "kind", "media"), 1e-12)

		// The same over gRPC; a day that is not one is a 400.
		ctx := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer key-b")
		got, err := mediav1.NewUsageServiceClient(k.conn).GetUsage(ctx, &mediav1.GetUsageRequest{From: today, To: today})
		require.NoError(t, err)
		require.Len(t, got.GetData(), 1)
		assert.Equal(t, "audio.extract", got.GetData()[0].GetType())
		_, err = mediav1.NewUsageServiceClient(k.conn).GetUsage(ctx, &mediav1.GetUsageRequest{From: "yesterday"})
		assertCode(t, err, codes.InvalidArgument, "VALIDATION_ERROR")
		r := k.do(t, http.MethodGet, fmt.Sprintf("/usage?from=%s&to=2020-01-01", today), nil, bearer("key-a")...)
		assert.Equal(t, http.StatusBadRequest, r.status)
		assert.Equal(t, "VALIDATION_ERROR", r.errorCode(t))
		// Days before any job: no rows, a list all the same.
		r = k.do(t, http.MethodGet, "/usage?from=2020-01-01&to=2020-01-31", nil, bearer("key-a")...)
		require.Equal(t, http.StatusOK, r.status)
		assert.JSONEq(t, `{"data":[],"meta":{"from":"2020-01-01","to":"2020-01-31","jobs":0,"mediaSeconds":0,"cpuSeconds":0,"price":0}}`, string(r.body))
	})
}
