package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// keys builds keyframes from time, value pairs; an easing string after a
// pair applies to that keyframe.
func keys(spec ...any) []any {
	var out []any
	for i := 0; i < len(spec); i++ {
		k := map[string]any{"time": spec[i], "value": spec[i+1]}
		i++
		if i+1 < len(spec) {
			if e, ok := spec[i+1].(string); ok {
				k["easing"] = e
				i++
			}
		}
		out = append(out, k)
	}
	return out
}

func TestCompileMotion(t *testing.T) {
	t.Parallel()
	s, err := Compile("provider_a", mustJSON(t, map[string]any{"width": 320, "height": 180, "fps": 25, "duration": 4, "layers": []any{
		map[string]any{"type": "image", "src": "logo", "x": keys(0, -50, 1.5, 100, "ease-out"), "y": "center",
			"opacity": keys(0, 0, 1, 1, "ease-in-out"), "scale": 0.5, "rotation": keys(0, 0, 4, 360),
			"enter": map[string]any{"type": "slide", "side": "left"}, "exit": map[string]any{"type": "fade", "duration": 1, "easing": "linear"}},
		map[string]any{"type": "video", "src": "logo", "kenBurns": "panRight", "volume": keys(0, 0.2, 2, 1.5)},
		map[string]any{"type": "audio", "src": "music", "volume": 0.5, "enter": map[string]any{"type": "fade"}},
		map[string]any{"type": "color", "color": "red", "width": 10, "height": 10, "rotation": nil, "scale": nil},
	}}), assets, DefaultLimits())
	require.NoError(t, err)
	image := s.Layers[0]
	assert.Equal(t, Pos{Px: -50}, image.X, "a keyframed position starts at its first keyframe")
	assert.Equal(t, Pos{Center: true}, image.Y)
	assert.Equal(t, 1.0, image.Opacity, "keyframes replace the plain opacity")
	assert.Equal(t, &Motion{
		X:        Curve{{Time: 0, Value: -50, Easing: Linear}, {Time: 1.5, Value: 100, Easing: EaseOut}},
		Opacity:  Curve{{Time: 0, Value: 0, Easing: Linear}, {Time: 1, Value: 1, Easing: EaseInOut}},
		Scale:    Curve{{Value: 0.5, Easing: Linear}},
		Rotation: Curve{{Value: 0, Easing: Linear}, {Time: 4, Value: 360, Easing: Linear}},
		Enter:    &Transition{Kind: Slide, Side: Left, Duration: 0.5, Easing: EaseOut},
		Exit:     &Transition{Kind: Fade, Duration: 1, Easing: Linear},
	}, image.Motion)

	video := s.Layers[1]
	assert.Equal(t, 1.5, video.Volume, "a keyframed volume keeps its loudest")
	assert.Equal(t, Curve{{Value: kenBurnsPanZoom, Easing: Linear}}, video.Motion.Zoom, "kenBurns is keyframes over the whole layer")
	assert.Equal(t, Curve{{Value: 0, Easing: Linear}, {Time: 4, Value: 1, Easing: Linear}}, video.Motion.PanX)
	assert.Nil(t, video.Motion.PanY)

	audio := s.Layers[2]
	assert.Equal(t, 0.5, audio.Volume)
	assert.Equal(t, &Transition{Kind: Fade, Duration: 0.5, Easing: EaseOut}, audio.Motion.Enter, "enter eases out by default")
	assert.Nil(t, s.Layers[3].Motion, "a layer without motion has none")
}

// TestCompileMotionBothFormats: the same motion written in either format
// makes the same scene and the same ffmpeg command.
func TestCompileMotionBothFormats(t *testing.T) {
	t.Parallel()
	slide := map[string]any{"type": "slide", "side": "bottom", "duration": 0.4, "easing": "ease-in-out"}
	a := map[string]any{"width": 160, "height": 90, "fps": 10, "duration": 3, "layers": []any{
		map[string]any{"type": "audio", "src": "music", "volume": keys(0, 1, 3, 0, "ease-in"), "exit": map[string]any{"type": "fade"}},
		map[string]any{"type": "video", "src": "logo", "trimStart": 1, "volume": keys(1, 0, 2, 1), "width": 80, "x": 10, "y": keys(0, 0, 3, 40),
			"zoom": keys(0, 1, 3, 2, "ease-in-out"), "panY": 0, "rotation": -15, "opacity": keys(0, 1, 3, 0.5)},
		map[string]any{"type": "text", "text": "hi", "x": keys(0, 0, 1, 50), "scale": keys(0, 0, 1, 1), "enter": slide, "exit": map[string]any{"type": "zoom"}},
	}}
	u := map[string]any{"output": map[string]any{"width": 160, "height": 90, "fps": 10, "duration": 3}, "tracks": []any{
		map[string]any{"clips": []any{map[string]any{"asset": map[string]any{"type": "text", "text": "hi"}, "position": map[string]any{"x": keys(0, 0, 1, 50)},
			"scale": keys(0, 0, 1, 1), "enter": slide, "exit": map[string]any{"type": "zoom"}}}},
		map[string]any{"clips": []any{map[string]any{"asset": map[string]any{"type": "video", "src": "logo", "trim": 1, "volume": keys(1, 0, 2, 1)},
			"size": map[string]any{"width": 80}, "position": map[string]any{"x": 10, "y": keys(0, 0, 3, 40)},
			"zoom": keys(0, 1, 3, 2, "ease-in-out"), "panY": 0, "rotation": -15, "opacity": keys(0, 1, 3, 0.5)}}},
		map[string]any{"clips": []any{map[string]any{"asset": map[string]any{"type": "audio", "src": "music", "volume": keys(0, 1, 3, 0, "ease-in")},
			"exit": map[string]any{"type": "fade"}}}},
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
		la, lu := sa.Layers[i], su.Layers[i]
		la.Field, la.SourceField, lu.Field, lu.SourceField = "", "", "", ""
		assert.Equal(t, la, lu, "layer %d", i)
		assert.Equal(t, sa.Layers[i].Motion, su.Layers[i].Motion, "layer %d", i)
	}
	assert.Equal(t, argsA, argsU)
}

func TestCompileMotionRejects(t *testing.T) {
	t.Parallel()
	layer := func(l map[string]any) []byte {
		return mustJSON(t, map[string]any{"width": 160, "height": 90, "fps": 10, "layers": []any{l}})
	}
	color := func(extra map[string]any) []byte {
		l := map[string]any{"type": "color", "color": "red", "duration": 2}
		for k, v := range extra {
			l[k] = v
		}
		return layer(l)
	}
	many := make([]any, 101)
	for i := range many {
		many[i] = map[string]any{"time": float64(i) / 100, "value": 0}
	}
	var heavy []any
	for range 10 {
		heavy = append(heavy, map[string]any{"type": "color", "color": "red", "duration": 2, "x": many[:100]})
	}
	heavy = append(heavy, map[string]any{"type": "color", "color": "red", "duration": 2, "y": many[:1]})
	unified := func(clip map[string]any) []byte {
		return mustJSON(t, map[string]any{"output": map[string]any{"width": 16, "height": 16, "fps": 1},
			"tracks": []any{map[string]any{"clips": []any{clip}}}})
	}
	cases := []struct {
		name     string
		provider string
		body     []byte
		field    string
		inMsg    string
	}{
		{"no keyframes", "provider_a", color(map[string]any{"x": []any{}}), "composition.layers[0].x", "at least one keyframe"},
		{"keyframe not an object", "provider_a", color(map[string]any{"x": []any{3}}), "composition.layers[0].x[0]", "object"},
		{"keyframe without time", "provider_a", color(map[string]any{"x": []any{map[string]any{"value": 1}}}), "composition.layers[0].x[0].time", "required"},
		{"keyframe without value", "provider_a", color(map[string]any{"opacity": []any{map[string]any{"time": 0, "value": 1}, map[string]any{"time": 1}}}),
			"composition.layers[0].opacity[1].value", "required"},
		{"times out of order", "provider_a", color(map[string]any{"y": keys(1, 0, 1, 5)}), "composition.layers[0].y[1].time", "later than the keyframe before it (1 s)"},
		{"time after the layer", "provider_a", color(map[string]any{"y": keys(0, 0, 2.5, 5)}), "composition.layers[0].y[1].time", "after the end of the layer, which lasts 2 s"},
		{"negative time", "provider_a", color(map[string]any{"y": keys(-1, 0)}), "composition.layers[0].y[0].time", "between 0 and 600"},
		{"fractional pixel", "provider_a", color(map[string]any{"x": keys(0, 0.5)}), "composition.layers[0].x[0].value", "integer"},
		{"position far away", "provider_a", color(map[string]any{"x": keys(0, 100001)}), "composition.layers[0].x[0].value", "between -100000 and 100000"},
		{"center is not a keyframe value", "provider_a", color(map[string]any{"x": keys(0, "center")}), "composition.layers[0].x[0].value", "number"},
		{"opacity above 1", "provider_a", color(map[string]any{"opacity": keys(0, 0, 1, 2)}), "composition.layers[0].opacity[1].value", "between 0 and 1"},
		{"unknown easing", "provider_a", color(map[string]any{"x": keys(0, 0, 1, 5, "bounce")}), "composition.layers[0].x[1].easing", "linear, ease-in, ease-out, ease-in-out"},
		{"easing of the first keyframe", "provider_a", color(map[string]any{"x": keys(0, 0, "ease-in", 1, 5)}), "composition.layers[0].x[0].easing", "no effect on the first keyframe"},
		{"unknown keyframe field", "provider_a", color(map[string]any{"x": []any{map[string]any{"time": 0, "value": 1, "ease": "linear"}}}), "composition.layers[0].x[0].ease", "unknown field"},
		{"too many keyframes", "provider_a", color(map[string]any{"x": many}), "composition.layers[0].x", "101 keyframes; at most 100"},
		{"too many keyframes in all", "provider_a", mustJSON(t, map[string]any{"width": 160, "height": 90, "fps": 10, "layers": heavy}),
			"composition.layers[10].y", "brings the composition to 1001 keyframes; at most 1000"},
		{"scale 0", "provider_a", color(map[string]any{"scale": 0}), "composition.layers[0].scale", "more than 0"},
		{"scale too large", "provider_a", color(map[string]any{"scale": keys(0, 0, 1, 101)}), "composition.layers[0].scale[1].value", "between 0 and 100"},
		{"scale on sound", "provider_a", layer(map[string]any{"type": "audio", "src": "https://a.test/a", "duration": 1, "scale": 2}), "composition.layers[0].scale", "unknown field"},
		{"rotation as a string", "provider_a", color(map[string]any{"rotation": "90deg"}), "composition.layers[0].rotation", "number"},
		{"zoom on a colour", "provider_a", color(map[string]any{"zoom": 2}), "composition.layers[0].zoom", "unknown field"},
		{"zoom below 1", "provider_a", layer(map[string]any{"type": "image", "src": "https://a.test/i", "duration": 1, "zoom": 0.5}), "composition.layers[0].zoom", "between 1 and 10"},
		{"pan beyond the picture", "provider_a", layer(map[string]any{"type": "image", "src": "https://a.test/i", "duration": 1, "panX": keys(0, 0, 1, 1.5)}),
			"composition.layers[0].panX[1].value", "between 0 and 1"},
		{"unknown Ken Burns", "provider_a", layer(map[string]any{"type": "video", "src": "https://a.test/i", "duration": 1, "kenBurns": "zoomInSlow"}),
			"composition.layers[0].kenBurns", "zoomIn, zoomOut, panLeft, panRight, panUp, panDown"},
		{"Ken Burns and zoom", "provider_a", layer(map[string]any{"type": "image", "src": "https://a.test/i", "duration": 1, "kenBurns": "zoomIn", "panX": 0}),
			"composition.layers[0].kenBurns", "shorthand"},
		{"enter without type", "provider_a", color(map[string]any{"enter": map[string]any{"duration": 1}}), "composition.layers[0].enter.type", "required"},
		{"enter not an object", "provider_a", color(map[string]any{"enter": "fade"}), "composition.layers[0].enter", "object"},
		{"slide without side", "provider_a", color(map[string]any{"enter": map[string]any{"type": "slide"}}), "composition.layers[0].enter.side", "required: left, right, top or bottom"},
		{"side of a fade", "provider_a", color(map[string]any{"exit": map[string]any{"type": "fade", "side": "left"}}), "composition.layers[0].exit.side", "unknown field"},
		{"sound slides", "provider_a", layer(map[string]any{"type": "audio", "src": "https://a.test/a", "duration": 1, "enter": map[string]any{"type": "slide", "side": "left"}}),
			"composition.layers[0].enter.type", "sound only fades"},
		{"enter longer than the layer", "provider_a", color(map[string]any{"enter": map[string]any{"type": "zoom", "duration": 3}}), "composition.layers[0].enter.duration", "longer than the layer (2 s)"},
		{"default longer than the layer", "provider_a", layer(map[string]any{"type": "color", "color": "red", "duration": 0.3, "exit": map[string]any{"type": "fade"}}),
			"composition.layers[0].exit.duration", "the default of 0.5 s is longer than the layer (0.3 s)"},
		{"enter and exit overlap", "provider_a", color(map[string]any{"enter": map[string]any{"type": "fade", "duration": 1.5}, "exit": map[string]any{"type": "fade", "duration": 1}}),
			"composition.layers[0].exit", "together (2.5 s) are longer than the layer (2 s)"},
		{"zero transition", "provider_a", color(map[string]any{"enter": map[string]any{"type": "fade", "duration": 0}}), "composition.layers[0].enter.duration", "more than 0"},
		{"unknown easing of a transition", "provider_a", layer(map[string]any{"type": "text", "text": "x", "duration": 2, "exit": map[string]any{"type": "slide", "side": "top", "easing": "ease"}}),
			"composition.layers[0].exit.easing", "one of linear, ease-in"},
		{"unified position keyframes", "unified", unified(map[string]any{"asset": map[string]any{"type": "color", "color": "red"}, "length": 1,
			"position": map[string]any{"x": keys(0, 0, 2, 5)}}), "composition.tracks[0].clips[0].position.x[1].time", "after the end of the layer"},
		{"unified volume keyframes", "unified", unified(map[string]any{"asset": map[string]any{"type": "audio", "src": "https://a.test/a", "volume": keys(0, 11)}, "length": 1}),
			"composition.tracks[0].clips[0].asset.volume[0].value", "between 0 and 10"},
		{"unified enter typo", "unified", unified(map[string]any{"asset": map[string]any{"type": "color", "color": "red"}, "length": 1,
			"enter": map[string]any{"type": "fade", "direction": "left"}}), "composition.tracks[0].clips[0].enter.direction", "unknown field"},
		{"unified Ken Burns on text", "unified", unified(map[string]any{"asset": map[string]any{"type": "text", "text": "x"}, "length": 1, "kenBurns": "zoomIn"}),
			"composition.tracks[0].clips[0].kenBurns", "unknown field"},
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

func TestCurveExpr(t *testing.T) {
	t.Parallel()
	k := clock{t: "t", origin: 1.5}
	for _, tc := range []struct {
		curve Curve
		want  string
	}{
		{Curve{{Value: 7}}, "7"},
		{Curve{{Value: 7}, {Time: 2, Value: 7, Easing: EaseIn}}, "7"},
		{Curve{{Value: 0}, {Time: 2, Value: 100, Easing: Linear}}, "0+100*clip((t-1.5)/2,0,1)"},
		{Curve{{Value: 0}, {Time: 2, Value: 100, Easing: EaseIn}}, "0+100*pow(clip((t-1.5)/2,0,1),3)"},
		{Curve{{Value: 0}, {Time: 2, Value: 100, Easing: EaseOut}}, "0+100*(1-pow(1-clip((t-1.5)/2,0,1),3))"},
		{Curve{{Value: 0}, {Time: 2, Value: 100, Easing: EaseInOut}},
			"0+100*if(lt(clip((t-1.5)/2,0,1),0.5),4*pow(clip((t-1.5)/2,0,1),3),1-4*pow(1-clip((t-1.5)/2,0,1),3))"},
		// A fall subtracts; a hold adds nothing; times are microseconds.
		{Curve{{Time: 0.1, Value: 0.7}, {Time: 0.3, Value: 0.3, Easing: Linear}, {Time: 1, Value: 0.3, Easing: EaseIn}, {Time: 1.2, Value: -5, Easing: Linear}},
			"0.7-0.4*clip((t-1.6)/0.2,0,1)-5.3*clip((t-2.5)/0.2,0,1)"},
	} {
		assert.Equal(t, tc.want, tc.curve.expr(k))
	}

	// A long sum is cut into groups that ffmpeg's parser accepts.
	long := Curve{{Value: 0}}
	for i := 1; i <= 70; i++ {
		long = append(long, Key{Time: float64(i), Value: float64(i % 2), Easing: Linear})
	}
	e := long.expr(k)
	assert.True(t, strings.HasPrefix(e, "0+(+1*clip((t-1.5)/1,0,1)-1*clip((t-2.5)/1,0,1)+"), e)
	assert.Equal(t, 3, strings.Count(e, "+(+"), "70 terms in groups of 32")
	assert.Equal(t, 70, strings.Count(e, "clip("))
}

// TestPlanMotion pins the chains of moving layers, one property at a
// time: what changes is evaluated per frame, what holds still once.
func TestPlanMotion(t *testing.T) {
	t.Parallel()
	media := map[string]Media{"clip": clipMedia, "pic": pictureMedia, "tone": toneMedia}
	cases := []struct {
		name   string
		layers string
		want   []string
		absent []string
	}{
		{"a colour moving on keyframes is drawn whole and placed by t", `{"type":"color","color":"red","width":40,"height":30,"x":[{"time":0,"value":-40},{"time":1,"value":100,"easing":"ease-out"}],"y":10}`,
			[]string{
				"color=c=0xFF0000FF:s=40x30:r=10:d=2.1,format=yuva420p,setpts=N+0[l0]",
				`[base][l0]overlay=x=(-40+140*(1-pow(1-clip((t-0)/1\,0\,1)\,3))):y=10:eof_action=pass:enable='between(t,-0.05,1.95)'[v0]`,
			}, []string{"eval=frame", "rotate", "blend"}},
		{"opacity keyframes: a ramp blended on the alpha plane", `{"type":"color","color":"red","start":0.5,"duration":1,"opacity":[{"time":0,"value":0},{"time":1,"value":1}]}`,
			[]string{
				`color=c=white:s=2x2:r=10:d=1.1,format=yuva420p,setpts=N+5,geq=lum=0:a=255*(0+1*clip((T-0.5)/1\,0\,1)),scale=w=160:h=90:flags=neighbor[r0]`,
				"color=c=0xFF0000FF:s=160x90:r=10:d=1.1,format=yuva420p,setpts=N+5,[r0]blend=c0_opacity=0:c1_opacity=0:c2_opacity=0:c3_mode=multiply:shortest=1[l0]",
				// The colour stays clipped to the frame and placed as it was.
				"[base][l0]overlay=x=0:y=0:",
			}, []string{"rotate", "eval=frame"}},
		{"a fixed turn of a picture: once, before it repeats", `{"type":"image","src":"pic","rotation":90,"x":0,"y":0}`,
			[]string{
				"[0:v]format=yuva420p,rotate=a=1.570796327:ow=48:oh=64:c=0x00000000,loop=loop=19:size=1:start=0,settb=expr=1/10,setpts=N+0[l0]",
				// Placed about the box's centre: 64x48 turned is 48x64.
				"[base][l0]overlay=x=0+(64-w)/2:y=0+(48-h)/2:",
			}, []string{"eval=frame", "blend"}},
		{"a changing turn: per frame, in a box for every angle reached", `{"type":"image","src":"pic","rotation":[{"time":0,"value":0},{"time":2,"value":30}]}`,
			[]string{`setpts=N+0,rotate=a=(0+30*clip((t-0)/2\,0\,1))*PI/180:ow=82:oh=76:c=0x00000000[l0]`, "overlay=x=(W-w)/2:y=(H-h)/2:"},
			nil},
		{"a fixed scale: folded into the size", `{"type":"image","src":"pic","scale":0.5,"x":10,"y":10}`,
			[]string{"[0:v]scale=w=32:h=24,format=yuva420p,loop=", "overlay=x=10+(64-w)/2:y=10+(48-h)/2:"},
			[]string{"eval=frame"}},
		{"a changing scale: per frame", `{"type":"video","src":"clip","width":40,"scale":[{"time":0,"value":1},{"time":2,"value":3}]}`,
			[]string{`[0:v]setpts=PTS-STARTPTS,fps=10,scale=w=40:h=min(8192\,max(1\,trunc(ow*ih/iw+0.5))),format=yuva420p,setpts=N+0,` +
				`scale=w=max(1\,round(iw*(1+2*clip((t-0)/2\,0\,1)))):h=max(1\,round(ih*(1+2*clip((t-0)/2\,0\,1)))):eval=frame[l0]`},
			[]string{"gt("}},
		{"Ken Burns: zoompan from the picture scaled for the deepest zoom", `{"type":"image","src":"pic","width":32,"height":24,"kenBurns":"zoomIn"}`,
			[]string{`[0:v]scale=w=42:h=31,format=yuva420p,loop=loop=19:size=1:start=0,settb=expr=1/10,` +
				`zoompan=z=(1+0.3*clip(((in/10+0)-0)/2\,0\,1)):x=0.5*(iw-iw/zoom):y=0.5*(ih-ih/zoom):d=1:s=32x24:fps=10,setpts=N+0[l0]`},
			nil},
		{"a fixed Ken Burns frame: cropped once", `{"type":"video","src":"clip","zoom":2,"panX":1,"panY":0}`,
			[]string{"fps=10,crop=w=iw/2:h=ih/2:x=(iw-ow)*1:y=(ih-oh)*0,scale=w=80:h=60,format=yuva420p,setpts=N+0[l0]", "overlay=x=(W-w)/2:y=(H-h)/2:eof_action=pass:enable='between(t,-0.05,1.95)'"},
			[]string{"zoompan", "eval=frame"}},
		{"enter slide and exit zoom", `{"type":"color","color":"red","width":20,"height":20,"x":50,"y":30,"enter":{"type":"slide","side":"left","easing":"linear"},"exit":{"type":"zoom","duration":1}}`,
			[]string{
				`scale=w=max(1\,round(iw*(1-pow(clip((t-1)/1\,0\,1)\,3)))):h=max(1\,round(ih*(1-pow(clip((t-1)/1\,0\,1)\,3)))):eval=frame[l0]`,
				`overlay=x=(50+(20-w)/2)*(clip((t-0)/0.5\,0\,1))+(-w)*(1-clip((t-0)/0.5\,0\,1)):y=30+(20-h)/2:`,
				// Drawn only while its scale is above 0.
				`enable='between(t,-0.05,1.95)*gt((1-pow(clip((t-1)/1,0,1),3)),0)'`,
			}, nil},
		{"text moves, scales and fades as a picture", `{"type":"text","text":"hi","fontSize":20,"y":[{"time":0,"value":0},{"time":2,"value":60}],"scale":2,"enter":{"type":"fade","duration":1}}`,
			[]string{
				// Drawn once at its size, scaled once, moved about its box
				// (24 px high: DejaVu's line height at 20 px).
				`[0:v]scale=w=78:h=88,format=yuva420p,loop=loop=19:size=1:start=0`,
				`geq=lum=0:a=255*(1-pow(1-clip((T-0)/1\,0\,1)\,3))`,
				`overlay=x=(W-w)/2:y=(0+60*clip((t-0)/2\,0\,1))+(24-h)/2:`,
			},
			[]string{"drawtext"}},
		{"volume keyframes and an exit fade, per block of samples", `{"type":"audio","src":"tone","start":1,"duration":1,"volume":[{"time":0,"value":0},{"time":0.5,"value":2}],"exit":{"type":"fade","duration":0.2,"easing":"linear"}}`,
			// Evaluated in the middle of blocks of 5 ms.
			[]string{`atrim=end=1,asetnsamples=n=240:p=0,volume=volume=(0+2*clip(((t+0.0025)-0)/0.5\,0\,1))*(1-clip(((t+0.0025)-0.8)/0.2\,0\,1)):eval=frame,adelay=delays=48000S:all=1[a0]`},
			nil},
		{"a video's sound fades with its picture", `{"type":"video","src":"clip","enter":{"type":"fade","easing":"linear"}}`,
			[]string{`geq=lum=0:a=255*clip((T-0)/0.5\,0\,1),scale=w=80:h=60:flags=neighbor[r0]`, `volume=volume=1*clip(((t+0.0025)-0)/0.5\,0\,1):eval=frame`},
			nil},
		{"volume alone leaves the picture's chain as it was", `{"type":"video","src":"clip","volume":[{"time":0,"value":1},{"time":2,"value":0}]}`,
			[]string{"[0:v]setpts=PTS-STARTPTS,fps=10,format=yuva420p,setpts=N+0[l0]", "[base][l0]overlay=x=(W-w)/2:y=(H-h)/2:eof_action=pass:enable='between(t,-0.05,1.95)'[v0]"},
			[]string{"blend", "scale"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, cmd, err := planOf(t, `{"width":160,"height":90,"fps":10,"duration":2,"layers":[`+tc.layers+`]}`, media)
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
			assert.NotContains(t, graph, "rgb", "no chain converts to RGB")
		})
	}
}

// TestPlanMotionRotatedVideo: a phone video's quarter turn is undone by
// ffmpeg's decoder, so a moving layer's box is the upright size.
func TestPlanMotionRotatedVideo(t *testing.T) {
	t.Parallel()
	upright := clipMedia
	upright.Width, upright.Height = 60, 80
	_, cmd, err := planOf(t, `{"width":160,"height":90,"fps":10,"layers":[{"type":"video","src":"clip","duration":1,"x":0,"y":0,"height":40,"scale":[{"time":0,"value":1},{"time":1,"value":2}]}]}`,
		map[string]Media{"clip": upright})
	require.NoError(t, err)
	assert.Contains(t, filterGraph(cmd), "overlay=x=0+(30-w)/2:y=0+(40-h)/2:")
	assert.True(t, strings.Count(filterGraph(cmd), "eval=frame") == 1)
}
