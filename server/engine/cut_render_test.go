package engine

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/ffmpeg"
)

// The render tests of transitions: a red clip (0 to 2 s) hands over to a
// blue one (1 to 3 s) by each transition, linearly over the 1 s they
// overlap, and the frame at the midpoint (1.5 s) is read: the picture
// must hold both clips, where the transition says.

// A second tone to hand over to, 660 Hz for 4 s; kept here, beside the
// one test that uses it.
func init() {
	fixtureFiles["chime"] = []string{"-f", "lavfi", "-i", "sine=frequency=660:sample_rate=48000", "-t", "4", "-f", "wav"}
}

var (
	cutRed  = [3]float64{255, 0, 0}
	cutBlue = [3]float64{0, 0, 255}
)

// near reports whether a decoded colour is within 40 of want on each
// channel (4:2:0 and limited range move pure colours a little).
func near(got, want [3]float64) bool {
	for i := range got {
		if math.Abs(got[i]-want[i]) > 40 {
			return false
		}
	}
	return true
}

// handover renders red into blue by the transition name, 160×96 at 10
// fps, in the given format (the clips in one track in unified, two
// layers in provider_a), and returns its frames.
func handover(t *testing.T, provider, name string) ([][]byte, rendered) {
	t.Helper()
	tr := map[string]any{"name": name, "duration": 1, "easing": "linear"}
	var comp map[string]any
	if provider == "unified" {
		comp = map[string]any{"output": map[string]any{"width": 160, "height": 96, "fps": 10}, "tracks": []any{
			map[string]any{"clips": []any{
				map[string]any{"asset": map[string]any{"type": "color", "color": "red"}, "length": 2, "transition": tr},
				map[string]any{"asset": map[string]any{"type": "color", "color": "blue"}, "start": 1, "length": 2},
			}}}}
	} else {
		comp = map[string]any{"width": 160, "height": 96, "fps": 10, "layers": []any{
			map[string]any{"type": "color", "color": "red", "duration": 2, "transition": tr},
			map[string]any{"type": "color", "color": "blue", "start": 1, "duration": 2},
		}}
	}
	r := render(t, provider, comp)
	frames := decodeRGB(t, r.out, 160, 96)
	// The clips overlap: 3 s, not 4.
	require.Len(t, frames, 30, "%s: frames", name)
	assert.InDelta(t, 3, r.scene.Duration, 1e-9)
	assert.True(t, near(meanRGB(frames[5], 160, 72, 40, 16), cutRed), "%s: before the transition, red", name)
	assert.True(t, near(meanRGB(frames[25], 160, 72, 40, 16), cutBlue), "%s: after it, blue", name)
	return frames, r
}

func TestRenderTransitions(t *testing.T) {
	if testing.Short() {
		t.Skip("renders with ffmpeg")
	}
	t.Parallel()
	at := func(frame []byte, x, y int) [3]float64 { return meanRGB(frame, 160, x, y, 8) }
	cases := []struct {
		name  string
		check func(t *testing.T, mid []byte)
	}{
		{"fade", func(t *testing.T, mid []byte) {
			// Half of each, everywhere: purple.
			c := at(mid, 76, 44)
			assert.InDelta(t, 128, c[0], 20, "red half")
			assert.InDelta(t, 128, c[2], 20, "blue half")
			assert.Equal(t, at(mid, 8, 8), c, "the same everywhere")
		}},
		{"wipeLeft", func(t *testing.T, mid []byte) {
			assert.True(t, near(at(mid, 20, 44), cutRed), "left still red: %v", at(mid, 20, 44))
			assert.True(t, near(at(mid, 132, 44), cutBlue), "right already blue: %v", at(mid, 132, 44))
		}},
		{"wipeRight", func(t *testing.T, mid []byte) {
			assert.True(t, near(at(mid, 20, 44), cutBlue), "left already blue")
			assert.True(t, near(at(mid, 132, 44), cutRed), "right still red")
		}},
		{"wipeUp", func(t *testing.T, mid []byte) {
			assert.True(t, near(at(mid, 76, 8), cutRed), "top still red")
			assert.True(t, near(at(mid, 76, 80), cutBlue), "bottom already blue")
		}},
		{"wipeDown", func(t *testing.T, mid []byte) {
			assert.True(t, near(at(mid, 76, 8), cutBlue), "top already blue")
			assert.True(t, near(at(mid, 76, 80), cutRed), "bottom still red")
		}},
		{"slideLeft", func(t *testing.T, mid []byte) {
			// Blue has come halfway in from the right, pushing red out.
			assert.True(t, near(at(mid, 20, 44), cutRed), "left red")
			assert.True(t, near(at(mid, 132, 44), cutBlue), "right blue")
		}},
		{"slideRight", func(t *testing.T, mid []byte) {
			assert.True(t, near(at(mid, 20, 44), cutBlue), "left blue")
			assert.True(t, near(at(mid, 132, 44), cutRed), "right red")
		}},
		{"slideUp", func(t *testing.T, mid []byte) {
			assert.True(t, near(at(mid, 76, 8), cutRed), "top red")
			assert.True(t, near(at(mid, 76, 80), cutBlue), "bottom blue")
		}},
		{"slideDown", func(t *testing.T, mid []byte) {
			assert.True(t, near(at(mid, 76, 8), cutBlue), "top blue")
			assert.True(t, near(at(mid, 76, 80), cutRed), "bottom red")
		}},
		{"circleOpen", func(t *testing.T, mid []byte) {
			// The radius is half of the half-diagonal (about 47 px).
			assert.True(t, near(at(mid, 76, 44), cutBlue), "centre blue")
			assert.True(t, near(at(mid, 0, 0), cutRed), "corner red")
		}},
		{"circleClose", func(t *testing.T, mid []byte) {
			assert.True(t, near(at(mid, 76, 44), cutRed), "centre red")
			assert.True(t, near(at(mid, 0, 0), cutBlue), "corner blue")
		}},
		{"zoom", func(t *testing.T, mid []byte) {
			// Blue at half size, centred: 80×48 from (40, 24).
			assert.True(t, near(at(mid, 76, 44), cutBlue), "centre blue")
			assert.True(t, near(at(mid, 8, 8), cutRed), "corner red")
			assert.True(t, near(at(mid, 44, 44), cutBlue), "inside the half-size box")
			assert.True(t, near(at(mid, 28, 44), cutRed), "outside it")
		}},
		{"dissolve", func(t *testing.T, mid []byte) {
			// About half the grains have turned, spread over the frame.
			for _, half := range [][2]int{{0, 80}, {80, 160}} {
				blues := 0
				for y := 0; y < 96; y++ {
					for x := half[0]; x < half[1]; x++ {
						if mid[3*(y*160+x)+2] > 128 {
							blues++
						}
					}
				}
				assert.InDelta(t, 0.5, float64(blues)/(80*96), 0.15, "share of blue pixels in columns %v", half)
			}
		}},
	}
	for _, c := range cases {
		for _, provider := range []string{"provider_a", "unified"} {
			if provider == "unified" && c.name != "wipeLeft" && c.name != "circleOpen" && c.name != "slideUp" {
				continue // the same plan; three are enough to show the format reads it
			}
			t.Run(provider+"/"+c.name, func(t *testing.T) {
				t.Parallel()
				frames, _ := handover(t, provider, c.name)
				c.check(t, frames[15])
			})
		}
	}
}

// TestRenderTransitionCrossfade hands a 440 Hz tone over to a 660 Hz one
// by a 1 s fade: each is at half gain (−6 dB) at the midpoint, the sum
// never dips (no gap at the join), and the output lasts 3 s.
func TestRenderTransitionCrossfade(t *testing.T) {
	if testing.Short() {
		t.Skip("renders with ffmpeg")
	}
	t.Parallel()
	r := renderFixtures(t, "provider_a", map[string]any{"width": 64, "height": 48, "fps": 10, "format": "wav", "layers": []any{
		map[string]any{"type": "audio", "src": fixtureURL("music"), "duration": 2, "transition": map[string]any{"name": "fade", "duration": 1}},
		map[string]any{"type": "audio", "src": fixtureURL("chime"), "start": 1, "duration": 2},
	}})
	info, err := ffmpeg.Probe(context.Background(), ffmpeg.Limits{}, r.out)
	require.NoError(t, err)
	assert.InDelta(t, 3, info.Duration, 0.01, "the tones overlap: 3 s, not 4")
	s := decodeMono(t, r.out)
	full := toneLevel(s, 440, 0.2, 0.8)
	assert.InDelta(t, full, toneLevel(s, 660, 2.2, 2.8), 0.5, "both tones at the same level alone")
	assert.InDelta(t, full-6.02, toneLevel(s, 440, 1.45, 1.55), 0.6, "440 Hz at half gain mid-way")
	assert.InDelta(t, full-6.02, toneLevel(s, 660, 1.45, 1.55), 0.6, "660 Hz at half gain mid-way")
	assert.Less(t, toneLevel(s, 440, 2.2, 2.8), full-40, "440 Hz gone after the transition")
	assert.Less(t, toneLevel(s, 660, 0.2, 0.8), full-40, "660 Hz not yet before it")
	// Every 50 ms (whole cycles of both tones) from 0.1 s to 2.9 s:
	// each tone follows its ramp, so their amplitudes add to the full
	// one (linear gains sum to 1).
	for at := 0.1; at < 2.85; at += 0.05 {
		a := math.Pow(10, toneLevel(s, 440, at, at+0.05)/20)
		b := math.Pow(10, toneLevel(s, 660, at, at+0.05)/20)
		if !assert.InDelta(t, math.Pow(10, full/20), a+b, 0.08, "sum of the gains at %.2f s", at) {
			break
		}
	}
}

// TestRenderTransitionKinds chains every kind of visual layer by
// transitions (a colour, a picture, a text box, a shape, plain text) and
// checks that each renders and changes the picture where it should.
func TestRenderTransitionKinds(t *testing.T) {
	if testing.Short() {
		t.Skip("renders with ffmpeg")
	}
	t.Parallel()
	tr := func(name string) map[string]any {
		return map[string]any{"name": name, "duration": 0.4, "easing": "linear"}
	}
	r := render(t, "provider_a", map[string]any{"width": 160, "height": 96, "fps": 10, "layers": []any{
		map[string]any{"type": "color", "color": "navy", "duration": 1, "transition": tr("circleOpen")},
		map[string]any{"type": "image", "src": "picture", "start": 0.6, "duration": 1, "width": 160, "height": 96, "transition": tr("wipeRight")},
		map[string]any{"type": "text", "text": "box", "width": 160, "height": 96, "backgroundColor": "white", "color": "black",
			"start": 1.2, "duration": 1, "transition": tr("dissolve")},
		map[string]any{"type": "ellipse", "color": "red", "start": 1.8, "duration": 1, "transition": tr("slideLeft")},
		map[string]any{"type": "text", "text": "end", "fontSize": 40, "color": "yellow", "start": 2.4, "duration": 1},
	}})
	frames := decodeRGB(t, r.out, 160, 96)
	require.Len(t, frames, 34, "five 1 s layers overlapping by 0.4 s four times: 3.4 s")
	for _, mid := range []int{8, 14, 20, 26} {
		// 0.2 s into each transition; frames 0.2 s before it and after it.
		before, after := frames[mid-4], frames[mid+4]
		assert.NotEqual(t, before, after, "frame %d: the transition changes the picture", mid)
		assert.NotEqual(t, before, frames[mid], "frame %d: the next layer is coming in", mid)
		assert.NotEqual(t, after, frames[mid], "frame %d: the layer before is still there", mid)
	}
	// Half way through the circle, the navy shows at the corner and the
	// picture (not navy) at the centre.
	assert.True(t, near(meanRGB(frames[8], 160, 0, 0, 4), [3]float64{0, 0, 128}), "corner still navy")
	assert.False(t, near(meanRGB(frames[8], 160, 76, 44, 4), [3]float64{0, 0, 128}), "centre shows the picture")
}
