package engine

import (
	"context"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCompileTransitions(t *testing.T) {
	t.Parallel()
	s, err := Compile("provider_a", mustJSON(t, map[string]any{"width": 160, "height": 90, "fps": 10, "layers": []any{
		map[string]any{"type": "color", "color": "red", "duration": 2, "transition": map[string]any{"name": "wipeLeft", "duration": 0.5}},
		map[string]any{"type": "color", "color": "blue", "start": 1.5, "duration": 2, "transition": map[string]any{"name": "slideUp"}},
		map[string]any{"type": "color", "color": "lime", "start": 3, "duration": 1},
	}}), nil, DefaultLimits())
	require.NoError(t, err)
	wipe := &Cut{Name: "wipeLeft", Kind: CutWipe, Dir: Left, Duration: 0.5, Easing: EaseInOut, Field: "composition.layers[0].transition"}
	// Without a duration, a transition lasts as long as the layers overlap.
	slide := &Cut{Name: "slideUp", Kind: CutSlide, Dir: Top, Duration: 0.5, Easing: EaseInOut, Field: "composition.layers[1].transition"}
	assert.Equal(t, &Motion{Out: wipe}, s.Layers[0].Motion)
	assert.Equal(t, &Motion{Into: wipe, Out: slide}, s.Layers[1].Motion)
	assert.Equal(t, &Motion{Into: slide}, s.Layers[2].Motion)
	assert.Equal(t, 4.0, s.Duration, "the layers overlap: 4 s, not 5")
	assert.Equal(t, &Transition{Kind: Slide, Side: Bottom, Duration: 0.5, Easing: EaseInOut}, s.Layers[2].Motion.enter(),
		"slideUp brings the next layer up from the bottom")
	assert.Equal(t, &Transition{Kind: Slide, Side: Top, Duration: 0.5, Easing: EaseInOut}, s.Layers[1].Motion.exit(),
		"and pushes this one out by the top")
	assert.Nil(t, s.Layers[1].Motion.enter(), "a wipe is a mask, not an enter animation")
}

// TestCompileTransitionsBothFormats: the same transitions in either
// format make the same scene and the same command.
func TestCompileTransitionsBothFormats(t *testing.T) {
	t.Parallel()
	fade := map[string]any{"name": "fade", "duration": 0.5}
	circle := map[string]any{"name": "circleOpen", "duration": 1, "easing": "linear"}
	a := map[string]any{"width": 160, "height": 90, "fps": 10, "layers": []any{
		map[string]any{"type": "audio", "src": "music", "duration": 2, "transition": fade},
		map[string]any{"type": "audio", "src": "music", "start": 1.5, "duration": 2},
		map[string]any{"type": "video", "src": "logo", "duration": 3, "transition": circle},
		map[string]any{"type": "image", "src": "logo", "start": 2, "duration": 2, "width": 80},
	}}
	u := map[string]any{"output": map[string]any{"width": 160, "height": 90, "fps": 10}, "tracks": []any{
		map[string]any{"clips": []any{
			map[string]any{"asset": map[string]any{"type": "video", "src": "logo"}, "length": 3, "transition": circle},
			map[string]any{"asset": map[string]any{"type": "image", "src": "logo"}, "start": 2, "length": 2, "size": map[string]any{"width": 80}},
		}},
		map[string]any{"clips": []any{
			map[string]any{"asset": map[string]any{"type": "audio", "src": "music"}, "length": 2, "transition": fade},
			map[string]any{"asset": map[string]any{"type": "audio", "src": "music"}, "start": 1.5, "length": 2},
		}},
	}}
	plan := func(provider string, comp map[string]any) (*Scene, []string) {
		s, err := Compile(provider, mustJSON(t, comp), assets, DefaultLimits())
		require.NoError(t, err, provider)
		media := map[string]Media{}
		for _, src := range s.Sources() {
			media[src.Key] = clipMedia
		}
		cmd, err := Plan(context.Background(), s, inputs(media, testFont), "/w", "/w/out.mp4")
		require.NoError(t, err, provider)
		return s, cmd.Args
	}
	sa, argsA := plan("provider_a", a)
	su, argsU := plan("unified", u)
	require.Len(t, su.Layers, len(sa.Layers))
	for i := range sa.Layers {
		ma, mu := *sa.Layers[i].Motion, *su.Layers[i].Motion
		for _, c := range []*Cut{ma.Into, ma.Out, mu.Into, mu.Out} {
			if c != nil {
				c.Field = ""
			}
		}
		assert.Equal(t, ma, mu, "layer %d", i)
	}
	assert.Equal(t, argsA, argsU)
}

func TestCompileTransitionsRejects(t *testing.T) {
	t.Parallel()
	pair := func(tr any, second map[string]any) []byte {
		first := map[string]any{"type": "color", "color": "red", "duration": 2, "transition": tr}
		if second == nil {
			second = map[string]any{"type": "color", "color": "blue", "start": 1.5, "duration": 2}
		}
		return mustJSON(t, map[string]any{"width": 160, "height": 90, "fps": 10, "layers": []any{first, second}})
	}
	named := func(name string) map[string]any { return map[string]any{"name": name} }
	blue := func(extra map[string]any) map[string]any {
		l := map[string]any{"type": "color", "color": "blue", "start": 1.5, "duration": 2}
		for k, v := range extra {
			l[k] = v
		}
		return l
	}
	track := func(clips ...any) []byte {
		return mustJSON(t, map[string]any{"output": map[string]any{"width": 16, "height": 16, "fps": 1},
			"tracks": []any{map[string]any{"clips": clips}}})
	}
	cases := []struct {
		name     string
		provider string
		body     []byte
		field    string
		inMsg    string
	}{
		{"not an object", "provider_a", pair("fade", nil), "composition.layers[0].transition", "must be an object"},
		{"no name", "provider_a", pair(map[string]any{"duration": 0.5}, nil), "composition.layers[0].transition.name", "required: fade, dissolve, wipeLeft"},
		{"unknown name", "provider_a", pair(named("wipeleft"), nil), "composition.layers[0].transition.name", "must be one of fade, dissolve, wipeLeft"},
		{"Shotstack's in and out", "provider_a", pair(map[string]any{"in": "fade", "out": "fade"}, nil), "composition.layers[0].transition.in", "use enter and exit"},
		{"unknown field", "provider_a", pair(map[string]any{"name": "fade", "direction": "left"}, nil), "composition.layers[0].transition.direction", "unknown field"},
		{"zero duration", "provider_a", pair(map[string]any{"name": "fade", "duration": 0}, nil), "composition.layers[0].transition.duration", "more than 0"},
		{"long duration", "provider_a", pair(map[string]any{"name": "fade", "duration": 11}, nil), "composition.layers[0].transition.duration", "between 0 and 10"},
		{"unknown easing", "provider_a", pair(map[string]any{"name": "fade", "easing": "bounce"}, nil), "composition.layers[0].transition.easing", "linear, ease-in"},
		{"duration against the overlap", "provider_a", pair(map[string]any{"name": "fade", "duration": 1}, nil), "composition.layers[0].transition.duration",
			"a 1 s transition needs the next layer (composition.layers[1]) to start at 1 s, 1 s before this one ends; it starts at 1.5 s"},
		{"no overlap", "provider_a", pair(named("fade"), blue(map[string]any{"start": 2})), "composition.layers[0].transition",
			"starts at 2 s, when or after this one ends (2 s)"},
		{"no next layer", "provider_a", mustJSON(t, map[string]any{"width": 160, "height": 90, "fps": 10, "layers": []any{
			map[string]any{"type": "color", "color": "red", "duration": 2, "transition": named("fade")}}}),
			"composition.layers[0].transition", "no layer to lead into"},
		{"longer than the next layer", "provider_a", pair(named("fade"), blue(map[string]any{"start": 1, "duration": 0.5})),
			"composition.layers[0].transition.duration", "longer than one of the layers it joins"},
		{"next layer enters too", "provider_a", pair(named("fade"), blue(map[string]any{"enter": map[string]any{"type": "fade"}})),
			"composition.layers[1].enter", "already comes in by the transition composition.layers[0].transition"},
		{"slide and exit", "provider_a", mustJSON(t, map[string]any{"width": 160, "height": 90, "fps": 10, "layers": []any{
			map[string]any{"type": "color", "color": "red", "duration": 2, "transition": named("slideLeft"), "exit": map[string]any{"type": "fade"}},
			blue(nil)}}), "composition.layers[0].exit", "a slide moves both layers"},
		{"picture into sound", "provider_a", pair(named("fade"), map[string]any{"type": "audio", "src": "https://a.test/a", "start": 1.5, "duration": 2}),
			"composition.layers[0].transition", "two visual layers or two audio layers"},
		{"sound wipes", "provider_a", mustJSON(t, map[string]any{"width": 160, "height": 90, "fps": 10, "layers": []any{
			map[string]any{"type": "audio", "src": "https://a.test/a", "duration": 2, "transition": named("wipeLeft")}}}),
			"composition.layers[0].transition.name", "sound only crossfades"},
		{"two transitions overlap", "provider_a", mustJSON(t, map[string]any{"width": 160, "height": 90, "fps": 10, "layers": []any{
			map[string]any{"type": "color", "color": "red", "duration": 2, "transition": named("fade")},
			blue(map[string]any{"start": 1, "duration": 1.5, "transition": named("fade")}),
			map[string]any{"type": "color", "color": "lime", "start": 1.5, "duration": 1}}}),
			"composition.layers[1].transition.duration", "together last 2 s, longer than the layer (1.5 s)"},
		{"unified: the last clip of a track", "unified", track(
			map[string]any{"asset": map[string]any{"type": "color", "color": "red"}, "length": 2},
			map[string]any{"asset": map[string]any{"type": "color", "color": "blue"}, "start": 1, "length": 2, "transition": named("fade")}),
			"composition.tracks[0].clips[1].transition", "no layer to lead into"},
		{"unified: name", "unified", track(
			map[string]any{"asset": map[string]any{"type": "color", "color": "red"}, "length": 2, "transition": named("cube")},
			map[string]any{"asset": map[string]any{"type": "color", "color": "blue"}, "start": 1, "length": 2}),
			"composition.tracks[0].clips[0].transition.name", "must be one of"},
		{"unified: overlap", "unified", track(
			map[string]any{"asset": map[string]any{"type": "color", "color": "red"}, "length": 2, "transition": map[string]any{"name": "zoom", "duration": 0.5}},
			map[string]any{"asset": map[string]any{"type": "color", "color": "blue"}, "start": 1, "length": 2}),
			"composition.tracks[0].clips[0].transition.duration", "next layer (composition.tracks[0].clips[1]) to start at 1.5 s"},
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

func TestPlanTransitions(t *testing.T) {
	t.Parallel()
	media := map[string]Media{"clip": clipMedia, "pic": pictureMedia, "tone": toneMedia}
	// Red (0 to 2 s) into the second layer (1.5 to 3.5 s), 0.5 s, linear.
	into := func(name, second string) string {
		return `{"type":"color","color":"red","duration":2,"transition":{"name":"` + name + `","duration":0.5,"easing":"linear"}},` + second
	}
	blue := `{"type":"color","color":"blue","start":1.5,"duration":2}`
	cases := []struct {
		name   string
		layers string
		want   []string
		absent []string
	}{
		{"fade: the incoming layer's opacity ramps up", into("fade", blue), []string{
			`geq=lum=0:a=255*clip((T-1.5)/0.5\,0\,1),scale=w=160:h=90:flags=neighbor[r1]`,
			"setpts=N+15,[r1]blend=",
			// The outgoing layer holds still under it.
			"color=c=0xFF0000FF:s=160x90:r=10:d=2.1,format=yuva420p,setpts=N+0[l0]",
		}, []string{"[m1]"}},
		{"wipe: a mask one row high, on the transition's frames only", into("wipeLeft", blue), []string{
			`color=c=white:s=160x2:r=10:d=0.6,format=yuva420p,setpts=N+15,geq=lum=0:a=255*gte((X+0.5)/W\,1-clip((T-1.5)/0.5\,0\,1)),scale=w=160:h=90:flags=neighbor[m1]`,
			"[m1]blend=c0_opacity=0:c1_opacity=0:c2_opacity=0:c3_mode=multiply[l1]",
		}, []string{"[r1]", "shortest=1[l1]"}},
		{"wipe down: one column wide", into("wipeDown", blue), []string{
			`s=2x90:r=10:d=0.6,format=yuva420p,setpts=N+15,geq=lum=0:a=255*lte((Y+0.5)/H\,clip((T-1.5)/0.5\,0\,1))`,
		}, nil},
		{"circle: at a quarter of each side, softened", into("circleClose", blue), []string{
			`s=40x24:r=10:d=0.6,format=yuva420p,setpts=N+15,geq=lum=0:a=255*gte(hypot(((X+0.5)/W-0.5)*160\,((Y+0.5)/H-0.5)*90)\,93*(1-clip((T-1.5)/0.5\,0\,1))),scale=w=160:h=90:flags=bilinear[m1]`,
		}, nil},
		{"dissolve: grains of 4×4", into("dissolve", blue), []string{
			"s=40x24:r=10:d=0.6,",
			`geq=lum=0:a=255*lt(mod(abs(sin(X*12.9898+Y*78.233))*43758.5453\,1)\,clip((T-1.5)/0.5\,0\,1)),scale=w=160:h=90:flags=neighbor[m1]`,
		}, nil},
		{"slide: the incoming layer comes in as the outgoing one goes out", into("slideRight", blue), []string{
			`[base][l0]overlay=x=((W-w)/2)*(1-clip((t-1.5)/0.5\,0\,1))+(W)*clip((t-1.5)/0.5\,0\,1):y=(H-h)/2:`,
			`[v0][l1]overlay=x=((W-w)/2)*(clip((t-1.5)/0.5\,0\,1))+(-w)*(1-clip((t-1.5)/0.5\,0\,1)):y=(H-h)/2:`,
		}, []string{"blend"}},
		{"zoom: the incoming layer grows from its centre", into("zoom", blue), []string{
			`scale=w=max(1\,round(iw*clip((t-1.5)/0.5\,0\,1))):h=max(1\,round(ih*clip((t-1.5)/0.5\,0\,1))):eval=frame[l1]`,
		}, nil},
		{"a masked picture", into("circleOpen", `{"type":"image","src":"pic","start":1.5,"duration":2,"x":0,"y":0}`), []string{
			"settb=expr=1/10,setpts=N+15,[m1]blend=", "s=16x12:r=10:d=0.6",
		}, nil},
		{"plain text fades in as a picture", into("fade", `{"type":"text","text":"hi","start":1.5,"duration":2}`), []string{
			`geq=lum=0:a=255*clip((T-1.5)/0.5\,0\,1)`, "[r1]blend=",
		}, nil},
		{"a video's sound crossfades", `{"type":"video","src":"clip","duration":2,"transition":{"name":"wipeUp","duration":0.5}},{"type":"video","src":"clip","start":1.5,"duration":2}`, []string{
			`volume=volume=1*(1-clip(((t+0.0025)-1.5)/0.5\,0\,1)):eval=frame,adelay=delays=0S:all=1[a0]`,
			`volume=volume=1*clip(((t+0.0025)-0)/0.5\,0\,1):eval=frame,adelay=delays=72000S:all=1[a1]`,
		}, nil},
		{"sound crossfades linearly whatever the picture's easing", `{"type":"audio","src":"tone","duration":2,"transition":{"name":"fade","duration":0.5,"easing":"ease-in"}},{"type":"audio","src":"tone","start":1.5,"duration":2}`, []string{
			`volume=volume=1*(1-clip(((t+0.0025)-1.5)/0.5\,0\,1)):eval=frame`,
			`volume=volume=1*clip(((t+0.0025)-0)/0.5\,0\,1):eval=frame`,
		}, []string{"pow("}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, cmd, err := planOf(t, `{"width":160,"height":90,"fps":10,"layers":[`+tc.layers+`]}`, media)
			require.NoError(t, err)
			graph := filterGraph(cmd)
			for _, part := range tc.want {
				assert.Contains(t, graph, part)
			}
			for _, part := range tc.absent {
				assert.NotContains(t, graph, part)
			}
			_, err = checkGraph(graph, "/w", "/f/font.ttf")
			assert.NoError(t, err, "the graph holds only what Plan writes")
		})
	}
}

// TestTransitionDocExamples compiles and plans every request of the
// Transitions section of docs/compositions.md as written, and checks the
// durations the section gives.
func TestTransitionDocExamples(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../docs/compositions.md")
	require.NoError(t, err)
	text := string(doc)
	start := strings.Index(text, "\n## Transitions\n")
	require.GreaterOrEqual(t, start, 0)
	end := strings.Index(text[start+1:], "\n## ")
	blocks := regexp.MustCompile("(?s)```json\n(.*?)```").FindAllStringSubmatch(text[start:start+1+end], -1)
	var durations []float64
	for _, b := range blocks {
		var req struct {
			Provider    string          `json:"provider"`
			Composition json.RawMessage `json:"composition"`
		}
		if !strings.HasPrefix(strings.TrimSpace(b[1]), "{\"provider\"") {
			continue // a fragment
		}
		require.NoError(t, json.Unmarshal([]byte(b[1]), &req), b[1])
		s, err := Compile(req.Provider, req.Composition, nil, DefaultLimits())
		require.NoError(t, err, b[1])
		media := map[string]Media{}
		for _, src := range s.Sources() {
			for _, l := range s.Layers {
				if l.SourceField == src.Field {
					media[src.Key] = map[Kind]Media{KindImage: pictureMedia, KindVideo: clipMedia, KindAudio: toneMedia}[l.Kind]
				}
			}
		}
		cmd, err := Plan(context.Background(), s, inputs(media, testFont), "/w", "/w/out.mp4")
		require.NoError(t, err, b[1])
		_, err = checkGraph(filterGraph(cmd), "/w", testFont)
		assert.NoError(t, err, b[1])
		durations = append(durations, s.Duration)
	}
	// Overlapping by their transitions, three 3 s clips make 7 s.
	assert.Equal(t, []float64{4, 5, 7, 7, 4, 3, 3}, durations)
}
