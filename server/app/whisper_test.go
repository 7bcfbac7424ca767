package app_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/app"
	"github.com/kinohq/kino/server/store/storetest"
	"github.com/kinohq/kino/server/transcribe"
)

// A stand-in for a Whisper-compatible server: it checks the request as the
// API defines it and answers verbose_json with two segments.
func fakeWhisper(t *testing.T, calls *atomic.Int32) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.URL.Path != "/v1/audio/transcriptions" || r.Header.Get("Authorization") != "Bearer sk-test" {
			http.Error(w, "bad request line or key", http.StatusUnauthorized)
			return
		}
		f, _, err := r.FormFile("file")
		if err != nil || r.FormValue("model") != "whisper-1" || r.FormValue("response_format") != "verbose_json" {
			http.Error(w, "bad form", http.StatusBadRequest)
			return
		}
		head, _ := io.ReadAll(io.LimitReader(f, 12))
		if !strings.HasPrefix(string(head), "RIFF") {
			http.Error(w, "not wav", http.StatusBadRequest)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{
			"text": "hello world. this is a test of the captions.",
			"segments": []any{
				map[string]any{"start": 0.0, "end": 1.2, "text": " hello world."},
				map[string]any{"start": 1.3, "end": 3.0, "text": " this is a test of the captions."},
			},
		})
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestCaptionExtractWithWhisper(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	speechVideo(t, dir)
	src := serveDir(t, http.FileServer(http.Dir(dir)))
	var calls atomic.Int32
	whisper := fakeWhisper(t, &calls)
	k := start(t, storetest.SQLite(t), func(c *app.Config) {
		c.Transcriber = transcribe.Whisper{URL: whisper.URL + "/v1/audio/transcriptions", APIKey: "sk-test", PricePerMinute: 0.6}
		c.CPUSecondCost = 0.001
	})
	id := k.createJob(t, map[string]any{"type": "caption.extract", "inputs": map[string]any{"source": src + "/speech.mp4"}, "params": map[string]any{"format": "srt"}})
	j := k.waitJob(t, id)
	require.Equal(t, "complete", j["status"], "%v", j)
	assert.Equal(t, int32(1), calls.Load())
	var meta map[string]any
	require.NoError(t, json.Unmarshal([]byte(j["outputMeta"].(string)), &meta))
	srt := string(fetchBody(t, meta["captionsUrl"].(string), ""))
	assert.Equal(t, "1\n00:00:00,000 --> 00:00:01,200\nhello world.\n\n2\n00:00:01,300 --> 00:00:03,000\nthis is a test of the captions.\n\n", srt)
	assert.Equal(t, "hello world. this is a test of the captions.", meta["transcript"])
	// The endpoint's price per minute of the audio sent is the job's
	// providerCost, and comes out of its margin.
	seconds := meta["duration"].(float64)
	assert.InDelta(t, 0.6*seconds/60, j["providerCost"], 0.001, "%v", j)
	assert.Positive(t, j["infraCost"])
	assert.InDelta(t, j["price"].(float64)-j["providerCost"].(float64)-j["infraCost"].(float64), j["margin"], 1e-12)
}
