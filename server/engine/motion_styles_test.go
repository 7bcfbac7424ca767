package engine

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Motion on the layers kino draws as pictures: shapes and laid-out text.

// TestCompileMotionStyles: shapes take every motion but Ken Burns, laid-out
// text every motion too (its box turns), plain text no rotation.
func TestCompileMotionStyles(t *testing.T) {
	t.Parallel()
	layer := func(l map[string]any) []byte {
		return mustJSON(t, map[string]any{"width": 64, "height": 64, "fps": 10, "duration": 2, "layers": []any{l}})
	}
	for _, l := range []map[string]any{
		{"type": "ellipse", "color": "red", "x": keys(0, 0, 1, 9), "rotation": keys(0, 0, 2, 90), "scale": 2, "opacity": keys(0, 1, 2, 0),
			"enter": map[string]any{"type": "zoom"}, "exit": map[string]any{"type": "slide", "side": "top"}},
		{"type": "rectangle", "gradient": map[string]any{"stops": []any{map[string]any{"offset": 0, "color": "red"}, map[string]any{"offset": 1, "color": "blue"}}},
			"y": keys(0, 0, 1, 9), "rotation": 45},
		{"type": "text", "text": "x", "width": 40, "rotation": 10, "scale": keys(0, 1, 1, 2), "enter": map[string]any{"type": "slide", "side": "left"}},
		{"type": "text", "text": "x", "backgroundColor": "red", "rotation": keys(0, 0, 2, 360), "exit": map[string]any{"type": "fade"}},
	} {
		s, err := Compile("provider_a", layer(l), nil, DefaultLimits())
		require.NoError(t, err, "%v", l)
		require.NotNil(t, s.Layers[0].Motion)
	}
	// Plain text is a picture too: it turns.
	_, err := Compile("provider_a", layer(map[string]any{"type": "text", "text": "x", "rotation": 10}), nil, DefaultLimits())
	require.NoError(t, err)
	_, err = Compile("provider_a", layer(map[string]any{"type": "rectangle", "color": "red", "zoom": 2}), nil, DefaultLimits())
	require.EqualError(t, err, "composition.layers[0].zoom: unknown field")
	_, err = Compile("unified", mustJSON(t, map[string]any{"output": map[string]any{"width": 64, "height": 64, "fps": 10, "duration": 1},
		"tracks": []any{map[string]any{"clips": []any{map[string]any{"asset": map[string]any{"type": "ellipse", "color": "red"},
			"rotation": keys(0, 0, 1, 90), "enter": map[string]any{"type": "fade"}}}}}}), nil, DefaultLimits())
	require.NoError(t, err)
}

// TestPlanMotionStyles pins how a moving shape and a moving text box are
// drawn: painted or laid out whole, turned once when the angle holds,
// then placed by expressions; one that only fades keeps its still
// picture and gains a ramp.
func TestPlanMotionStyles(t *testing.T) {
	t.Parallel()
	_, cmd := planStyled(t, `{"type":"ellipse","color":"red","x":[{"time":0,"value":-40},{"time":1,"value":300}],"y":10,"width":40,"height":20,"rotation":90},
		{"type":"rectangle","color":"red","borderRadius":4,"x":0,"y":0,"width":10,"height":10,"opacity":[{"time":0,"value":0},{"time":1,"value":1}]},
		{"type":"rectangle","color":"blue","x":1,"y":1,"width":10,"height":10,"scale":2},
		{"type":"text","text":"a","backgroundColor":"white","x":10,"y":10,"enter":{"type":"slide","side":"left","duration":1}}`, nil)
	graph := filterGraph(cmd)
	chains := strings.Split(graph, ";")

	// The ellipse: 40x20 painted whole, turned once to 20x40, looped.
	assert.Contains(t, graph, "[0:v]format=yuva420p,rotate=a=1.570796327:ow=20:oh=40:c=0x00000000,loop=loop=9:size=1:start=0,settb=expr=1/10,setpts=N+0[l0]")
	ellipse := decodePNG(t, cmd.Files["shape-0.png"])
	assert.Equal(t, 40, ellipse.Bounds().Dx(), "painted whole, though it starts off screen")
	assert.Equal(t, 20, ellipse.Bounds().Dy())
	assert.Contains(t, graph, "overlay=x=(-40+340*clip((t-0)/1\\,0\\,1))+(40-w)/2:y=10+(20-h)/2:eof_action=pass:enable='between(t,-0.05,0.95)'[v0]")

	// The rounded rectangle holds still and fades in: its picture cut to
	// the frame as before, times a ramp.
	assert.Contains(t, graph, "[1:v]format=yuva420p,loop=loop=9:size=1:start=0,settb=expr=1/10,setpts=N+0,[r1]blend=")
	assert.Contains(t, graph, "scale=w=10:h=10:flags=neighbor[r1]")

	// The plain rectangle, scaled, is a colour layer that moves.
	assert.Contains(t, graph, "color=c=0x0000FFFF:s=20x20:r=10")
	assert.Contains(t, graph, "overlay=x=1+(10-w)/2:y=1+(10-h)/2")

	// The text box: laid out on a canvas centred on its box, slid in.
	var overlay string
	for _, c := range chains {
		if strings.HasSuffix(c, "[v3]") {
			overlay = c
		}
	}
	require.NotEmpty(t, overlay)
	assert.Contains(t, overlay, "+(-w)*(1-(1-pow(1-clip((t-0)/1\\,0\\,1)\\,3)))")
	box := decodePNG(t, cmd.Files["text-3.png"])
	assert.Equal(t, alpha(box, box.Bounds().Dx()/2, box.Bounds().Dy()/2), uint32(0xFFFF), "the box is in the middle of its canvas")
}

// TestPlanMotionTextTooLarge: a moving text box is drawn whole, so one
// larger than the largest picture is a validation error naming its text.
func TestPlanMotionTextTooLarge(t *testing.T) {
	t.Parallel()
	s, err := Compile("provider_a", []byte(`{"width":320,"height":180,"fps":10,"duration":1,"layers":[{"type":"text","text":`+
		string(mustJSON(t, strings.Repeat("x\n", 200)))+`,"fontSize":100,"lineHeight":1,"width":100,"y":[{"time":0,"value":0},{"time":1,"value":-20000}]}]}`), nil, DefaultLimits())
	require.NoError(t, err)
	_, err = Plan(context.Background(), s, inputs(nil, testFont), "/w", "/w/out.mp4")
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "composition.layers[0].text", ve.Field)
	assert.Contains(t, ve.Message, "a text box that moves is drawn whole, at most 8192 pixels on a side")
}

// TestRenderMotionShapes moves, turns, scales and fades shapes and a
// laid-out text box, and finds them on the frames.
func TestRenderMotionShapes(t *testing.T) {
	if testing.Short() {
		t.Skip("renders with ffmpeg")
	}
	t.Parallel()
	r := render(t, "provider_a", map[string]any{"width": 320, "height": 180, "fps": 10, "duration": 2, "layers": []any{
		// Slides right, 0 to 200 in 2 s.
		map[string]any{"type": "ellipse", "color": "white", "y": 0, "width": 30, "height": 30, "x": keys(0, 0, 2, 200)},
		// 60x20, a quarter turn: 20x60 about the same centre (70, 100).
		map[string]any{"type": "rectangle", "color": "white", "borderRadius": 2, "x": 40, "y": 90, "width": 60, "height": 20, "rotation": 90},
		// 20x20 growing to twice its size about its centre (170, 90).
		map[string]any{"type": "rectangle", "color": "white", "strokeWidth": 2, "strokeColor": "white", "x": 160, "y": 80, "width": 20, "height": 20, "scale": keys(0, 1, 2, 2)},
		// A white box 40x30 sliding up from the bottom over the first second.
		map[string]any{"type": "text", "text": "█", "fontSize": 10, "color": "white", "backgroundColor": "white", "x": 250, "y": 100, "width": 40, "height": 30,
			"enter": map[string]any{"type": "slide", "side": "bottom", "duration": 1, "easing": "linear"}},
		// Still, fading in over 2 s.
		map[string]any{"type": "ellipse", "color": "white", "x": 10, "y": 140, "width": 30, "height": 30, "opacity": keys(0, 0, 2, 1)},
	}})
	checkOutput(t, r, "mp4")
	frames := decodeRGB(t, r.out, 320, 180)
	require.Len(t, frames, 20)
	for n, pix := range frames {
		f := frameRGB{pix: pix, w: 320, h: 180}
		tm := float64(n) / 10

		moving := f.box(rect{y: 0, w: 320, h: 40}, white)
		x := math.Floor(100*tm/2) * 2
		assert.InDelta(t, x, moving.x, 1, "frame %d: the ellipse's left edge", n)
		assert.InDelta(t, 30, moving.w, 2, "frame %d: its width", n)

		turned := f.box(rect{x: 30, y: 60, w: 80, h: 80}, white)
		assert.InDelta(t, 20, turned.w, 2, "frame %d: the turned rectangle's width", n)
		assert.InDelta(t, 60, turned.h, 2, "frame %d: its height", n)
		assert.InDelta(t, 70, turned.x+turned.w/2, 2, "frame %d: its centre", n)

		grown := f.box(rect{x: 120, y: 45, w: 100, h: 90}, white)
		side := 20 * (1 + tm/2)
		assert.InDelta(t, side, grown.w, 3, "frame %d: the scaled rectangle's side", n)
		assert.InDelta(t, 170, grown.x+grown.w/2, 2, "frame %d: its centre", n)

		// The slide starts with the whole canvas below the frame: the box
		// and the margin about it that glyphs may reach.
		slid := f.box(rect{x: 240, y: 45, w: 80, h: 135}, white)
		e := math.Min(tm, 1)
		switch top := 100 + (180-100)*(1-e); {
		case slid.h == 0:
			assert.Greater(t, top, 170.0, "frame %d: the text box shows", n)
		case e < 1:
			assert.GreaterOrEqual(t, float64(slid.y), math.Floor(top/2)*2-1, "frame %d: the text box's top", n)
			assert.LessOrEqual(t, float64(slid.y), top+12*(1-e), "frame %d: the text box's top", n)
		default:
			assert.Equal(t, rect{x: 250, y: 100, w: 40, h: 30}, slid, "frame %d: the text box in place", n)
		}
		if slid.h > 0 {
			assert.Equal(t, 250, slid.x, "frame %d: its left", n)
			assert.Equal(t, 40, slid.w, "frame %d: its width", n)
		}

		assert.InDelta(t, 255*tm/2, f.luma(25, 155), 8, "frame %d: the fading ellipse", n)
	}
}

// TestRenderMotionTextBox turns, zooms out and fades laid-out text boxes
// (white backgrounds, easy to find) about their centres.
func TestRenderMotionTextBox(t *testing.T) {
	if testing.Short() {
		t.Skip("renders with ffmpeg")
	}
	t.Parallel()
	box := func(x, y, w, h int, more map[string]any) map[string]any {
		l := map[string]any{"type": "text", "text": "█", "fontSize": 10, "color": "white", "backgroundColor": "white",
			"x": x, "y": y, "width": w, "height": h, "shadowColor": "white", "shadowX": 2, "shadowY": 2}
		for k, v := range more {
			l[k] = v
		}
		return l
	}
	r := render(t, "unified", map[string]any{"output": map[string]any{"width": 320, "height": 180, "fps": 10, "duration": 2}, "tracks": []any{
		// 60x20, a quarter turn: 20x60 about the same centre (50, 60).
		map[string]any{"clips": []any{map[string]any{"asset": map[string]any{"type": "text", "text": "█", "fontSize": 10, "color": "white", "backgroundColor": "white"},
			"position": map[string]any{"x": 20, "y": 50}, "size": map[string]any{"width": 60, "height": 20}, "rotation": 90}}},
	}})
	r2 := render(t, "provider_a", map[string]any{"width": 320, "height": 180, "fps": 10, "duration": 2, "layers": []any{
		// 40x40 zooming out to nothing about (220, 80).
		box(200, 60, 40, 40, map[string]any{"exit": map[string]any{"type": "zoom", "duration": 2, "easing": "linear"}}),
		// Still, fading in over 2 s.
		box(100, 120, 40, 40, map[string]any{"opacity": keys(0, 0, 2, 1)}),
	}})
	checkOutput(t, r, "mp4")
	checkOutput(t, r2, "mp4")
	turned := decodeRGB(t, r.out, 320, 180)
	frames := decodeRGB(t, r2.out, 320, 180)
	require.Len(t, turned, 20)
	require.Len(t, frames, 20)
	for n := range frames {
		tm := float64(n) / 10
		f := frameRGB{pix: turned[n], w: 320, h: 180}
		assert.Equal(t, rect{x: 40, y: 30, w: 20, h: 60}, f.box(f.all(), white), "frame %d: the turned box", n)

		f = frameRGB{pix: frames[n], w: 320, h: 180}
		zoomed := f.box(rect{x: 160, w: 160, h: 120}, white)
		side := 40 * (1 - tm/2)
		assert.InDelta(t, side, zoomed.w, 3, "frame %d: the zooming box's side", n)
		assert.InDelta(t, 220, float64(zoomed.x)+float64(zoomed.w)/2, 2, "frame %d: its centre", n)
		assert.InDelta(t, 255*tm/2, f.luma(110, 130), 8, "frame %d: the fading box", n)
	}
}
