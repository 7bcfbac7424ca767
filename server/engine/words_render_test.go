package engine

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRenderWordsFade: three words fading in one after the other (0.3 s
// each, 0.3 s apart) and out the same way are each, on every frame, as
// bright as their own progress says; between, all three hold together.
// Layers with every other animation by word or letter, on a box with a
// blurred shadow, render beside them.
func TestRenderWordsFade(t *testing.T) {
	if testing.Short() {
		t.Skip("renders with ffmpeg")
	}
	t.Parallel()
	fade := map[string]any{"type": "fade", "by": "word", "stagger": 0.3, "duration": 0.3, "easing": "linear"}
	r := render(t, "provider_a", map[string]any{"width": 320, "height": 120, "fps": 10, "duration": 2, "layers": []any{
		map[string]any{"type": "text", "text": "██ ██ ██", "fontSize": 20, "x": 20, "y": 10, "enter": fade, "exit": fade},
		map[string]any{"type": "text", "text": "Letters slide", "fontSize": 14, "x": 20, "y": 50,
			"enter": map[string]any{"type": "slide", "side": "bottom", "by": "letter", "stagger": 0.02},
			"exit":  map[string]any{"type": "typewriter", "by": "letter", "stagger": 0.02}},
		map[string]any{"type": "text", "text": "pop and zoom", "fontSize": 14, "x": 20, "y": 80, "width": 200,
			"backgroundColor": "#223344", "paddingX": 6, "paddingY": 4, "borderRadius": 4,
			"shadowColor": "#ff0000", "shadowBlur": 4, "shadowX": 2, "shadowY": 2,
			"enter": map[string]any{"type": "pop", "by": "word"}, "exit": map[string]any{"type": "zoom", "by": "word", "stagger": 0.05}},
	}})
	checkOutput(t, r, "mp4")
	frames := decodeGray(t, r.out, 320, 120)
	require.Len(t, frames, 20)

	// The words' columns, where they all show (t = 1 s).
	hold := frames[10]
	var runs [][2]int
	for x := 0; x < 320; x++ {
		lit := false
		for y := 10; y < 40; y++ {
			if hold[y*320+x] > 128 {
				lit = true
			}
		}
		switch {
		case lit && (len(runs) == 0 || runs[len(runs)-1][1] != x):
			runs = append(runs, [2]int{x, x + 1})
		case lit:
			runs[len(runs)-1][1] = x + 1
		}
	}
	require.Len(t, runs, 3, "three words: %v", runs)
	for n, frame := range frames {
		tm := float64(n) / 10
		for k, run := range runs {
			in := math.Min(math.Max((tm-0.3*float64(k))/0.3, 0), 1)
			out := math.Min(math.Max((tm-1.1-0.3*float64(k))/0.3, 0), 1)
			want := 255 * in * (1 - out)
			brightest := 0.0
			for y := 10; y < 40; y++ {
				for x := run[0] + 2; x < run[1]-2; x++ {
					brightest = math.Max(brightest, float64(frame[y*320+x]))
				}
			}
			assert.InDelta(t, want, brightest, 20, "word %d at %.1f s", k, tm)
		}
	}
}
