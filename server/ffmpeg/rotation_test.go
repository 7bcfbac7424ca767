package ffmpeg_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/ffmpeg"
)

// TestProbeRotation checks that both probes report the turn a phone video's
// display matrix asks for, as ffmpeg's decoder applies it: a portrait
// recording stored as landscape.
func TestProbeRotation(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	run := func(args ...string) {
		cmd := exec.Command("ffmpeg", append([]string{"-hide_banner", "-loglevel", "error", "-y"}, args...)...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	run("-f", "lavfi", "-i", "testsrc2=size=80x60:rate=10", "-t", "1", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "upright.mp4")
	for _, turn := range []string{"90", "180", "270"} {
		run("-i", "upright.mp4", "-c", "copy", "-metadata:s:v:0", "rotate="+turn, "turned"+turn+".mp4")
	}
	for name, want := range map[string]int{"upright.mp4": 0, "turned90.mp4": 90, "turned180.mp4": -180, "turned270.mp4": -90} {
		path := filepath.Join(dir, name)
		probed, err := ffmpeg.Probe(context.Background(), ffmpeg.Limits{}, path)
		require.NoError(t, err)
		require.NotNil(t, probed.Video())
		read, ok := ffmpeg.ReadContainer(path)
		require.True(t, ok, name)
		require.NotNil(t, read.Video())
		assert.Equal(t, want, probed.Video().Rotation, "ffprobe, %s", name)
		assert.Equal(t, want, read.Video().Rotation, "kino's reader, %s", name)
		assert.Equal(t, 80, read.Video().Width, "sizes stay as stored, %s", name)
	}
}
