package engine

import (
	"encoding/json"
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
			map[string]any{"type": "image", "src": "https://cdn.example/logo.png", "duration": 0.1234567},
		},
	}), assets, DefaultLimits())
	require.NoError(t, err)
	assert.Equal(t, 1280, s.Width)
	assert.Equal(t, 720, s.Height)
	assert.Equal(t, 30, s.FPS)
	assert.Equal(t, 5.0, s.Duration, "the end of the last layer")
	assert.Equal(t, "mp4", s.Format)
	assert.Equal(t, "0x112233FF", s.Background)
	require.Len(t, s.Layers, 6)
	assert.Equal(t, Layer{Kind: KindColor, Field: "composition.layers[0]", Start: 0, Duration: 4, Color: "0xFF0000FF",
		X: Pos{Center: true}, Y: Pos{Center: true}, Opacity: 1, Volume: 1}, s.Layers[0])
	assert.Equal(t, Layer{Kind: KindImage, Field: "composition.layers[1]", Start: 1, Duration: 3, Source: "s0", SourceField: "composition.layers[1].src",
		X: Pos{Px: 10}, Y: Pos{Center: true}, Width: 200, Opacity: 0.5, FadeIn: 1, Volume: 1}, s.Layers[1])
	assert.Equal(t, Layer{Kind: KindText, Field: "composition.layers[2]", Start: 2, Duration: 3, Color: "0xFFFFFF80", Text: "hi", FontSize: 30,
		Font: "s1", FontField: "composition.layers[2].font", X: Pos{Center: true}, Y: Pos{Center: true}, Opacity: 1, Volume: 1}, s.Layers[2])
	assert.Equal(t, Layer{Kind: KindAudio, Field: "composition.layers[3]", Start: 0, Duration: 5, Source: "s2", SourceField: "composition.layers[3].src",
		X: Pos{Center: true}, Y: Pos{Center: true}, Opacity: 1, Volume: 0.3, TrimStart: 2}, s.Layers[3])
	assert.Equal(t, 0.123457, s.Layers[5].Duration, "times are whole microseconds")
	assert.Equal(t, "s0", s.Layers[5].Source, "a URL and a key naming the same file share one download")
	assert.Equal(t, []Source{
		{Key: "s0", URL: "https://cdn.example/logo.png", Field: "composition.layers[1].src"},
		{Key: "s1", URL: "https://cdn.example/f.ttf", Font: true, Field: "composition.layers[2].font"},
		{Key: "s2", URL: "https://cdn.example/music.mp3", Field: "composition.layers[3].src"},
		{Key: "s3", URL: "https://cdn.example/clip.mp4", Field: "composition.layers[4].src"},
	}, s.Sources())
}

func TestCompileProviderADefaults(t *testing.T) {
	t.Parallel()
	s, err := Compile("provider_a", []byte(`{"width":16,"height":16,"fps":1,"duration":3,"format":"webm","layers":[
		{"type":"text","text":"x","start":1,"font":null,"duration":null}, {"type":"color","color":"Transparent","x":null}]}`), nil, DefaultLimits())
	require.NoError(t, err)
	assert.Equal(t, "webm", s.Format)
	assert.Equal(t, "0x000000FF", s.Background)
	assert.Equal(t, 3.0, s.Duration)
	text := s.Layers[0]
	assert.Equal(t, 2.0, text.Duration, "a layer without duration lasts to the end of the composition")
	assert.Equal(t, 48, text.FontSize)
	assert.Equal(t, "0xFFFFFFFF", text.Color)
	assert.Empty(t, text.Font, "the default font")
	assert.Equal(t, Pos{Center: true}, text.X)
	assert.Equal(t, "0x00000000", s.Layers[1].Color)
	assert.Equal(t, Pos{Center: true}, s.Layers[1].X, "null is the default")
	assert.Empty(t, s.Sources())
}

func TestCompileUnified(t *testing.T) {
	t.Parallel()
	s, err := Compile("unified", mustJSON(t, map[string]any{
		"output": map[string]any{"width": 640, "height": 360, "fps": 25, "format": "webm", "duration": 6, "background": "white"},
		"tracks": []any{
			map[string]any{"clips": []any{map[string]any{"asset": map[string]any{"type": "text", "text": "top", "font": "font", "color": "#000"}, "start": 1, "length": 2,
				"position": map[string]any{"x": 5, "y": 6}, "opacity": 0.5, "fadeIn": 0.5, "fadeOut": 0.5}}},
			map[string]any{"clips": []any{
				map[string]any{"asset": map[string]any{"type": "image", "src": "logo"}, "start": 0, "size": map[string]any{"width": 100, "height": 50}},
				map[string]any{"asset": map[string]any{"type": "audio", "src": "music", "trim": 1, "volume": 0.5}, "start": 0, "length": 6},
			}},
			map[string]any{"clips": []any{map[string]any{"asset": map[string]any{"type": "video", "src": "https://cdn.example/v.mp4", "trim": 2}, "length": 3}}},
		},
	}), assets, DefaultLimits())
	require.NoError(t, err)
	assert.Equal(t, "webm", s.Format)
	assert.Equal(t, 6.0, s.Duration)
	assert.Equal(t, "0xFFFFFFFF", s.Background)
	require.Len(t, s.Layers, 4)
	kinds := []Kind{}
	for _, l := range s.Layers {
		kinds = append(kinds, l.Kind)
	}
	assert.Equal(t, []Kind{KindVideo, KindImage, KindAudio, KindText}, kinds, "the last track is drawn first, the first on top")
	assert.Equal(t, 2.0, s.Layers[0].TrimStart)
	assert.Equal(t, "composition.tracks[2].clips[0].asset.src", s.Layers[0].SourceField)
	assert.Equal(t, 6.0, s.Layers[1].Duration, "length defaults to the rest of the output")
	assert.Equal(t, 100, s.Layers[1].Width)
	assert.Equal(t, 50, s.Layers[1].Height)
	assert.Equal(t, 1.0, s.Layers[2].TrimStart)
	assert.Equal(t, 0.5, s.Layers[2].Volume)
	assert.Equal(t, Layer{Kind: KindText, Field: "composition.tracks[0].clips[0]", Start: 1, Duration: 2, Color: "0x000000FF", Text: "top", FontSize: 48,
		Font: "s3", FontField: "composition.tracks[0].clips[0].asset.font", X: Pos{Px: 5}, Y: Pos{Px: 6}, Opacity: 0.5, FadeIn: 0.5, FadeOut: 0.5, Volume: 1}, s.Layers[3])
}

func TestCompileRejects(t *testing.T) {
	t.Parallel()
	lim := DefaultLimits()
	lim.MaxLayers = 3
	lim.MaxTextLength = 10
	lim.MaxAssets = 2
	base := func(mod func(m map[string]any)) []byte {
		m := map[string]any{"width": 160, "height": 90, "fps": 10,
			"layers": []any{map[string]any{"type": "color", "color": "#000", "start": 0, "duration": 1}}}
		mod(m)
		return mustJSON(t, m)
	}
	layer := func(l map[string]any) []byte {
		return base(func(m map[string]any) { m["layers"] = []any{l} })
	}
	unified := func(output map[string]any, clips ...any) []byte {
		out := map[string]any{"width": 16, "height": 16, "fps": 1}
		for k, v := range output {
			out[k] = v
		}
		return mustJSON(t, map[string]any{"output": out, "tracks": []any{map[string]any{"clips": clips}}})
	}
	color := map[string]any{"type": "color", "color": "red"}
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
		{"data after the JSON", "provider_a", append(base(func(map[string]any) {}), []byte(` {}`)...), nil, "composition", "after the JSON"},
		{"not an object", "provider_a", []byte("[]"), nil, "composition", "object"},
		{"missing width", "provider_a", base(func(m map[string]any) { delete(m, "width") }), nil, "composition.width", "required"},
		{"null width", "provider_a", base(func(m map[string]any) { m["width"] = nil }), nil, "composition.width", "required"},
		{"odd width", "provider_a", base(func(m map[string]any) { m["width"] = 161 }), nil, "composition.width", "even"},
		{"narrow", "provider_a", base(func(m map[string]any) { m["width"] = 8 }), nil, "composition.width", "between 16 and 3840"},
		{"fractional height", "provider_a", base(func(m map[string]any) { m["height"] = 90.5 }), nil, "composition.height", "integer"},
		{"too wide", "provider_a", base(func(m map[string]any) { m["width"] = 8000 }), nil, "composition.width", "must be an integer between 16 and 3840"},
		{"too high", "provider_a", base(func(m map[string]any) { m["height"] = 2162 }), nil, "composition.height", "2160"},
		{"fps as string", "provider_a", base(func(m map[string]any) { m["fps"] = "30" }), nil, "composition.fps", "integer"},
		{"fps too high", "provider_a", base(func(m map[string]any) { m["fps"] = 120 }), nil, "composition.fps", "between 1 and 60"},
		{"fps zero", "provider_a", base(func(m map[string]any) { m["fps"] = 0 }), nil, "composition.fps", "between 1 and 60"},
		{"zero duration", "provider_a", base(func(m map[string]any) { m["duration"] = 0 }), nil, "composition.duration", "more than 0"},
		{"too long", "provider_a", base(func(m map[string]any) { m["duration"] = 601 }), nil, "composition.duration", "between 0 and 600"},
		{"shorter than a frame", "provider_a", base(func(m map[string]any) { m["duration"] = 0.05; m["layers"] = []any{} }), nil, "composition", "shorter than one frame"},
		{"bad background", "provider_a", base(func(m map[string]any) { m["background"] = "red;drawtext" }), nil, "composition.background", "colour"},
		{"background as a number", "provider_a", base(func(m map[string]any) { m["background"] = 0xFF0000 }), nil, "composition.background", "string"},
		{"bad format", "provider_a", base(func(m map[string]any) { m["format"] = "avi" }), nil, "composition.format", "mp4, webm"},
		{"unknown field", "provider_a", base(func(m map[string]any) { m["widht"] = 1 }), nil, "composition.widht", "unknown field"},
		{"missing layers", "provider_a", base(func(m map[string]any) { delete(m, "layers") }), nil, "composition.layers", "required"},
		{"layers not an array", "provider_a", base(func(m map[string]any) { m["layers"] = map[string]any{} }), nil, "composition.layers", "array"},
		{"too many layers", "provider_a", base(func(m map[string]any) { m["layers"] = []any{1, 2, 3, 4} }), nil, "composition.layers", "at most 3"},
		{"layer not an object", "provider_a", base(func(m map[string]any) { m["layers"] = []any{"x"} }), nil, "composition.layers[0]", "object"},
		{"error in a later layer", "provider_a", base(func(m map[string]any) {
			m["layers"] = []any{map[string]any{"type": "color", "color": "red", "duration": 1}, map[string]any{"type": "color", "duration": 1}}
		}), nil, "composition.layers[1].color", "required"},
		{"unknown layer type", "provider_a", layer(map[string]any{"type": "shape", "duration": 1}), nil, "composition.layers[0].type", "one of"},
		{"missing type", "provider_a", layer(map[string]any{"duration": 1}), nil, "composition.layers[0].type", "required"},
		{"unknown asset key", "provider_a", layer(map[string]any{"type": "image", "src": "logo", "duration": 1}), nil, "composition.layers[0].src", `no such asset key "logo"`},
		{"src neither key nor URL", "provider_a", layer(map[string]any{"type": "video", "src": "file:///etc/passwd", "duration": 1}), nil, "composition.layers[0].src", "not an http or https URL"},
		{"missing src", "provider_a", layer(map[string]any{"type": "audio", "duration": 1}), nil, "composition.layers[0].src", "required"},
		{"unknown font key", "provider_a", layer(map[string]any{"type": "text", "text": "x", "font": "serif", "duration": 1}), nil, "composition.layers[0].font", `no such asset key "serif"`},
		{"missing duration", "provider_a", layer(color), nil, "composition.layers[0].duration", "required"},
		{"zero layer duration", "provider_a", layer(map[string]any{"type": "color", "color": "red", "duration": 0}), nil, "composition.layers[0].duration", "more than 0"},
		{"negative start", "provider_a", layer(map[string]any{"type": "color", "color": "red", "start": -1, "duration": 1}), nil, "composition.layers[0].start", "between"},
		{"past explicit duration", "provider_a", base(func(m map[string]any) {
			m["duration"] = 1
			m["layers"] = []any{map[string]any{"type": "color", "color": "red", "start": 0.5, "duration": 1}}
		}), nil, "composition.layers[0].duration", "after the composition's duration"},
		{"starts at the explicit end", "provider_a", base(func(m map[string]any) {
			m["duration"] = 1
			m["layers"] = []any{map[string]any{"type": "color", "color": "red", "start": 1}}
		}), nil, "composition.layers[0].start", "at or after the end"},
		{"past the longest video", "provider_a", layer(map[string]any{"type": "color", "color": "red", "start": 500, "duration": 101}), nil, "composition.layers[0].duration", "at most 600 s"},
		{"fades too long", "provider_a", layer(map[string]any{"type": "color", "color": "red", "duration": 1, "fadeIn": 0.6, "fadeOut": 0.6}), nil, "composition.layers[0].fadeIn", "longer than the layer"},
		{"opacity above 1", "provider_a", layer(map[string]any{"type": "color", "color": "red", "duration": 1, "opacity": 2}), nil, "composition.layers[0].opacity", "between 0 and 1"},
		{"x not a number", "provider_a", layer(map[string]any{"type": "color", "color": "red", "duration": 1, "x": "left"}), nil, "composition.layers[0].x", "center"},
		{"x fractional", "provider_a", layer(map[string]any{"type": "color", "color": "red", "duration": 1, "x": 1.5}), nil, "composition.layers[0].x", "integer"},
		{"y far away", "provider_a", layer(map[string]any{"type": "color", "color": "red", "duration": 1, "y": -100001}), nil, "composition.layers[0].y", "100000"},
		{"layer too wide", "provider_a", layer(map[string]any{"type": "color", "color": "red", "duration": 1, "width": 7682}), nil, "composition.layers[0].width", "between 1 and 7680"},
		{"layer height zero", "provider_a", layer(map[string]any{"type": "color", "color": "red", "duration": 1, "height": 0}), nil, "composition.layers[0].height", "between 1 and 4320"},
		{"text field on a color layer", "provider_a", layer(map[string]any{"type": "color", "color": "red", "duration": 1, "text": "x"}), nil, "composition.layers[0].text", "unknown field"},
		{"trim on an image", "provider_a", layer(map[string]any{"type": "image", "src": "https://a.example/x.png", "duration": 1, "trimStart": 1}), nil, "composition.layers[0].trimStart", "unknown field"},
		{"opacity on audio", "provider_a", layer(map[string]any{"type": "audio", "src": "https://a.example/x.mp3", "duration": 1, "opacity": 1}), nil, "composition.layers[0].opacity", "unknown field"},
		{"empty text", "provider_a", layer(map[string]any{"type": "text", "text": "  \n", "duration": 1}), nil, "composition.layers[0].text", "empty"},
		{"missing text", "provider_a", layer(map[string]any{"type": "text", "duration": 1}), nil, "composition.layers[0].text", "required"},
		{"long text", "provider_a", layer(map[string]any{"type": "text", "text": "01234567890", "duration": 1}), nil, "composition.layers[0].text", "at most 10"},
		{"NUL in text", "provider_a", layer(map[string]any{"type": "text", "text": "a\x00b", "duration": 1}), nil, "composition.layers[0].text", "NUL"},
		{"font size zero", "provider_a", layer(map[string]any{"type": "text", "text": "a", "fontSize": 0, "duration": 1}), nil, "composition.layers[0].fontSize", "between 1 and 2000"},
		{"missing color", "provider_a", layer(map[string]any{"type": "color", "duration": 1}), nil, "composition.layers[0].color", "required"},
		{"null color", "provider_a", layer(map[string]any{"type": "color", "color": nil, "duration": 1}), nil, "composition.layers[0].color", "required"},
		{"CSS function colour", "provider_a", layer(map[string]any{"type": "color", "color": "rgb(0,0,0)", "duration": 1}), nil, "composition.layers[0].color", "colour"},
		{"volume too loud", "provider_a", layer(map[string]any{"type": "audio", "src": "https://a.example/x.mp3", "duration": 1, "volume": 11}), nil, "composition.layers[0].volume", "between 0 and 10"},
		{"negative trim", "provider_a", layer(map[string]any{"type": "video", "src": "https://a.example/x.mp4", "duration": 1, "trimStart": -1}), nil, "composition.layers[0].trimStart", "between"},
		{"bad asset URL", "provider_a", base(func(map[string]any) {}), map[string]string{"logo": "ftp://x/y.png"}, "assetUrls.logo", "http"},
		{"relative asset URL", "provider_a", base(func(map[string]any) {}), map[string]string{"logo": "/logo.png"}, "assetUrls.logo", "absolute"},
		{"empty asset key", "provider_a", base(func(map[string]any) {}), map[string]string{"": "https://a.example/x"}, "assetUrls", "keys"},
		{"too many asset URLs", "provider_a", base(func(map[string]any) {}), map[string]string{"a": "https://a.example/a", "b": "https://a.example/b", "c": "https://a.example/c"}, "assetUrls", "at most 2"},
		{"too many distinct sources", "provider_a", base(func(m map[string]any) {
			m["layers"] = []any{
				map[string]any{"type": "image", "src": "https://a.example/1", "duration": 1},
				map[string]any{"type": "image", "src": "https://a.example/2", "duration": 1},
				map[string]any{"type": "image", "src": "https://a.example/3", "duration": 1},
			}
		}), nil, "composition", "3 distinct assets; at most 2"},
		{"nothing to render", "provider_a", base(func(m map[string]any) { m["layers"] = []any{} }), nil, "composition", "nothing to render"},
		{"unified without output", "unified", mustJSON(t, map[string]any{"tracks": []any{}}), nil, "composition.output", "required"},
		{"unified odd output height", "unified", unified(map[string]any{"height": 17}), nil, "composition.output.height", "even"},
		{"unified unknown output field", "unified", unified(map[string]any{"resolution": "hd"}), nil, "composition.output.resolution", "unknown field"},
		{"unified without tracks", "unified", mustJSON(t, map[string]any{"output": map[string]any{"width": 16, "height": 16, "fps": 1}}), nil, "composition.tracks", "required"},
		{"unified track without clips", "unified", mustJSON(t, map[string]any{"output": map[string]any{"width": 16, "height": 16, "fps": 1}, "tracks": []any{map[string]any{}}}), nil, "composition.tracks[0].clips", "required"},
		{"unified clip without asset", "unified", unified(nil, map[string]any{"length": 1}), nil, "composition.tracks[0].clips[0].asset", "required"},
		{"unified bad clip length", "unified", unified(nil, map[string]any{"asset": color, "length": "2"}), nil, "composition.tracks[0].clips[0].length", "number"},
		{"unified duration named length", "unified", unified(nil, map[string]any{"asset": color, "duration": 1}), nil, "composition.tracks[0].clips[0].length", "required"},
		{"unified unknown asset type", "unified", unified(nil, map[string]any{"asset": map[string]any{"type": "html"}, "length": 1}), nil, "composition.tracks[0].clips[0].asset.type", "one of"},
		{"unified unknown asset field", "unified", unified(nil, map[string]any{"asset": map[string]any{"type": "color", "color": "red", "colour": "red"}, "length": 1}), nil, "composition.tracks[0].clips[0].asset.colour", "unknown field"},
		{"unified trimStart is trim", "unified", unified(nil, map[string]any{"asset": map[string]any{"type": "video", "src": "https://a.example/v", "trimStart": 1}, "length": 1}), nil, "composition.tracks[0].clips[0].asset.trimStart", "unknown field"},
		{"unified position not an object", "unified", unified(nil, map[string]any{"asset": color, "length": 1, "position": "center"}), nil, "composition.tracks[0].clips[0].position", "object"},
		{"unified position typo", "unified", unified(nil, map[string]any{"asset": color, "length": 1, "position": map[string]any{"left": 1}}), nil, "composition.tracks[0].clips[0].position.left", "unknown field"},
		{"unified size too large", "unified", unified(nil, map[string]any{"asset": color, "length": 1, "size": map[string]any{"width": 8000}}), nil, "composition.tracks[0].clips[0].size.width", "between 1 and 7680"},
		{"unified size on audio", "unified", unified(nil, map[string]any{"asset": map[string]any{"type": "audio", "src": "https://a.example/a"}, "length": 1, "size": map[string]any{}}), nil, "composition.tracks[0].clips[0].size", "unknown field"},
		{"unified bad src in a later track", "unified", mustJSON(t, map[string]any{"output": map[string]any{"width": 16, "height": 16, "fps": 1},
			"tracks": []any{map[string]any{"clips": []any{map[string]any{"asset": map[string]any{"type": "image", "src": "nope"}, "length": 1}}},
				map[string]any{"clips": []any{map[string]any{"asset": color, "length": 1}}}}}), nil, "composition.tracks[0].clips[0].asset.src", `no such asset key "nope"`},
		{"unified too many clips over tracks", "unified", mustJSON(t, map[string]any{"output": map[string]any{"width": 16, "height": 16, "fps": 1},
			"tracks": []any{map[string]any{"clips": []any{1, 2}}, map[string]any{"clips": []any{3, 4}}}}), nil, "composition.tracks", "at most 3"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := tc.assets
			if a == nil {
				a = map[string]string{}
			}
			_, err := Compile(tc.provider, tc.body, a, lim)
			var ve *ValidationError
			require.ErrorAs(t, err, &ve)
			assert.Equal(t, tc.field, ve.Field, ve.Error())
			assert.Contains(t, ve.Message, tc.inMsg)
			assert.Equal(t, tc.field+": "+ve.Message, ve.Error())
		})
	}
}

// TestCompileLimits checks that each limit applies as configured, not as
// the defaults.
func TestCompileLimits(t *testing.T) {
	t.Parallel()
	lim := Limits{MaxWidth: 320, MaxHeight: 240, MaxFPS: 24, MaxDuration: 10, MaxLayers: 2, MaxAssets: 1, MaxTextLength: 3}
	ok := map[string]any{"width": 320, "height": 240, "fps": 24, "duration": 10, "layers": []any{
		map[string]any{"type": "text", "text": "abc", "width": 640, "height": 480},
		map[string]any{"type": "image", "src": "https://a.example/i"},
	}}
	_, err := Compile("provider_a", mustJSON(t, ok), nil, lim)
	require.NoError(t, err, "everything at its limit compiles")
	for field, v := range map[string]any{"width": 322, "height": 242, "fps": 25, "duration": 10.5} {
		c := map[string]any{}
		for k, v := range ok {
			c[k] = v
		}
		c[field] = v
		_, err := Compile("provider_a", mustJSON(t, c), nil, lim)
		var ve *ValidationError
		require.ErrorAs(t, err, &ve, field)
		assert.Equal(t, "composition."+field, ve.Field)
	}
}

func TestParseColor(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"#fff": "0xFFFFFFFF", "#102030": "0x102030FF", "#10203040": "0x10203040", "#aBc": "0xAABBCCFF",
		"White": "0xFFFFFFFF", "transparent": "0x00000000", "TRANSPARENT": "0x00000000", "grey": "0x808080FF",
	} {
		got, ok := parseColor(in)
		assert.True(t, ok, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{"", "#ff", "fff", "#ggg", "red:x", "0xFF0000", "#fff'", "#fffff", "#fff\n", "white@0.5", "rgb(1,2,3)"} {
		_, ok := parseColor(in)
		assert.False(t, ok, in)
	}
}

func TestValidationErrorMessage(t *testing.T) {
	t.Parallel()
	_, err := Compile("provider_a", []byte(`{"width":16,"height":16,"fps":1,"layers":[{"type":"color","color":"red","duration":1},
		{"type":"color","color":"red","duration":1},{"type":"image","src":"logo","duration":1}]}`), map[string]string{}, DefaultLimits())
	require.EqualError(t, err, `composition.layers[2].src: no such asset key "logo" in assetUrls, and not an http or https URL or an asset id`)
}
