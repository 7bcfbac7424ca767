package renderrun

import (
	"context"
	"encoding/json"
	"log/slog"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/attempt"
	"github.com/kinohq/kino/server/engine"
	"github.com/kinohq/kino/server/ffmpeg"
)

// TestStillPlanSeeksItsVideo: the worker's plan of a still at frameTime 30
// over a 60 s video read the video from its trim, decoding 30 s of it to
// keep one frame. It probes the source and seeks its input a second before
// the frame, as a split part does (the engine's TestStillSeeksItsVideo
// counts the frames decoded and compares the picture with the whole
// scene's).
func TestStillPlanSeeksItsVideo(t *testing.T) {
	if testing.Short() {
		t.Skip("makes a video with ffmpeg")
	}
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	long := filepath.Join(dir, "long")
	out, err := exec.Command("ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=32x18:rate=30",
		"-t", "60", "-c:v", "libx264", "-preset", "ultrafast", "-g", "60", "-pix_fmt", "yuv420p", "-f", "mp4", long).CombinedOutput()
	require.NoError(t, err, "%s", out)
	info, err := ffmpeg.Probe(ctx, ffmpeg.Limits{}, long)
	require.NoError(t, err)
	comp, err := json.Marshal(map[string]any{"width": 32, "height": 18, "fps": 60, "format": "png", "frameTime": 30, "layers": []any{
		map[string]any{"type": "video", "src": "https://x.test/long", "trimStart": 0.5, "duration": 59},
	}})
	require.NoError(t, err)
	scene, err := engine.Compile("provider_a", comp, nil, engine.DefaultLimits())
	require.NoError(t, err)
	media := map[string]engine.Media{scene.Sources()[0].Key: engine.MediaFromInfo(long, info)}

	r := &renderRun{cfg: Config{Env: &attempt.Env{Font: testFont}}, log: slog.New(slog.DiscardHandler)}
	cmd, err := r.plan(ctx, scene, media, dir, filepath.Join(dir, "output.png"))
	require.NoError(t, err)
	in := slices.Index(cmd.Args, "file:"+long)
	require.Greater(t, in, 3, "the video is an input: %v", cmd.Args)
	ss := slices.Index(cmd.Args[:in], "-ss")
	require.GreaterOrEqual(t, ss, 0, "the video's input seeks: %v", cmd.Args)
	at, err := strconv.ParseFloat(cmd.Args[ss+1], 64)
	require.NoError(t, err)
	assert.InDelta(t, 29.5, at, 0.01, "trim 0.5 s, a second before the frame of 30 s: %v", cmd.Args)
}
