package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// planOf compiles a provider_a composition and plans it with the media
// given by asset key; asset keys name https://a.test/KEY.
func planOf(t *testing.T, comp string, media map[string]Media) (*Scene, *Command, error) {
	t.Helper()
	urls := map[string]string{}
	for key := range media {
		urls[key] = "https://a.test/" + key
	}
	s, err := Compile("provider_a", []byte(comp), urls, DefaultLimits())
	require.NoError(t, err)
	bySource := map[string]Media{}
	for _, src := range s.Sources() {
		bySource[src.Key] = media[strings.TrimPrefix(src.URL, "https://a.test/")]
	}
	cmd, err := Plan(context.Background(), s, inputs(bySource, testFont), "/w", "/w/out."+s.Format)
	return s, cmd, err
}

var (
	clipMedia    = Media{Path: "/m/clip", Format: "mov", HasVideo: true, HasAudio: true, Duration: 10, Width: 80, Height: 60}
	pictureMedia = Media{Path: "/m/pic", Format: "png_pipe", HasVideo: true, Still: true, Width: 64, Height: 48}
	toneMedia    = Media{Path: "/m/tone", Format: "wav", HasAudio: true, Duration: 10}
)

// TestPlanGraph pins the whole command of one composition with a layer of
// each kind: a change to it is deliberate, and reviewed here.
func TestPlanGraph(t *testing.T) {
	t.Parallel()
	_, cmd, err := planOf(t, `{"width":160,"height":90,"fps":10,"layers":[
		{"type":"color","color":"red","start":0.5,"duration":0.5,"x":10,"y":10,"width":40,"height":30,"fadeOut":0.2},
		{"type":"video","src":"clip","start":0.5,"duration":1.5,"width":80,"volume":0.5,"trimStart":0.2},
		{"type":"image","src":"pic","start":1,"duration":1,"x":100,"y":40,"fadeIn":0.5,"opacity":0.7},
		{"type":"text","text":"hello","fontSize":12,"color":"yellow","start":0,"duration":2,"x":2,"fadeIn":0.3},
		{"type":"audio","src":"tone","start":0.25,"duration":1.5,"volume":0.8,"fadeIn":0.2,"fadeOut":0.2,"trimStart":2}]}`,
		map[string]Media{"clip": clipMedia, "pic": pictureMedia, "tone": toneMedia})
	require.NoError(t, err)
	graph := []string{
		"color=c=0x000000FF:s=160x90:r=10:d=2[base]",
		"anullsrc=r=48000:cl=stereo,atrim=end=2[abase]",
		// 0.5 s to 1 s: frames 5 to 9, enabled from 0.45 s to 0.95 s.
		// Layers are blended in YUV with alpha, the format overlay takes.
		"color=c=0xFF0000FF:s=40x30:r=10:d=0.6,format=yuva420p,setpts=N+5,fade=t=out:st=0.8:d=0.2:alpha=1[l0]",
		"[base][l0]overlay=x=10:y=10:eof_action=pass:enable='between(t,0.45,0.95)'[v0]",
		`[0:v]setpts=PTS-STARTPTS,fps=10,scale=w=80:h=min(8192\,max(1\,trunc(ow*ih/iw+0.5))),format=yuva420p,setpts=N+5[l1]`,
		"[v0][l1]overlay=x=(W-w)/2:y=(H-h)/2:eof_action=pass:enable='between(t,0.45,1.95)'[v1]",
		"[0:a]aresample=48000,aformat=sample_fmts=fltp:channel_layouts=stereo,asetpts=PTS-STARTPTS,atrim=end=1.5,volume=0.5,adelay=delays=24000S:all=1[a1]",
		// The picture's opacity is applied once, before it is repeated.
		"[1:v]format=yuva420p,lut=a=val*0.7,loop=loop=9:size=1:start=0,settb=expr=1/10,setpts=N+10,fade=t=in:st=1:d=0.5:alpha=1[l2]",
		"[v1][l2]overlay=x=100:y=40:eof_action=pass:enable='between(t,0.95,1.95)'[v2]",
		// The text: a picture kino draws, faded like one.
		"[2:v]format=yuva420p,loop=loop=19:size=1:start=0,settb=expr=1/10,setpts=N+0,fade=t=in:st=0:d=0.3:alpha=1[l3]",
		"[v2][l3]overlay=x=0:y=30:eof_action=pass:enable='between(t,-0.05,1.95)'[v3]",
		"[3:a]aresample=48000,aformat=sample_fmts=fltp:channel_layouts=stereo,asetpts=PTS-STARTPTS,atrim=end=1.5,volume=0.8,afade=t=in:st=0:d=0.2,afade=t=out:st=1.3:d=0.2,adelay=delays=12000S:all=1[a4]",
		"[v3]format=yuv420p[vout]",
		"[abase][a1][a4]amix=inputs=3:duration=first:normalize=0,aresample=48000[aout]",
	}
	want := []string{
		// The video: a frame more than the layer; the picture: no input
		// options, the loop filter repeats it.
		// Every input is opened with its probed demuxer and local files
		// alone; a picture is decoded in one thread, and three layers
		// share the graph's threads.
		"-filter_complex_threads", "2",
		"-protocol_whitelist", "file", "-f", "mov", "-max_pixels", "50000000", "-ss", "0.2", "-t", "1.6", "-i", "file:/m/clip",
		"-protocol_whitelist", "file", "-f", "png_pipe", "-max_pixels", "50000000", "-threads", "1", "-i", "file:/m/pic",
		"-protocol_whitelist", "file", "-f", "png_pipe", "-max_pixels", "50000000", "-threads", "1", "-i", "file:/w/text-3.png",
		"-protocol_whitelist", "file", "-f", "wav", "-max_pixels", "50000000", "-ss", "2", "-t", "1.5", "-i", "file:/m/tone",
		"-filter_complex", strings.Join(graph, ";"),
		"-map", "[vout]", "-map", "[aout]", "-t", "2", "-r", "10",
		"-c:v", "libx264", "-preset", "veryfast", "-crf", "20", "-pix_fmt", "yuv420p",
		"-c:a", "aac", "-b:a", "128k", "-ar", "48000", "-movflags", "+faststart", "-f", "mp4",
		"file:/w/out.mp4",
	}
	assert.Equal(t, want, cmd.Args)
	assert.Len(t, cmd.Files, 1)
	assert.Contains(t, cmd.Files, "text-3.png")
}

// TestPlanColorLayers pins the cheap graphs of colour layers: an opaque
// colour over the whole frame for the whole video is the base (what it
// hides is not drawn, but a hidden video still plays its sound); others are
// generated at their visible size in YUV with alpha, their opacity in the
// colour; invisible ones are not drawn. No chain converts to RGB.
func TestPlanColorLayers(t *testing.T) {
	t.Parallel()
	media := map[string]Media{"clip": clipMedia, "pic": pictureMedia}
	cases := []struct {
		name   string
		layers string
		graph  []string
	}{
		{"full-frame colour is the base", `{"type":"color","color":"#1d3557"},
			{"type":"text","text":"t","fontSize":12}`, []string{
			"color=c=0x1D3557FF:s=160x90:r=10:d=2[base]",
			"[base][l1]overlay=",
		}},
		{"a larger, centred colour covers too", `{"type":"color","color":"red","width":200,"height":100,"x":"center","y":"center"}`, []string{
			"color=c=0xFF0000FF:s=160x90:r=10:d=2[base]",
			"[base]format=yuv420p[vout]",
		}},
		{"the topmost cover hides the layers under it, but not their sound", `{"type":"image","src":"pic"},
			{"type":"video","src":"clip","volume":1},
			{"type":"color","color":"red"},
			{"type":"color","color":"#00ff00"},
			{"type":"image","src":"pic","x":0,"y":0}`, []string{
			// The hidden video is read for its sound alone: no frame more.
			"-ss 0 -t 2 -i file:/m/clip",
			"color=c=0x00FF00FF:s=160x90:r=10:d=2[base]",
			"[0:a]aresample=48000,",
			"[1:v]format=yuva420p,loop=loop=19:size=1:start=0,settb=expr=1/10,setpts=N+0[l4]",
			"[base][l4]overlay=x=0:y=0:",
		}},
		{"translucent: overlaid, opacity in the colour", `{"type":"color","color":"#ff000080","opacity":0.5}`, []string{
			"color=c=0x000000FF:s=160x90:r=10:d=2[base]",
			"color=c=0xFF000040:s=160x90:r=10:d=2.1,format=yuva420p,setpts=N+0[l0]",
			"[base][l0]overlay=x=0:y=0:",
		}},
		{"fading: overlaid, faded on alpha", `{"type":"color","color":"red","fadeIn":1}`, []string{
			"color=c=0xFF0000FF:s=160x90:r=10:d=2.1,format=yuva420p,setpts=N+0,fade=t=in:st=0:d=1:alpha=1[l0]",
		}},
		{"not from the start: overlaid", `{"type":"color","color":"red","start":0.1}`, []string{
			"[base][l0]overlay=x=0:y=0:eof_action=pass:enable='between(t,0.05,1.95)'[v0]",
		}},
		{"cut at the frame's edges, corner on even pixels", `{"type":"color","color":"red","x":-51,"y":81,"width":100,"height":40},
			{"type":"color","color":"blue","width":41,"height":41}`, []string{
			"color=c=0xFF0000FF:s=48x10:r=10:d=2.1,format=yuva420p,setpts=N+0[l0]",
			"[base][l0]overlay=x=0:y=80:",
			// (160-41)/2 is 59.5, placed at 58; (90-41)/2 is 24.5, at 24.
			"[v0][l1]overlay=x=58:y=24:",
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, cmd, err := planOf(t, `{"width":160,"height":90,"fps":10,"duration":2,"layers":[`+tc.layers+`]}`, media)
			require.NoError(t, err)
			args := strings.Join(cmd.Args, " ")
			for _, part := range tc.graph {
				assert.Contains(t, args, part)
			}
			assert.NotContains(t, filterGraph(cmd), "rgb", "no chain converts to RGB")
			assert.Equal(t, strings.Count(filterGraph(cmd), "[base]"), 2, "one base, used once")
		})
	}

	t.Run("invisible colours are not drawn", func(t *testing.T) {
		t.Parallel()
		_, cmd, err := planOf(t, `{"width":160,"height":90,"fps":10,"duration":2,"layers":[
			{"type":"color","color":"red","x":-100000,"y":0,"width":7680,"height":2},
			{"type":"color","color":"red","x":160,"y":0},
			{"type":"color","color":"transparent"},
			{"type":"color","color":"red","opacity":0},
			{"type":"color","color":"red","start":0.31,"duration":0.05}]}`, nil)
		require.NoError(t, err)
		assert.Equal(t, 1, strings.Count(filterGraph(cmd), "color="), filterGraph(cmd))
		assert.NotContains(t, filterGraph(cmd), "overlay")
	})

	t.Run("hidden layers are still checked", func(t *testing.T) {
		t.Parallel()
		_, _, err := planOf(t, `{"width":16,"height":16,"fps":1,"layers":[{"type":"text","text":"a","font":"x","duration":1},{"type":"color","color":"red","duration":1}]}`,
			map[string]Media{"x": clipMedia})
		var me *MediaError
		require.ErrorAs(t, err, &me)
		assert.Equal(t, "composition.layers[0].font", me.Field)
	})
}

func TestPlanWebM(t *testing.T) {
	t.Parallel()
	_, cmd, err := planOf(t, `{"width":16,"height":16,"fps":1,"duration":1,"format":"webm","layers":[]}`, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{
		"-filter_complex", "color=c=0x000000FF:s=16x16:r=1:d=1[base];anullsrc=r=48000:cl=stereo,atrim=end=1[abase];[base]format=yuv420p[vout];[abase]amix=inputs=1:duration=first:normalize=0,aresample=48000,asetnsamples=n=960:p=0[aout]",
		"-map", "[vout]", "-map", "[aout]", "-t", "1", "-r", "1",
		"-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-row-mt", "1", "-b:v", "0", "-crf", "33", "-pix_fmt", "yuv420p",
		"-c:a", "libopus", "-b:a", "96k", "-ar", "48000", "-f", "webm",
		"file:/w/out.webm",
	}, cmd.Args)
	assert.Empty(t, cmd.Files)
}

func TestPlanScale(t *testing.T) {
	t.Parallel()
	for size, want := range map[string]string{
		`"width":40,"height":30`: "scale=w=40:h=30,",
		`"width":40`:             `scale=w=40:h=min(8192\,max(1\,trunc(ow*ih/iw+0.5))),`,
		`"height":30`:            `scale=w=min(8192\,max(1\,trunc(oh*iw/ih+0.5))):h=30,`,
	} {
		_, cmd, err := planOf(t, `{"width":16,"height":16,"fps":1,"layers":[{"type":"image","src":"pic","duration":1,`+size+`}]}`,
			map[string]Media{"pic": pictureMedia})
		require.NoError(t, err)
		assert.Contains(t, filterGraph(cmd), "[0:v]"+want, size)
	}
	_, cmd, err := planOf(t, `{"width":16,"height":16,"fps":1,"layers":[{"type":"image","src":"pic","duration":1}]}`, map[string]Media{"pic": pictureMedia})
	require.NoError(t, err)
	assert.NotContains(t, filterGraph(cmd), "scale", "natural size")
}

func TestFrameWindow(t *testing.T) {
	t.Parallel()
	cases := []struct {
		start, duration float64
		fps             int
		first, end      int
		enable          string
	}{
		{0, 1, 10, 0, 10, "enable='between(t,-0.05,0.95)'"},
		{0.5, 0.5, 10, 5, 10, "enable='between(t,0.45,0.95)'"},
		{0.25, 0.5, 10, 3, 8, "enable='between(t,0.25,0.75)'"},
		// 0.7*10 is 7.000000000000001: still frame 7.
		{0.7, 0.1, 10, 7, 8, "enable='between(t,0.65,0.75)'"},
		{0.1, 0.2, 30, 3, 9, "enable='between(t,0.08333333333333333,0.2833333333333333)'"},
		// Shorter than a frame, between frames: no frame.
		{0.31, 0.05, 10, 4, 4, "enable='between(t,0.35,0.35)'"},
		{599.999999, 0.000001, 60, 36000, 36000, "enable='between(t,599.9916666666667,599.9916666666667)'"},
	}
	for _, tc := range cases {
		w := frameWindow(Layer{Start: tc.start, Duration: tc.duration}, tc.fps)
		assert.Equal(t, tc.first, w.first, "first frame of %v+%v at %d fps", tc.start, tc.duration, tc.fps)
		assert.Equal(t, tc.end, w.end, "end of %v+%v at %d fps", tc.start, tc.duration, tc.fps)
		assert.Equal(t, tc.end-tc.first, w.frames())
		assert.Equal(t, tc.enable, w.enable())
	}
}

// TestPlanTextIsLiteral checks that no text, however hostile, reaches the
// filter graph or a file: kino draws it into a picture, and the graph is
// that of a picture placed on the frame.
func TestPlanTextIsLiteral(t *testing.T) {
	t.Parallel()
	place := regexp.MustCompile(`overlay=x=[0-9]+:y=[0-9]+:`)
	plain := func(text string) string {
		_, cmd, err := planOf(t, `{"width":64,"height":64,"fps":1,"layers":[{"type":"text","duration":1,"fontSize":8,"text":`+string(mustJSON(t, text))+`}]}`, nil)
		require.NoError(t, err)
		assert.Len(t, cmd.Files, 1)
		assert.Contains(t, cmd.Files, "text-0.png")
		return place.ReplaceAllString(filterGraph(cmd), "overlay=x=X:y=Y:")
	}
	want := plain("word")
	for _, text := range []string{
		`it's`, `a:b`, `back\slash`, `%{pts}`, `%{eif\:1+1\:d}`, `[out]`, `a;b`, `a,b`, `'; drawtext=text=x [v0]`,
		"tab\there", `\'`, `''''`, "ünïcödé ✓ 漢字", "%%", "%{localtime}", "$(rm -rf /)", "-y",
	} {
		assert.Equal(t, want, plain(text), "text %q", text)
	}
}

// TestPlanPathsAreEscaped: a font at any path is read by kino, and
// neither its path nor the work folder's reaches the graph.
func TestPlanPathsAreEscaped(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(testFont)
	require.NoError(t, err)
	font := filepath.Join(t.TempDir(), `it's:a,b;[c]\d`)
	require.NoError(t, os.WriteFile(font, data, 0o600))
	s, err := Compile("provider_a", []byte(`{"width":16,"height":16,"fps":1,"layers":[{"type":"text","text":"x","duration":1,"font":"https://a.test/f"}]}`), nil, DefaultLimits())
	require.NoError(t, err)
	cmd, err := Plan(context.Background(), s, inputs(map[string]Media{"s0": {Path: font, Font: true}}, "/f/unused.ttf"), `/w/x'y:z`, "/w/out.mp4")
	require.NoError(t, err)
	assert.Contains(t, cmd.Args, `file:/w/x'y:z/text-0.png`)
	assert.NotContains(t, filterGraph(cmd), "it's")
	assert.NotContains(t, filterGraph(cmd), "x'y")
}

func TestPlanMediaThatDoesNotFit(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		layer  string
		media  Media
		field  string
		inMsgs string
	}{
		{"audio layer without sound", `{"type":"audio","src":"x","duration":1}`, pictureMedia, "composition.layers[0].src", "no sound"},
		{"image layer without picture", `{"type":"image","src":"x","duration":1}`, toneMedia, "composition.layers[0].src", "no picture"},
		{"video layer without picture", `{"type":"video","src":"x","duration":1}`, toneMedia, "composition.layers[0].src", "no picture"},
		{"font that is not a font", `{"type":"text","text":"a","font":"x","duration":1}`, clipMedia, "composition.layers[0].font", "not a TrueType"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, _, err := planOf(t, `{"width":16,"height":16,"fps":1,"layers":[`+tc.layer+`]}`, map[string]Media{"x": tc.media})
			var me *MediaError
			require.ErrorAs(t, err, &me)
			assert.Equal(t, tc.field, me.Field)
			assert.Contains(t, me.Message, tc.inMsgs)
		})
	}

	t.Run("unified font field", func(t *testing.T) {
		t.Parallel()
		s, err := Compile("unified", []byte(`{"output":{"width":16,"height":16,"fps":1},"tracks":[{"clips":[{"asset":{"type":"text","text":"a","font":"https://a.test/f"},"length":1}]}]}`), nil, DefaultLimits())
		require.NoError(t, err)
		_, err = Plan(context.Background(), s, inputs(map[string]Media{"s0": clipMedia}, "/f.ttf"), "/w", "/w/o.mp4")
		var me *MediaError
		require.ErrorAs(t, err, &me)
		assert.Equal(t, "composition.tracks[0].clips[0].asset.font", me.Field)
	})

	t.Run("missing download", func(t *testing.T) {
		t.Parallel()
		s, err := Compile("provider_a", []byte(`{"width":16,"height":16,"fps":1,"layers":[{"type":"image","src":"https://a.test/x","duration":1}]}`), nil, DefaultLimits())
		require.NoError(t, err)
		_, err = Plan(context.Background(), s, inputs(map[string]Media{}, "/f.ttf"), "/w", "/w/o.mp4")
		require.Error(t, err)
		var me *MediaError
		assert.False(t, errors.As(err, &me), "a caller's mistake, not the media's")
	})
}

// TestPlanSoundOfVideos checks when a video layer's sound joins the mix.
func TestPlanSoundOfVideos(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		layer string
		media Media
		mixed bool
	}{
		"video with sound":     {`{"type":"video","src":"x","duration":1}`, clipMedia, true},
		"muted video":          {`{"type":"video","src":"x","duration":1,"volume":0}`, clipMedia, false},
		"video without sound":  {`{"type":"video","src":"x","duration":1}`, Media{Path: "/m/v", Format: "mov", HasVideo: true}, false},
		"image layer of video": {`{"type":"image","src":"x","duration":1}`, clipMedia, false},
	}
	for name, tc := range cases {
		_, cmd, err := planOf(t, `{"width":16,"height":16,"fps":1,"layers":[`+tc.layer+`]}`, map[string]Media{"x": tc.media})
		require.NoError(t, err, name)
		graph := filterGraph(cmd)
		assert.Equal(t, tc.mixed, strings.Contains(graph, "[0:a]"), name)
		assert.Equal(t, tc.mixed, strings.Contains(graph, "amix=inputs=2:"), name)
	}
}

// TestPlanFadeStartsAreNeverNegative: ffmpeg refuses a negative fade
// start, which a fade as long as its layer could produce by rounding.
func TestPlanFadeStartsAreNeverNegative(t *testing.T) {
	t.Parallel()
	s := &Scene{Width: 16, Height: 16, FPS: 10, Duration: 1, Background: "0x000000FF", Format: "mp4", Layers: []Layer{
		{Kind: KindColor, Color: "0xFFFFFFFF", Duration: 0.3, FadeOut: 0.30000000000000004, Opacity: 1, X: Pos{Center: true}, Y: Pos{Center: true}},
		{Kind: KindAudio, Source: "s0", Duration: 0.3, FadeOut: 0.30000000000000004, Volume: 1},
	}}
	cmd, err := Plan(context.Background(), s, inputs(map[string]Media{"s0": toneMedia}, "/f.ttf"), "/w", "/w/o.mp4")
	require.NoError(t, err)
	graph := filterGraph(cmd)
	assert.Contains(t, graph, "fade=t=out:st=0:")
	assert.Contains(t, graph, "afade=t=out:st=0:")
	assert.NotContains(t, graph, "st=-")
}
