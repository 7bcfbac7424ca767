package render

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	renderv1 "github.com/kinohq/kino/gen/kino/render/v1"
	"github.com/kinohq/kino/server/engine"
	"github.com/kinohq/kino/server/jobs"
	"github.com/kinohq/kino/server/renderjob"
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
			if j.Type == renderjob.PartFrames {
				frames = append(frames, j)
			}
		}
		return frames
	}

	parts := runs(1)
	require.Equal(t, MaxParts, len(parts))
	frames := 0
	for _, p := range parts {
		var pa renderjob.PartArgs
		require.NoError(t, json.Unmarshal(p.Args, &pa))
		assert.Equal(t, frames, pa.First, "the runs follow each other")
		frames += pa.Count
	}
	assert.Equal(t, scene.Frames(), frames, "every frame is in a part")

	assert.Equal(t, 60, len(runs(10)), "ten-second parts of ten minutes are under the bound")
}

// TestSplitJobsCountsTheirDownloads: a looped video under ten minutes in
// one-second parts would be fetched by each of 100 parts and the sound
// part (101 downloads, at any host, with the parts on many nodes); the
// split is counted first and gets longer parts, so that its parts fetch
// at most MaxSplitFetches sources in all.
func TestSplitJobsCountsTheirDownloads(t *testing.T) {
	t.Parallel()
	comp, err := json.Marshal(map[string]any{"width": 32, "height": 18, "fps": 10, "duration": 600,
		"layers": []any{
			map[string]any{"type": "video", "src": "clip", "start": 0, "duration": 600},
			map[string]any{"type": "image", "src": "logo", "start": 0, "duration": 600},
		}})
	require.NoError(t, err)
	scene, err := engine.Compile("provider_a", comp, map[string]string{"clip": "https://cdn.example/clip.mp4", "logo": "https://cdn.example/logo.png"}, engine.DefaultLimits())
	require.NoError(t, err)
	part := 1.0
	cfg, err := DefaultSplit.ForRequest(&renderv1.RenderSplit{Part: &part}, 600)
	require.NoError(t, err)
	all, err := splitJobs(cfg, jobs.NewJob{ID: "whole", Org: "org"}, scene)
	require.NoError(t, err)
	require.NotEmpty(t, all, "still split")
	fetches, frames := 0, 0
	for _, j := range all[1:] {
		var pa renderjob.PartArgs
		require.NoError(t, json.Unmarshal(j.Args, &pa))
		if j.Type == renderjob.PartSound {
			fetches += len(scene.SoundSources())
			continue
		}
		fetches += len(scene.Part(engine.PartRange{First: pa.First, Count: pa.Count}, pa.Last).Sources())
		frames += pa.Count
	}
	assert.Equal(t, scene.Frames(), frames, "every frame is in a part")
	assert.LessOrEqual(t, fetches, MaxSplitFetches)
	assert.Greater(t, fetches, MaxSplitFetches/2, "parts no longer than the bound needs")
	t.Logf("%d jobs, %d downloads", len(all)-1, fetches)
}
