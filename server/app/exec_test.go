package app_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/app"
	"github.com/kinohq/kino/server/store/storetest"
)

// waitJob polls a media job until it ends.
func (k *kino) waitJob(t *testing.T, id string) map[string]any {
	t.Helper()
	var j map[string]any
	require.Eventually(t, func() bool {
		r := k.do(t, http.MethodGet, "/jobs/"+id, nil)
		if r.status != http.StatusOK {
			return false
		}
		j = r.json(t)["data"].(map[string]any)
		switch j["status"] {
		case "complete", "failed", "cancelled":
			return true
		}
		return false
	}, 3*time.Minute, 50*time.Millisecond) // a bound for a loaded machine under -race, not a speed
	return j
}

func (k *kino) createJob(t *testing.T, body map[string]any) string {
	t.Helper()
	r := k.do(t, http.MethodPost, "/jobs", body)
	require.Equal(t, http.StatusAccepted, r.status, "%s", r.body)
	return r.json(t)["data"].(map[string]any)["id"].(string)
}

func TestMediaJobsRun(t *testing.T) {
	t.Parallel()
	eachSetup(t, func(t *testing.T, su setup) {
		media := serveMedia(t)
		k := su.start(t, nil)

		cases := []struct {
			body          map[string]any
			codec         string
			width, height int
			duration      float64
		}{
			{map[string]any{"type": "audio.extract", "inputs": map[string]any{"source": media.URL + "/clip.mp4"}, "params": map[string]any{"format": "mp3"}}, "mp3", 0, 0, 3},
			{map[string]any{"type": "video.trim", "inputs": map[string]any{"source": media.URL + "/clip.mp4"}, "params": map[string]any{"start": 0.5, "duration": 1.5}}, "h264", 96, 64, 1.5},
			{map[string]any{"type": "image.resize", "inputs": map[string]any{"source": media.URL + "/image.png"}, "params": map[string]any{"width": 32, "height": 32, "fit": "cover", "format": "jpeg"}}, "mjpeg", 32, 32, 0},
			{map[string]any{"type": "video.thumbnail", "inputs": map[string]any{"source": media.URL + "/clip.mp4"}, "params": map[string]any{"at": 1.5, "width": 48}}, "png", 48, 32, 0},
			{map[string]any{"type": "video.thumbnail", "inputs": map[string]any{"source": media.URL + "/clip.mp4"}, "params": map[string]any{"mode": "sprite", "columns": 3, "rows": 2}}, "png", 288, 128, 0},
			{map[string]any{"type": "video.transcode", "inputs": map[string]any{"source": media.URL + "/clip.mp4"}, "params": map[string]any{"preset": "webm", "width": 48}}, "vp9", 48, 32, 3},
		}
		for _, tc := range cases {
			id := k.createJob(t, tc.body)
			j := k.waitJob(t, id)
			require.Equal(t, "complete", j["status"], "%s: %v", tc.body["type"], j)
			url, ok := j["outputUrl"].(string)
			require.True(t, ok, "outputUrl: %v", j)
			var meta map[string]any
			require.NoError(t, json.Unmarshal([]byte(j["outputMeta"].(string)), &meta))
			metaURL, _ := meta["outputUrl"].(string)
			assertSameObject(t, su, url, metaURL)
			var steps []map[string]any
			require.NoError(t, json.Unmarshal([]byte(j["stepsJson"].(string)), &steps))
			assert.Len(t, steps, 3)
			for _, f := range []string{"dispatchedAt", "startedAt", "completedAt", "queueWaitMs", "execDownloadMs", "execExecuteMs", "execUploadMs", "consumerTotalMs", "price"} {
				assert.Contains(t, j, f, "%s: %s", tc.body["type"], f)
			}
			info := download(t, url)
			// outputMeta describes the output as ffprobe sees it.
			if tc.width > 0 {
				assert.Equal(t, float64(tc.width), meta["width"], "%s", tc.body["type"])
				assert.Equal(t, float64(tc.height), meta["height"])
				assert.Equal(t, tc.codec, meta["videoCodec"])
			} else {
				assert.Equal(t, tc.codec, meta["audioCodec"])
			}
			if tc.duration > 0 {
				assert.InDelta(t, info.Duration, meta["duration"], 0.001)
			}
			assert.Greater(t, meta["sizeBytes"], 0.0)
			assert.NotEmpty(t, meta["contentType"])
			// logsRef is the ffmpeg log, kept in storage.
			logs := string(fetchBody(t, j["logsRef"].(string), ""))
			assert.Contains(t, logs, "[info] Output #0", "%s", tc.body["type"])
			if tc.width > 0 {
				v := info.Video()
				require.NotNil(t, v)
				assert.Equal(t, tc.codec, v.CodecName)
				assert.Equal(t, tc.width, v.Width)
				assert.Equal(t, tc.height, v.Height)
			} else {
				require.NotNil(t, info.Audio())
				assert.Equal(t, tc.codec, info.Audio().CodecName)
			}
			if tc.duration > 0 {
				assert.InDelta(t, tc.duration, info.Duration, 0.15, "%s", tc.body["type"])
			}
		}

		// Permanent failures fail at once, with a code and a message naming the input.
		id := k.createJob(t, map[string]any{"type": "audio.extract", "inputs": map[string]any{"source": media.URL + "/image.png"}})
		j := k.waitJob(t, id)
		assert.Equal(t, "failed", j["status"])
		assert.Equal(t, "INPUT_INVALID", j["errorCode"])
		assert.Contains(t, j["errorMessage"], "inputs.source")
		assert.Equal(t, 0.0, j["retryCount"])
		assert.NotContains(t, j, "outputUrl")

		// A job that ffmpeg fails on keeps its log, whose errors the message quotes.
		id = k.createJob(t, map[string]any{"type": "video.trim", "inputs": map[string]any{"source": media.URL + "/zeroed.mp4"},
			"params": map[string]any{"start": 0, "duration": 1}})
		j = k.waitJob(t, id)
		if assert.Equal(t, "failed", j["status"], "%v", j) {
			assert.Equal(t, "EXECUTION_FAILED", j["errorCode"])
			assert.Contains(t, j["errorMessage"], "ffmpeg could not process the input")
			logs := string(fetchBody(t, j["logsRef"].(string), ""))
			assert.Contains(t, logs, "[error]")
			assert.Equal(t, 0.0, j["retryCount"], "a failure of the media is not retried")
		}

		id = k.createJob(t, map[string]any{"type": "audio.extract", "inputs": map[string]any{"source": media.URL + "/missing.mp4"}})
		j = k.waitJob(t, id)
		assert.Equal(t, "failed", j["status"])
		assert.Equal(t, "ASSET_FETCH_FAILED", j["errorCode"])
		assert.Contains(t, j["errorMessage"], "404")
	})
}

// WatchJob streams progress from ffmpeg's reports while the job runs.
func TestMediaJobProgressStreams(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out, err := exec.Command("ffmpeg", "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=25",
		"-t", "30", "-c:v", "libx264", "-preset", "ultrafast", filepath.Join(dir, "long.mp4")).CombinedOutput()
	require.NoError(t, err, "%s", out)
	src := serveDir(t, http.FileServer(http.Dir(dir)))
	k := start(t, storetest.SQLite(t), nil)

	id := k.createJob(t, map[string]any{"type": "video.transcode", "inputs": map[string]any{"source": src + "/long.mp4"},
		"params": map[string]any{"preset": "webm"}})
	resp, err := http.Get(k.base + "/jobs/" + id + "/events")
	require.NoError(t, err)
	defer resp.Body.Close()
	var seen []string
	var last map[string]any
	running, prev := 0, 0.0
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var line struct{ Result map[string]any }
		require.NoError(t, json.Unmarshal(sc.Bytes(), &line), "%s", sc.Bytes())
		last = line.Result
		p := last["progress"].(float64)
		seen = append(seen, fmt.Sprintf("%s:%g", last["status"], p))
		assert.GreaterOrEqual(t, p, prev, "progress never goes back: %v", seen)
		prev = p
		if last["status"] == "running" && p > 0 && p < 100 {
			running++
		}
	}
	require.NoError(t, sc.Err())
	assert.Equal(t, "complete", last["status"], "%v", seen)
	assert.Equal(t, 100.0, last["progress"])
	assert.GreaterOrEqual(t, running, 2, "progress reported while running: %v", seen)
}

// A transient failure (the source answers 503) is retried after a backoff,
// and the retry is counted.
func TestTransientFailureIsRetriedAfterABackoff(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		media := serveMedia(t)
		var mu sync.Mutex
		var hits []time.Time
		src := serveDir(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			hits = append(hits, time.Now())
			n := len(hits)
			mu.Unlock()
			if n == 1 {
				http.Error(w, "try later", http.StatusServiceUnavailable)
				return
			}
			http.ServeFile(w, r, filepath.Join(media.dir, "image.png"))
		}))
		const delay = 400 * time.Millisecond
		k := start(t, db, func(c *app.Config) { c.JobRetryDelay = delay })

		id := k.createJob(t, map[string]any{"type": "image.resize", "inputs": map[string]any{"source": src + "/flaky.png"},
			"params": map[string]any{"width": 16}})
		j := k.waitJob(t, id)
		require.Equal(t, "complete", j["status"], "%v", j)
		assert.Equal(t, 1.0, j["retryCount"])
		mu.Lock()
		defer mu.Unlock()
		// The backoff's length is the job core's, checked by a moved clock
		// in server/jobs/jobsdrivertest.
		require.Len(t, hits, 2)
	})
}
