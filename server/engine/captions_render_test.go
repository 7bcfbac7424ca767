package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRenderCaptionsTiming draws two SRT cues in white over black and finds
// white ink in the caption area exactly on the frames of each cue, and
// none between them; the layer starts at 0.5 s, so cue times are shifted.
func TestRenderCaptionsTiming(t *testing.T) {
	t.Parallel()
	srt := "1\r\n00:00:00,000 --> 00:00:00,500\r\n<b>Hello</b> {there}\r\n\r\n2\r\n00:00:01,000 --> 00:00:01,500\r\nsecond \\N cue\r\n"
	for _, provider := range []string{"provider_a", "unified"} {
		t.Run(provider, func(t *testing.T) {
			t.Parallel()
			layer := map[string]any{"type": "captions", "text": srt, "fontSize": 30, "start": 0.5, "duration": 1.5}
			comp := map[string]any{"width": 320, "height": 180, "fps": 10, "duration": 2, "layers": []any{layer}}
			if provider == "unified" {
				delete(layer, "start")
				delete(layer, "duration")
				comp = map[string]any{"output": map[string]any{"width": 320, "height": 180, "fps": 10, "duration": 2},
					"tracks": []any{map[string]any{"clips": []any{map[string]any{"asset": layer, "start": 0.5, "length": 1.5}}}}}
			}
			r := render(t, provider, comp)
			frames := decodeRGB(t, r.out, 320, 180)
			require.Len(t, frames, 20)
			for n, pix := range frames {
				fr := frameRGB{pix: pix, w: 320, h: 180}
				ink := fr.box(fr.all(), white)
				on := (n >= 5 && n < 10) || (n >= 15 && n < 20)
				assert.Equal(t, on, ink.w > 0, "frame %d", n)
				if on {
					// Bottom centre: the default box ends 9 pixels above the frame's foot.
					assert.InDelta(t, 160, ink.x+ink.w/2, 6, "frame %d centred", n)
					assert.LessOrEqual(t, ink.y+ink.h, 171, "frame %d", n)
					assert.Greater(t, ink.y, 120, "frame %d at the bottom", n)
				}
			}
			first := frameRGB{pix: frames[5], w: 320, h: 180}.box(rect{w: 320, h: 180}, white)
			second := frameRGB{pix: frames[15], w: 320, h: 180}.box(rect{w: 320, h: 180}, white)
			// "Hello {there}" drawn with its braces is wider than "second \N cue".
			assert.Greater(t, first.w, 150)
			assert.NotEqual(t, first, second)
		})
	}
}
