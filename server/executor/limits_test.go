package executor

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/ffmpeg"
)

// TestRunsUnderTheNodesLimits: a media job's ffmpeg runs under the
// node's --ffmpeg-max-memory, not the default: with 16 MiB of address
// space an encode that fits the default fails, and passes with the
// default. (Before, media jobs' runs took the default whatever the node
// set.)
func TestRunsUnderTheNodesLimits(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ffmpeg")
	}
	t.Parallel()
	args := []string{"-f", "lavfi", "-i", "color=c=red:s=320x240:d=0.2", "-c:v", "libx264", "file:" + filepath.Join(t.TempDir(), "out.mp4")}
	run := func(l ffmpeg.Limits) error {
		e := &env{Config: Config{FFmpeg: l}}
		return e.run(context.Background(), Attempt{Dir: t.TempDir()}, 0.2, args)
	}
	require.NoError(t, run(ffmpeg.Limits{}), "the default limits")
	assert.Error(t, run(ffmpeg.Limits{MaxMemory: 16 << 20}), "16 MiB of address space")
}
