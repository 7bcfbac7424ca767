package app_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/app"
	"github.com/kinohq/kino/server/store/storetest"
	"github.com/kinohq/kino/server/transcribe"
)

// TestCaptionsHighlightFollowsWords renders a captions layer over the demo
// talk, transcribed, its spoken word in green, and reads the rendered
// video: each word turns green within 0.15 s of the time the transcriber
// says it is spoken. The Whisper-compatible service is a stand-in on
// loopback answering the talk's words as flite spoke them
// (server/transcribe/testdata); the offline transcriber's words are
// its own estimate, read by running it on the talk.
func TestCaptionsHighlightFollowsWords(t *testing.T) {
	t.Parallel()
	answer, err := os.ReadFile("../transcribe/testdata/talk-words.json")
	require.NoError(t, err)
	whisper := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseMultipartForm(8 << 20); err != nil || !slices.Contains(r.MultipartForm.Value["timestamp_granularities[]"], "word") {
			http.Error(w, "no word timestamps asked for", http.StatusBadRequest)
			return
		}
		_, _ = w.Write(answer)
	}))
	t.Cleanup(whisper.Close)
	var said struct{ Words []struct{ Start float64 } }
	require.NoError(t, json.Unmarshal(answer, &said))

	for _, tc := range []struct {
		name        string
		transcriber transcribe.Transcriber
	}{
		{"whisper", transcribe.Whisper{URL: whisper.URL}},
		{"pocketsphinx", transcribe.Pocketsphinx{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if _, ok := tc.transcriber.(transcribe.Pocketsphinx); ok {
				if _, err := os.Stat(transcribe.PocketsphinxModel); err != nil {
					t.Skip("no pocketsphinx model")
				}
			}
			k := start(t, storetest.SQLite(t), func(c *app.Config) { c.Transcriber = tc.transcriber })
			talk := filepath.Join(t.TempDir(), "talk.mp4")
			fetchBody(t, k.base+"/demo/talk.mp4", talk)
			var starts []float64
			if tc.name == "whisper" {
				for _, w := range said.Words {
					starts = append(starts, w.Start)
				}
			} else {
				cues, err := transcribe.Pocketsphinx{}.Transcribe(context.Background(), transcribe.Audio{Path: talk, Format: "mov", Dir: t.TempDir(), Duration: 7})
				require.NoError(t, err)
				for _, c := range cues {
					for _, w := range c.Words {
						starts = append(starts, w.Start)
					}
				}
			}
			id := k.submit(t, map[string]any{"provider": "provider_a", "composition": map[string]any{
				"width": 640, "height": 360, "fps": 25, "duration": 7, "layers": []any{
					map[string]any{"type": "video", "id": "talk", "src": k.base + "/demo/talk.mp4"},
					map[string]any{"type": "captions", "transcribe": map[string]any{"layer": "talk"}, "fontSize": 28,
						"color": "white", "highlightColor": "#00ff00", "maxLines": 1},
				}}})
			job := k.waitStatus(t, id, "completed", 2*time.Minute)
			out := filepath.Join(t.TempDir(), "out.mp4")
			fetchBody(t, job["outputUrl"].(string), out)

			onsets := highlightOnsets(t, out, 25)
			require.Len(t, onsets, len(starts), "a word turns green once, each in its turn: %v", onsets)
			var errs []float64
			for i, at := range onsets {
				errs = append(errs, at-starts[i])
			}
			sorted := make([]float64, len(errs))
			for i, e := range errs {
				sorted[i] = max(e, -e)
			}
			sort.Float64s(sorted)
			t.Logf("%d words: highlight onset minus spoken start, max |error| %.3f s, median %.3f s (a frame is 0.040 s): %.3f", len(errs), sorted[len(sorted)-1], sorted[len(sorted)/2], errs)
			assert.LessOrEqual(t, sorted[len(sorted)-1], 0.15)
		})
	}
}

// highlightOnsets reads a video's caption band (the bottom quarter of a
// 640×360 frame) and gives the time of each frame on which a green word
// appears or the green moves to another place: each word's turn.
func highlightOnsets(t *testing.T, path string, fps int) []float64 {
	t.Helper()
	const w, h = 640, 90
	raw, err := exec.Command("ffmpeg", "-hide_banner", "-loglevel", "error", "-i", path,
		"-vf", "crop=640:90:0:270", "-f", "rawvideo", "-pix_fmt", "rgb24", "-").Output()
	require.NoError(t, err)
	var onsets []float64
	lastX, was := -1000, false
	for n := 0; (n+1)*w*h*3 <= len(raw); n++ {
		frame := raw[n*w*h*3 : (n+1)*w*h*3]
		count, minX, maxX := 0, w, 0
		for i := 0; i < w*h; i++ {
			r, g, b := int(frame[3*i]), int(frame[3*i+1]), int(frame[3*i+2])
			if g > 180 && r < 100 && b < 100 {
				count++
				minX, maxX = min(minX, i%w), max(maxX, i%w)
			}
		}
		if count < 15 {
			was = false
			continue
		}
		x := (minX + maxX) / 2
		if !was || abs(x-lastX) > 4 {
			onsets = append(onsets, float64(n)/float64(fps))
		}
		lastX, was = x, true
	}
	return onsets
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
