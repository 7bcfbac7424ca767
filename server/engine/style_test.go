package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCompileStyles reads every text style and shape field in both
// formats: the same fields make the same layers.
func TestCompileStyles(t *testing.T) {
	t.Parallel()
	text := map[string]any{"type": "text", "text": "hi", "align": "center", "verticalAlign": "bottom", "lineHeight": 1.25,
		"backgroundColor": "#00000080", "paddingX": 12, "paddingY": 6, "borderRadius": 8, "strokeColor": "red", "strokeWidth": 3,
		"shadowColor": "black", "shadowX": 2, "shadowY": -4, "shadowBlur": 6}
	rect := map[string]any{"type": "rectangle", "borderRadius": 10, "strokeWidth": 2,
		"gradient": map[string]any{"angle": 90, "stops": []any{map[string]any{"offset": 0, "color": "red"}, map[string]any{"offset": 1, "color": "#0000ff80"}}}}
	ellipse := map[string]any{"type": "ellipse", "color": "gold",
		"gradient": nil, "strokeColor": "white", "strokeWidth": 1}
	radial := map[string]any{"type": "ellipse", "gradient": map[string]any{"type": "radial", "stops": []any{map[string]any{"offset": 0, "color": "white"}, map[string]any{"offset": 0.5, "color": "white"}, map[string]any{"offset": 1, "color": "transparent"}}}}

	withSize := func(m map[string]any) map[string]any {
		out := map[string]any{"width": 200, "height": 100, "duration": 1}
		for k, v := range m {
			out[k] = v
		}
		return out
	}
	a, err := Compile("provider_a", mustJSON(t, map[string]any{"width": 320, "height": 180, "fps": 10,
		"layers": []any{withSize(text), withSize(rect), withSize(ellipse), withSize(radial)}}), nil, DefaultLimits())
	require.NoError(t, err)
	clip := func(asset map[string]any) map[string]any {
		return map[string]any{"asset": asset, "length": 1, "size": map[string]any{"width": 200, "height": 100}}
	}
	u, err := Compile("unified", mustJSON(t, map[string]any{"output": map[string]any{"width": 320, "height": 180, "fps": 10},
		"tracks": []any{map[string]any{"clips": []any{clip(radial)}}, map[string]any{"clips": []any{clip(ellipse)}},
			map[string]any{"clips": []any{clip(rect)}}, map[string]any{"clips": []any{clip(text)}}}}), nil, DefaultLimits())
	require.NoError(t, err)
	require.Len(t, a.Layers, 4)
	require.Len(t, u.Layers, 4)

	want := []Layer{
		{Kind: KindText, Text: "hi", FontSize: 48, Color: "0xFFFFFFFF", Style: TextStyle{Align: "center", VerticalAlign: "bottom", LineHeight: 1.25,
			Background: "0x00000080", PaddingX: 12, PaddingY: 6, Shadow: Shadow{Color: "0x000000FF", X: 2, Y: -4, Blur: 6}},
			Radius: 8, Stroke: Stroke{Color: "0xFF0000FF", Width: 3}},
		{Kind: KindRectangle, Radius: 10, Stroke: Stroke{Color: "0x000000FF", Width: 2},
			Gradient: &Gradient{Angle: 90, Stops: []GradientStop{{0, "0xFF0000FF"}, {1, "0x0000FF80"}}}},
		{Kind: KindEllipse, Color: "0xFFD700FF", Stroke: Stroke{Color: "0xFFFFFFFF", Width: 1}},
		{Kind: KindEllipse, Gradient: &Gradient{Radial: true, Stops: []GradientStop{{0, "0xFFFFFFFF"}, {0.5, "0xFFFFFFFF"}, {1, "0x00000000"}}}},
	}
	for i, w := range want {
		w.Duration, w.Width, w.Height, w.Opacity, w.Volume = 1, 200, 100, 1, 1
		w.X, w.Y = Pos{Center: true}, Pos{Center: true}
		w.Field = a.Layers[i].Field
		assert.Equal(t, w, a.Layers[i], "provider_a layer %d", i)
		w.Field = u.Layers[i].Field
		assert.Equal(t, w, u.Layers[i], "unified layer %d", i)
	}
	assert.True(t, a.Layers[0].styled())
}

// TestCompileStylesDefaults: plain text stays plain; a size alone makes
// text styled (it wraps), and a shape without size covers the frame.
func TestCompileStylesDefaults(t *testing.T) {
	t.Parallel()
	s, err := Compile("provider_a", []byte(`{"width":32,"height":32,"fps":1,"duration":1,"layers":[
		{"type":"text","text":"plain","align":null,"strokeWidth":null},
		{"type":"text","text":"wraps","width":20},
		{"type":"text","text":"aligned","align":"left"},
		{"type":"text","text":"no outline","strokeWidth":0},
		{"type":"rectangle","color":"red"},
		{"type":"ellipse","strokeWidth":2},
		{"type":"rectangle","gradient":{"stops":[{"offset":0,"color":"red"},{"offset":1,"color":"blue"}]}}]}`), nil, DefaultLimits())
	require.NoError(t, err)
	l := s.Layers
	assert.False(t, l[0].styled(), "null fields are absent")
	assert.True(t, l[1].styled(), "a width wraps")
	assert.True(t, l[2].styled())
	assert.False(t, l[3].styled(), "a stroke of 0 is none")
	assert.Empty(t, l[3].Stroke.Color)
	assert.Equal(t, "0xFF0000FF", l[4].Color)
	assert.Zero(t, l[4].Width, "the whole frame")
	assert.Equal(t, Stroke{Color: "0x000000FF", Width: 2}, l[5].Stroke, "a black outline by default")
	assert.Empty(t, l[5].Color, "no fill")
	assert.Equal(t, 180.0, l[6].Gradient.Angle, "downwards by default, as in CSS")
	assert.False(t, l[6].Gradient.Radial)
}

func TestCompileStylesRejects(t *testing.T) {
	t.Parallel()
	layer := func(l string) []byte {
		return []byte(`{"width":160,"height":90,"fps":10,"duration":1,"layers":[` + l + `]}`)
	}
	stops := `"stops":[{"offset":0,"color":"red"},{"offset":1,"color":"blue"}]`
	cases := []struct {
		name, provider string
		body           []byte
		field, inMsg   string
	}{
		{"unknown align", "provider_a", layer(`{"type":"text","text":"a","align":"justify"}`), "composition.layers[0].align", "left, center, right"},
		{"vertical align without height", "provider_a", layer(`{"type":"text","text":"a","verticalAlign":"middle"}`), "composition.layers[0].verticalAlign", "height"},
		{"line height zero", "provider_a", layer(`{"type":"text","text":"a","lineHeight":0}`), "composition.layers[0].lineHeight", "between 0.1 and 10"},
		{"line height as a string", "provider_a", layer(`{"type":"text","text":"a","lineHeight":"150%"}`), "composition.layers[0].lineHeight", "number"},
		{"bad background", "provider_a", layer(`{"type":"text","text":"a","backgroundColor":"red;x"}`), "composition.layers[0].backgroundColor", "colour"},
		{"negative padding", "provider_a", layer(`{"type":"text","text":"a","paddingY":-1}`), "composition.layers[0].paddingY", "between 0 and 2000"},
		{"padding wider than the box", "provider_a", layer(`{"type":"text","text":"a","width":40,"paddingX":20}`), "composition.layers[0].paddingX", "no room"},
		{"padding taller than the box", "provider_a", layer(`{"type":"text","text":"a","height":10,"paddingY":5}`), "composition.layers[0].paddingY", "no room"},
		{"radius without a box", "provider_a", layer(`{"type":"text","text":"a","borderRadius":4}`), "composition.layers[0].borderRadius", "backgroundColor"},
		{"stroke colour without width", "provider_a", layer(`{"type":"text","text":"a","strokeColor":"red"}`), "composition.layers[0].strokeColor", "strokeWidth"},
		{"stroke too wide", "provider_a", layer(`{"type":"text","text":"a","strokeWidth":501}`), "composition.layers[0].strokeWidth", "between 0 and 500"},
		{"fractional stroke", "provider_a", layer(`{"type":"text","text":"a","strokeWidth":1.5}`), "composition.layers[0].strokeWidth", "integer"},
		{"shadow offset without colour", "provider_a", layer(`{"type":"text","text":"a","shadowY":2}`), "composition.layers[0].shadowY", "shadowColor"},
		{"shadow too far", "provider_a", layer(`{"type":"text","text":"a","shadowColor":"black","shadowX":1001}`), "composition.layers[0].shadowX", "between -1000 and 1000"},
		{"shadow blur too wide", "provider_a", layer(`{"type":"text","text":"a","shadowColor":"black","shadowBlur":101}`), "composition.layers[0].shadowBlur", "between 0 and 100"},
		{"text style on a colour layer", "provider_a", layer(`{"type":"color","color":"red","align":"center"}`), "composition.layers[0].align", "unknown field"},
		{"text on a rectangle", "provider_a", layer(`{"type":"rectangle","color":"red","text":"a"}`), "composition.layers[0].text", "unknown field"},
		{"radius of an ellipse", "provider_a", layer(`{"type":"ellipse","color":"red","borderRadius":3}`), "composition.layers[0].borderRadius", "unknown field"},
		{"shape without fill or outline", "provider_a", layer(`{"type":"rectangle"}`), "composition.layers[0].color", "required"},
		{"colour and gradient", "provider_a", layer(`{"type":"ellipse","color":"red","gradient":{` + stops + `}}`), "composition.layers[0].gradient", "one of them"},
		{"gradient not an object", "provider_a", layer(`{"type":"rectangle","gradient":"red,blue"}`), "composition.layers[0].gradient", "object"},
		{"unknown gradient type", "provider_a", layer(`{"type":"rectangle","gradient":{"type":"conic",` + stops + `}}`), "composition.layers[0].gradient.type", "linear, radial"},
		{"angle of a radial gradient", "provider_a", layer(`{"type":"rectangle","gradient":{"type":"radial","angle":90,` + stops + `}}`), "composition.layers[0].gradient.angle", "linear"},
		{"angle too large", "provider_a", layer(`{"type":"rectangle","gradient":{"angle":720,` + stops + `}}`), "composition.layers[0].gradient.angle", "between -360 and 360"},
		{"gradient without stops", "provider_a", layer(`{"type":"rectangle","gradient":{}}`), "composition.layers[0].gradient.stops", "required"},
		{"one stop", "provider_a", layer(`{"type":"rectangle","gradient":{"stops":[{"offset":0,"color":"red"}]}}`), "composition.layers[0].gradient.stops", "at least 2"},
		{"too many stops", "provider_a", layer(`{"type":"rectangle","gradient":{"stops":[` + stopList(17) + `]}}`), "composition.layers[0].gradient.stops", "at most 16"},
		{"stop out of order", "provider_a", layer(`{"type":"rectangle","gradient":{"stops":[{"offset":0.6,"color":"red"},{"offset":0.5,"color":"blue"}]}}`), "composition.layers[0].gradient.stops[1].offset", "less than"},
		{"stop beyond 1", "provider_a", layer(`{"type":"rectangle","gradient":{"stops":[{"offset":0,"color":"red"},{"offset":1.5,"color":"blue"}]}}`), "composition.layers[0].gradient.stops[1].offset", "between 0 and 1"},
		{"stop without offset", "provider_a", layer(`{"type":"rectangle","gradient":{"stops":[{"color":"red"},{"offset":1,"color":"blue"}]}}`), "composition.layers[0].gradient.stops[0].offset", "required"},
		{"stop without colour", "provider_a", layer(`{"type":"rectangle","gradient":{"stops":[{"offset":0,"color":"red"},{"offset":1}]}}`), "composition.layers[0].gradient.stops[1].color", "required"},
		{"stop typo", "provider_a", layer(`{"type":"rectangle","gradient":{"stops":[{"offset":0,"colour":"red"},{"offset":1,"color":"blue"}]}}`), "composition.layers[0].gradient.stops[0].color", "required"},
		{"gradient typo", "provider_a", layer(`{"type":"rectangle","gradient":{"angel":90,` + stops + `}}`), "composition.layers[0].gradient.angel", "unknown field"},
		{"unified style path", "unified", []byte(`{"output":{"width":16,"height":16,"fps":1},"tracks":[{"clips":[{"asset":{"type":"text","text":"a","shadowBlur":2},"length":1}]}]}`),
			"composition.tracks[0].clips[0].asset.shadowBlur", "shadowColor"},
		{"unified padding against the clip's size", "unified", []byte(`{"output":{"width":16,"height":16,"fps":1},"tracks":[{"clips":[{"asset":{"type":"text","text":"a","paddingX":8},"length":1,"size":{"width":16}}]}]}`),
			"composition.tracks[0].clips[0].asset.paddingX", "no room"},
		{"unified gradient stop path", "unified", []byte(`{"output":{"width":16,"height":16,"fps":1},"tracks":[{"clips":[{"asset":{"type":"ellipse","gradient":{"stops":[{"offset":0,"color":"red"},{"offset":1,"color":"nope"}]}},"length":1}]}]}`),
			"composition.tracks[0].clips[0].asset.gradient.stops[1].color", "colour"},
		{"unified shape size belongs to the clip", "unified", []byte(`{"output":{"width":16,"height":16,"fps":1},"tracks":[{"clips":[{"asset":{"type":"rectangle","color":"red","width":4},"length":1}]}]}`),
			"composition.tracks[0].clips[0].asset.width", "unknown field"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := Compile(tc.provider, tc.body, nil, DefaultLimits())
			var ve *ValidationError
			require.ErrorAs(t, err, &ve)
			assert.Equal(t, tc.field, ve.Field, ve.Error())
			assert.Contains(t, ve.Message, tc.inMsg)
		})
	}
}

func stopList(n int) string {
	s := ""
	for i := 0; i < n; i++ {
		if i > 0 {
			s += ","
		}
		s += `{"offset":1,"color":"red"}`
	}
	return s
}
