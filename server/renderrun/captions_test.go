package renderrun

import (
	"context"
	"encoding/json"
	"log/slog"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/attempt"
	"github.com/kinohq/kino/server/engine"
	"github.com/kinohq/kino/server/ffmpeg"
)

const testFont = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"

// TestCaptionsTranscribedWithHighlight has flite say known words, has a
// captions layer transcribe them with the offline transcriber of
// caption.extract, and renders: the words are heard, the captions are drawn
// in white where the words are spoken and not before, and the red of the
// highlighted word moves along the line as the words go by.
func TestCaptionsTranscribedWithHighlight(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	speech := filepath.Join(dir, "speech.wav")
	out, err := exec.Command("ffmpeg", "-hide_banner", "-loglevel", "error", "-y",
		"-f", "lavfi", "-i", "flite=text='hello world. this is a test of the captions.':voice=slt", speech).CombinedOutput()
	require.NoError(t, err, "%s", out)

	comp, _ := json.Marshal(map[string]any{"width": 320, "height": 180, "fps": 10, "duration": 5,
		"layers": []any{
			map[string]any{"type": "audio", "id": "voice", "src": "https://media.test/speech.wav", "start": 1},
			map[string]any{"type": "captions", "transcribe": map[string]any{"layer": "voice"}, "fontSize": 20,
				"color": "white", "highlightColor": "#ff0000", "maxLines": 1},
		}})
	scene, err := engine.Compile("provider_a", comp, nil, engine.DefaultLimits())
	require.NoError(t, err)
	info, err := ffmpeg.ProbeFast(context.Background(), ffmpeg.Limits{}, speech)
	require.NoError(t, err)
	media := map[string]engine.Media{scene.Sources()[0].Key: engine.MediaFromInfo(speech, info)}

	r := &renderRun{cfg: Config{Env: &attempt.Env{}}, log: slog.New(slog.DiscardHandler)}
	require.Nil(t, r.readCaptions(context.Background(), dir, scene, media))
	cues := scene.Layers[1].Captions.Cues
	require.NotEmpty(t, cues)
	var heard []string
	for _, c := range cues {
		heard = append(heard, c.Text)
		// In the captions layer's time, which is the scene's: the voice starts at 1 s.
		assert.GreaterOrEqual(t, c.Start, 1.0)
	}
	assert.Contains(t, strings.Join(heard, " "), "hello")

	path := filepath.Join(dir, "out.mp4")
	cmd, err := engine.Plan(context.Background(), scene, engine.Inputs{Media: media, DefaultFont: testFont}, dir, path)
	require.NoError(t, err)
	require.NoError(t, cmd.WriteFiles(dir))
	require.NoError(t, ffmpeg.Run(context.Background(), cmd.Args, ffmpeg.RunOptions{Dir: dir, Duration: scene.Duration}))

	raw, err := exec.Command("ffmpeg", "-hide_banner", "-loglevel", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "rgb24", "-").Output()
	require.NoError(t, err)
	const w, h = 320, 180
	require.Len(t, raw, 50*w*h*3)
	type ink struct{ white, red, redX int }
	at := func(n int) ink {
		var k ink
		frame := raw[n*w*h*3 : (n+1)*w*h*3]
		for i := 0; i < w*h; i++ {
			r, g, b := int(frame[3*i]), int(frame[3*i+1]), int(frame[3*i+2])
			switch {
			case r > 200 && g > 200 && b > 200:
				k.white++
			case r > 180 && g < 80 && b < 80:
				k.red++
				k.redX += i % w
			}
		}
		if k.red > 0 {
			k.redX /= k.red
		}
		return k
	}
	for n := 0; n < 10; n++ {
		assert.Zero(t, at(n).white+at(n).red, "frame %d: nothing is said before 1 s", n)
	}
	// Where a cue shows, one word is red and the rest white; the red word
	// moves as the words are spoken.
	positions := map[int]bool{}
	shown := 0
	for _, c := range cues {
		for n := int(c.Start*10) + 1; n < int(c.End*10) && n < 50; n++ {
			k := at(n)
			assert.Positive(t, k.red, "frame %d: a word is highlighted", n)
			positions[k.redX/10] = true
			shown++
		}
	}
	require.Positive(t, shown)
	assert.Greater(t, len(positions), 2, "the highlight moves from word to word")
}

// TestCaptionsTranscribeMix transcribes the composition's sound (the mix
// of its layers, as a wav output of it would be), in scene time, and in
// the captions layer's time.
func TestCaptionsTranscribeMix(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	speech := filepath.Join(dir, "speech.wav")
	out, err := exec.Command("ffmpeg", "-hide_banner", "-loglevel", "error", "-y",
		"-f", "lavfi", "-i", "flite=text='hello world. this is a test of the captions.':voice=slt", speech).CombinedOutput()
	require.NoError(t, err, "%s", out)
	comp, _ := json.Marshal(map[string]any{"width": 160, "height": 90, "fps": 10, "duration": 6,
		"layers": []any{
			map[string]any{"type": "audio", "src": "https://media.test/speech.wav", "start": 2, "volume": 0.8},
			map[string]any{"type": "captions", "transcribe": map[string]any{}, "start": 1},
		}})
	scene, err := engine.Compile("provider_a", comp, nil, engine.DefaultLimits())
	require.NoError(t, err)
	info, err := ffmpeg.ProbeFast(context.Background(), ffmpeg.Limits{}, speech)
	require.NoError(t, err)
	media := map[string]engine.Media{scene.Sources()[0].Key: engine.MediaFromInfo(speech, info)}
	r := &renderRun{cfg: Config{Env: &attempt.Env{Font: testFont}}, log: slog.New(slog.DiscardHandler)}
	require.Nil(t, r.readCaptions(context.Background(), dir, scene, media))
	cues := scene.Layers[1].Captions.Cues
	require.NotEmpty(t, cues)
	var heard []string
	for _, c := range cues {
		heard = append(heard, c.Text)
		// The voice starts at 2 s in the scene, 1 s into the captions
		// layer; pocketsphinx times an utterance's end (its start is
		// the end of the one before), and Plan cuts cues to the layer.
		assert.Greater(t, c.End, 1.5)
	}
	assert.Contains(t, strings.Join(heard, " "), "hello")
}
