package engine

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCompileOutputs reads the output fields of both formats: every format,
// the frame of a still, the poster and thumbnail of a video.
func TestCompileOutputs(t *testing.T) {
	t.Parallel()
	for _, format := range formatNames {
		s, err := Compile("provider_a", []byte(`{"width":16,"height":16,"fps":1,"duration":2,"format":"`+format+`","layers":[]}`), nil, DefaultLimits())
		require.NoError(t, err, format)
		assert.Equal(t, format, s.Format)
	}

	s, err := Compile("provider_a", []byte(`{"width":1920,"height":1080,"fps":25,"duration":4,"format":"mp4",
		"poster":{"capture":1.5},"thumbnail":{"capture":2,"scale":0.1}, "layers":[]}`), nil, DefaultLimits())
	require.NoError(t, err)
	assert.Equal(t, &Capture{Time: 1.5, Width: 1920, Height: 1080, Field: "composition.poster"}, s.Poster, "a poster has the video's size")
	// 192 × 108.
	assert.Equal(t, &Capture{Time: 2, Width: 192, Height: 108, Field: "composition.thumbnail"}, s.Thumbnail)

	s, err = Compile("unified", []byte(`{"output":{"width":1280,"height":720,"fps":30,"duration":3,"format":"gif",
		"poster":{},"thumbnail":{"capture":null}},"tracks":[]}`), nil, DefaultLimits())
	require.NoError(t, err)
	assert.Equal(t, &Capture{Width: 1280, Height: 720, Field: "composition.output.poster"}, s.Poster, "capture defaults to the first frame")
	assert.Equal(t, &Capture{Width: 320, Height: 180, Field: "composition.output.thumbnail"}, s.Thumbnail, "a quarter of the video by default")

	s, err = Compile("unified", []byte(`{"output":{"width":100,"height":30,"fps":10,"format":"png","frameTime":0.75},
		"tracks":[{"clips":[{"asset":{"type":"color","color":"red"},"length":1}]}]}`), nil, DefaultLimits())
	require.NoError(t, err)
	assert.True(t, s.Still())
	assert.Equal(t, 0.75, s.FrameTime)
	assert.Nil(t, s.Poster)

	// The frame on screen: frames are at n/fps and last 1/fps.
	s = &Scene{FPS: 10, Duration: 1.25}
	for at, frame := range map[float64]int{0: 0, 0.09: 0, 0.1: 1, 0.7: 7, 0.3: 3, 1.2: 12, 1.249999: 12} {
		assert.Equal(t, frame, s.frameShownAt(at), "frame at %v s", at)
	}
	s = &Scene{FPS: 1, Duration: 2}
	assert.Equal(t, 1, s.frameShownAt(1.999999), "never past the last frame")

	for w, want := range map[int]int{1920: 480, 16: 4, 18: 4, 22: 6, 8: 2} {
		assert.Equal(t, want, scaled(w, 0.25), "a quarter of %d", w)
	}
	assert.Equal(t, 2, scaled(16, 0.001), "at least 2 pixels")
}

func TestCompileOutputRejects(t *testing.T) {
	t.Parallel()
	a := func(extra string) []byte {
		return []byte(`{"width":64,"height":64,"fps":10,"duration":2,` + extra + `,"layers":[]}`)
	}
	u := func(extra string) []byte {
		return []byte(`{"output":{"width":64,"height":64,"fps":10,"duration":2,` + extra + `},"tracks":[]}`)
	}
	cases := []struct {
		name, provider string
		body           []byte
		field, inMsg   string
	}{
		{"unknown format", "provider_a", a(`"format":"avi"`), "composition.format", "mp4, webm, mov, gif, png, jpg, mp3, wav"},
		{"jpeg is jpg", "unified", u(`"format":"jpeg"`), "composition.output.format", "one of"},
		{"frame time of a video", "provider_a", a(`"format":"mp4","frameTime":1`), "composition.frameTime", "only for png and jpg"},
		{"frame time without format", "unified", u(`"frameTime":1`), "composition.output.frameTime", "only for png and jpg"},
		{"frame time of audio", "provider_a", a(`"format":"wav","frameTime":1`), "composition.frameTime", "only for png and jpg"},
		{"frame time not a number", "provider_a", a(`"format":"png","frameTime":"1s"`), "composition.frameTime", "number"},
		{"frame time negative", "provider_a", a(`"format":"png","frameTime":-1`), "composition.frameTime", "between 0 and 600"},
		{"frame time at the end", "provider_a", a(`"format":"png","frameTime":2`), "composition.frameTime", "at or after the end of the composition (2 s); the last frame starts at 1.9 s"},
		{"frame time after the end", "unified", u(`"format":"jpg","frameTime":5`), "composition.output.frameTime", "at or after the end"},
		{"poster of a still", "provider_a", a(`"format":"png","poster":{}`), "composition.poster", "only for video outputs"},
		{"thumbnail of audio", "unified", u(`"format":"mp3","thumbnail":{}`), "composition.output.thumbnail", "only for video outputs"},
		{"poster not an object", "provider_a", a(`"poster":true`), "composition.poster", "object"},
		{"poster capture at the end", "provider_a", a(`"poster":{"capture":2}`), "composition.poster.capture", "at or after the end"},
		{"thumbnail capture after the end", "unified", u(`"format":"webm","thumbnail":{"capture":3}`), "composition.output.thumbnail.capture", "at or after the end"},
		{"poster capture negative", "provider_a", a(`"poster":{"capture":-0.5}`), "composition.poster.capture", "between 0 and 600"},
		{"poster has no scale", "provider_a", a(`"poster":{"scale":0.5}`), "composition.poster.scale", "unknown field"},
		{"thumbnail scale zero", "unified", u(`"thumbnail":{"scale":0}`), "composition.output.thumbnail.scale", "more than 0"},
		{"thumbnail scale above 1", "provider_a", a(`"thumbnail":{"scale":1.5}`), "composition.thumbnail.scale", "between 0 and 1"},
		{"thumbnail typo", "unified", u(`"thumbnail":{"captrue":1}`), "composition.output.thumbnail.captrue", "unknown field"},
		{"GIF too fast", "provider_a", []byte(`{"width":64,"height":64,"fps":60,"duration":1,"format":"gif","layers":[]}`), "composition.fps", "at most 50 for a GIF"},
		{"GIF too large", "unified", []byte(`{"output":{"width":1280,"height":720,"fps":25,"duration":10,"format":"gif"},"tracks":[]}`),
			"composition.output.format", "a GIF of 1280×720 with 250 frames holds 230.4 million pixels; at most 100 million"},
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

	// The largest GIF allowed compiles: 100 million pixels exactly.
	_, err := Compile("provider_a", []byte(`{"width":1000,"height":1000,"fps":50,"duration":2,"format":"gif","layers":[]}`), nil, DefaultLimits())
	require.NoError(t, err)
}

// TestPlanOutputs pins the end of the command of each output format: what
// is mapped, the frame a still keeps, the palette of a GIF, the codecs.
func TestPlanOutputs(t *testing.T) {
	t.Parallel()
	const layers = `"layers":[{"type":"video","src":"clip","duration":2,"volume":1},{"type":"audio","src":"tone","duration":1}]`
	media := map[string]Media{"clip": clipMedia, "tone": toneMedia}
	cases := []struct {
		name, extra string
		// graph is the end of the filter graph, from the chain after the
		// last layer's overlay; args end the command.
		graph []string
		args  []string
	}{
		{"webm with a transparent background keeps alpha", `"format":"webm","background":"transparent"`, []string{
			"[v0]format=yuva420p[vout]",
			"[abase][a0][a1]amix=inputs=3:duration=first:normalize=0,aresample=48000,asetnsamples=n=960:p=0[aout]",
		}, []string{"-map", "[vout]", "-map", "[aout]", "-t", "2", "-r", "10",
			"-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-row-mt", "1", "-b:v", "0", "-crf", "33", "-pix_fmt", "yuva420p",
			"-c:a", "libopus", "-b:a", "96k", "-ar", "48000", "-f", "webm", "file:/w/out.webm"}},
		{"mp4 with a transparent background has none", `"format":"mp4","background":"#00000000"`, []string{
			"[v0]format=yuv420p[vout]",
			"[abase][a0][a1]amix=inputs=3:duration=first:normalize=0,aresample=48000[aout]",
		}, nil},
		{"mov: ProRes 4444 with alpha", `"format":"mov","background":"#ff000080"`, []string{
			"[v0]format=yuva420p[vout]",
			"[abase][a0][a1]amix=inputs=3:duration=first:normalize=0,aresample=48000[aout]",
		}, []string{"-map", "[vout]", "-map", "[aout]", "-t", "2", "-r", "10",
			"-c:v", "prores_aw", "-profile:v", "4", "-vendor", "apl0", "-pix_fmt", "yuva444p10le",
			"-c:a", "pcm_s16le", "-ar", "48000", "-f", "mov", "file:/w/out.mov"}},
		{"mov, opaque", `"format":"mov"`, []string{
			"[v0]format=yuv420p[vout]",
			"[abase][a0][a1]amix=inputs=3:duration=first:normalize=0,aresample=48000[aout]",
		}, []string{"-map", "[vout]", "-map", "[aout]", "-t", "2", "-r", "10",
			"-c:v", "prores_aw", "-profile:v", "4", "-vendor", "apl0", "-pix_fmt", "yuv444p10le",
			"-c:a", "pcm_s16le", "-ar", "48000", "-f", "mov", "file:/w/out.mov"}},
		{"gif: one palette from every frame, no sound", `"format":"gif"`, []string{
			"[v0]format=yuv420p[gif]",
			"[gif]split[gifa][gifb]",
			"[gifa]palettegen=reserve_transparent=0:stats_mode=full[palette]",
			"[gifb][palette]paletteuse=dither=sierra2_4a:diff_mode=rectangle[vout]",
		}, []string{"-map", "[vout]", "-t", "2", "-r", "10", "-c:v", "gif", "-loop", "0", "-f", "gif", "file:/w/out.gif"}},
		{"transparent gif keeps a palette entry", `"format":"gif","background":"transparent"`, []string{
			"[v0]format=yuva420p[gif]",
			"[gif]split[gifa][gifb]",
			"[gifa]palettegen=reserve_transparent=1:stats_mode=full[palette]",
			"[gifb][palette]paletteuse=dither=sierra2_4a:diff_mode=rectangle[vout]",
		}, nil},
		{"png: the frame on screen at frameTime", `"format":"png","frameTime":1.55`, []string{
			"[v0]format=yuv420p,trim=start_frame=0:end_frame=1[vout]",
		}, []string{"-map", "[vout]", "-frames:v", "1", "-c:v", "png", "-pix_fmt", "rgb24", "-f", "image2pipe", "file:/w/out.png"}},
		{"transparent png", `"format":"png","background":"transparent"`, []string{
			"[v0]format=yuva420p,trim=start_frame=0:end_frame=1[vout]",
		}, []string{"-map", "[vout]", "-frames:v", "1", "-c:v", "png", "-pix_fmt", "rgba", "-f", "image2pipe", "file:/w/out.png"}},
		{"jpg has no alpha", `"format":"jpg","frameTime":0.1,"background":"transparent"`, []string{
			"[v0]format=yuv420p,trim=start_frame=0:end_frame=1[vout]",
		}, []string{"-map", "[vout]", "-frames:v", "1", "-c:v", "mjpeg", "-q:v", "2", "-pix_fmt", "yuvj420p", "-f", "image2pipe", "file:/w/out.jpg"}},
		{"mp4 with a poster and a thumbnail: one command, branches of one frame", `"poster":{"capture":1},"thumbnail":{"capture":0.25,"scale":0.5}`, []string{
			"[v0]format=yuv420p,split=3[vout][posterin][thumbnailin]",
			"[posterin]trim=start_frame=10:end_frame=11[poster]",
			"[thumbnailin]trim=start_frame=2:end_frame=3,scale=w=80:h=46[thumbnail]",
			"[abase][a0][a1]amix=inputs=3:duration=first:normalize=0,aresample=48000[aout]",
		}, []string{"-map", "[vout]", "-map", "[aout]", "-t", "2", "-r", "10",
			"-c:v", "libx264", "-preset", "veryfast", "-crf", "20", "-pix_fmt", "yuv420p",
			"-c:a", "aac", "-b:a", "128k", "-ar", "48000", "-movflags", "+faststart", "-f", "mp4", "file:/w/out.mp4",
			"-map", "[poster]", "-frames:v", "1", "-c:v", "mjpeg", "-q:v", "2", "-pix_fmt", "yuvj420p", "-f", "image2pipe", "file:/w/poster.jpg",
			"-map", "[thumbnail]", "-frames:v", "1", "-c:v", "mjpeg", "-q:v", "2", "-pix_fmt", "yuvj420p", "-f", "image2pipe", "file:/w/thumbnail.jpg"}},
		{"a transparent video's poster is a PNG with alpha", `"format":"webm","background":"transparent","poster":{}`, []string{
			"[v0]format=yuva420p,split=2[vout][posterin]",
			"[posterin]trim=start_frame=0:end_frame=1[poster]",
			"[abase][a0][a1]amix=inputs=3:duration=first:normalize=0,aresample=48000,asetnsamples=n=960:p=0[aout]",
		}, []string{"-map", "[poster]", "-frames:v", "1", "-c:v", "png", "-pix_fmt", "rgba", "-f", "image2pipe", "file:/w/poster.png"}},
		{"gif with a thumbnail: the capture branches off before the palette", `"format":"gif","thumbnail":{"scale":1}`, []string{
			"[v0]format=yuv420p,split=2[gif][thumbnailin]",
			"[thumbnailin]trim=start_frame=0:end_frame=1[thumbnail]",
			"[gif]split[gifa][gifb]",
			"[gifa]palettegen=reserve_transparent=0:stats_mode=full[palette]",
			"[gifb][palette]paletteuse=dither=sierra2_4a:diff_mode=rectangle[vout]",
		}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, cmd, err := planOf(t, `{"width":160,"height":90,"fps":10,"duration":2,`+tc.extra+`,`+layers+`}`, media)
			require.NoError(t, err)
			graph := filterGraph(cmd)
			at := strings.Index(graph, ";[v0]")
			require.GreaterOrEqual(t, at, 0, graph)
			assert.Equal(t, tc.graph, strings.Split(graph[at+1:], ";"))
			if tc.args != nil {
				assert.Equal(t, tc.args, cmd.Args[len(cmd.Args)-len(tc.args):])
			}
			_, err = checkGraph(graph, "/w", "/f/font.ttf")
			require.NoError(t, err)
		})
	}
}

// TestPlanSilentAndBlindOutputs: a GIF or a still has no sound, so no
// sound is read; an audio format has no picture, so nothing is drawn, but
// every layer is still checked and a video's sound still plays.
func TestPlanSilentAndBlindOutputs(t *testing.T) {
	t.Parallel()
	const layers = `"layers":[{"type":"image","src":"pic","duration":1},{"type":"video","src":"clip","duration":1,"volume":1},
		{"type":"text","text":"t","duration":1},{"type":"audio","src":"tone","duration":1}]`
	media := map[string]Media{"pic": pictureMedia, "clip": clipMedia, "tone": toneMedia}
	for _, format := range []string{"gif", "png", "jpg"} {
		_, cmd, err := planOf(t, `{"width":16,"height":16,"fps":10,"format":"`+format+`",`+layers+`}`, media)
		require.NoError(t, err, format)
		graph, args := filterGraph(cmd), strings.Join(cmd.Args, " ")
		assert.NotContains(t, graph, ":a]", format)
		assert.NotContains(t, graph, "anullsrc", format)
		assert.NotContains(t, args, "[aout]", format)
		assert.NotContains(t, args, "file:/m/tone", "%s: the audio layer's file is not read", format)
		assert.Contains(t, args, "file:/w/text-2.png", "%s: the text is drawn", format)
	}
	for _, format := range []string{"mp3", "wav"} {
		_, cmd, err := planOf(t, `{"width":16,"height":16,"fps":10,"format":"`+format+`",`+layers+`}`, media)
		require.NoError(t, err, format)
		graph, args := filterGraph(cmd), strings.Join(cmd.Args, " ")
		assert.Equal(t, "anullsrc=r=48000:cl=stereo,atrim=end=1[abase];"+
			"[0:a]aresample=48000,aformat=sample_fmts=fltp:channel_layouts=stereo,asetpts=PTS-STARTPTS,atrim=end=1,volume=1,adelay=delays=0S:all=1[a1];"+
			"[1:a]aresample=48000,aformat=sample_fmts=fltp:channel_layouts=stereo,asetpts=PTS-STARTPTS,atrim=end=1,volume=1,adelay=delays=0S:all=1[a3];"+
			"[abase][a1][a3]amix=inputs=3:duration=first:normalize=0,aresample=48000[aout]", graph, format)
		assert.NotContains(t, args, "[vout]", format)
		assert.NotContains(t, args, "file:/m/pic", "%s: the picture is not read", format)
	}
	_, cmd, err := planOf(t, `{"width":16,"height":16,"fps":10,"format":"mp3",`+layers+`}`, media)
	require.NoError(t, err)
	assert.Equal(t, []string{"-map", "[aout]", "-t", "1", "-c:a", "libmp3lame", "-b:a", "192k", "-ar", "48000", "-f", "mp3", "file:/w/out.mp3"},
		cmd.Args[len(cmd.Args)-13:])
	_, cmd, err = planOf(t, `{"width":16,"height":16,"fps":10,"format":"wav",`+layers+`}`, media)
	require.NoError(t, err)
	assert.Equal(t, []string{"-map", "[aout]", "-t", "1", "-c:a", "pcm_s16le", "-ar", "48000", "-f", "wav", "file:/w/out.wav"},
		cmd.Args[len(cmd.Args)-11:])

	// Layers that draw nothing are still checked.
	for _, format := range []string{"mp3", "gif"} {
		_, _, err := planOf(t, `{"width":16,"height":16,"fps":10,"format":"`+format+`","layers":[{"type":"text","text":"a","font":"x","duration":1},
			{"type":"audio","src":"y","duration":1}]}`, map[string]Media{"x": clipMedia, "y": pictureMedia})
		var me *MediaError
		require.ErrorAs(t, err, &me, format)
		assert.Equal(t, "composition.layers[0].font", me.Field, format)
		_, _, err = planOf(t, `{"width":16,"height":16,"fps":10,"format":"`+format+`","layers":[{"type":"audio","src":"y","duration":1}]}`,
			map[string]Media{"y": pictureMedia})
		require.ErrorAs(t, err, &me, format)
		assert.Equal(t, "composition.layers[0].src", me.Field, format)
	}
}
