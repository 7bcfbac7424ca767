package app_test

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/store/storetest"
)

const spoken = "hello world. this is a test of the captions."

// speechVideo makes a 160x90 video whose sound is flite saying spoken.
func speechVideo(t *testing.T, dir string) {
	t.Helper()
	sayVideo(t, filepath.Join(dir, "speech.mp4"), spoken)
}

// sayVideo makes a 160x90 video whose sound is flite saying text.
func sayVideo(t *testing.T, path, text string) {
	t.Helper()
	out, err := exec.Command("ffmpeg", "-hide_banner", "-loglevel", "error", "-y",
		"-f", "lavfi", "-i", "testsrc2=size=160x90:rate=10",
		"-f", "lavfi", "-i", "flite=text='"+text+"':voice=slt",
		"-shortest", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac",
		path).CombinedOutput()
	require.NoError(t, err, "%s", out)
}

func fetchBody(t *testing.T, url, path string) []byte {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s: %s", url, b)
	if path != "" {
		require.NoError(t, os.WriteFile(path, b, 0o644))
	}
	return b
}

func TestCaptionsExtractThenBurn(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	speechVideo(t, dir)
	files := http.FileServer(http.Dir(dir))
	srv := serveDir(t, files)
	k := start(t, storetest.SQLite(t), nil)

	id := k.createJob(t, map[string]any{"type": "caption.extract", "inputs": map[string]any{"source": srv + "/speech.mp4"}})
	j := k.waitJob(t, id)
	require.Equal(t, "complete", j["status"], "%v", j)
	var meta map[string]any
	require.NoError(t, json.Unmarshal([]byte(j["outputMeta"].(string)), &meta))
	vtt := string(fetchBody(t, meta["captionsUrl"].(string), ""))
	t.Logf("captions:\n%s", vtt)
	require.True(t, strings.HasPrefix(vtt, "WEBVTT\n"), vtt)
	assert.Contains(t, vtt, " --> ")
	words := strings.Fields(meta["transcript"].(string))
	heard := 0
	for _, w := range []string{"hello", "world", "test", "captions"} {
		for _, h := range words {
			if h == w {
				heard++
				break
			}
		}
	}
	assert.GreaterOrEqual(t, heard, 2, "the transcript %q holds words of %q", meta["transcript"], spoken)
	assert.Equal(t, j["outputUrl"], meta["outputUrl"], "the source is passed through")
	// The transcription's ffmpeg run is logged like any other.
	assert.Contains(t, string(fetchBody(t, j["logsRef"].(string), "")), "[info] Output #0, null")

	// The spec's chain, by hand until pipelines run: captionsUrl -> subtitles, outputUrl -> source.
	burn := k.createJob(t, map[string]any{"type": "caption.burn",
		"inputs": map[string]any{"source": meta["outputUrl"], "subtitles": meta["captionsUrl"]},
		"params": map[string]any{"fontSize": 10, "color": "#FFFF00", "marginV": 5}}) // pixels, of 90
	b := k.waitJob(t, burn)
	require.Equal(t, "complete", b["status"], "%v", b)
	out := filepath.Join(dir, "burned.mp4")
	fetchBody(t, b["outputUrl"].(string), out)

	src := grayFrame(t, filepath.Join(dir, "speech.mp4"), "1", 160, 90)
	got := grayFrame(t, out, "1", 160, 90)
	bottom := meanDiff(src, got, 160, 0, 60, 160, 90)
	top := meanDiff(src, got, 160, 0, 0, 160, 30)
	t.Logf("mean difference: bottom %.1f, top %.1f", bottom, top)
	assert.Greater(t, bottom, 5.0, "captions are burned at the bottom")
	assert.Less(t, top, 4.0, "and nowhere else")
}

// longSpeech is one utterance of 187 characters: no punctuation, so flite
// makes no pause and pocketsphinx hears it as one.
const longSpeech = "the quick brown fox jumps over the lazy dog and then the little cat runs around the big house " +
	"while the children play in the garden with their friends all day long until the sun goes down"

// ffmpeg's ametadata filter cuts what it writes to a file= at 127 bytes a
// line, which kept only the first 112 characters of an utterance.
func TestCaptionsExtractLongUtterance(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sayVideo(t, filepath.Join(dir, "long.mp4"), longSpeech)
	srv := serveDir(t, http.FileServer(http.Dir(dir)))
	k := start(t, storetest.SQLite(t), nil)

	id := k.createJob(t, map[string]any{"type": "caption.extract", "inputs": map[string]any{"source": srv + "/long.mp4"}})
	j := k.waitJob(t, id)
	require.Equal(t, "complete", j["status"], "%v", j)
	var meta map[string]any
	require.NoError(t, json.Unmarshal([]byte(j["outputMeta"].(string)), &meta))
	transcript := meta["transcript"].(string)
	t.Logf("transcript (%d characters): %s", len(transcript), transcript)

	// pocketsphinx mishears a word here and there: count words, and look
	// for the last ones, not for an exact text.
	said, heard := strings.Fields(longSpeech), strings.Fields(transcript)
	assert.Greater(t, len(transcript), 150, "the whole utterance, not its first 112 characters")
	assert.InDelta(t, len(said), len(heard), 5, "about as many words as were said")
	tail := 0
	for _, w := range []string{"garden", "friends", "day", "long", "sun", "down"} {
		if strings.Contains(transcript[min(112, len(transcript)):], w) {
			tail++
		}
	}
	assert.GreaterOrEqual(t, tail, 4, "the last words are in the transcript, past character 112")
	vtt := string(fetchBody(t, meta["captionsUrl"].(string), ""))
	assert.Contains(t, vtt, "sun", "and in the captions")
}

// inkHeight is the height in pixels of the bright pixels of a gray frame.
func inkHeight(frame []byte, w int) int {
	top, bottom := -1, -1
	for y := 0; y < len(frame)/w; y++ {
		for _, p := range frame[y*w : (y+1)*w] {
			if p > 128 {
				if top < 0 {
					top = y
				}
				bottom = y
				break
			}
		}
	}
	if top < 0 {
		return 0
	}
	return bottom - top + 1
}

// fontSize is pixels of the output: a line of DejaVu Sans fontSize pixels
// tall (ascent plus descent) holds "Hydrogen jelly" in 0.82 of it. Left
// out, it is Rendobar's 48, whatever the height.
func TestCaptionsBurnFontSizeIsPixels(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out, err := exec.Command("ffmpeg", "-hide_banner", "-loglevel", "error", "-y",
		"-f", "lavfi", "-i", "color=black:size=1280x720:rate=5", "-t", "2",
		"-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", filepath.Join(dir, "black.mp4")).CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "line.vtt"), []byte("WEBVTT\n\n00:00:00.000 --> 00:00:05.000\nHydrogen jelly\n"), 0o644))
	srv := serveDir(t, http.FileServer(http.Dir(dir)))
	k := start(t, storetest.SQLite(t), nil)

	for _, c := range []struct {
		params   map[string]any
		min, max int
	}{
		{map[string]any{"fontSize": 40}, 30, 40},
		{map[string]any{"fontSize": 100}, 75, 100},
		{map[string]any{}, 36, 48},
	} {
		id := k.createJob(t, map[string]any{"type": "caption.burn",
			"inputs": map[string]any{"source": srv + "/black.mp4", "subtitles": srv + "/line.vtt"}, "params": c.params})
		j := k.waitJob(t, id)
		require.Equal(t, "complete", j["status"], "%v", j)
		path := filepath.Join(dir, id+".mp4")
		fetchBody(t, j["outputUrl"].(string), path)
		h := inkHeight(grayFrame(t, path, "1", 1280, 720), 1280)
		t.Logf("params %v: text %d px tall", c.params, h)
		assert.GreaterOrEqual(t, h, c.min, "params %v", c.params)
		assert.LessOrEqual(t, h, c.max, "params %v", c.params)
	}
}
