package app_test

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/ent"
	"github.com/kinohq/kino/ent/job"
	"github.com/kinohq/kino/server/app"
	"github.com/kinohq/kino/server/events"
	"github.com/kinohq/kino/server/ffmpeg"
	"github.com/kinohq/kino/server/jobs"
	"github.com/kinohq/kino/server/render"
	"github.com/kinohq/kino/server/renderjob"
	"github.com/kinohq/kino/server/store"
	"github.com/kinohq/kino/server/store/storetest"
)

// splitComposition is 2.9 s at 25 fps (73 frames): split in parts of one
// second it makes three parts, of 25, 25 and 23 frames, with a video
// across both boundaries (cut to each part), a text still fading in
// across the first (its part runs its clock from its start) and a tone
// across both.
func splitComposition(media *mediaServer, hook string) map[string]any {
	return map[string]any{
		"provider": "provider_a",
		"webhook":  hook,
		"composition": map[string]any{
			"width": 160, "height": 90, "fps": 25, "duration": 2.9, "background": "#203040",
			"poster": map[string]any{"capture": 1.5},
			"layers": []any{
				map[string]any{"type": "video", "src": "clip", "start": 0.3, "duration": 1.9, "x": 10, "y": 10, "width": 48, "volume": 0.5},
				map[string]any{"type": "text", "text": "kino", "fontSize": 20, "color": "#ffffff", "start": 0.6, "duration": 2, "x": 90, "y": 50, "fadeIn": 0.9, "fadeOut": 0.4},
				map[string]any{"type": "image", "src": "logo", "start": 0.8, "duration": 1.5, "x": 100, "y": 5, "opacity": 0.8},
				map[string]any{"type": "audio", "src": "tone", "start": 0, "duration": 2.9},
			},
		},
		"assetUrls": map[string]any{"clip": media.URL + "/clip.mp4", "logo": media.URL + "/image.png", "tone": media.URL + "/tone.wav"},
	}
}

// splitEverySecond splits renders over a second in parts of a second.
func splitEverySecond(c *app.Config) {
	c.Workers = 2
	c.Split = render.SplitConfig{After: time.Second, Part: time.Second}
}

func TestSplitRenderEqualsUnsplit(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		media := serveMedia(t)
		hooks, wholeHooks := receiveHooks(t, 0), receiveHooks(t, 0)
		split := start(t, db, splitEverySecond)
		whole := start(t, storetest.SQLite(t), nil)

		id := split.submit(t, splitComposition(media, hooks.URL+"/split"))
		wholeID := whole.submit(t, splitComposition(media, wholeHooks.URL+"/whole"))

		// The record reads as an unsplit render's all along: queued, then
		// processing with progress that never goes back, then completed.
		var seen []string
		last := -1.0
		deadline := time.Now().Add(60 * time.Second)
		var rec map[string]any
		poll := time.NewTicker(20 * time.Millisecond)
		defer poll.Stop()
		for time.Now().Before(deadline) {
			rec = split.get(t, id)
			st := rec["status"].(string)
			if len(seen) == 0 || seen[len(seen)-1] != st {
				seen = append(seen, st)
			}
			p := rec["progress"].(float64)
			require.GreaterOrEqual(t, p, last, "progress never goes back")
			last = p
			if st != "queued" && st != "processing" {
				break
			}
			<-poll.C
		}
		require.Equal(t, "completed", rec["status"], "%v", rec)
		require.Equal(t, "processing", seen[len(seen)-2], "queued, then processing until completed: %v", seen)
		assert.NotContains(t, seen[slices.Index(seen, "processing"):], "queued", "never queued again: %v", seen)
		assert.Equal(t, 100.0, rec["progress"])
		ref := whole.waitStatus(t, wholeID, "completed", 60*time.Second)
		assert.ElementsMatch(t, slices.Collect(maps.Keys(ref)), slices.Collect(maps.Keys(rec)), "the same fields as an unsplit render")

		payloads := map[string]map[string]any{}
		for name, h := range map[string]*hookReceiver{"/split": hooks, "/whole": wholeHooks} {
			var p map[string]any
			require.NoError(t, json.Unmarshal(h.waitCalls(t, 1)[0].body, &p))
			payloads[name] = p
		}
		assert.ElementsMatch(t, slices.Collect(maps.Keys(payloads["/whole"])), slices.Collect(maps.Keys(payloads["/split"])))
		for _, field := range []string{"status", "duration", "format", "resolution"} {
			assert.Equal(t, payloads["/whole"][field], payloads["/split"][field], field)
		}
		assert.Equal(t, rec["outputUrl"], payloads["/split"]["outputUrl"])

		dir := t.TempDir()
		a, b := fetchTo(t, ref["outputUrl"].(string), dir, "whole.mp4"), fetchTo(t, rec["outputUrl"].(string), dir, "split.mp4")
		fetchTo(t, rec["posterUrl"].(string), dir, "poster.jpg")
		ia, err := ffmpeg.ProbeFrames(context.Background(), ffmpeg.Limits{}, a)
		require.NoError(t, err)
		ib, err := ffmpeg.ProbeFrames(context.Background(), ffmpeg.Limits{}, b)
		require.NoError(t, err)
		require.NotNil(t, ib.Video())
		require.NotNil(t, ib.Audio())
		assert.Equal(t, 73, ia.Video().NbFrames)
		assert.Equal(t, ia.Video().NbFrames, ib.Video().NbFrames, "frame count")
		assert.InDelta(t, ia.Duration, ib.Duration, 0.001, "duration")
		require.Len(t, ib.Streams, len(ia.Streams), "streams")
		for i := range ia.Streams {
			x, y := ia.Streams[i], ib.Streams[i]
			assert.Equal(t, x.CodecType, y.CodecType)
			assert.Equal(t, x.CodecName, y.CodecName)
			assert.Equal(t, x.Width, y.Width)
			assert.Equal(t, x.Height, y.Height)
			assert.Equal(t, x.PixFmt, y.PixFmt)
			assert.Equal(t, x.SampleRate, y.SampleRate)
			assert.Equal(t, x.Channels, y.Channels)
			assert.InDelta(t, x.FPS, y.FPS, 0.001)
		}
		for _, n := range []int{0, 24, 25, 26, 49, 50, 51, 72} {
			psnr := framePSNR(t, a, b, n)
			t.Logf("frame %d: PSNR %.1f dB", n, psnr)
			assert.GreaterOrEqual(t, psnr, 40.0, "frame %d within 40 dB of the unsplit render's", n)
		}
		sa, sb := samples(t, a), samples(t, b)
		require.Len(t, sb, len(sa), "as many samples")
		for _, at := range []int{48000, 96000} { // the boundaries, at 1 s and 2 s
			for i := at - 2400; i < at+2400; i++ {
				require.InDelta(t, sa[i], sb[i], 1e-3, "sample %d, near the boundary at %d: no gap", i, at)
			}
			assert.Less(t, largestStep(sb[at-2400:at+2400]), 1.5*largestStep(sb[12000:16800]), "no click at sample %d", at)
		}

		// The parts are gone from storage; the output and poster stay.
		require.Eventually(t, func() bool {
			left, _ := filepath.Glob(filepath.Join(split.cfg.DataDir, "outputs", "renders", id+".*"))
			slices.Sort(left)
			var names []string
			for _, l := range left {
				if filepath.Ext(l) != ".attrs" {
					names = append(names, filepath.Base(l))
				}
			}
			return slices.Equal(names, []string{id + ".mp4", id + ".poster.jpg"})
		}, 5*time.Second, 20*time.Millisecond)
		parts := partsOf(t, db, id)
		require.Len(t, parts, 4, "three runs of frames and the sound")
	})
}

func TestSplitRenderCancelStopsEveryPart(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		hooks := receiveHooks(t, 0)
		k := start(t, db, func(c *app.Config) {
			c.Workers = 2
			c.Split = render.SplitConfig{After: time.Second, Part: 5 * time.Second}
		})
		body := longComposition()
		body["webhook"] = hooks.URL
		id := k.submit(t, body)
		assert.Equal(t, "queued", k.get(t, id)["status"])
		require.Eventually(t, func() bool { return k.get(t, id)["progress"].(float64) > 0 }, 30*time.Second, 20*time.Millisecond)
		assert.Equal(t, "processing", k.get(t, id)["status"])
		// Between two parts no ffmpeg runs for a moment.
		require.Eventually(t, func() bool { return ffmpegRunning(t, k.cfg.DataDir) }, 30*time.Second, 10*time.Millisecond)

		r := k.do(t, http.MethodDelete, "/api/render/"+id, nil)
		cancelled := time.Now().UnixMilli()
		require.Equal(t, http.StatusOK, r.status, "%s", r.body)
		assert.Equal(t, map[string]any{"jobId": id, "status": "cancelled"}, r.json(t))
		require.Eventually(t, func() bool { return !ffmpegRunning(t, k.cfg.DataDir) }, time.Second, 20*time.Millisecond,
			"every part's ffmpeg stopped within a second")
		parts := partsOf(t, db, id)
		require.Len(t, parts, 61, "60 runs of frames and the sound")
		// A part that finished before the cancel keeps its result (a job
		// done is never undone); none finishes after it.
		stopped := 0
		for _, p := range parts {
			if p.State == job.StateCompleted {
				assert.LessOrEqual(t, p.UpdatedAt, cancelled, "%s completed after the cancel", p.ID)
				continue
			}
			assert.Equal(t, job.StateCancelled, p.State, p.ID)
			stopped++
		}
		assert.GreaterOrEqual(t, stopped, 50, "the render was cancelled early: most parts never ran")
		calls := hooks.waitCalls(t, 1)
		var payload map[string]any
		require.NoError(t, json.Unmarshal(calls[0].body, &payload))
		assert.Equal(t, "cancelled", payload["status"])
		// The parts' files are removed after the cancel's commit, off the
		// request, while the parts' own attempts end and discard theirs.
		require.EventuallyWithT(t, func(c *assert.CollectT) {
			left, _ := filepath.Glob(filepath.Join(k.cfg.DataDir, "outputs", "renders", id+"*"))
			assert.Empty(c, left, "nothing of the parts is left")
		}, 20*time.Second, 20*time.Millisecond)
	})
}

// partsOf reads the parts of a split render from the database.
func partsOf(t *testing.T, db storetest.DB, id string) []*ent.Job {
	t.Helper()
	st, err := store.Open(context.Background(), db.URL)
	require.NoError(t, err)
	defer st.Close()
	parts, err := st.Job.Query().Where(job.BatchID(id), job.Kind(renderjob.PartKind)).All(context.Background())
	require.NoError(t, err)
	return parts
}

// fetchTo downloads url into dir/name.
func fetchTo(t *testing.T, url, dir, name string) string {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, url)
	path := filepath.Join(dir, name)
	f, err := os.Create(path)
	require.NoError(t, err)
	_, err = io.Copy(f, resp.Body)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	return path
}

var psnrAverage = regexp.MustCompile(`average:([0-9.]+|inf)`)

// framePSNR is ffmpeg's PSNR of frame n of b against frame n of a.
func framePSNR(t *testing.T, a, b string, n int) float64 {
	t.Helper()
	sel := fmt.Sprintf("select=eq(n\\,%d),setpts=N", n)
	out, err := exec.Command("ffmpeg", "-hide_banner", "-i", a, "-i", b, "-filter_complex",
		fmt.Sprintf("[0:v]%s[x];[1:v]%s[y];[x][y]psnr", sel, sel), "-f", "null", "-").CombinedOutput()
	require.NoError(t, err, "%s", out)
	m := psnrAverage.FindSubmatch(out)
	require.NotNil(t, m, "%s", out)
	if string(m[1]) == "inf" {
		return math.Inf(1)
	}
	v, err := strconv.ParseFloat(string(m[1]), 64)
	require.NoError(t, err)
	return v
}

// samples decodes a file's sound as 48 kHz mono samples in -1..1.
func samples(t *testing.T, path string) []float64 {
	t.Helper()
	out, err := exec.Command("ffmpeg", "-hide_banner", "-loglevel", "error", "-i", path, "-map", "0:a", "-f", "s16le", "-ac", "1", "-ar", "48000", "-").Output()
	require.NoError(t, err)
	s := make([]float64, len(out)/2)
	for i := range s {
		s[i] = float64(int16(binary.LittleEndian.Uint16(out[2*i:]))) / 32768
	}
	return s
}

// largestStep is the largest difference between neighbouring samples.
func largestStep(s []float64) float64 {
	m := 0.0
	for i := 1; i < len(s); i++ {
		m = math.Max(m, math.Abs(s[i]-s[i-1]))
	}
	return m
}

// TestSplitRenderPartOfDeadWorkerRunsAgainAlone: a part whose worker died
// (its lease lapsed) is run again by another worker, alone; the other parts
// run once, and the render completes.
func TestSplitRenderPartOfDeadWorkerRunsAgainAlone(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.DB) {
		media := serveMedia(t)
		// An API-only node takes the render; nothing runs its parts yet.
		api := start(t, db, func(c *app.Config) {
			splitEverySecond(c)
			c.Workers = 0
		})
		id := api.submit(t, splitComposition(media, ""))

		// A worker claims a part, then dies: its lease lapses unrenewed.
		st, err := store.Open(context.Background(), db.URL)
		require.NoError(t, err)
		defer st.Close()
		// Its clock is an hour behind: the lease it takes has lapsed by
		// every other node's.
		dead, err := jobs.New(st, events.NewLocal(), jobs.Config{Lease: 50 * time.Millisecond,
			Now: func() time.Time { return time.Now().Add(-time.Hour) }}).
			Claim(context.Background(), "dead-worker", []string{renderjob.PartFrames})
		require.NoError(t, err)
		require.NotNil(t, dead)

		// A worker node starts, rescues the part and runs every part.
		worker := start(t, db, splitEverySecond)
		rec := worker.waitStatus(t, id, "completed", 90*time.Second)
		for _, p := range partsOf(t, db, id) {
			want := 1
			if p.ID == dead.ID {
				want = 2 // its lost claim and the one that ran it
			}
			assert.Equal(t, want, p.Attempt, "claims of part %s", p.ID)
			assert.Equal(t, job.StateCompleted, p.State)
		}
		info, err := ffmpeg.ProbeFrames(context.Background(), ffmpeg.Limits{}, fetchTo(t, rec["outputUrl"].(string), t.TempDir(), "out.mp4"))
		require.NoError(t, err)
		assert.Equal(t, 73, info.Video().NbFrames)
	})
}

// TestSplitPerRequest: a request's split overrides the server's rule both
// ways: a 2.9 s render is split on a server that splits only past a minute,
// and kept in one piece on a server that splits past a second.
func TestSplitPerRequest(t *testing.T) {
	t.Parallel()
	media := serveMedia(t)
	db := storetest.SQLite(t)
	k := start(t, db, func(c *app.Config) {
		c.Workers = 2
		c.Split = render.DefaultSplit
	})

	body := splitComposition(media, "")
	body["split"] = map[string]any{"part": 1}
	id := k.submit(t, body)
	rec := k.waitStatus(t, id, "completed", 60*time.Second)
	parts := partsOf(t, db, id)
	require.Len(t, parts, 4, "three runs of frames and the sound, by the request alone")
	info, err := ffmpeg.ProbeFrames(context.Background(), ffmpeg.Limits{}, fetchTo(t, rec["outputUrl"].(string), t.TempDir(), "split.mp4"))
	require.NoError(t, err)
	assert.Equal(t, 73, info.Video().NbFrames)
	// Usage has one render of 2.9 s, with its parts' CPU time and its join's.
	var cpu float64
	for _, p := range parts {
		partCPU, _ := p.Metadata[jobs.MetaCPUSeconds].(float64)
		assert.Positive(t, partCPU, "part %s was metered", p.ID)
		cpu += partCPU
	}
	r := k.do(t, http.MethodGet, "/usage", nil)
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	rows := r.json(t)["data"].([]any)
	require.Len(t, rows, 1, "%s", r.body)
	row := rows[0].(map[string]any)
	assert.Equal(t, "render", row["type"])
	assert.Equal(t, 1.0, row["jobs"], "the parts are no jobs of their own")
	assert.InDelta(t, 2.9, row["mediaSeconds"], 1e-9)
	assert.InDelta(t, 0.0058, row["price"], 1e-9)
	assert.Greater(t, row["cpuSeconds"], cpu, "the parts' CPU and the join's")

	// Without split, the server's rule keeps this short render whole.
	plain := k.submit(t, splitComposition(media, ""))
	k.waitStatus(t, plain, "completed", 60*time.Second)
	assert.Empty(t, partsOf(t, db, plain), "the server's rule alone does not split it")

	eagerDB := storetest.SQLite(t)
	eager := start(t, eagerDB, splitEverySecond)
	body = splitComposition(media, "")
	body["split"] = map[string]any{"enabled": false}
	whole := eager.submit(t, body)
	rec = eager.waitStatus(t, whole, "completed", 60*time.Second)
	assert.Empty(t, partsOf(t, eagerDB, whole), "kept in one piece by the request")
	info, err = ffmpeg.ProbeFrames(context.Background(), ffmpeg.Limits{}, fetchTo(t, rec["outputUrl"].(string), t.TempDir(), "whole.mp4"))
	require.NoError(t, err)
	assert.Equal(t, 73, info.Video().NbFrames)

	// And without split, that server splits the same render.
	again := eager.submit(t, splitComposition(media, ""))
	eager.waitStatus(t, again, "completed", 60*time.Second)
	assert.Len(t, partsOf(t, eagerDB, again), 4, "the server's rule alone splits it")
}

func TestSplitPerRequestRefusesBadValues(t *testing.T) {
	t.Parallel()
	media := serveMedia(t)
	k := start(t, storetest.SQLite(t), func(c *app.Config) { c.Workers = 0 })
	for _, tc := range []struct {
		split any
		want  string
	}{
		{map[string]any{"part": 0.5}, "split.part: must be a number of seconds from 1 to 600"},
		{map[string]any{"part": -3}, "split.part: must be a number of seconds from 1 to 600"},
		{map[string]any{"part": 601}, "split.part: must be a number of seconds from 1 to 600"},
		{map[string]any{"part": "NaN"}, "split.part: must be a number of seconds from 1 to 600"},
		{map[string]any{"enabled": false, "part": 5}, "split.part: a render kept in one piece"},
		// Decoding errors are the gateway's, as for every field.
		{map[string]any{"after": 5}, `unknown field "after"`},
		{false, "unexpected token false"},
	} {
		body := splitComposition(media, "")
		body["split"] = tc.split
		r := k.do(t, http.MethodPost, "/api/render", body)
		require.Equal(t, http.StatusBadRequest, r.status, "%v: %s", tc.split, r.body)
		assert.Equal(t, "VALIDATION_ERROR", r.errorCode(t))
		msg := r.json(t)["error"].(map[string]any)["message"].(string)
		assert.Contains(t, msg, tc.want, "%v", tc.split)
	}
}
