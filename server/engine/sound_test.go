package engine

import (
	"context"
	"math"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kinohq/kino/server/ffmpeg"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// toneLevel is the level in dBFS of the sine at freq Hz in samples (48 kHz
// mono) from one time to another: the Goertzel filter's amplitude,
// blind to sounds at other frequencies.
func toneLevel(samples []float64, freq, from, to float64) float64 {
	s := samples[int(from*48000):int(to*48000)]
	w := 2 * math.Pi * freq / 48000
	var s1, s2 float64
	for _, x := range s {
		s1, s2 = x+2*math.Cos(w)*s1-s2, s1
	}
	power := s1*s1 + s2*s2 - 2*math.Cos(w)*s1*s2
	amplitude := 2 * math.Sqrt(power) / float64(len(s))
	return 20 * math.Log10(math.Max(amplitude, 1e-9))
}

// TestRenderDucking measures the music (440 Hz) where the voice (330 Hz)
// plays and where it does not: ducked by a margin under the layers it
// ducks under, and only under those.
func TestRenderDucking(t *testing.T) {
	if testing.Short() {
		t.Skip("renders with ffmpeg")
	}
	t.Parallel()
	music, voice := fixtureURL("music"), fixtureURL("voice")
	layers := func(duck map[string]any, twice bool) []any {
		ls := []any{
			map[string]any{"type": "audio", "src": music, "duck": duck},
			map[string]any{"type": "audio", "id": "vo", "src": voice, "start": 1.5, "duration": 1},
			map[string]any{"type": "video", "id": "clip", "src": fixtureURL("talk"), "start": 4, "duration": 1},
		}
		if twice {
			// The music in two halves, ducking the same way: they share
			// their key, and together are the music.
			ls[0].(map[string]any)["volume"] = 0.5
			ls = append(ls, map[string]any{"type": "audio", "src": music, "volume": 0.5, "duck": duck})
		}
		return ls
	}
	cases := []struct {
		name string
		duck map[string]any
		// twice plays the music on two layers that duck alike.
		twice bool
		// ducked says whether the music ducks under the voice at 1.5 s,
		// and under the video's sound at 4 s.
		ducked [2]bool
	}{
		{"under every other sound", map[string]any{}, false, [2]bool{true, true}},
		{"under the layers named", map[string]any{"under": []any{"vo"}, "level": 0.1, "attack": 0.05, "release": 0.3}, false, [2]bool{true, false}},
		{"two sounds under the same layers", map[string]any{"under": []any{"vo", "clip"}}, true, [2]bool{true, true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := renderFixtures(t, "provider_a", map[string]any{"width": 16, "height": 16, "fps": 5, "duration": 7, "layers": layers(tc.duck, tc.twice)})
			checkOutput(t, r, "mp4")
			samples := decodeMono(t, r.out)
			free := toneLevel(samples, 440, 0.2, 1.4)
			// A second after the last sound, the release is over.
			assert.InDelta(t, free, toneLevel(samples, 440, 6.2, 6.8), 0.5, "the music comes back after the sound")
			for i, at := range []float64{1.5, 4} {
				// From the end of the attack to the end of the voice.
				under := toneLevel(samples, 440, at+0.25, at+1)
				assert.Greater(t, toneLevel(samples, 330, at+0.25, at+1), free-3, "the voice plays at %v s", at)
				if tc.ducked[i] {
					assert.Less(t, under, free-8, "the music ducks under the sound at %v s: %.1f dB, %.1f dB without it", at, under, free)
				} else {
					assert.InDelta(t, free, under, 0.5, "the music does not duck under the sound at %v s", at)
				}
			}
		})
	}
}

var integratedRE = regexp.MustCompile(`(?s)Integrated loudness:\s+I:\s+(-?[0-9.]+) LUFS.*True peak:\s+Peak:\s+(-?[0-9.]+|-inf) dBFS`)

// loudnessOf measures a file's integrated loudness (LUFS) and true peak
// (dBTP) with ffmpeg's ebur128 filter.
func loudnessOf(t *testing.T, path string) (float64, float64) {
	t.Helper()
	out, err := exec.Command("ffmpeg", "-hide_banner", "-nostats", "-i", path, "-map", "0:a", "-filter:a", "ebur128=peak=true", "-f", "null", "-").CombinedOutput()
	require.NoError(t, err, string(out))
	m := integratedRE.FindSubmatch(out)
	require.NotNil(t, m, "no ebur128 summary in %s", out)
	i, _ := strconv.ParseFloat(string(m[1]), 64)
	tp, err := strconv.ParseFloat(string(m[2]), 64)
	if err != nil {
		tp = math.Inf(-1)
	}
	return i, tp
}

// TestRenderLoudness checks the integrated loudness of outputs against
// their target, as ebur128 measures it; the same composition without
// loudness is far from it.
func TestRenderLoudness(t *testing.T) {
	if testing.Short() {
		t.Skip("renders with ffmpeg")
	}
	t.Parallel()
	music, voice := fixtureURL("music"), fixtureURL("voice")
	cases := []struct {
		name     string
		provider string
		comp     map[string]any
		target   float64
		// within is how close one pass gets: on steady sound, within a
		// few tenths; where speech starts over ducked music, the gain it
		// chose before the speech leaves the whole about 1 LU low.
		within float64
	}{
		{"provider_a, default target", "provider_a", map[string]any{"width": 16, "height": 16, "fps": 5, "duration": 6, "loudness": map[string]any{},
			"layers": []any{map[string]any{"type": "audio", "src": music, "volume": 0.1}}}, -16, 0.5},
		{"unified, webm, -23 LUFS", "unified", map[string]any{
			"output": map[string]any{"width": 16, "height": 16, "fps": 5, "duration": 6, "format": "webm", "loudness": map[string]any{"target": -23, "truePeak": -2}},
			"tracks": []any{
				map[string]any{"clips": []any{map[string]any{"asset": map[string]any{"type": "audio", "src": voice, "volume": 4}, "start": 2, "length": 1}}},
				map[string]any{"clips": []any{map[string]any{"asset": map[string]any{"type": "audio", "src": music, "volume": 2, "duck": map[string]any{}}}}},
			}}, -23, 1.5},
		{"an mp3, -20 LUFS", "provider_a", map[string]any{"width": 16, "height": 16, "fps": 5, "duration": 6, "format": "mp3", "loudness": map[string]any{"target": -20},
			"layers": []any{map[string]any{"type": "audio", "src": music, "volume": 3, "loop": true}}}, -20, 0.5},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := renderFixtures(t, tc.provider, tc.comp)
			integrated, peak := loudnessOf(t, r.out)
			assert.InDelta(t, tc.target, integrated, tc.within, "integrated loudness")
			lo := r.scene.Loudness
			require.NotNil(t, lo)
			// The encoder may overshoot the limiter a little.
			assert.Less(t, peak, lo.TruePeak+0.5, "true peak")

			r.scene.Loudness = nil
			plain := renderScene(t, r.scene)
			integrated, _ = loudnessOf(t, plain.out)
			assert.Greater(t, math.Abs(integrated-tc.target), 6.0, "without loudness: %.1f LUFS", integrated)
		})
	}
}

// TestRenderAudioSpeedAndLoop checks on the sound that a loop repeats a
// file shorter than its layer and that speed 2 plays a file in half the
// time, at its own pitch.
func TestRenderAudioSpeedAndLoop(t *testing.T) {
	if testing.Short() {
		t.Skip("renders with ffmpeg")
	}
	t.Parallel()
	require.InDelta(t, 1, fixtures(t)["voice"].Duration, 0.01)
	voice := fixtureURL("voice")
	r := renderFixtures(t, "provider_a", map[string]any{"width": 16, "height": 16, "fps": 5, "layers": []any{
		map[string]any{"type": "audio", "src": voice, "duration": 3, "loop": true},
		map[string]any{"type": "audio", "src": voice, "start": 3, "duration": 1, "speed": 2},
	}})
	samples := decodeMono(t, r.out)
	for _, span := range [][2]float64{{0.1, 0.9}, {1.1, 1.9}, {2.1, 2.9}, {3.05, 3.45}} {
		assert.Greater(t, toneLevel(samples, 330, span[0], span[1]), -30.0, "330 Hz from %v s to %v s", span[0], span[1])
		assert.Less(t, toneLevel(samples, 660, span[0], span[1]), -50.0, "no 660 Hz from %v s to %v s: the pitch is kept", span[0], span[1])
	}
	assert.Less(t, rms(samples[int(3.55*48000):int(3.95*48000)]), 0.001, "at speed 2 the file ends half-way through the layer")
}

// TestPlanPlayback pins what speed and loop do to the inputs and chains.
func TestPlanPlayback(t *testing.T) {
	t.Parallel()
	media := map[string]Media{"clip": clipMedia, "tone": toneMedia, "pic": pictureMedia}
	cases := []struct {
		name, layers string
		parts        []string
	}{
		{"speed 2 reads twice the source, its sound at twice the tempo", `{"type":"video","src":"clip","duration":1.5,"speed":2,"trimStart":1}`, []string{
			"-ss 1 -t 3.2 -i file:/m/clip",
			"[0:v]setpts=(PTS-STARTPTS)/2,fps=10,",
			"asetpts=PTS-STARTPTS,atempo=2,atrim=end=1.5,",
		}},
		{"below half speed, two atempo", `{"type":"audio","src":"tone","duration":1,"speed":0.3}`, []string{
			"-ss 0 -t 0.3 -i file:/m/tone",
			"asetpts=PTS-STARTPTS,atempo=0.547723,atempo=0.547723,atrim=end=1,",
		}},
		{"speed 1 is no speed", `{"type":"audio","src":"tone","duration":1,"speed":1}`, []string{
			"-ss 0 -t 1 -i file:/m/tone",
			"asetpts=PTS-STARTPTS,atrim=end=1,",
		}},
		{"a loop reads the file over and over", `{"type":"video","src":"clip","duration":1,"loop":true},{"type":"audio","src":"tone","duration":1,"loop":true,"speed":4}`, []string{
			"-stream_loop -1 -ss 0 -t 1.1 -i file:/m/clip",
			"-stream_loop -1 -ss 0 -t 4 -i file:/m/tone",
		}},
		{"a hidden video's sound at its speed", `{"type":"video","src":"clip","duration":1,"speed":0.5},{"type":"color","color":"red"}`, []string{
			"-ss 0 -t 0.5 -i file:/m/clip",
			"atempo=0.5,atrim=end=1,",
		}},
		{"a picture plays no faster", `{"type":"video","src":"pic","duration":1,"speed":2,"loop":true}`, []string{
			"-f png_pipe -max_pixels 50000000 -threads 1 -i file:/m/pic",
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, cmd, err := planOf(t, `{"width":160,"height":90,"fps":10,"duration":1.5,"layers":[`+tc.layers+`]}`, media)
			require.NoError(t, err)
			args := strings.Join(cmd.Args, " ")
			for _, part := range tc.parts {
				assert.Contains(t, args, part)
			}
		})
	}
}

// TestPlanDucking pins the graph of ducking: each key sound split, the
// keys mixed and padded to the end, the compressor between the ducking
// sound and the mix.
func TestPlanDucking(t *testing.T) {
	t.Parallel()
	media := map[string]Media{"clip": clipMedia, "tone": toneMedia, "still": pictureMedia}
	cases := []struct {
		name, layers string
		graph        []string
	}{
		{"under every other sound", `{"type":"audio","src":"tone","duck":{}},{"type":"video","src":"clip","start":0.5,"duration":1},{"type":"text","text":"t"}`, []string{
			"[a1]asplit=2[a1c0][a1c1]",
			"[a1c0]apad=whole_dur=2[k0]",
			"[a0][k0]sidechaincompress=threshold=0.004:ratio=20:attack=100:release=500:mix=0.75[d0]",
			"[abase][d0][a1c1]amix=inputs=3:duration=first:normalize=0,aresample=48000[aout]",
		}},
		{"under the layers named, several keys mixed", `{"type":"audio","src":"tone","id":"a"},{"type":"audio","src":"tone","duck":{"under":["c","a"],"level":0.1,"attack":0.02,"release":1.5}},{"type":"video","src":"clip","id":"c"},{"type":"audio","src":"tone"}`, []string{
			"[a0]asplit=2[a0c0][a0c1]",
			"[a2]asplit=2[a2c0][a2c1]",
			// Each split sound hands its copies out in order, as the
			// layers ask for them: a2's first goes to the key.
			"[a2c0][a0c1]amix=inputs=2:duration=longest:normalize=0,apad=whole_dur=2[k1]",
			"[a1][k1]sidechaincompress=threshold=0.004:ratio=20:attack=20:release=1500:mix=0.9[d1]",
			"[abase][a0c0][d1][a2c1][a3]amix=inputs=5:",
		}},
		{"a ducking sound keys another with its own sound, before it ducks", `{"type":"audio","src":"tone","id":"m1","duck":{"under":["m2"]}},{"type":"audio","src":"tone","id":"m2","duck":{"under":["m1"]}}`, []string{
			"[a0]asplit=2[a0c0][a0c1]",
			"[a1]asplit=2[a1c0][a1c1]",
			"[a1c0]apad=whole_dur=2[k0]",
			"[a0c0][k0]sidechaincompress=",
			"[a0c1]apad=whole_dur=2[k1]",
			"[a1c1][k1]sidechaincompress=",
			"[abase][d0][d1]amix=inputs=3:",
		}},
		{"keys without sound: nothing to duck under", `{"type":"audio","src":"tone","duck":{}},{"type":"video","src":"clip","volume":0},{"type":"video","src":"still"}`, []string{
			"[abase][a0]amix=inputs=2:duration=first:normalize=0,aresample=48000[aout]",
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, cmd, err := planOf(t, `{"width":160,"height":90,"fps":10,"duration":2,"layers":[`+tc.layers+`]}`, media)
			require.NoError(t, err)
			graph := filterGraph(cmd)
			for _, part := range tc.graph {
				assert.Contains(t, graph, part)
			}
			_, err = checkGraph(graph, "/w", "/f/font.ttf")
			assert.NoError(t, err)
		})
	}
}

// TestPlanDuckingSharesKeys: sounds that duck under the same sounds (as
// every sound that ducks under all the others does) share one mix of
// them, split, instead of each mixing them again: the graph grows with
// the layers, not with ducking layers times key layers.
func TestPlanDuckingSharesKeys(t *testing.T) {
	t.Parallel()
	media := map[string]Media{"clip": clipMedia, "tone": toneMedia}
	var layers []string
	for range 3 {
		layers = append(layers, `{"type":"audio","src":"tone","duck":{}}`, `{"type":"video","src":"clip"}`)
	}
	_, cmd, err := planOf(t, `{"width":160,"height":90,"fps":10,"duration":2,"layers":[`+strings.Join(layers, ",")+`]}`, media)
	require.NoError(t, err)
	graph := filterGraph(cmd)
	for _, part := range []string{
		"[a1]asplit=2[a1c0][a1c1]",
		"[a1c0][a3c0][a5c0]amix=inputs=3:duration=longest:normalize=0,apad=whole_dur=2[k0]",
		"[k0]asplit=3[k0s0][k0s1][k0s2]",
		"[a0][k0s0]sidechaincompress=",
		"[a2][k0s1]sidechaincompress=",
		"[a4][k0s2]sidechaincompress=",
		"[abase][d0][a1c1][d2][a3c1][d4][a5c1]amix=inputs=7:",
	} {
		assert.Contains(t, graph, part)
	}
	assert.Equal(t, 2, strings.Count(graph, "amix="), "the keys mixed once, then the output")
	_, err = checkGraph(graph, "/w", "/f/font.ttf")
	assert.NoError(t, err)
}

func TestPlanLoudness(t *testing.T) {
	t.Parallel()
	_, cmd, err := planOf(t, `{"width":16,"height":16,"fps":1,"duration":1,"loudness":{"target":-23,"truePeak":-1},"layers":[{"type":"audio","src":"tone"}]}`,
		map[string]Media{"tone": toneMedia})
	require.NoError(t, err)
	assert.Contains(t, filterGraph(cmd),
		"[abase][a0]amix=inputs=2:duration=first:normalize=0,loudnorm=I=-23:TP=-1:LRA=11,aformat=channel_layouts=stereo,aresample=48000[aout]")
}

// TestPlanLoudnessPass: the first pass is the mix measured by loudnorm
// into nothing, and there is none to run when the scene asks for no
// loudness, mixes nothing, or was measured already.
func TestPlanLoudnessPass(t *testing.T) {
	t.Parallel()
	pass := func(comp string, media map[string]Media, measured *ffmpeg.Loudness) *Command {
		t.Helper()
		s, _, err := planOf(t, comp, media)
		require.NoError(t, err)
		if measured != nil {
			s.Loudness.Measured = measured
		}
		keyed := map[string]Media{}
		for _, src := range s.Sources() {
			keyed[src.Key] = toneMedia
		}
		cmd, err := PlanLoudness(context.Background(), s, inputs(keyed, testFont), "/w")
		require.NoError(t, err)
		return cmd
	}
	tone := `{"width":16,"height":16,"fps":1,"duration":1,"format":"mp4","loudness":{"target":-23,"truePeak":-1},"layers":[{"type":"audio","src":"tone"}]}`
	cmd := pass(tone, map[string]Media{"tone": toneMedia}, nil)
	require.NotNil(t, cmd)
	assert.Contains(t, filterGraph(cmd), "loudnorm=I=-23:TP=-1:LRA=11:print_format=json")
	assert.Equal(t, []string{"-f", "wav", "file:" + os.DevNull}, cmd.Args[len(cmd.Args)-3:], "the mix alone, into nothing")

	assert.Nil(t, pass(tone, map[string]Media{"tone": toneMedia}, &ffmpeg.Loudness{Integrated: -30}), "measured already")
	assert.Nil(t, pass(`{"width":16,"height":16,"fps":1,"duration":1,"layers":[{"type":"audio","src":"tone"}]}`,
		map[string]Media{"tone": toneMedia}, nil), "no loudness asked")
	assert.Nil(t, pass(`{"width":16,"height":16,"fps":1,"duration":1,"loudness":{},"layers":[{"type":"text","text":"x"}]}`, nil, nil),
		"silence stays silence")
}

// TestRenderSoundEdges renders sound at the edges of the rules: each
// compiles, so each must render exactly.
func TestRenderSoundEdges(t *testing.T) {
	if testing.Short() {
		t.Skip("renders with ffmpeg")
	}
	t.Parallel()
	music, voice, talk := fixtureURL("music"), fixtureURL("voice"), fixtureURL("talk")
	comp := func(extra map[string]any, layers ...any) map[string]any {
		c := map[string]any{"width": 16, "height": 16, "fps": 10, "duration": 2, "layers": append([]any{}, layers...)}
		for k, v := range extra {
			c[k] = v
		}
		return c
	}
	cases := map[string]map[string]any{
		"two sounds ducking under each other": comp(nil,
			map[string]any{"type": "audio", "src": music, "id": "a", "duck": map[string]any{"under": []any{"b"}}},
			map[string]any{"type": "audio", "src": voice, "id": "b", "duck": map[string]any{"under": []any{"a"}, "level": 0}}),
		"ducking under silent layers": comp(nil,
			map[string]any{"type": "audio", "src": music, "duck": map[string]any{}},
			map[string]any{"type": "video", "src": talk, "volume": 0},
			map[string]any{"type": "video", "src": fixtureURL("cells")}),
		"keys that end early and start late, the ducked sound short": comp(nil,
			map[string]any{"type": "audio", "src": voice, "start": 0, "duration": 0.3},
			map[string]any{"type": "audio", "src": music, "start": 0.5, "duration": 0.5, "duck": map[string]any{"attack": 0.001, "release": 9}},
			map[string]any{"type": "video", "src": talk, "start": 1.9, "duration": 0.1}),
		"a hidden video's sound keys the ducking": comp(nil,
			map[string]any{"type": "video", "src": talk, "speed": 0.5},
			map[string]any{"type": "color", "color": "red"},
			map[string]any{"type": "audio", "src": music, "speed": 4, "loop": true, "duck": map[string]any{}}),
		"loudness of silence": comp(map[string]any{"loudness": map[string]any{"target": -5, "truePeak": 0}},
			map[string]any{"type": "text", "text": "no sound"}),
		"loudness of a muted video": comp(map[string]any{"loudness": map[string]any{}},
			map[string]any{"type": "video", "src": talk, "volume": 0}),
		"loudness at its lowest, shorter than its look-ahead": comp(map[string]any{"duration": 0.5, "loudness": map[string]any{"target": -70, "truePeak": -9}},
			map[string]any{"type": "audio", "src": voice, "loop": true}),
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, format := range []string{"mp4", "webm"} {
				c["format"] = format
				checkOutput(t, renderFixtures(t, "provider_a", c), format)
			}
		})
	}
}

func TestPlanLoudnessWebM(t *testing.T) {
	t.Parallel()
	_, cmd, err := planOf(t, `{"width":16,"height":16,"fps":1,"duration":1,"format":"webm","loudness":{},"layers":[{"type":"audio","src":"tone"}]}`,
		map[string]Media{"tone": toneMedia})
	require.NoError(t, err)
	assert.Contains(t, filterGraph(cmd),
		"[abase][a0]amix=inputs=2:duration=first:normalize=0,loudnorm=I=-16:TP=-1.5:LRA=11,aformat=channel_layouts=stereo,aresample=48000,asetnsamples=n=960:p=0[aout]",
		"cut into libopus's frames after everything else")
}

func TestPlanLoudnessOfSilence(t *testing.T) {
	t.Parallel()
	_, cmd, err := planOf(t, `{"width":16,"height":16,"fps":1,"duration":1,"loudness":{},"layers":[{"type":"text","text":"x"}]}`, nil)
	require.NoError(t, err)
	assert.Contains(t, filterGraph(cmd), "[abase]amix=inputs=1:duration=first:normalize=0,aresample=48000[aout]", "nothing to normalise")
}

// TestRenderLoudnessKeepsTheBalance: music alone, then a voice-over, then
// the music alone again. Normalised, the whole lands within 1 LU of the
// target, and the music plays at one level before and after the voice, as
// it does without loudness: one gain for the whole mix, not one that
// follows the voice in and out.
func TestRenderLoudnessKeepsTheBalance(t *testing.T) {
	if testing.Short() {
		t.Skip("renders with ffmpeg")
	}
	t.Parallel()
	music, voice := fixtureURL("music"), fixtureURL("voice")
	comp := func(loudness map[string]any) map[string]any {
		c := map[string]any{"width": 16, "height": 16, "fps": 5, "duration": 16, "layers": []any{
			map[string]any{"type": "audio", "src": music, "volume": 0.02, "loop": true},
			map[string]any{"type": "audio", "src": voice, "volume": 1, "start": 5, "duration": 5, "loop": true},
		}}
		if loudness != nil {
			c["loudness"] = loudness
		}
		return c
	}
	plain := decodeMono(t, renderFixtures(t, "provider_a", comp(nil)).out)
	plainBefore, plainAfter := toneLevel(plain, 440, 1, 4.5), toneLevel(plain, 440, 11, 15.5)
	t.Logf("without loudness: music %.1f dB before the voice, %.1f dB after", plainBefore, plainAfter)
	for _, lo := range []map[string]any{{}, {"target": -23, "truePeak": -3}} {
		r := renderFixtures(t, "provider_a", comp(lo))
		target := r.scene.Loudness.Target
		require.NotNil(t, r.scene.Loudness.Measured, "measured first")
		assert.NotContains(t, filterGraph(r.cmd), "loudnorm", "the second pass applies a gain, it does not measure again")
		integrated, peak := loudnessOf(t, r.out)
		samples := decodeMono(t, r.out)
		before, after := toneLevel(samples, 440, 1, 4.5), toneLevel(samples, 440, 11, 15.5)
		voiceLevel := toneLevel(samples, 330, 6, 9)
		t.Logf("loudness %v: %.2f LUFS (target %v), true peak %.2f dBTP; music %.1f dB before the voice, %.1f dB after; voice %.1f dB",
			lo, integrated, target, peak, before, after, voiceLevel)
		assert.InDelta(t, target, integrated, 1, "integrated loudness")
		assert.Less(t, peak, r.scene.Loudness.TruePeak+0.5, "true peak")
		assert.InDelta(t, before, after, 1, "the music's level before and after the voice")
		// The balance of the mix is kept: the voice over the music by as
		// much as without loudness.
		assert.InDelta(t, toneLevel(plain, 330, 6, 9)-plainBefore, voiceLevel-before, 1, "the voice over the music")
	}
}

// TestPlanLoudnessMeasured pins the second pass: one gain, the target less
// the measure; a true-peak limiter, at four times the rate, only when the
// gain would push a peak over the ceiling; nothing for silence.
func TestPlanLoudnessMeasured(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		measured ffmpeg.Loudness
		want     string
	}{
		{ffmpeg.Loudness{Integrated: -30, TruePeak: -20, Range: 3, Threshold: -40},
			"normalize=0,volume=volume=14dB:precision=double,aresample=48000[aout]"},
		{ffmpeg.Loudness{Integrated: -30, TruePeak: -10, Range: 3, Threshold: -40},
			"normalize=0,volume=volume=14dB:precision=double,aresample=192000,alimiter=limit=0.8414:attack=5:release=50:level=0:latency=1,aformat=channel_layouts=stereo,aresample=48000[aout]"},
		{ffmpeg.Loudness{Integrated: math.Inf(-1), TruePeak: math.Inf(-1), Threshold: -70},
			"normalize=0,aresample=48000[aout]"},
	} {
		s, cmd, err := planOf(t, `{"width":16,"height":16,"fps":1,"duration":1,"loudness":{},"layers":[{"type":"audio","src":"tone"}]}`,
			map[string]Media{"tone": toneMedia})
		require.NoError(t, err)
		assert.Contains(t, filterGraph(cmd), "loudnorm=I=-16:TP=-1.5:LRA=11,", "not measured: one pass")
		m := tc.measured
		s.Loudness.Measured = &m
		cmd, err = Plan(context.Background(), s, inputs(map[string]Media{s.Sources()[0].Key: toneMedia}, testFont), "/w", "/w/out.mp4")
		require.NoError(t, err)
		assert.Contains(t, filterGraph(cmd), tc.want)
	}
}

// TestRenderLoudnessLimitsTruePeaks: a gain that would push the peaks
// over the ceiling is held there by the limiter, which takes off only the
// peaks: the loudness stays within 1 LU of the target.
func TestRenderLoudnessLimitsTruePeaks(t *testing.T) {
	if testing.Short() {
		t.Skip("renders with ffmpeg")
	}
	t.Parallel()
	r := renderFixtures(t, "provider_a", map[string]any{"width": 16, "height": 16, "fps": 5, "duration": 6, "loudness": map[string]any{"target": -10, "truePeak": -8},
		"layers": []any{map[string]any{"type": "audio", "src": fixtureURL("music"), "volume": 0.05, "loop": true},
			map[string]any{"type": "audio", "src": fixtureURL("voice"), "volume": 0.5, "start": 2, "duration": 2, "loop": true}}})
	integrated, peak := loudnessOf(t, r.out)
	t.Logf("%.2f LUFS, %.2f dBTP, measured first %+v", integrated, peak, *r.scene.Loudness.Measured)
	require.Contains(t, filterGraph(r.cmd), "alimiter=", "the gain alone would pass the ceiling")
	assert.InDelta(t, -10, integrated, 1)
	assert.Less(t, peak, -8+0.5)
}
