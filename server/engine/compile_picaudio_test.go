package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCompilePictureAndSound reads every new field in both formats into
// the scene: the same composition, written in each, compiles to the same
// layers.
func TestCompilePictureAndSound(t *testing.T) {
	t.Parallel()
	a, err := Compile("provider_a", []byte(`{"width":320,"height":180,"fps":25,"duration":4,"loudness":{"target":-14},"layers":[
		{"type":"video","src":"https://a.test/v","id":"talk","fit":"contain-blur","width":160,"crop":{"top":0.1,"left":0.25},"flip":"vertical",
		 "filters":{"blur":1.5,"saturation":0.5,"invert":0.25,"brightness":1},"speed":0.5,"loop":true},
		{"type":"audio","src":"https://a.test/m","id":"music","speed":1,"duck":{"under":["talk"],"level":0.1,"attack":0.05}},
		{"type":"image","src":"https://a.test/p","fit":"cover"}]}`), nil, DefaultLimits())
	require.NoError(t, err)
	u, err := Compile("unified", []byte(`{"output":{"width":320,"height":180,"fps":25,"duration":4,"loudness":{"target":-14}},"tracks":[
		{"clips":[{"asset":{"type":"image","src":"https://a.test/p"},"fit":"cover"}]},
		{"clips":[{"asset":{"type":"audio","src":"https://a.test/m","speed":1,"duck":{"under":["talk"],"level":0.1,"attack":0.05}},"id":"music"}]},
		{"clips":[{"asset":{"type":"video","src":"https://a.test/v","crop":{"top":0.1,"left":0.25},"speed":0.5,"loop":true},"id":"talk",
		 "fit":"contain-blur","size":{"width":160},"flip":"vertical","filters":{"blur":1.5,"saturation":0.5,"invert":0.25,"brightness":1}}]}]}`), nil, DefaultLimits())
	require.NoError(t, err)
	for _, s := range []*Scene{a, u} {
		assert.Equal(t, &Loudness{Target: -14, TruePeak: -1.5}, s.Loudness)
		require.Len(t, s.Layers, 3)
		v, m, p := s.Layers[0], s.Layers[1], s.Layers[2]
		assert.Equal(t, "talk", v.ID)
		assert.Equal(t, Look{Fit: FitContainBlur, Crop: Crop{Top: 0.1, Left: 0.25}, FlipV: true,
			Filters: [len(filterFields)]Filter{{"blur", 1.5}, {"saturation", 0.5}, {"invert", 0.25}}}, v.Look, "filters in the order they apply; brightness 1 changes nothing")
		assert.Equal(t, Playback{Speed: 0.5, Loop: true}, v.Playback)
		assert.Nil(t, v.Duck)
		assert.Equal(t, "music", m.ID)
		assert.Equal(t, Playback{}, m.Playback, "speed 1 is the default")
		require.NotNil(t, m.Duck)
		assert.Equal(t, []int{0}, m.Duck.Keys)
		assert.Equal(t, 0.1, m.Duck.Level)
		assert.Equal(t, 0.05, m.Duck.Attack)
		assert.Equal(t, 0.5, m.Duck.Release)
		assert.Equal(t, Look{Fit: FitCover}, p.Look)
	}
	assert.Equal(t, "composition.layers[1]", a.Layers[1].Field)
	assert.Equal(t, "composition.tracks[1].clips[0]", u.Layers[1].Field)
}

// TestCompileDuckDefaults: a duck without under ducks under every video
// and audio layer that does not duck itself.
func TestCompileDuckDefaults(t *testing.T) {
	t.Parallel()
	s, err := Compile("provider_a", []byte(`{"width":16,"height":16,"fps":1,"duration":1,"layers":[
		{"type":"audio","src":"https://a.test/m","duck":{}},
		{"type":"video","src":"https://a.test/v"},
		{"type":"text","text":"x"},
		{"type":"audio","src":"https://a.test/m2","duck":{"level":0}},
		{"type":"image","src":"https://a.test/v"},
		{"type":"audio","src":"https://a.test/vo"}]}`), nil, DefaultLimits())
	require.NoError(t, err)
	assert.Equal(t, &Duck{Keys: []int{1, 5}, Level: 0.25, Attack: 0.1, Release: 0.5}, s.Layers[0].Duck)
	assert.Equal(t, []int{1, 5}, s.Layers[3].Duck.Keys)
	assert.Equal(t, 0.0, s.Layers[3].Duck.Level)
}

func TestCompileRejectsPictureAndSound(t *testing.T) {
	t.Parallel()
	a := func(layers string) []byte {
		return []byte(`{"width":160,"height":90,"fps":10,"duration":2,"layers":[` + layers + `]}`)
	}
	u := func(clips string) []byte {
		return []byte(`{"output":{"width":160,"height":90,"fps":10,"duration":2},"tracks":[{"clips":[` + clips + `]}]}`)
	}
	const video, audio = `"type":"video","src":"https://a.test/v"`, `"type":"audio","src":"https://a.test/a"`
	cases := []struct {
		name     string
		provider string
		body     []byte
		field    string
		inMsg    string
	}{
		{"unknown fit", "provider_a", a(`{` + video + `,"fit":"stretch"}`), "composition.layers[0].fit", "fill, contain, cover, contain-blur"},
		{"fit on text is shrink only", "provider_a", a(`{"type":"text","text":"x","fit":"cover"}`), "composition.layers[0].fit", "must be one of shrink"},
		{"fit on a colour", "unified", u(`{"asset":{"type":"color","color":"red"},"fit":"cover"}`), "composition.tracks[0].clips[0].fit", "unknown field"},
		{"fit in the asset", "unified", u(`{"asset":{` + video + `,"fit":"cover"}}`), "composition.tracks[0].clips[0].asset.fit", "unknown field"},
		{"crop not an object", "provider_a", a(`{` + video + `,"crop":0.5}`), "composition.layers[0].crop", "object"},
		{"crop out of range", "provider_a", a(`{` + video + `,"crop":{"left":1.5}}`), "composition.layers[0].crop.left", "between 0 and 1"},
		{"crop typo", "unified", u(`{"asset":{` + video + `,"crop":{"lefft":0.1}}}`), "composition.tracks[0].clips[0].asset.crop.lefft", "unknown field"},
		{"crop of the whole width", "provider_a", a(`{` + video + `,"crop":{"left":0.5,"right":0.5}}`), "composition.layers[0].crop", "left and right together (1) must be less than 1"},
		{"crop of the whole height", "unified", u(`{"asset":{` + video + `,"crop":{"top":0.7,"bottom":0.6}}}`), "composition.tracks[0].clips[0].asset.crop", "top and bottom together (1.3)"},
		{"crop on the clip", "unified", u(`{"asset":{` + video + `},"crop":{"top":0.1}}`), "composition.tracks[0].clips[0].crop", "unknown field"},
		{"unknown flip", "provider_a", a(`{` + video + `,"flip":true}`), "composition.layers[0].flip", "string"},
		{"flip on audio", "provider_a", a(`{` + audio + `,"flip":"both"}`), "composition.layers[0].flip", "unknown field"},
		{"unknown filter", "provider_a", a(`{` + video + `,"filters":{"grayscale":1}}`), "composition.layers[0].filters.grayscale", "unknown field"},
		{"filters not an object", "unified", u(`{"asset":{` + video + `},"filters":["blur"]}`), "composition.tracks[0].clips[0].filters", "object"},
		{"blur too strong", "provider_a", a(`{` + video + `,"filters":{"blur":101}}`), "composition.layers[0].filters.blur", "between 0 and 100"},
		{"brightness too high", "provider_a", a(`{` + video + `,"filters":{"brightness":3}}`), "composition.layers[0].filters.brightness", "between 0 and 2"},
		{"greyscale as a boolean", "provider_a", a(`{` + video + `,"filters":{"greyscale":true}}`), "composition.layers[0].filters.greyscale", "number"},
		{"sepia above 1", "unified", u(`{"asset":{` + video + `},"filters":{"sepia":2}}`), "composition.tracks[0].clips[0].filters.sepia", "between 0 and 1"},
		{"speed too fast", "provider_a", a(`{` + video + `,"speed":5}`), "composition.layers[0].speed", "between 0.25 and 4"},
		{"speed zero", "unified", u(`{"asset":{` + audio + `,"speed":0}}`), "composition.tracks[0].clips[0].asset.speed", "between 0.25 and 4"},
		{"speed on an image", "provider_a", a(`{"type":"image","src":"https://a.test/i","speed":2}`), "composition.layers[0].speed", "unknown field"},
		{"speed on the clip", "unified", u(`{"asset":{` + video + `},"speed":2}`), "composition.tracks[0].clips[0].speed", "unknown field"},
		{"loop not a boolean", "provider_a", a(`{` + audio + `,"loop":1}`), "composition.layers[0].loop", "true or false"},
		{"loop with trimStart", "provider_a", a(`{` + video + `,"loop":true,"trimStart":2}`), "composition.layers[0].loop", "cannot be used with trimStart"},
		{"loop with trim", "unified", u(`{"asset":{` + audio + `,"loop":true,"trim":2}}`), "composition.tracks[0].clips[0].asset.loop", "cannot be used with trim"},
		{"id with spaces", "provider_a", a(`{` + audio + `,"id":"the voice"}`), "composition.layers[0].id", "letters, digits"},
		{"id not a string", "provider_a", a(`{` + audio + `,"id":3}`), "composition.layers[0].id", "string"},
		{"id in the asset", "unified", u(`{"asset":{` + audio + `,"id":"a"}}`), "composition.tracks[0].clips[0].asset.id", "unknown field"},
		{"id used twice", "provider_a", a(`{` + audio + `,"id":"a"},{"type":"text","text":"x","id":"a"}`), "composition.layers[1].id", `"a" is already the id of composition.layers[0]`},
		{"duck not an object", "provider_a", a(`{` + audio + `,"duck":true}`), "composition.layers[0].duck", "object"},
		{"duck on an image", "provider_a", a(`{"type":"image","src":"https://a.test/i","duck":{}}`), "composition.layers[0].duck", "unknown field"},
		{"duck on the clip", "unified", u(`{"asset":{` + audio + `},"duck":{}}`), "composition.tracks[0].clips[0].duck", "unknown field"},
		{"duck typo", "provider_a", a(`{` + audio + `,"duck":{"levle":0.2}}`), "composition.layers[0].duck.levle", "unknown field"},
		{"duck level above 1", "unified", u(`{"asset":{` + audio + `,"duck":{"level":2}}}`), "composition.tracks[0].clips[0].asset.duck.level", "between 0 and 1"},
		{"duck attack of zero", "provider_a", a(`{` + audio + `,"duck":{"attack":0}}`), "composition.layers[0].duck.attack", "between 0.001 and 2"},
		{"duck release too long", "provider_a", a(`{` + audio + `,"duck":{"release":10}}`), "composition.layers[0].duck.release", "between 0.01 and 9"},
		{"under not an array", "provider_a", a(`{` + audio + `,"duck":{"under":"vo"}}`), "composition.layers[0].duck.under", "array of 1 to 100 layer ids"},
		{"under empty", "provider_a", a(`{` + audio + `,"duck":{"under":[]}}`), "composition.layers[0].duck.under", "array of 1 to 100"},
		{"under a number", "provider_a", a(`{` + audio + `,"duck":{"under":[1]}}`), "composition.layers[0].duck.under[0]", "layer id"},
		{"under an unknown id", "unified", u(`{"asset":{` + audio + `},"id":"vo"},{"asset":{` + audio + `,"duck":{"under":["vo","voice"]}}}`), "composition.tracks[0].clips[1].asset.duck.under[1]", `no layer has the id "voice"`},
		{"under itself", "provider_a", a(`{` + audio + `,"id":"m","duck":{"under":["m"]}}`), "composition.layers[0].duck.under[0]", "itself"},
		{"under a silent layer", "provider_a", a(`{"type":"text","text":"x","id":"title"},{` + audio + `,"duck":{"under":["title"]}}`), "composition.layers[1].duck.under[0]", `"title" is a text layer, which has no sound`},
		{"loudness target too high", "provider_a", []byte(`{"width":16,"height":16,"fps":1,"duration":1,"loudness":{"target":0},"layers":[]}`), "composition.loudness.target", "between -70 and -5"},
		{"loudness true peak above 0", "unified", []byte(`{"output":{"width":16,"height":16,"fps":1,"duration":1,"loudness":{"truePeak":1}},"tracks":[]}`), "composition.output.loudness.truePeak", "between -9 and 0"},
		{"loudness as a number", "provider_a", []byte(`{"width":16,"height":16,"fps":1,"duration":1,"loudness":-16,"layers":[]}`), "composition.loudness", "object"},
		{"loudness typo", "unified", []byte(`{"output":{"width":16,"height":16,"fps":1,"duration":1,"loudness":{"lufs":-16}},"tracks":[]}`), "composition.output.loudness.lufs", "unknown field"},
		{"loudness of a GIF", "provider_a", []byte(`{"width":16,"height":16,"fps":1,"duration":1,"format":"gif","loudness":{},"layers":[]}`), "composition.loudness", "only for outputs with sound"},
		{"loudness of a picture", "unified", []byte(`{"output":{"width":16,"height":16,"fps":1,"duration":1,"format":"png","loudness":{"target":-16}},"tracks":[]}`), "composition.output.loudness", "only for outputs with sound"},
		{"loudness at the top of unified", "unified", []byte(`{"output":{"width":16,"height":16,"fps":1,"duration":1},"loudness":{},"tracks":[]}`), "composition.loudness", "unknown field"},
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
