package engine

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/ffmpeg"
	"github.com/kinohq/kino/server/yuva"
)

// wordsComposition holds a layer of each animation by word or letter,
// over a colour, in width × height at fps for duration seconds.
func wordsComposition() map[string]any {
	word := func(kind string, extra ...any) map[string]any {
		m := map[string]any{"type": kind, "by": "word", "stagger": 0.1, "duration": 0.4}
		for i := 0; i < len(extra); i += 2 {
			m[extra[i].(string)] = extra[i+1]
		}
		return m
	}
	text := func(s string, y int, enter, exit map[string]any, extra ...any) map[string]any {
		l := map[string]any{"type": "text", "text": s, "fontSize": 18, "color": "#ffe0a0", "x": 12, "y": y, "start": 0.1, "duration": 1.8,
			"enter": enter, "exit": exit}
		for i := 0; i < len(extra); i += 2 {
			l[extra[i].(string)] = extra[i+1]
		}
		return l
	}
	return map[string]any{"width": 320, "height": 240, "fps": 20, "duration": 2, "background": "#203040", "layers": []any{
		text("fade in, fade out", 4, word("fade"), word("fade", "easing", "ease-in")),
		text("slides from the left", 28, word("slide", "side", "left"), word("slide", "side", "right", "easing", "ease-in-out")),
		text("slides up and down", 52, word("slide", "side", "bottom"), word("slide", "side", "top")),
		text("zoom and pop", 76, word("zoom"), word("pop")),
		text("typed letters", 100, map[string]any{"type": "typewriter", "by": "letter", "stagger": 0.04},
			map[string]any{"type": "fade", "by": "letter", "stagger": 0.03, "duration": 0.2}),
		text("boxed and shadowed", 124, word("pop"), word("slide", "side", "bottom"), "width", 200, "backgroundColor", "#334455",
			"paddingX", 6, "paddingY", 4, "borderRadius", 4, "shadowColor", "#ff0000", "shadowBlur", 4, "shadowX", 2, "shadowY", 2),
		text("stroked, faint, fading", 170, word("fade"), word("zoom"), "strokeColor", "#0000ff", "strokeWidth", 2,
			"opacity", 0.7, "fadeIn", 0.5, "shadowColor", "#00ff00", "shadowX", 1, "shadowY", 1),
	}}
}

// renderLossless renders s as Plan plans it with in, losslessly, and
// returns its frames as raw yuv420p.
func renderLossless(t *testing.T, s *Scene, in Inputs, name string) [][]byte {
	t.Helper()
	work := t.TempDir()
	out := filepath.Join(work, name+".mp4")
	cmd, err := Plan(context.Background(), s, in, work, out)
	require.NoError(t, err)
	for i := range cmd.Args {
		if i > 0 && cmd.Args[i-1] == "-crf" {
			cmd.Args[i] = "0"
		}
	}
	require.NoError(t, cmd.WriteFiles(work))
	require.NoError(t, ffmpeg.Run(context.Background(), cmd.Args, ffmpeg.RunOptions{Dir: work, Duration: s.Duration}))
	raw, err := exec.Command("ffmpeg", "-hide_banner", "-loglevel", "error", "-i", out, "-map", "0:v", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-").Output()
	require.NoError(t, err)
	size := s.Width * s.Height * 3 / 2
	require.Zero(t, len(raw)%size)
	var frames [][]byte
	for i := 0; i < len(raw); i += size {
		frames = append(frames, raw[i:i+size])
	}
	return frames
}

// TestDrawnWordsAsFilters: the frames kino draws of words and letters
// that move are those ffmpeg's filters drew, one filter chain a word:
// every animation by word and letter, on a box, with a blurred shadow, a
// stroke, opacity and a fade, within two levels where nothing is scaled
// and close where zoom and pop scale the words.
func TestDrawnWordsAsFilters(t *testing.T) {
	if testing.Short() {
		t.Skip("renders with ffmpeg")
	}
	t.Parallel()
	s, err := Compile("provider_a", mustJSON(t, wordsComposition()), nil, DefaultLimits())
	require.NoError(t, err)
	drawn := renderLossless(t, s, inputs(nil, testFont), "drawn")
	in := inputs(nil, testFont)
	in.drawBudget = -1
	filtered := renderLossless(t, s, in, "filtered")
	require.Len(t, drawn, 40)
	require.Len(t, filtered, 40)

	// The bands of the layers that do not scale their words, and of
	// those that do.
	w := s.Width
	for _, band := range []struct {
		name           string
		y0, y1         int
		most, meanMost float64
	}{
		{"fade and slide", 0, 76, 2, 0.05},
		{"zoom and pop", 76, 100, 8, 0.1},
		{"typewriter and fade by letter", 100, 124, 2, 0.05},
		{"pop and slide of a box with a blurred shadow", 124, 170, 8, 0.1},
		{"fade and zoom of stroked text, faint and fading in, with a shadow", 170, 240, 8, 0.1},
	} {
		worst, worstMean := 0.0, 0.0
		for n := range drawn {
			a, b := drawn[n][band.y0*w:band.y1*w], filtered[n][band.y0*w:band.y1*w]
			most, sum := 0.0, 0.0
			for i := range a {
				d := math.Abs(float64(a[i]) - float64(b[i]))
				most, sum = math.Max(most, d), sum+d
			}
			worst, worstMean = math.Max(worst, most), math.Max(worstMean, sum/float64(len(a)))
		}
		t.Logf("%s: luma at most %.0f apart, %.3f on average in the worst frame", band.name, worst, worstMean)
		assert.LessOrEqual(t, worst, band.most, band.name)
		assert.LessOrEqual(t, worstMean, band.meanMost, band.name)
	}
	// Colour, over the whole frame: where colours meet (stroke, shadow,
	// glyph, box), ffmpeg's conversion of each word's picture filters
	// chroma over more pixels than kino's.
	worst, worstMean := 0.0, 0.0
	for n := range drawn {
		a, b := drawn[n][s.Width*s.Height:], filtered[n][s.Width*s.Height:]
		most, sum := 0.0, 0.0
		for i := range a {
			d := math.Abs(float64(a[i]) - float64(b[i]))
			most, sum = math.Max(most, d), sum+d
		}
		worst, worstMean = math.Max(worst, most), math.Max(worstMean, sum/float64(len(a)))
	}
	t.Logf("chroma: at most %.0f apart, %.3f on average in the worst frame", worst, worstMean)
	assert.LessOrEqual(t, worstMean, 0.2)
}

// TestWordsCostOneOverlay counts the work of five layers of 20 words
// coming in one after the other: each is one overlay of frames kino
// draws, a few filters a layer as for plain text, where each moving word
// was a chain of its own; its frames, drawn, take the bytes said.
func TestWordsCostOneOverlay(t *testing.T) {
	t.Parallel()
	text := "Twenty words come in one after the other, each sliding up and fading in while the rest are still moving"
	comp := func(budget int64) (*Command, int) {
		var layers []any
		for k := range 5 {
			layers = append(layers, map[string]any{"type": "text", "text": text, "fontSize": 48, "color": "white",
				"x": 90, "y": 200 + 40*k, "width": 1100, "start": 2 * k, "duration": 2,
				"enter": map[string]any{"type": "slide", "side": "bottom", "by": "word", "stagger": 0.025, "duration": 1.5}})
		}
		s, err := Compile("provider_a", mustJSON(t, map[string]any{"width": 1280, "height": 720, "fps": 30, "duration": 10, "layers": layers}), nil, DefaultLimits())
		require.NoError(t, err)
		in := inputs(nil, testFont)
		in.drawBudget = budget
		cmd, err := Plan(context.Background(), s, in, t.TempDir(), "/tmp/out.mp4")
		require.NoError(t, err)
		graph := cmd.Args[slices.Index(cmd.Args, "-filter_complex")+1]
		return cmd, len(strings.FieldsFunc(graph, func(r rune) bool { return r == ',' || r == ';' }))
	}
	cmd, filters := comp(0)
	filtered, before := comp(-1)
	t.Logf("%d filters drawn by kino, %d as filters", filters, before)
	assert.LessOrEqual(t, filters, 30, "a few filters a layer")
	assert.Greater(t, before, 5*20*8, "a chain a word as filters")
	require.Len(t, cmd.drawn, 5)
	assert.Empty(t, filtered.drawn)
	for name, draw := range cmd.drawn {
		var b countingWriter
		require.NoError(t, draw(&b))
		// 60 frames of a part of the frame the words reach.
		assert.Zero(t, b.n%60, name)
		assert.Equal(t, yuva.Size(1042, 206)*60, b.n, name)
	}
}

// countingWriter counts what is written to it.
type countingWriter struct{ n int64 }

func (c *countingWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// TestDrawWordsInParallel: the frames drawn by several goroutines, and
// the frames of words at rest written again rather than drawn, are the
// frames one goroutine draws, in order. Words 0.4 s apart that each move
// for 0.2 s rest between their moves.
func TestDrawWordsInParallel(t *testing.T) {
	s, err := Compile("provider_a", []byte(`{"width":320,"height":180,"fps":25,"duration":3,"layers":[
		{"type":"text","text":"one two three four","fontSize":30,"x":10,"y":60,"width":300,
		 "enter":{"type":"pop","by":"word","stagger":0.4,"duration":0.2}}]}`), nil, DefaultLimits())
	require.NoError(t, err)
	cmd, err := Plan(context.Background(), s, inputs(nil, testFont), t.TempDir(), "/w/out.mp4")
	require.NoError(t, err)
	require.Len(t, cmd.drawn, 1)
	draw := func(procs int) []byte {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		var b bytes.Buffer
		for _, d := range cmd.drawn {
			require.NoError(t, d(&b))
		}
		return b.Bytes()
	}
	one, four := draw(1), draw(4)
	require.NotEmpty(t, one)
	assert.Equal(t, one, four, "drawn by four goroutines as by one")

	// Frames at rest there are: the same bytes as the frame before.
	i := slices.Index(cmd.Args, "-video_size")
	require.Positive(t, i)
	var w, h int
	_, err = fmt.Sscanf(cmd.Args[i+1], "%dx%d", &w, &h)
	require.NoError(t, err)
	size := int(yuva.Size(w, h))
	require.Zero(t, len(one)%size)
	rests := 0
	for k := size; k < len(one); k += size {
		if bytes.Equal(one[k:k+size], one[k-size:k]) {
			rests++
		}
	}
	t.Logf("%d frames, %d of them at rest", len(one)/size, rests)
	assert.Greater(t, rests, 10, "words rest between their moves")
}

// TestDrawnBytes: a scene whose words or letters move needs room for the
// frames kino may draw of them; one whose text moves whole, none.
func TestDrawnBytes(t *testing.T) {
	t.Parallel()
	for enter, want := range map[string]int64{
		`{"type":"slide","side":"left","by":"word"}`: MaxDrawnBytes,
		`{"type":"fade","by":"letter"}`:              MaxDrawnBytes,
		`{"type":"slide","side":"left"}`:             0,
	} {
		s, err := Compile("provider_a", []byte(`{"width":320,"height":180,"fps":25,"duration":3,"layers":[
			{"type":"text","text":"still"},{"type":"text","text":"one two","enter":`+enter+`}]}`), nil, DefaultLimits())
		require.NoError(t, err)
		assert.Equal(t, want, s.DrawnBytes(), enter)
	}
	s, err := Compile("provider_a", []byte(`{"width":320,"height":180,"fps":25,"duration":3,"layers":[
		{"type":"text","text":"one two","exit":{"type":"fade","by":"word"}}]}`), nil, DefaultLimits())
	require.NoError(t, err)
	assert.Equal(t, int64(MaxDrawnBytes), s.DrawnBytes(), "exit")
}
