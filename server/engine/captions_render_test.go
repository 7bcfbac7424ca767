package engine

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/ffmpeg"
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

// TestRenderCaptionsStyled checks that captions are styled as text is: at
// the same fontSize a caption's capital letters are as tall as a text
// layer's; a background box reaches paddingX past the glyphs; top-left
// alignment puts the glyphs at the box's corner; the highlighted word is
// in its colour; and in a transparent output the frame is transparent
// but for the captions.
func TestRenderCaptionsStyled(t *testing.T) {
	t.Parallel()
	srt := "1\n00:00:00,000 --> 00:00:01,000\nHH HH\n"
	_, text := firstFrame(t, "provider_a", map[string]any{"width": 320, "height": 180, "fps": 10, "duration": 1,
		"layers": []any{map[string]any{"type": "text", "text": "HH HH", "fontSize": 40, "x": 20, "y": 20}}})
	_, capt := firstFrame(t, "provider_a", map[string]any{"width": 320, "height": 180, "fps": 10, "duration": 1,
		"layers": []any{map[string]any{"type": "captions", "text": srt, "fontSize": 40, "x": 20, "y": 20, "width": 280, "height": 140,
			"align": "left", "verticalAlign": "top", "highlightColor": "#ff0000"}}})
	ti, ci := text.box(text.all(), white), capt.box(capt.all(), func(c [3]int) bool { return white(c) || red(c) })
	require.Positive(t, ti.h)
	require.Positive(t, ci.h)
	assert.InDelta(t, ti.h, ci.h, 2, "capitals as tall: text %+v, captions %+v", ti, ci)
	assert.InDelta(t, ti.w, ci.w, 4, "and as wide")
	assert.InDelta(t, 20, ci.x, 4, "at the box's left")
	assert.InDelta(t, 20, ci.y, 12, "and top")
	// The first word is spoken first: red, then white.
	redInk := capt.box(capt.all(), red)
	assert.Positive(t, redInk.w)
	assert.Less(t, redInk.x+redInk.w, ci.x+ci.w/2+2, "the first word is highlighted")

	_, boxed := firstFrame(t, "provider_a", map[string]any{"width": 320, "height": 180, "fps": 10, "duration": 1, "background": "#000000",
		"layers": []any{map[string]any{"type": "captions", "text": srt, "fontSize": 30, "color": "#000000", "backgroundColor": "#00ff00",
			"paddingX": 12, "paddingY": 4}}})
	g := boxed.box(boxed.all(), green)
	require.Positive(t, g.w)
	glyphs := boxed.box(g, func(c [3]int) bool { return c[1] < 60 })
	assert.InDelta(t, 160, g.x+g.w/2, 3, "centred")
	// The box reaches paddingX past the glyphs' advance, and an H's ink
	// starts a few pixels into its advance (its side bearings).
	for _, pad := range []int{glyphs.x - g.x, g.x + g.w - (glyphs.x + glyphs.w)} {
		assert.GreaterOrEqual(t, pad, 12, "padded")
		assert.LessOrEqual(t, pad, 17, "padded")
	}
	assert.LessOrEqual(t, g.y+g.h, 171, "within the default box")

	r := render(t, "provider_a", map[string]any{"width": 320, "height": 180, "fps": 10, "duration": 1, "format": "mov", "background": "transparent",
		"layers": []any{map[string]any{"type": "captions", "text": srt, "fontSize": 40}}})
	frame := decodeRGBA(t, r.out, 320, 180)[0]
	corner := meanRGBA(frame, 320, 0, 0, 100, 60)
	assert.Zero(t, corner[3], "transparent where there is no caption")
	opaque := 0
	for i := 3; i < len(frame); i += 4 {
		if frame[i] > 200 && frame[i-1] > 200 {
			opaque++
		}
	}
	assert.Greater(t, opaque, 200, "the captions are opaque and white")
}

// TestRenderCaptionsFont draws captions in a font of their own, named
// only by its file (no extension, as downloads are): libass finds it by
// its full name in the layer's font folder and draws it, not the default
// font, nor the regular face of its family among the system's fonts.
func TestRenderCaptionsFont(t *testing.T) {
	t.Parallel()
	type drawn struct {
		box    rect
		ink    int
		script string
	}
	draw := func(fontFile string) drawn {
		layer := map[string]any{"type": "captions", "text": "1\n00:00:00,000 --> 00:00:01,000\nIIII\n", "fontSize": 40}
		media := map[string]Media{}
		if fontFile != "" {
			layer["font"] = "https://x.test/font"
			data, err := os.ReadFile(fontFile)
			require.NoError(t, err)
			path := filepath.Join(t.TempDir(), "source-0")
			require.NoError(t, os.WriteFile(path, data, 0o600))
			m, err := FontFromFile(path)
			require.NoError(t, err)
			media["s0"] = m
		}
		s, err := Compile("provider_a", mustJSON(t, map[string]any{"width": 320, "height": 180, "fps": 10, "duration": 1, "layers": []any{layer}}), nil, DefaultLimits())
		require.NoError(t, err)
		work := t.TempDir()
		out := filepath.Join(work, "out.mp4")
		cmd, err := Plan(context.Background(), s, inputs(media, testFont), work, out)
		require.NoError(t, err)
		require.NoError(t, cmd.WriteFiles(work))
		require.NoError(t, ffmpeg.Run(context.Background(), cmd.Args, ffmpeg.RunOptions{Dir: work, Duration: s.Duration}))
		fr := frameRGB{pix: decodeRGB(t, out, 320, 180)[0], w: 320, h: 180}
		d := drawn{box: fr.box(fr.all(), white), script: string(cmd.Files["captions-0.ass"])}
		for y := 0; y < fr.h; y++ {
			for x := 0; x < fr.w; x++ {
				if white(fr.at(x, y)) {
					d.ink++
				}
			}
		}
		return d
	}
	plain := draw("")
	serif := draw("/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf")
	bold := draw("/usr/share/fonts/truetype/dejavu/DejaVuSerif-Bold.ttf")
	assert.Contains(t, plain.script, "Style: Text,DejaVu Sans,")
	assert.Contains(t, serif.script, "Style: Text,DejaVu Serif,")
	assert.Contains(t, bold.script, "Style: Text,DejaVu Serif Bold,")
	// Serifs make IIII far wider than in the sans font.
	assert.Greater(t, serif.box.w, plain.box.w+10, "sans %+v, serif %+v", plain.box, serif.box)
	// Bold strokes hold far more ink than the regular face's.
	assert.Greater(t, float64(bold.ink), 1.3*float64(serif.ink), "serif %d pixels, bold %d", serif.ink, bold.ink)
}

// TestRenderCaptionsWordTags renders captions whose words are timed by
// tags, SRT's karaoke ({\k45}) and WebVTT's timestamps, and reads every
// frame: the red word is the first until 0.45 s, the second until 1.55 s,
// then the third.
func TestRenderCaptionsWordTags(t *testing.T) {
	t.Parallel()
	for name, text := range map[string]string{
		"srt": "1\n00:00:00,000 --> 00:00:03,000\n{\\k45}AA {\\k110}BB {\\k145}CC\n",
		"vtt": "WEBVTT\n\n00:00.000 --> 00:03.000\nAA <00:00:00.450>BB <00:00:01.550>CC\n",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := render(t, "provider_a", map[string]any{"width": 320, "height": 180, "fps": 10, "duration": 3, "background": "#000000",
				"layers": []any{map[string]any{"type": "captions", "text": text, "fontSize": 40, "highlightColor": "#ff0000"}}})
			frames := decodeRGB(t, r.out, 320, 180)
			require.Len(t, frames, 30)
			var got []int
			for _, pix := range frames {
				f := frameRGB{pix: pix, w: 320, h: 180}
				line := f.box(f.all(), func(c [3]int) bool { return white(c) || red(c) })
				spoken := f.box(line, red)
				require.Positive(t, spoken.w)
				// Which third of the line the red word's middle is in.
				got = append(got, 3*(2*spoken.x+spoken.w-2*line.x)/(2*line.w))
			}
			want := make([]int, 30)
			for n := range want {
				switch at := float64(n) / 10; {
				case at >= 1.55:
					want[n] = 2
				case at >= 0.45:
					want[n] = 1
				}
			}
			assert.Equal(t, want, got, "the spoken word of each frame, 0.1 s apart")
		})
	}
}
