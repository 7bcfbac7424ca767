package engine

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A request with several mistakes is answered with all of them at once, so
// its author fixes it in one round.
func TestCompileReportsEveryProblem(t *testing.T) {
	t.Parallel()
	composition := `{"width": 15, "height": 360, "layers": [
		{"type": "text", "text": "hi", "duration": 2, "colour": "#fff"},
		{"type": "rectangle", "duration": 2, "width": 10, "height": 10, "color": "pink-ish"},
		{"type": "nope", "duration": 2}]}`
	_, err := Compile("provider_a", []byte(composition), nil, DefaultLimits())
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	var fields []string
	for _, p := range ve.All() {
		fields = append(fields, p.Field)
	}
	require.Equal(t, []string{
		"composition.width",
		"composition.layers[0].colour",
		"composition.layers[1].color",
		"composition.layers[2].type",
	}, fields)
	require.Equal(t, "composition.width: "+ve.Message, err.Error(), "Error names the first problem alone")
}

// fps may be left out: 30, as other render APIs default.
func TestFPSDefaultsTo30(t *testing.T) {
	t.Parallel()
	s, err := Compile("provider_a", []byte(`{"width": 64, "height": 64, "layers": [{"type": "color", "color": "#fff", "duration": 1}]}`), nil, DefaultLimits())
	require.NoError(t, err)
	require.Equal(t, 30, s.FPS)
}

func TestCompileReportsEveryProblemOfUnified(t *testing.T) {
	t.Parallel()
	composition := `{"output": {"width": 64, "height": 64, "fps": 0},
		"tracks": [{"clips": [{"asset": {"type": "text", "text": "a"}, "start": 0, "length": 1, "opacity": 2},
		                      {"asset": {"type": "color"}, "start": 1, "length": 1}]}]}`
	_, err := Compile("unified", []byte(composition), nil, DefaultLimits())
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	var fields []string
	for _, p := range ve.All() {
		fields = append(fields, p.Field)
	}
	require.Equal(t, []string{
		"composition.output.fps",
		"composition.tracks[0].clips[0].opacity",
		"composition.tracks[0].clips[1].asset.color",
	}, fields)
}
