package engine

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stillOfTurning is a composition whose picture turns and slides from 0 s
// to 30 s, and whose still is at 29.5 s.
func stillOfTurning(format string) map[string]any {
	return stillOf(format, map[string]any{
		"rotation": []any{map[string]any{"time": 0, "value": 0}, map[string]any{"time": 30, "value": 350, "easing": "ease-in-out"}},
		"x":        []any{map[string]any{"time": 0, "value": 0}, map[string]any{"time": 30, "value": 40}}})
}

// stillOf is stillOfTurning's composition with motion instead of the turn.
func stillOf(format string, motion map[string]any) map[string]any {
	layer := map[string]any{"type": "image", "src": "picture", "width": 24, "height": 16, "y": 8, "start": 0, "duration": 30, "fadeIn": 1}
	for k, v := range motion {
		layer[k] = v
	}
	comp := map[string]any{"width": 64, "height": 32, "fps": 10, "duration": 30, "format": format, "background": "#203040",
		"layers": []any{layer}}
	if format == "png" {
		comp["frameTime"] = 29.5
	}
	return comp
}

// A still of a picture that turns from 0 s composed every frame from the
// layer's start (a still at 30 s cost 30 times one at 1 s). The layer is
// frozen at the still's frame instead: the still composes one frame, and
// it is the frame the video shows there.
func TestStillFreezesMovingLayers(t *testing.T) {
	t.Parallel()
	s, err := Compile("provider_a", mustJSON(t, stillOfTurning("png")), testAssets, DefaultLimits())
	require.NoError(t, err)
	still := s.StillFrame()
	require.Len(t, still.Layers, 1)
	assert.Zero(t, still.lead, "frames composed before the still's")
	l := still.Layers[0]
	assert.Zero(t, l.Start, "the part starts on the still's frame")
	assert.Zero(t, l.FadeIn, "the fade in ended long before")
	assert.InDelta(t, 350*easeValue(EaseInOut, 29.5/30), l.Motion.Rotation[0].Value, 1e-9)
	assert.InDelta(t, 40*29.5/30, l.Motion.X[0].Value, 1e-9)

	// Under way at the still's frame, a fade keeps the layer's clock.
	early := stillOfTurning("png")
	early["frameTime"] = 0.5
	s, err = Compile("provider_a", mustJSON(t, early), testAssets, DefaultLimits())
	require.NoError(t, err)
	assert.Positive(t, s.StillFrame().Layers[0].FadeIn)

	// An enter decides how a layer is drawn: it keeps its clock.
	entering := stillOfTurning("png")
	entering["layers"].([]any)[0].(map[string]any)["enter"] = map[string]any{"type": "slide", "side": "left", "duration": 1}
	s, err = Compile("provider_a", mustJSON(t, entering), testAssets, DefaultLimits())
	require.NoError(t, err)
	assert.NotNil(t, s.StillFrame().Layers[0].Motion.Enter)

	if testing.Short() {
		t.Skip("renders with ffmpeg")
	}
	for name, motion := range map[string]map[string]any{
		"turning":    {"rotation": []any{map[string]any{"time": 0, "value": 0}, map[string]any{"time": 30, "value": 350, "easing": "ease-in-out"}}, "x": []any{map[string]any{"time": 0, "value": 0}, map[string]any{"time": 30, "value": 40}}},
		"ken burns":  {"kenBurns": "zoomIn", "width": 64, "height": 32, "y": 0},
		"moving box": {"scale": []any{map[string]any{"time": 0, "value": 0.5}, map[string]any{"time": 30, "value": 1.5}}, "opacity": []any{map[string]any{"time": 0, "value": 1}, map[string]any{"time": 30, "value": 0.5}}},
	} {
		t.Run(name, func(t *testing.T) { stillIsTheVideosFrame(t, stillOf("png", motion), stillOf("mov", motion)) })
	}
}

// stillIsTheVideosFrame renders both and compares the still with the
// video's frame at 29.5 s.
func stillIsTheVideosFrame(t *testing.T, stillComp, videoComp map[string]any) {
	t.Parallel()
	pic := render(t, "provider_a", stillComp)
	video := render(t, "provider_a", videoComp)
	frames := decodeRGBA(t, video.out, 64, 32)
	require.Len(t, frames, 300)
	got := decodeRGBA(t, pic.out, 64, 32)
	require.Len(t, got, 1)
	var sum float64
	for i := range got[0] {
		d := float64(got[0][i]) - float64(frames[295][i])
		sum += d * d
	}
	mse := sum / float64(len(got[0]))
	psnr := 10 * math.Log10(255*255/math.Max(mse, 1e-9))
	t.Logf("%s: still at 29.5 s against frame 295 of the video: PSNR %.1f dB", t.Name(), psnr)
	// 31.8 dB, as the still drawn with the layer's clock kept (the PNG
	// against the MOV's 10-bit 4:4:4 frame of a 24×16 turning picture).
	assert.Greater(t, psnr, 30.0, "the still is the video's frame")
	var other float64
	for i := range got[0] {
		d := float64(got[0][i]) - float64(frames[200][i])
		other += d * d
	}
	assert.Greater(t, other, 4*sum, "and not another one")
}
