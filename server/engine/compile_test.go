package engine

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func mustJSON(t testing.TB, v any) []byte {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

var assets = map[string]string{"logo": "https://cdn.example/logo.png", "music": "https://cdn.example/music.mp3", "font": "https://cdn.example/f.ttf"}

func TestCompileProviderA(t *testing.T) {
	t.Parallel()
	s, err := Compile("provider_a", mustJSON(t, map[string]any{
		"width": 1280, "height": 720, "fps": 30, "background": "#123",
		"layers": []any{
			map[string]any{"type": "color", "color": "red", "start": 0, "duration": 4},
			map[string]any{"type": "image", "src": "logo", "start": 1, "duration": 3, "x": 10, "y": "center", "width": 200, "fadeIn": 1, "opacity": 0.5},
			map[string]any{"type": "text", "text": "hi", "font": "font", "fontSize": 30, "color": "#ffffff80", "start": 2, "duration": 3},
			map[string]any{"type": "audio", "src": "music", "start": 0, "duration": 5, "volume": 0.3, "trimStart": 2},
			map[string]any{"type": "video", "src": "https://cdn.example/clip.mp4", "start": 0, "duration": 2},
		},
	}), assets, DefaultLimits())
	require.NoError(t, err)
	assert.Equal(t, 1280, s.Width)
	assert.Equal(t, 30, s.FPS)
	assert.Equal(t, 5.0, s.Duration, "the end of the last layer")
	assert.Equal(t, "mp4", s.Format)
	assert.Equal(t, "0x112233FF", s.Background)
	require.Len(t, s.Layers, 5)
	assert.Equal(t, "0xFF0000FF", s.Layers[0].Color)
	assert.Equal(t, Pos{Px: 10}, s.Layers[1].X)
	assert.Equal(t, Pos{Center: true}, s.Layers[1].Y)
	assert.Equal(t, "0xFFFFFF80", s.Layers[2].Color)
	assert.Equal(t, 2.0, s.Layers[3].TrimStart)
	srcs := s.Sources()
	require.Len(t, srcs, 4)
	assert.True(t, srcs[1].Font)
	assert.Equal(t, "composition.layers[1].src", srcs[0].Field)
}

func TestCompileUnifiedFirstTrackOnTop(t *testing.T) {
	t.Parallel()
	s, err := Compile("unified", mustJSON(t, map[string]any{
		"output": map[string]any{"width": 640, "height": 360, "fps": 25, "format": "webm", "duration": 6},
		"tracks": []any{
			map[string]any{"clips": []any{map[string]any{"asset": map[string]any{"type": "text", "text": "top"}, "start": 1, "length": 2,
				"position": map[string]any{"x": 5, "y": 6}}}},
			map[string]any{"clips": []any{
				map[string]any{"asset": map[string]any{"type": "image", "src": "logo"}, "start": 0, "size": map[string]any{"width": 100, "height": 50}},
				map[string]any{"asset": map[string]any{"type": "audio", "src": "music", "trim": 1, "volume": 0.5}, "start": 0, "length": 6},
			}},
		},
	}), assets, DefaultLimits())
	require.NoError(t, err)
	assert.Equal(t, "webm", s.Format)
	assert.Equal(t, 6.0, s.Duration)
	require.Len(t, s.Layers, 3)
	assert.Equal(t, KindImage, s.Layers[0].Kind, "the last track is drawn first")
	assert.Equal(t, 6.0, s.Layers[0].Duration, "length defaults to the rest of the output")
	assert.Equal(t, 100, s.Layers[0].Width)
	assert.Equal(t, KindAudio, s.Layers[1].Kind)
	assert.Equal(t, KindText, s.Layers[2].Kind, "the first track is on top")
	assert.Equal(t, Pos{Px: 5}, s.Layers[2].X)
}

func TestCompileRejects(t *testing.T) {
	t.Parallel()
	lim := DefaultLimits()
	lim.MaxLayers = 3
	lim.MaxTextLength = 10
	base := func(mod func(m map[string]any)) []byte {
		m := map[string]any{"width": 160, "height": 90, "fps": 10,
			"layers": []any{map[string]any{"type": "color", "color": "#000", "start": 0, "duration": 1}}}
		mod(m)
		return mustJSON(t, m)
	}
	layer := func(l map[string]any) func(map[string]any) {
		return func(m map[string]any) { m["layers"] = []any{l} }
	}
	cases := []struct {
		name     string
		provider string
		body     []byte
		assets   map[string]string
		field    string
		inMsg    string
	}{
		{"no provider", "", base(func(map[string]any) {}), nil, "provider", "required"},
		{"unknown provider", "provider_b", base(func(map[string]any) {}), nil, "provider", "unknown provider"},
		{"not JSON", "provider_a", []byte("{"), nil, "composition", "JSON"},
		{"not an object", "provider_a", []byte("[]"), nil, "composition", "object"},
		{"missing width", "provider_a", base(func(m map[string]any) { delete(m, "width") }), nil, "composition.width", "required"},
		{"odd width", "provider_a", base(func(m map[string]any) { m["width"] = 161 }), nil, "composition.width", "even"},
		{"fractional height", "provider_a", base(func(m map[string]any) { m["height"] = 90.5 }), nil, "composition.height", "integer"},
		{"too wide", "provider_a", base(func(m map[string]any) { m["width"] = 8000 }), nil, "composition.width", "3840"},
		{"fps as string", "provider_a", base(func(m map[string]any) { m["fps"] = "30" }), nil, "composition.fps", "integer"},
		{"fps too high", "provider_a", base(func(m map[string]any) { m["fps"] = 120 }), nil, "composition.fps", "60"},
		{"bad background", "provider_a", base(func(m map[string]any) { m["background"] = "red;drawtext" }), nil, "composition.background", "colour"},
		{"bad format", "provider_a", base(func(m map[string]any) { m["format"] = "avi" }), nil, "composition.format", "mp4, webm"},
		{"unknown field", "provider_a", base(func(m map[string]any) { m["widht"] = 1 }), nil, "composition.widht", "unknown field"},
		{"too many layers", "provider_a", base(func(m map[string]any) { m["layers"] = []any{1, 2, 3, 4} }), nil, "composition.layers", "at most 3"},
		{"layer not an object", "provider_a", base(func(m map[string]any) { m["layers"] = []any{"x"} }), nil, "composition.layers[0]", "object"},
		{"unknown layer type", "provider_a", base(layer(map[string]any{"type": "shape", "duration": 1})), nil, "composition.layers[0].type", "one of"},
		{"missing type", "provider_a", base(layer(map[string]any{"duration": 1})), nil, "composition.layers[0].type", "required"},
		{"unknown asset key", "provider_a", base(layer(map[string]any{"type": "image", "src": "logo", "duration": 1})), nil, "composition.layers[0].src", `no such asset key "logo"`},
		{"missing duration", "provider_a", base(layer(map[string]any{"type": "color", "color": "red"})), nil, "composition.layers[0].duration", "required"},
		{"zero duration", "provider_a", base(layer(map[string]any{"type": "color", "color": "red", "duration": 0})), nil, "composition.layers[0].duration", "more than 0"},
		{"negative start", "provider_a", base(layer(map[string]any{"type": "color", "color": "red", "start": -1, "duration": 1})), nil, "composition.layers[0].start", "between"},
		{"past explicit duration", "provider_a", base(func(m map[string]any) {
			m["duration"] = 1
			m["layers"] = []any{map[string]any{"type": "color", "color": "red", "start": 0.5, "duration": 1}}
		}), nil, "composition.layers[0].duration", "after the composition's duration"},
		{"fades too long", "provider_a", base(layer(map[string]any{"type": "color", "color": "red", "duration": 1, "fadeIn": 0.6, "fadeOut": 0.6})), nil, "composition.layers[0].fadeIn", "longer than the layer"},
		{"opacity above 1", "provider_a", base(layer(map[string]any{"type": "color", "color": "red", "duration": 1, "opacity": 2})), nil, "composition.layers[0].opacity", "between 0 and 1"},
		{"x not a number", "provider_a", base(layer(map[string]any{"type": "color", "color": "red", "duration": 1, "x": "left"})), nil, "composition.layers[0].x", "center"},
		{"text field on a color layer", "provider_a", base(layer(map[string]any{"type": "color", "color": "red", "duration": 1, "text": "x"})), nil, "composition.layers[0].text", "unknown field"},
		{"opacity on audio", "provider_a", base(layer(map[string]any{"type": "audio", "src": "https://a.example/x.mp3", "duration": 1, "opacity": 1})), nil, "composition.layers[0].opacity", "unknown field"},
		{"empty text", "provider_a", base(layer(map[string]any{"type": "text", "text": "  ", "duration": 1})), nil, "composition.layers[0].text", "empty"},
		{"long text", "provider_a", base(layer(map[string]any{"type": "text", "text": "01234567890", "duration": 1})), nil, "composition.layers[0].text", "at most 10"},
		{"missing color", "provider_a", base(layer(map[string]any{"type": "color", "duration": 1})), nil, "composition.layers[0].color", "required"},
		{"volume too loud", "provider_a", base(layer(map[string]any{"type": "audio", "src": "https://a.example/x.mp3", "duration": 1, "volume": 11})), nil, "composition.layers[0].volume", "between 0 and 10"},
		{"bad asset URL", "provider_a", base(func(map[string]any) {}), map[string]string{"logo": "ftp://x/y.png"}, "assetUrls.logo", "http"},
		{"nothing to render", "provider_a", base(func(m map[string]any) { m["layers"] = []any{} }), nil, "composition", "nothing to render"},
		{"unified without output", "unified", mustJSON(t, map[string]any{"tracks": []any{}}), nil, "composition.output", "required"},
		{"unified bad clip length", "unified", mustJSON(t, map[string]any{"output": map[string]any{"width": 16, "height": 16, "fps": 1},
			"tracks": []any{map[string]any{"clips": []any{map[string]any{"asset": map[string]any{"type": "color", "color": "red"}, "length": "2"}}}}}), nil,
			"composition.tracks[0].clips[0].length", "number"},
		{"unified unknown output field", "unified", mustJSON(t, map[string]any{"output": map[string]any{"width": 16, "height": 16, "fps": 1, "resolution": "hd"},
			"tracks": []any{}}), nil, "composition.output.resolution", "unknown field"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := tc.assets
			if a == nil {
				a = map[string]string{}
			}
			_, err := Compile(tc.provider, tc.body, a, lim)
			var ve *ValidationError
			require.ErrorAs(t, err, &ve)
			assert.Equal(t, tc.field, ve.Field, ve.Error())
			assert.Contains(t, ve.Message, tc.inMsg)
			assert.True(t, strings.HasPrefix(ve.Error(), tc.field+": "))
		})
	}
}

func TestParseColor(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"#fff": "0xFFFFFFFF", "#102030": "0x102030FF", "#10203040": "0x10203040", "White": "0xFFFFFFFF", "transparent": "0x00000000",
	} {
		got, ok := parseColor(in)
		assert.True(t, ok, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{"", "#ff", "fff", "#ggg", "red:x", "0xFF0000", "#fff'"} {
		_, ok := parseColor(in)
		assert.False(t, ok, in)
	}
}

func TestEscape(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"/tmp/a.txt":       "/tmp/a.txt",
		"/tmp/it's.txt":    `/tmp/it\\\'s.txt`,
		"/tmp/a:b.txt":     `/tmp/a\\:b.txt`,
		`/tmp/a\b.txt`:     `/tmp/a\\\\b.txt`,
		"/tmp/[x],y;z.txt": `/tmp/\[x\]\,y\;z.txt`,
	}
	for in, want := range cases {
		assert.Equal(t, want, filterValue(in), in)
	}
}
