package app_test

import (
	"os/exec"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/store/storetest"
)

var integratedLoudness = regexp.MustCompile(`(?s)Integrated loudness:\s+I:\s+(-?[0-9.]+) LUFS`)

// integrated is a file's integrated loudness in LUFS, as ebur128 measures it.
func integrated(t *testing.T, path string) float64 {
	t.Helper()
	out, err := exec.Command("ffmpeg", "-hide_banner", "-nostats", "-i", path, "-map", "0:a", "-filter:a", "ebur128", "-f", "null", "-").CombinedOutput()
	require.NoError(t, err, "%s", out)
	m := integratedLoudness.FindSubmatch(out)
	require.NotNil(t, m, "%s", out)
	v, err := strconv.ParseFloat(string(m[1]), 64)
	require.NoError(t, err)
	return v
}

// TestSplitRenderLoudnessEqualsUnsplit: a split render's sound, mixed once
// for the whole timeline in its own job, is measured there over the whole
// mix and gets the one gain an unsplit render gets: the same samples, on
// the target.
func TestSplitRenderLoudnessEqualsUnsplit(t *testing.T) {
	t.Parallel()
	media := serveMedia(t)
	body := func() map[string]any {
		return map[string]any{
			"provider": "provider_a",
			"composition": map[string]any{
				"width": 64, "height": 36, "fps": 10, "duration": 2.9, "loudness": map[string]any{"target": -20},
				"layers": []any{
					map[string]any{"type": "color", "color": "#336699", "start": 0, "duration": 2.9},
					map[string]any{"type": "audio", "src": "tone", "start": 0, "duration": 2.9, "volume": 0.05},
					map[string]any{"type": "video", "src": "clip", "start": 1, "duration": 1.5, "width": 32},
				},
			},
			"assetUrls": map[string]any{"clip": media.URL + "/clip.mp4", "tone": media.URL + "/tone.wav"},
		}
	}
	db := storetest.SQLite(t)
	split := start(t, db, splitEverySecond)
	whole := start(t, storetest.SQLite(t), nil)
	id, wholeID := split.submit(t, body()), whole.submit(t, body())
	rec := split.waitStatus(t, id, "completed", 90*time.Second)
	ref := whole.waitStatus(t, wholeID, "completed", 90*time.Second)
	require.Len(t, partsOf(t, db, id), 4, "split: three runs of frames and the sound")

	dir := t.TempDir()
	a, b := fetchTo(t, ref["outputUrl"].(string), dir, "whole.mp4"), fetchTo(t, rec["outputUrl"].(string), dir, "split.mp4")
	la, lb := integrated(t, a), integrated(t, b)
	t.Logf("integrated loudness: unsplit %.2f LUFS, split %.2f LUFS", la, lb)
	assert.InDelta(t, -20, la, 1)
	assert.InDelta(t, la, lb, 0.1, "split and unsplit get the same gain")
	sa, sb := samples(t, a), samples(t, b)
	require.Len(t, sb, len(sa))
	for i := 0; i < len(sa); i += 480 {
		require.InDelta(t, sa[i], sb[i], 2e-3, "sample %d", i)
	}
}
