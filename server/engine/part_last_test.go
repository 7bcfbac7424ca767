package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/ffmpeg"
)

// TestPartLastKeepsItsFrames encodes each part of a 2.9 s scene at 25 fps
// whose one layer keeps its own clock (an enter animation, so every part
// leads from frame 0) and counts each part's frames: the last holds the
// 23 frames of 72.5, which it held 22 of when its length was written as
// 0.8999999999999999 s.
func TestPartLastKeepsItsFrames(t *testing.T) {
	if testing.Short() {
		t.Skip("renders with ffmpeg")
	}
	t.Parallel()
	comp := map[string]any{"width": 160, "height": 90, "fps": 25, "duration": 2.9,
		"layers": []any{
			map[string]any{"type": "text", "text": "kino", "fontSize": 20, "color": "white", "start": 0, "duration": 2.9, "x": 10, "y": 10, "enter": map[string]any{"type": "slide", "side": "left", "duration": 0.6}},
		}}
	s, err := Compile("provider_a", mustJSON(t, comp), testAssets, DefaultLimits())
	require.NoError(t, err)
	work := t.TempDir()
	ranges := s.Ranges(25)
	require.Equal(t, []PartRange{{0, 25}, {25, 25}, {50, 23}}, ranges)
	for i, r := range ranges {
		p := s.Part(r, i == len(ranges)-1)
		out := filepath.Join(work, fmt.Sprintf("part-%d.ts", i))
		cmd, err := PlanPart(context.Background(), p, inputs(map[string]Media{}, testFont), work, out)
		require.NoError(t, err)
		require.NoError(t, cmd.WriteFiles(work))
		require.NoError(t, ffmpeg.Run(context.Background(), cmd.Args, ffmpeg.RunOptions{Dir: work, Duration: p.Shown()}))
		pr, err := ffmpeg.ProbeFrames(context.Background(), ffmpeg.Limits{}, out)
		require.NoError(t, err)
		require.Equal(t, r.Count, pr.Video().NbFrames, "part %d", i)
	}
}
