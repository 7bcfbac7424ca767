package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWordsValidation: what an animation by word or letter refuses is
// named by its field.
func TestWordsValidation(t *testing.T) {
	t.Parallel()
	text := func(extra map[string]any) map[string]any {
		l := map[string]any{"type": "text", "text": "one two three", "duration": 3}
		for k, v := range extra {
			l[k] = v
		}
		return map[string]any{"width": 320, "height": 180, "layers": []any{l}}
	}
	for _, tc := range []struct {
		comp  map[string]any
		field string
	}{
		{text(map[string]any{"enter": map[string]any{"type": "pop"}}), "composition.layers[0].enter.type"},
		{text(map[string]any{"enter": map[string]any{"type": "fade", "stagger": 0.1}}), "composition.layers[0].enter.stagger"},
		{text(map[string]any{"enter": map[string]any{"type": "fade", "by": "line"}}), "composition.layers[0].enter.by"},
		{text(map[string]any{"enter": map[string]any{"type": "typewriter", "by": "word", "duration": 1}}), "composition.layers[0].enter.duration"},
		{text(map[string]any{"enter": map[string]any{"type": "pop", "by": "word", "easing": "linear"}}), "composition.layers[0].enter.easing"},
		{text(map[string]any{"enter": map[string]any{"type": "fade", "by": "word", "stagger": 2}}), "composition.layers[0].enter.duration"},
		{text(map[string]any{"enter": map[string]any{"type": "fade", "by": "word"}, "exit": map[string]any{"type": "fade"}}), "composition.layers[0].exit"},
		{text(map[string]any{"enter": map[string]any{"type": "fade", "by": "word"}, "scale": 2}), "composition.layers[0].enter"},
		{text(map[string]any{"enter": map[string]any{"type": "fade", "by": "word", "stagger": 0.5, "duration": 1},
			"exit": map[string]any{"type": "fade", "by": "word", "stagger": 0.5, "duration": 1}}), "composition.layers[0].exit"},
		{map[string]any{"width": 320, "height": 180, "layers": []any{map[string]any{"type": "color", "color": "red", "duration": 2,
			"enter": map[string]any{"type": "fade", "by": "word"}}}}, "composition.layers[0].enter.by"},
	} {
		_, err := Compile("provider_a", mustJSON(t, tc.comp), nil, DefaultLimits())
		var ve *ValidationError
		require.ErrorAs(t, err, &ve, "%v", tc.comp)
		assert.Equal(t, tc.field, ve.Field, "%v", ve)
	}
	s, err := Compile("provider_a", mustJSON(t, text(map[string]any{"enter": map[string]any{"type": "slide", "side": "bottom", "by": "letter"}})), nil, DefaultLimits())
	require.NoError(t, err)
	enter := s.Layers[0].Motion.Enter
	assert.Equal(t, 11, enter.Units)
	assert.InDelta(t, 0.5+10*0.05, enter.Length(), 1e-9)
	assert.False(t, s.Layers[0].moves(), "the layer holds still: its words move")
}
