package engine

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// frameRGB is one decoded RGB frame w wide.
type frameRGB struct {
	pix  []byte
	w, h int
}

func (f frameRGB) at(x, y int) [3]int {
	i := 3 * (y*f.w + x)
	return [3]int{int(f.pix[i]), int(f.pix[i+1]), int(f.pix[i+2])}
}

// luma is a pixel's brightness as BT.601 weighs it, 0 to 255.
func (f frameRGB) luma(x, y int) float64 {
	c := f.at(x, y)
	return 0.299*float64(c[0]) + 0.587*float64(c[1]) + 0.114*float64(c[2])
}

// box is the smallest rectangle, within r, holding every pixel that is;
// empty when none is.
func (f frameRGB) box(r rect, is func(c [3]int) bool) rect {
	var b bounds
	for y := r.y; y < r.y+r.h; y++ {
		for x := r.x; x < r.x+r.w; x++ {
			if is(f.at(x, y)) {
				b.add(rect{x: x, y: y, w: 1, h: 1})
			}
		}
	}
	if !b.set {
		return rect{}
	}
	return rect{x: b.x0, y: b.y0, w: b.x1 - b.x0, h: b.y1 - b.y0}
}

func (f frameRGB) all() rect { return rect{w: f.w, h: f.h} }

func white(c [3]int) bool { return c[0] > 200 && c[1] > 200 && c[2] > 200 }
func dark(c [3]int) bool  { return c[0] < 40 && c[1] < 40 && c[2] < 40 }
func red(c [3]int) bool   { return c[0] > 180 && c[1] < 80 && c[2] < 80 }
func green(c [3]int) bool { return c[1] > 180 && c[0] < 80 && c[2] < 80 }

// firstFrame renders a composition and decodes its first frame.
func firstFrame(t *testing.T, provider string, comp map[string]any) (rendered, frameRGB) {
	t.Helper()
	r := render(t, provider, comp)
	v := r.info.Video()
	require.NotNil(t, v)
	frames := decodeRGB(t, r.out, v.Width, v.Height)
	require.NotEmpty(t, frames)
	return r, frameRGB{pix: frames[0], w: v.Width, h: v.Height}
}

// TestRenderTextStrokeAndShadow draws full blocks (█, whose ink is its
// advance) in white: one with a red stroke, one with a green shadow down
// and right, one with a blurred shadow, and finds each colour where it
// belongs around the white.
func TestRenderTextStrokeAndShadow(t *testing.T) {
	if testing.Short() {
		t.Skip("renders with ffmpeg")
	}
	t.Parallel()
	r, f := firstFrame(t, "provider_a", map[string]any{"width": 240, "height": 80, "fps": 5, "duration": 0.4, "layers": []any{
		map[string]any{"type": "text", "text": "█", "fontSize": 40, "x": 20, "y": 10, "strokeWidth": 4, "strokeColor": "red"},
		map[string]any{"type": "text", "text": "█", "fontSize": 40, "x": 100, "y": 10, "shadowColor": "lime", "shadowX": 8, "shadowY": 6},
		map[string]any{"type": "text", "text": "█", "fontSize": 40, "x": 180, "y": 10, "shadowColor": "lime", "shadowBlur": 8},
	}})
	checkOutput(t, r, "mp4")

	stroked := f.box(rect{x: 0, y: 0, w: 80, h: 80}, white)
	require.NotEqual(t, rect{}, stroked)
	assert.Greater(t, stroked.w, 15)
	midX, midY := stroked.x+stroked.w/2, stroked.y+stroked.h/2
	for _, p := range [][2]int{{stroked.x - 2, midY}, {stroked.x + stroked.w + 1, midY}, {midX, stroked.y - 2}, {midX, stroked.y + stroked.h + 1}} {
		assert.True(t, red(f.at(p[0], p[1])), "stroke at %v: %v", p, f.at(p[0], p[1]))
	}
	for _, p := range [][2]int{{stroked.x - 8, midY}, {stroked.x + stroked.w + 7, midY}} {
		assert.True(t, dark(f.at(p[0], p[1])), "beyond the stroke at %v: %v", p, f.at(p[0], p[1]))
	}
	// Edges at half coverage: the glyph is what is white (green lit), the
	// glyph and its stroke what has red.
	glyphHalf := f.box(rect{x: 0, y: 0, w: 80, h: 80}, func(c [3]int) bool { return c[1] > 128 })
	outline := f.box(rect{x: 0, y: 0, w: 80, h: 80}, func(c [3]int) bool { return c[0] > 128 })
	assert.InDelta(t, glyphHalf.w+8, outline.w, 1, "4 px of stroke each side")
	assert.InDelta(t, glyphHalf.h+8, outline.h, 1)
	assert.InDelta(t, glyphHalf.x-4, outline.x, 1)

	glyph := f.box(rect{x: 80, y: 0, w: 80, h: 80}, white)
	require.NotEqual(t, rect{}, glyph)
	right, bottom := glyph.x+glyph.w, glyph.y+glyph.h
	assert.True(t, green(f.at(right+4, bottom+3)), "shadow below right: %v", f.at(right+4, bottom+3))
	assert.True(t, green(f.at(right+4, glyph.y+10)), "shadow right: %v", f.at(right+4, glyph.y+10))
	assert.True(t, dark(f.at(glyph.x-3, glyph.y+10)), "no shadow left")
	assert.True(t, dark(f.at(glyph.x+5, glyph.y-3)), "no shadow above")
	// Edges at half coverage: the glyph is what has red, the glyph and its
	// shadow what has green.
	glyphHalf = f.box(rect{x: 80, y: 0, w: 80, h: 80}, func(c [3]int) bool { return c[0] > 128 })
	shadow := f.box(rect{x: 80, y: 0, w: 80, h: 80}, func(c [3]int) bool { return c[1] > 128 })
	// To a pixel: antialiased edges, and colour shared by 2×2 pixels in
	// YUV 4:2:0.
	assert.InDelta(t, glyphHalf.x, shadow.x, 1)
	assert.InDelta(t, glyphHalf.y, shadow.y, 1)
	assert.InDelta(t, glyphHalf.x+glyphHalf.w+8, shadow.x+shadow.w, 1, "the shadow 8 right")
	assert.InDelta(t, glyphHalf.y+glyphHalf.h+6, shadow.y+shadow.h, 1, "and 6 down")

	blurred := f.box(rect{x: 160, y: 0, w: 80, h: 80}, white)
	require.NotEqual(t, rect{}, blurred)
	near := f.at(blurred.x-2, blurred.y+blurred.h/2)
	far := f.at(blurred.x-16, blurred.y+blurred.h/2)
	assert.True(t, near[1] > 60 && near[0] < 80, "a blurred shadow just beside the glyph: %v", near)
	assert.True(t, near[1] < 230, "and not solid: %v", near)
	assert.True(t, dark(far), "fading away: %v", far)
}

// TestRenderTextBox checks a padded, rounded box: its exact place and
// size, transparent at its very corners, the text within its padding.
func TestRenderTextBox(t *testing.T) {
	if testing.Short() {
		t.Skip("renders with ffmpeg")
	}
	t.Parallel()
	_, f := firstFrame(t, "provider_a", map[string]any{"width": 160, "height": 90, "fps": 5, "duration": 0.4, "layers": []any{
		map[string]any{"type": "text", "text": "██", "fontSize": 20, "font": "font", "color": "black", "x": 21, "y": 11,
			"backgroundColor": "#ffcc00", "paddingX": 12, "paddingY": 8, "borderRadius": 8},
	}})
	gl := dejaVu(t, "██", 20, 0)
	w, h := int(math.Ceil(gl.Lines[0].Width))+24, int(math.Ceil(gl.LineHeight()))+16
	bright := func(c [3]int) bool { return c[0] > 150 && c[1] > 120 }
	// The rounded corners are not in the box: its sides are.
	got := f.box(f.all(), bright)
	assert.Equal(t, rect{x: 21, y: 11, w: w, h: h}, got, "the box: the text's width and line height, and the padding")
	for _, p := range [][2]int{{21, 11}, {21 + w - 1, 11}, {21, 11 + h - 1}, {21 + w - 1, 11 + h - 1}} {
		assert.True(t, dark(f.at(p[0], p[1])), "the box's very corner %v shows the background: %v", p, f.at(p[0], p[1]))
	}
	for _, p := range [][2]int{{21 + w/2, 11}, {21, 11 + h/2}, {21 + 8, 11 + 2}} {
		assert.True(t, bright(f.at(p[0], p[1])), "the box at %v: %v", p, f.at(p[0], p[1]))
	}
	// The text's ink: dark pixels of the box but its rounded corners.
	text := f.box(rect{x: 21, y: 11, w: w, h: h}, func(c [3]int) bool { return c[0] < 128 })
	corners := 0
	for _, y := range []int{11, 11 + h - 1} {
		for _, x := range []int{21, 21 + w - 1} {
			if f.at(x, y)[0] < 128 {
				corners++
			}
		}
	}
	require.Equal(t, 4, corners)
	text = f.box(rect{x: 21 + 8, y: 11, w: w - 16, h: h}, func(c [3]int) bool { return c[0] < 128 })
	// To a pixel: the glyphs' edges are antialiased.
	assert.InDelta(t, 21+12, text.x, 1, "the padding on the left")
	assert.InDelta(t, 21+w-12, text.x+text.w, 1, "and on the right")
	assert.GreaterOrEqual(t, text.y, 11+8, "the padding above")
	assert.LessOrEqual(t, text.y+text.h, 11+h-8, "and below")
}

// TestRenderTextLayout checks wrapping, alignment and line height on
// full blocks, whose ink is exactly their advance.
func TestRenderTextLayout(t *testing.T) {
	if testing.Short() {
		t.Skip("renders with ffmpeg")
	}
	t.Parallel()
	const words = "The quick brown fox jumps over the lazy dog"
	// DejaVu Sans's full block advances 7.7 px at 10 px: "██ ████" is
	// 49.4 px, too wide for 48, so the blocks are three lines.
	_, f := firstFrame(t, "unified", map[string]any{"output": map[string]any{"width": 480, "height": 240, "fps": 5, "duration": 0.4},
		"tracks": []any{map[string]any{"clips": []any{
			map[string]any{"asset": map[string]any{"type": "text", "text": words, "fontSize": 16}, "position": map[string]any{"x": 10, "y": 10}, "size": map[string]any{"width": 120}},
			map[string]any{"asset": map[string]any{"type": "text", "text": words, "fontSize": 16}, "position": map[string]any{"x": 10, "y": 200}},
			map[string]any{"asset": map[string]any{"type": "text", "text": "██ ████ ██████", "fontSize": 10, "align": "right"}, "position": map[string]any{"x": 200, "y": 10}, "size": map[string]any{"width": 48}},
			map[string]any{"asset": map[string]any{"type": "text", "text": "██ ████ ██████", "fontSize": 10, "align": "center"}, "position": map[string]any{"x": 300, "y": 10}, "size": map[string]any{"width": 48}},
			map[string]any{"asset": map[string]any{"type": "text", "text": "█\n█", "fontSize": 20, "lineHeight": 2}, "position": map[string]any{"x": 400, "y": 10}},
		}}}})
	lit := func(c [3]int) bool { return c[0] > 100 }

	wrapped := f.box(rect{x: 0, y: 0, w: 190, h: 190}, lit)
	line := f.box(rect{x: 0, y: 190, w: 480, h: 50}, lit)
	assert.Greater(t, line.w, 120, "unwrapped, the words are wider than 120")
	assert.Less(t, line.h, 20, "on one line")
	assert.GreaterOrEqual(t, wrapped.x, 10)
	assert.LessOrEqual(t, wrapped.x+wrapped.w, 10+120, "wrapped within the width")
	assert.Greater(t, wrapped.h, 3*18, "on several lines")

	// The lines of blocks touch: a line is a run of rows of one extent,
	// and antialiased rows between them are runs of one or two.
	rows := func(x0, x1 int) []rect {
		var out []rect
		for y := 0; y < 120; y++ {
			r := f.box(rect{x: x0, y: y, w: x1 - x0, h: 1}, lit)
			if n := len(out); n > 0 && out[n-1].x == r.x && out[n-1].w == r.w {
				out[n-1].h++
			} else if r.w > 0 {
				out = append(out, r)
			}
		}
		var lines []rect
		for _, r := range out {
			if r.h > 2 {
				lines = append(lines, r)
			}
		}
		return lines
	}
	for name, lines := range map[string][]rect{"right": rows(190, 290), "center": rows(290, 390)} {
		require.Len(t, lines, 3, "%s: three lines of blocks", name)
		for i, l := range lines {
			if name == "right" {
				assert.InDelta(t, 200+48, l.x+l.w, 1, "line %d ends at the box's right", i)
			} else {
				assert.InDelta(t, 2*300+48, 2*l.x+l.w, 2, "line %d centred in the box", i)
			}
		}
		assert.Less(t, lines[0].w, lines[1].w)
		assert.Less(t, lines[1].w, lines[2].w)
	}

	var tops []int
	for y := 1; y < 120; y++ {
		if lit(f.at(405, y)) && !lit(f.at(405, y-1)) {
			tops = append(tops, y)
		}
	}
	require.Len(t, tops, 2)
	assert.Equal(t, 40, tops[1]-tops[0], "baselines 2 × 20 px apart")
}

// TestRenderShapes samples shapes on black: inside and outside an
// ellipse, a rounded rectangle's corner and stroke, and linear and radial
// gradients that must change monotonically.
func TestRenderShapes(t *testing.T) {
	if testing.Short() {
		t.Skip("renders with ffmpeg")
	}
	t.Parallel()
	stops := []any{map[string]any{"offset": 0, "color": "black"}, map[string]any{"offset": 1, "color": "white"}}
	for _, format := range []string{"mp4", "webm"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			r, f := firstFrame(t, "provider_a", map[string]any{"width": 320, "height": 180, "fps": 5, "duration": 0.4, "format": format, "layers": []any{
				map[string]any{"type": "rectangle", "x": 0, "y": 100, "width": 320, "height": 80, "gradient": map[string]any{"angle": 90, "stops": stops}},
				map[string]any{"type": "ellipse", "x": 10, "y": 10, "width": 80, "height": 50, "color": "white"},
				map[string]any{"type": "rectangle", "x": 100, "y": 10, "width": 50, "height": 40, "borderRadius": 12, "color": "white", "strokeWidth": 3, "strokeColor": "red"},
				map[string]any{"type": "ellipse", "x": 170, "y": 10, "width": 80, "height": 80, "gradient": map[string]any{"type": "radial", "stops": []any{
					map[string]any{"offset": 0, "color": "white"}, map[string]any{"offset": 1, "color": "#404040"}}}},
				map[string]any{"type": "rectangle", "x": 270, "y": 0, "width": 40, "height": 100, "gradient": map[string]any{"stops": stops}},
			}})
			checkOutput(t, r, format)

			for _, p := range [][2]int{{50, 35}, {12, 35}, {87, 35}, {50, 12}, {50, 57}, {25, 20}} {
				assert.True(t, white(f.at(p[0], p[1])), "inside the ellipse at %v: %v", p, f.at(p[0], p[1]))
			}
			for _, p := range [][2]int{{10, 10}, {89, 10}, {10, 59}, {89, 59}, {50, 7}, {50, 62}, {7, 35}, {93, 35}, {17, 16}} {
				assert.True(t, dark(f.at(p[0], p[1])), "outside the ellipse at %v: %v", p, f.at(p[0], p[1]))
			}

			assert.True(t, dark(f.at(100, 10)), "the rounded rectangle's very corner: %v", f.at(100, 10))
			assert.True(t, dark(f.at(149, 49)), "and the opposite one: %v", f.at(149, 49))
			for _, p := range [][2]int{{101, 30}, {125, 11}, {148, 30}, {125, 48}} {
				assert.True(t, red(f.at(p[0], p[1])), "its stroke at %v: %v", p, f.at(p[0], p[1]))
			}
			assert.True(t, white(f.at(125, 30)), "its fill: %v", f.at(125, 30))
			assert.Equal(t, rect{x: 100, y: 10, w: 50, h: 40}, f.box(rect{x: 95, y: 5, w: 60, h: 50}, func(c [3]int) bool { return !dark(c) }), "its size")

			// Left to right across the frame, every 8 px brighter.
			prev := -1.0
			for x := 2; x < 320; x += 8 {
				l := 0.0
				for y := 110; y < 170; y++ {
					l += f.luma(x, y)
				}
				l /= 60
				assert.Greater(t, l, prev, "the linear gradient brightens at x=%d", x)
				prev = l
			}
			assert.Less(t, f.luma(1, 140), 12.0)
			assert.Greater(t, f.luma(318, 140), 240.0)
			// The default angle runs downwards.
			assert.Less(t, f.luma(290, 3), f.luma(290, 50))
			assert.Less(t, f.luma(290, 50), f.luma(290, 96))

			// The radial gradient fades from its centre (210, 50).
			prev = 256
			for d := 0; d < 38; d += 4 {
				l := f.luma(210+d, 50)
				assert.Less(t, l, prev+1, "the radial gradient darkens outwards, at %d px", d)
				prev = l
			}
			assert.Greater(t, f.luma(210, 50), 230.0)
			assert.InDelta(t, 0x40, f.luma(248, 50), 12, "its last stop at the rim")
		})
	}
}

// TestRenderStylesTiming checks that styled text and shapes are drawn on
// exactly their frames, fade, and take their opacity.
func TestRenderStylesTiming(t *testing.T) {
	if testing.Short() {
		t.Skip("renders with ffmpeg")
	}
	t.Parallel()
	r := render(t, "provider_a", map[string]any{"width": 64, "height": 32, "fps": 10, "duration": 1.5, "layers": []any{
		// frames 5 to 9, at half opacity
		map[string]any{"type": "ellipse", "x": 0, "y": 0, "width": 32, "height": 32, "color": "white", "start": 0.5, "duration": 0.5, "opacity": 0.5},
		// frames 3 to 12, fading in over 1 s
		map[string]any{"type": "text", "text": "███", "fontSize": 30, "x": 32, "y": 0, "backgroundColor": "white", "width": 32, "height": 32, "start": 0.3, "duration": 1, "fadeIn": 1},
	}})
	checkOutput(t, r, "mp4")
	frames := decodeGray(t, r.out, 64, 32)
	require.Len(t, frames, 15)
	for n, frame := range frames {
		ellipse := meanLuma(frame, 64, 12, 12, 8)
		// Decoded to full range: black is 0, white 255.
		if n >= 5 && n < 10 {
			assert.InDelta(t, 255/2, ellipse, 8, "ellipse at half opacity on frame %d", n)
		} else {
			assert.InDelta(t, 0, ellipse, 3, "no ellipse on frame %d", n)
		}
		box := meanLuma(frame, 64, 34, 2, 4)
		if n >= 3 && n < 13 {
			// The fade's alpha is (t-0.3)/1: 0 on frame 3, 0.1 on frame 4…
			assert.InDelta(t, 255*float64(n-3)/10, box, 8, "the text's box fading in on frame %d", n)
		} else {
			assert.InDelta(t, 0, box, 3, "no text on frame %d", n)
		}
	}
}

// TestRenderStylesBothFormats renders the same styled text and shapes
// written in each format: the frames are the same.
func TestRenderStylesBothFormats(t *testing.T) {
	if testing.Short() {
		t.Skip("renders with ffmpeg")
	}
	t.Parallel()
	text := map[string]any{"type": "text", "text": "Ünïcode & 'quotes': %{pts}", "fontSize": 14, "align": "center", "lineHeight": 1.4,
		"backgroundColor": "#20406080", "paddingX": 6, "paddingY": 4, "borderRadius": 6, "strokeWidth": 1, "strokeColor": "navy",
		"shadowColor": "#00000099", "shadowX": 2, "shadowY": 2, "shadowBlur": 3}
	ellipse := map[string]any{"type": "ellipse", "gradient": map[string]any{"type": "radial", "stops": []any{
		map[string]any{"offset": 0, "color": "gold"}, map[string]any{"offset": 1, "color": "#ff000000"}}}, "strokeWidth": 2}
	_, a := firstFrame(t, "provider_a", map[string]any{"width": 160, "height": 90, "fps": 5, "duration": 0.4, "background": "teal", "layers": []any{
		map[string]any{"type": "ellipse", "x": 5, "y": 5, "width": 70, "height": 60, "gradient": ellipse["gradient"], "strokeWidth": 2},
		map[string]any{"type": "text", "text": text["text"], "fontSize": 14, "align": "center", "lineHeight": 1.4, "backgroundColor": "#20406080",
			"paddingX": 6, "paddingY": 4, "borderRadius": 6, "strokeWidth": 1, "strokeColor": "navy", "shadowColor": "#00000099",
			"shadowX": 2, "shadowY": 2, "shadowBlur": 3, "x": 50, "y": 30, "width": 100},
	}})
	_, u := firstFrame(t, "unified", map[string]any{"output": map[string]any{"width": 160, "height": 90, "fps": 5, "duration": 0.4, "background": "teal"},
		"tracks": []any{
			map[string]any{"clips": []any{map[string]any{"asset": text, "position": map[string]any{"x": 50, "y": 30}, "size": map[string]any{"width": 100}}}},
			map[string]any{"clips": []any{map[string]any{"asset": ellipse, "position": map[string]any{"x": 5, "y": 5}, "size": map[string]any{"width": 70, "height": 60}}}},
		}})
	assert.Equal(t, a.pix, u.pix, "the same frame")
	assert.Greater(t, f0(a.box(a.all(), func(c [3]int) bool { return c[0] > 200 && c[1] > 150 && c[2] < 80 }).w), 10.0, "the gold of the ellipse is drawn")
}

func f0(v int) float64 { return float64(v) }
