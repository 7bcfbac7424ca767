package engine

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func compileJSON(t *testing.T, comp map[string]any) *Scene {
	t.Helper()
	b, err := json.Marshal(comp)
	require.NoError(t, err)
	s, err := Compile("provider_a", b, nil, DefaultLimits())
	require.NoError(t, err)
	return s
}

// TestPreviewRefusesWhatHasNoFrame: a time outside the composition, a
// width outside 16 to the composition's, a format other than jpg and png,
// and an output without a picture are errors naming their field.
func TestPreviewRefusesWhatHasNoFrame(t *testing.T) {
	t.Parallel()
	s := compileJSON(t, map[string]any{"width": 320, "height": 180, "fps": 25, "layers": []any{
		map[string]any{"type": "color", "color": "red", "duration": 4}}})
	for _, c := range []struct {
		at     float64
		width  int
		format string
		field  string
	}{{4, 0, "jpg", "time"}, {-0.1, 0, "jpg", "time"}, {1, 8, "jpg", "width"}, {1, 321, "png", "width"}, {1, 0, "gif", "format"}} {
		_, err := s.Preview(c.at, c.width, c.format, "time", "width")
		var ve *ValidationError
		require.True(t, errors.As(err, &ve), "%+v: %v", c, err)
		assert.Equal(t, c.field, ve.Field, "%+v", c)
	}
	sound := compileJSON(t, map[string]any{"width": 320, "height": 180, "fps": 25, "format": "mp3", "layers": []any{
		map[string]any{"type": "color", "color": "red", "duration": 4}}})
	_, err := sound.Preview(1, 0, "jpg", "time", "width")
	assert.ErrorContains(t, err, "composition: a mp3 output has no picture")
}

// TestPreviewFramesOnlyItsFrame: a preview at 2.5 s of a Ken Burns
// picture from 0 s at 30 fps frames the picture as it is on its 75th
// frame (the zoom held at its value then, 1.25), never the 75 before, then
// scales the frame to the width asked.
func TestPreviewFramesOnlyItsFrame(t *testing.T) {
	t.Parallel()
	s := compileJSON(t, map[string]any{"width": 1280, "height": 720, "fps": 30, "format": "mp4", "loudness": map[string]any{}, "layers": []any{
		map[string]any{"type": "image", "src": "https://x.test/a.jpg", "width": 1280, "height": 720, "duration": 3, "kenBurns": "zoomIn"}}})
	p, err := s.Preview(2.5, 640, "jpg", "time", "width")
	require.NoError(t, err)
	w, h := p.PreviewSize()
	assert.Equal(t, [2]int{640, 360}, [2]int{w, h})
	media := map[string]Media{}
	for _, src := range p.Sources() {
		media[src.Key] = Media{Path: "/tmp/a.jpg", Format: "jpeg_pipe", HasVideo: true, Still: true, Width: 1920, Height: 1080}
	}
	cmd, err := Plan(context.Background(), p, inputs(media, ""), t.TempDir(), "/tmp/out.jpg")
	require.NoError(t, err)
	graph := strings.Join(cmd.Args, " ")
	assert.Contains(t, graph, "loop=loop=14:", "frames 75 to 89 of the layer")
	assert.Contains(t, graph, "zoompan=z=(1.25-", "the zoom of the layer's frame 75, held")
	assert.Contains(t, graph, "setpts=N+0[", "the layer starts on the preview's frame")
	assert.Contains(t, graph, "trim=start_frame=0:end_frame=1,scale=w=640:h=360[vout]")
	assert.NotContains(t, graph, "loudnorm")
}
