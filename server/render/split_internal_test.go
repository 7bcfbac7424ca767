package render

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	renderv1 "github.com/kinohq/kino/gen/kino/render/v1"
	"github.com/kinohq/kino/server/engine"
	"github.com/kinohq/kino/server/jobs"
)

// TestSplitJobsBoundsTheParts: a request's one-second parts of a
// ten-minute render make MaxParts runs of frames, not 600 (each would
// download the background video again); a part length that makes fewer
// is kept.
func TestSplitJobsBoundsTheParts(t *testing.T) {
	t.Parallel()
	comp, err := json.Marshal(map[string]any{"width": 32, "height": 18, "fps": 10, "duration": 600, "background": "#203040",
		"layers": []any{map[string]any{"type": "text", "text": "kino", "fontSize": 10, "color": "#ffffff"}}})
	require.NoError(t, err)
	scene, err := engine.Compile("provider_a", comp, nil, engine.DefaultLimits())
	require.NoError(t, err)
	runs := func(part float64) []jobs.NewJob {
		cfg, err := DefaultSplit.ForRequest(&renderv1.RenderSplit{Part: &part}, 600)
		require.NoError(t, err)
		all, err := splitJobs(cfg, jobs.NewJob{ID: "whole", Org: "org"}, scene)
		require.NoError(t, err)
		var frames []jobs.NewJob
		for _, j := range all {
			if j.Type == PartFrames {
				frames = append(frames, j)
			}
		}
		return frames
	}

	parts := runs(1)
	require.Equal(t, MaxParts, len(parts))
	frames := 0
	for _, p := range parts {
		var pa PartArgs
		require.NoError(t, json.Unmarshal(p.Args, &pa))
		assert.Equal(t, frames, pa.First, "the runs follow each other")
		frames += pa.Count
	}
	assert.Equal(t, scene.Frames(), frames, "every frame is in a part")

	assert.Equal(t, 60, len(runs(10)), "ten-second parts of ten minutes are under the bound")
}
