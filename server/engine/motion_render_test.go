package engine

import (
	"fmt"
	"math"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The render tests of motion: each renders a small video with ffmpeg and
// reads its decoded frames (or sound) at chosen times against the curve
// worked out here, independently of the expressions the plan wrote.

// eased is the easing e at progress p, as documented.
func eased(e Easing, p float64) float64 {
	p = math.Max(0, math.Min(1, p))
	switch e {
	case EaseIn:
		return p * p * p
	case EaseOut:
		return 1 - math.Pow(1-p, 3)
	case EaseInOut:
		if p < 0.5 {
			return 4 * p * p * p
		}
		return 1 - 4*math.Pow(1-p, 3)
	}
	return p
}

// luma is the decoded grey (decodeGray reads full range) of a level 0
// to 1 on black.
func luma(level float64) float64 { return 255 * level }

// lit is the first and last column of row y of a grey frame w wide
// brighter than mid grey, or -1, -1; columns from and on, up to to when
// given.
func lit(frame []byte, w, y int, span ...int) (int, int) {
	first, last := -1, -1
	from, to := 0, w
	if len(span) == 2 {
		from, to = span[0], span[1]
	}
	for x := from; x < to; x++ {
		if frame[y*w+x] > 128 {
			if first < 0 {
				first = x
			}
			last = x
		}
	}
	return first, last
}

// litRows is lit for a column: the first and last row of column x.
func litRows(frame []byte, w, h, x int, span ...int) (int, int) {
	first, last := -1, -1
	from, to := 0, h
	if len(span) == 2 {
		from, to = span[0], span[1]
	}
	for y := from; y < to; y++ {
		if frame[y*w+x] > 128 {
			if first < 0 {
				first = y
			}
			last = y
		}
	}
	return first, last
}

// TestRenderMotionEasing moves four squares from x 0 to 200 in 2 s, one
// per easing, and finds each square's left edge on every frame: the
// curve's shape, frame by frame (overlay puts a corner on an even pixel).
func TestRenderMotionEasing(t *testing.T) {
	if testing.Short() {
		t.Skip("renders with ffmpeg")
	}
	t.Parallel()
	order := []Easing{Linear, EaseIn, EaseOut, EaseInOut}
	var tracks []any
	for row, e := range order {
		tracks = append(tracks, map[string]any{"clips": []any{map[string]any{
			"asset": map[string]any{"type": "color", "color": "white"}, "size": map[string]any{"width": 16, "height": 16},
			"position": map[string]any{"x": keys(0, 0, 2, 200, string(e)), "y": 2 + 20*row}}}})
	}
	r := render(t, "unified", map[string]any{"output": map[string]any{"width": 256, "height": 80, "fps": 10, "duration": 2}, "tracks": tracks})
	checkOutput(t, r, "mp4")
	frames := decodeGray(t, r.out, 256, 80)
	require.Len(t, frames, 20)
	for row, e := range order {
		for n, frame := range frames {
			want := 200 * eased(e, float64(n)/20)
			first, last := lit(frame, 256, 10+20*row)
			assert.InDelta(t, math.Floor(want/2)*2, first, 1, "%s, frame %d: left edge", e, n)
			assert.Equal(t, 15, last-first, "%s, frame %d: width", e, n)
		}
	}
	// The shapes differ where they should: a quarter of the way, ease-in
	// has barely left, ease-out is more than half way.
	quarter := frames[5]
	x := func(row int) int { first, _ := lit(quarter, 256, 10+20*row); return first }
	assert.Less(t, x(1), x(3), "ease-in behind ease-in-out")
	assert.Less(t, x(3), x(0), "ease-in-out behind linear")
	assert.Less(t, x(0), x(2), "linear behind ease-out")
}

// TestRenderMotionOpacity ramps the opacity of a colour and of a picture
// on keyframes (up, eased, then down, linear) and reads their luma over
// black on every frame.
func TestRenderMotionOpacity(t *testing.T) {
	if testing.Short() {
		t.Skip("renders with ffmpeg")
	}
	t.Parallel()
	opacity := keys(0, 0, 1, 1, "ease-in-out", 2, 0.5)
	r := render(t, "provider_a", map[string]any{"width": 64, "height": 32, "fps": 10, "duration": 2, "layers": []any{
		map[string]any{"type": "color", "color": "white", "x": 0, "y": 0, "width": 32, "height": 32, "opacity": opacity},
		// A white picture stretched to 32x32.
		map[string]any{"type": "image", "src": "thin", "x": 32, "y": 0, "width": 32, "height": 32, "opacity": opacity},
	}})
	checkOutput(t, r, "mp4")
	want := func(t float64) float64 {
		if t < 1 {
			return eased(EaseInOut, t)
		}
		return 1 - 0.5*(t-1)
	}
	frames := decodeGray(t, r.out, 64, 32)
	require.Len(t, frames, 20)
	for n, frame := range frames {
		o := want(float64(n) / 10)
		assert.InDelta(t, luma(o), meanLuma(frame, 64, 8, 8, 16), 4, "colour, frame %d (opacity %.3f)", n, o)
		assert.InDelta(t, luma(o), meanLuma(frame, 64, 40, 8, 16), 4, "picture, frame %d (opacity %.3f)", n, o)
	}
}

// TestRenderMotionRotation turns two 60x20 rectangles clockwise about
// their centres, one by a fixed 30°, one from 0° to 90° over 2 s, and
// reads points just inside and just outside each corner; a turn the
// other way would put a corner where the test reads black.
func TestRenderMotionRotation(t *testing.T) {
	if testing.Short() {
		t.Skip("renders with ffmpeg")
	}
	t.Parallel()
	r := render(t, "provider_a", map[string]any{"width": 256, "height": 128, "fps": 10, "duration": 2, "layers": []any{
		map[string]any{"type": "color", "color": "white", "x": 34, "y": 54, "width": 60, "height": 20, "rotation": 30},
		map[string]any{"type": "color", "color": "white", "x": 162, "y": 54, "width": 60, "height": 20, "rotation": keys(0, 0, 2, 90)},
	}})
	checkOutput(t, r, "mp4")
	frames := decodeGray(t, r.out, 256, 128)
	require.Len(t, frames, 20)
	// at is the pixel of the point u, v of a rectangle centred at cx, cy
	// turned clockwise by deg (y grows downwards).
	at := func(frame []byte, cx, cy, deg, u, v float64) float64 {
		rad := deg * math.Pi / 180
		x := cx + u*math.Cos(rad) - v*math.Sin(rad)
		y := cy + u*math.Sin(rad) + v*math.Cos(rad)
		return meanLuma(frame, 256, int(math.Round(x))-1, int(math.Round(y))-1, 2)
	}
	check := func(n int, frame []byte, cx, deg float64) {
		for _, corner := range [][2]float64{{1, 1}, {1, -1}, {-1, 1}, {-1, -1}} {
			u, v := corner[0], corner[1]
			assert.Greater(t, at(frame, cx, 64, deg, 26*u, 6*v), 200.0, "frame %d, %v°: inside corner %v", n, deg, corner)
			assert.Less(t, at(frame, cx, 64, deg, 35*u, 15*v), 40.0, "frame %d, %v°: outside corner %v", n, deg, corner)
		}
		// The far end of the long side, turned the other way, is black.
		if deg >= 10 && deg <= 80 {
			assert.Less(t, at(frame, cx, 64, -deg, 28, 0), 40.0, "frame %d, %v°: turned clockwise", n, deg)
		}
	}
	for n, frame := range frames {
		check(n, frame, 64, 30)
		check(n, frame, 192, 90*float64(n)/20)
	}
}

// TestRenderMotionScale grows a square and a text about their centres.
func TestRenderMotionScale(t *testing.T) {
	if testing.Short() {
		t.Skip("renders with ffmpeg")
	}
	t.Parallel()
	r := render(t, "provider_a", map[string]any{"width": 192, "height": 96, "fps": 10, "duration": 2, "layers": []any{
		// Centred at 48, 48: 20 pixels at 0 s, 60 at 2 s.
		map[string]any{"type": "color", "color": "white", "x": 38, "y": 38, "width": 20, "height": 20, "scale": keys(0, 1, 2, 3)},
		// Text at a fixed scale of 2, then one growing, both about the
		// centre of their box at scale 1.
		map[string]any{"type": "text", "text": "█", "fontSize": 16, "x": 120, "y": 10, "scale": 2},
		map[string]any{"type": "text", "text": "█", "fontSize": 16, "x": 150, "y": 50, "scale": keys(0, 1, 2, 2.5)},
	}})
	checkOutput(t, r, "mp4")
	frames := decodeGray(t, r.out, 192, 96)
	require.Len(t, frames, 20)
	unscaled := render(t, "provider_a", map[string]any{"width": 192, "height": 96, "fps": 10, "duration": 0.1, "layers": []any{
		map[string]any{"type": "text", "text": "█", "fontSize": 16, "x": 120, "y": 10},
	}})
	box := decodeGray(t, unscaled.out, 192, 96)[0]
	l0, r0 := lit(box, 192, 16)
	t0, b0 := litRows(box, 192, 96, (l0+r0)/2)
	centre := [2]float64{float64(l0+r0) / 2, float64(t0+b0) / 2}
	for n, frame := range frames {
		s := 1 + float64(n)/10
		left, right := lit(frame, 192, 48, 0, 100)
		top, bottom := litRows(frame, 192, 96, 48)
		assert.InDelta(t, 20*s, right-left+1, 2, "square, frame %d: width", n)
		assert.InDelta(t, 20*s, bottom-top+1, 2, "square, frame %d: height", n)
		assert.InDelta(t, 48, float64(left+right+1)/2, 1.5, "square, frame %d: centre x", n)
		assert.InDelta(t, 48, float64(top+bottom+1)/2, 1.5, "square, frame %d: centre y", n)

		// The fixed scale: twice the unscaled glyph, about its centre.
		left, right = lit(frame, 192, int(centre[1]), 100, 140)
		assert.InDelta(t, 2*float64(r0-l0+1), right-left+1, 3, "text at scale 2, frame %d", n)
		assert.InDelta(t, centre[0], float64(left+right)/2, 2, "text at scale 2, frame %d: centre", n)

		// The growing text: centred on its box's centre, 30 pixels lower.
		s = 1 + 1.5*float64(n)/20
		left, right = lit(frame, 192, int(centre[1])+40, 140, 192)
		assert.InDelta(t, s*float64(r0-l0+1), right-left+1, 3, "growing text, frame %d: width", n)
		assert.InDelta(t, centre[0]+30, float64(left+right)/2, 2, "growing text, frame %d: centre", n)
	}
}

// TestRenderKenBurns frames a grey gradient, whose level tells the column
// of the picture a pixel shows, in three layers: a zoom from 1 to 2 on
// the left edge, a pan at zoom 2 from left to right, a fixed crop.
func TestRenderKenBurns(t *testing.T) {
	if testing.Short() {
		t.Skip("renders with ffmpeg")
	}
	t.Parallel()
	r := render(t, "provider_a", map[string]any{"width": 256, "height": 192, "fps": 10, "duration": 2, "layers": []any{
		map[string]any{"type": "image", "src": "gradient", "x": 0, "y": 0, "zoom": keys(0, 1, 2, 2), "panX": 0},
		map[string]any{"type": "image", "src": "gradient", "x": 0, "y": 64, "zoom": 2, "panX": keys(0, 0, 2, 1)},
		map[string]any{"type": "image", "src": "gradient", "x": 0, "y": 128, "zoom": 2, "panX": 1},
	}})
	checkOutput(t, r, "mp4")
	assert.Contains(t, filterGraph(r.cmd), "zoompan")
	assert.Contains(t, filterGraph(r.cmd), "crop")
	frames := decodeGray(t, r.out, 256, 192)
	require.Len(t, frames, 20)
	// column is the luma of the gradient's column c.
	column := func(c float64) float64 { return luma(c / 255) }
	for n, frame := range frames {
		p := float64(n) / 20
		z := 1 + p
		for _, x := range []int{40, 120, 200, 248} {
			// Zooming on the left edge: screen column x shows x/z.
			assert.InDelta(t, column(float64(x)/z), meanLuma(frame, 256, x-2, 30, 4), 8, "zoom, frame %d, column %d", n, x)
			// Panning at zoom 2: the view's left edge travels from 0 to 128.
			assert.InDelta(t, column(128*p+float64(x)/2), meanLuma(frame, 256, x-2, 94, 4), 8, "pan, frame %d, column %d", n, x)
			// Fixed at zoom 2 on the right half.
			assert.InDelta(t, column(128+float64(x)/2), meanLuma(frame, 256, x-2, 158, 4), 8, "crop, frame %d, column %d", n, x)
		}
	}
}

// TestRenderEnterExit renders the shorthands: a square sliding in from
// the left and out to the right, one zooming in from nothing and fading
// out, a text sliding down from the top, and a video with every kind at
// once (which must simply render whole).
func TestRenderEnterExit(t *testing.T) {
	if testing.Short() {
		t.Skip("renders with ffmpeg")
	}
	t.Parallel()
	linear := func(kind, side string) map[string]any {
		m := map[string]any{"type": kind, "easing": "linear"}
		if side != "" {
			m["side"] = side
		}
		return m
	}
	r := render(t, "provider_a", map[string]any{"width": 240, "height": 96, "fps": 10, "duration": 2, "layers": []any{
		map[string]any{"type": "color", "color": "white", "x": 100, "y": 4, "width": 20, "height": 20,
			"enter": linear("slide", "left"), "exit": linear("slide", "right")},
		map[string]any{"type": "color", "color": "white", "x": 100, "y": 40, "width": 20, "height": 20,
			"enter": linear("zoom", ""), "exit": linear("fade", "")},
		map[string]any{"type": "text", "text": "██", "fontSize": 16, "x": 180, "y": 70, "enter": linear("slide", "top")},
		map[string]any{"type": "video", "src": "clip", "width": 40, "x": 10, "y": 40, "kenBurns": "zoomOut", "volume": 1,
			"enter": map[string]any{"type": "slide", "side": "bottom", "duration": 0.3}, "exit": map[string]any{"type": "zoom", "duration": 0.3}},
	}})
	checkOutput(t, r, "mp4")
	frames := decodeGray(t, r.out, 240, 96)
	require.Len(t, frames, 20)
	for n, frame := range frames {
		tm := float64(n) / 10
		// Sliding: from x -20 to 100 in 0.5 s, then from 100 to 240 in
		// the last 0.5 s.
		x := -20 + 120*math.Min(tm/0.5, 1)
		if tm > 1.5 {
			x = 100 + 140*(tm-1.5)/0.5
		}
		// Until 0.6 s the text comes down through this row on the right.
		first, last := lit(frame, 240, 14, 0, 170)
		if tm >= 0.6 {
			first, last = lit(frame, 240, 14)
		}
		corner := math.Floor((x+1e-6)/2) * 2
		switch {
		case x+20 <= 0:
			assert.Equal(t, -1, first, "slide, frame %d: off screen", n)
		default:
			assert.InDelta(t, math.Max(0, corner), first, 1, "slide, frame %d: left edge", n)
			assert.InDelta(t, math.Min(239, corner+19), last, 1, "slide, frame %d: right edge", n)
		}

		// Zooming in over 0.5 s about the centre (110, 50), then fading out.
		s := math.Min(tm/0.5, 1)
		left, right := lit(frame, 240, 50, 60, 170)
		if s == 0 {
			assert.Equal(t, -1, left, "zoom, frame %d: not drawn at scale 0", n)
		} else if tm < 1.5 {
			assert.InDelta(t, 20*s, right-left+1, 2, "zoom, frame %d: width", n)
			assert.InDelta(t, 110, float64(left+right+1)/2, 1.5, "zoom, frame %d: centre", n)
		}
		if s == 1 {
			o := 1 - math.Max(0, (tm-1.5)/0.5)
			assert.InDelta(t, luma(o), meanLuma(frame, 240, 106, 46, 8), 5, "fade, frame %d", n)
		}

		// The text comes down from above the frame to y 70 in 0.5 s.
		top, _ := litRows(frame, 240, 96, 186, 30, 96)
		if tm >= 0.5 {
			assert.InDelta(t, 70+3, top, 4, "text, frame %d: in place", n)
		} else if top >= 0 {
			assert.Less(t, top, 70, "text, frame %d: still coming", n)
		}
	}
	first, _ := litRows(frames[0], 240, 96, 186)
	assert.Equal(t, -1, first, "the text starts wholly above the frame")
}

// meanVolume is ffmpeg's volumedetect mean volume, in dB, of the sound of
// path from from to to seconds.
func meanVolume(t *testing.T, path string, from, to float64) float64 {
	t.Helper()
	out, err := exec.Command("ffmpeg", "-hide_banner", "-nostdin", "-i", path, "-map", "0:a",
		"-af", fmt.Sprintf("atrim=start=%s:end=%s,volumedetect", f(from), f(to)), "-f", "null", "-").CombinedOutput()
	require.NoError(t, err, "%s", out)
	m := regexp.MustCompile(`mean_volume: (-?[0-9.]+) dB`).FindSubmatch(out)
	require.NotNil(t, m, "%s", out)
	v, err := strconv.ParseFloat(string(m[1]), 64)
	require.NoError(t, err)
	return v
}

// TestRenderMotionVolume plays a tone whose volume rises linearly from 0
// to 1 in a second and falls, eased in, to 0.2 in the next, and measures
// the mean volume of slices with ffmpeg's volumedetect against the
// envelope's mean power over each slice.
func TestRenderMotionVolume(t *testing.T) {
	if testing.Short() {
		t.Skip("renders with ffmpeg")
	}
	t.Parallel()
	r := render(t, "provider_a", map[string]any{"width": 16, "height": 16, "fps": 10, "duration": 2, "layers": []any{
		map[string]any{"type": "audio", "src": "tone", "volume": keys(0, 0, 1, 1, 2, 0.2, "ease-in")},
	}})
	checkOutput(t, r, "mp4")
	gain := func(t float64) float64 {
		if t < 1 {
			return t
		}
		return 1 - 0.8*eased(EaseIn, t-1)
	}
	// power is the envelope's mean power over a slice, in dB.
	power := func(from, to float64) float64 {
		sum, n := 0.0, 1000
		for i := 0; i < n; i++ {
			g := gain(from + (to-from)*(float64(i)+0.5)/float64(n))
			sum += g * g
		}
		return 10 * math.Log10(sum/float64(n))
	}
	ref := meanVolume(t, r.out, 0.9, 1.1) - power(0.9, 1.1)
	for _, slice := range [][2]float64{{0.2, 0.3}, {0.45, 0.55}, {0.7, 0.8}, {1.3, 1.4}, {1.6, 1.7}, {1.85, 1.95}} {
		want := power(slice[0], slice[1]) + ref
		assert.InDelta(t, want, meanVolume(t, r.out, slice[0], slice[1]), 0.3, "%v s to %v s", slice[0], slice[1])
	}
	assert.Less(t, meanVolume(t, r.out, 0, 0.02), ref-30, "silent at the start")
}

// TestRenderLongGraph renders a composition whose graph is too long for
// one argument: ffmpeg reads it from the working folder.
func TestRenderLongGraph(t *testing.T) {
	if testing.Short() {
		t.Skip("renders with ffmpeg")
	}
	t.Parallel()
	var layers []any
	for l := 0; l < 10; l++ {
		var x []any
		for i := 0; i < 100; i++ {
			x = append(x, map[string]any{"time": float64(i) / 100, "value": (i * 37) % 150, "easing": "ease-in-out"})
		}
		x[0] = map[string]any{"time": 0, "value": 0}
		layers = append(layers, map[string]any{"type": "text", "text": "x", "fontSize": 8, "x": x, "y": 8 * l,
			"enter": map[string]any{"type": "slide", "side": "right", "duration": 0.2}})
	}
	r := render(t, "provider_a", map[string]any{"width": 160, "height": 80, "fps": 10, "duration": 1, "layers": layers})
	checkOutput(t, r, "mp4")
	assert.Contains(t, r.cmd.Args, "-filter_complex_script")
	assert.NotContains(t, r.cmd.Args, "-filter_complex")
	assert.Greater(t, len(r.cmd.Files[graphFile]), maxGraphArg)
	assert.False(t, strings.Contains(strings.Join(r.cmd.Args, " "), "overlay="), "the graph is only in its file")
}

// TestRenderMotionTurnedVideo: a phone video stored landscape with a
// quarter turn is decoded portrait, and a moving layer is placed by that
// box: 60 wide and 80 high, growing about its centre.
func TestRenderMotionTurnedVideo(t *testing.T) {
	if testing.Short() {
		t.Skip("renders with ffmpeg")
	}
	t.Parallel()
	require.Equal(t, [2]int{60, 80}, [2]int{testMedia(t)["turned"].Width, testMedia(t)["turned"].Height})
	r := render(t, "provider_a", map[string]any{"width": 160, "height": 96, "fps": 10, "duration": 1, "layers": []any{
		map[string]any{"type": "video", "src": "turned", "x": 0, "y": 0, "scale": keys(0, 1, 1, 1.5)},
	}})
	checkOutput(t, r, "mp4")
	frames := decodeGray(t, r.out, 160, 96)
	require.Len(t, frames, 10)
	// drawn is the bounds of the pixels the video lights.
	drawn := func(frame []byte) (x0, y0, x1, y1 int) {
		x0, y0 = 160, 96
		for y := 0; y < 96; y++ {
			for x := 0; x < 160; x++ {
				if frame[y*160+x] > 24 {
					x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x+1), max(y1, y+1)
				}
			}
		}
		return
	}
	x0, y0, x1, y1 := drawn(frames[0])
	assert.Equal(t, [4]int{0, 0, 60, 80}, [4]int{x0, y0, x1, y1}, "portrait, as decoded")
	// At 0.9 s the scale is 1.45: 87 wide about x 30, clipped at the left.
	x0, _, x1, _ = drawn(frames[9])
	assert.Equal(t, 0, x0)
	assert.InDelta(t, 30+87/2, x1, 2)
}
