package composite

import (
	"image"
	"image/color"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// formulas are the separable modes as Photoshop's documentation and the
// W3C specification write them, on 0..1, written again here, apart from
// the code under test.
var formulas = map[Mode]func(b, s float64) float64{
	Normal:   func(b, s float64) float64 { return s },
	Darken:   func(b, s float64) float64 { return math.Min(b, s) },
	Multiply: func(b, s float64) float64 { return b * s },
	ColorBurn: func(b, s float64) float64 {
		if b == 1 {
			return 1
		}
		if s == 0 {
			return 0
		}
		return math.Max(0, 1-(1-b)/s)
	},
	LinearBurn: func(b, s float64) float64 { return math.Max(0, b+s-1) },
	Lighten:    func(b, s float64) float64 { return math.Max(b, s) },
	Screen:     func(b, s float64) float64 { return 1 - (1-b)*(1-s) },
	ColorDodge: func(b, s float64) float64 {
		if b == 0 {
			return 0
		}
		if s == 1 {
			return 1
		}
		return math.Min(1, b/(1-s))
	},
	LinearDodge: func(b, s float64) float64 { return math.Min(1, b+s) },
	Overlay: func(b, s float64) float64 {
		if b <= 0.5 {
			return 2 * b * s
		}
		return 1 - 2*(1-b)*(1-s)
	},
	SoftLight: func(b, s float64) float64 {
		if s <= 0.5 {
			return b - (1-2*s)*b*(1-b)
		}
		d := math.Sqrt(b)
		if b <= 0.25 {
			d = ((16*b-12)*b + 4) * b
		}
		return b + (2*s-1)*(d-b)
	},
	HardLight: func(b, s float64) float64 {
		if s <= 0.5 {
			return 2 * b * s
		}
		return 1 - 2*(1-b)*(1-s)
	},
	VividLight: func(b, s float64) float64 {
		if s == 0 {
			return 0
		}
		if s == 1 {
			return 1
		}
		if s <= 0.5 {
			return math.Max(0, 1-(1-b)/(2*s))
		}
		return math.Min(1, b/(2*(1-s)))
	},
	LinearLight: func(b, s float64) float64 { return math.Min(1, math.Max(0, b+2*s-1)) },
	PinLight: func(b, s float64) float64 {
		if s <= 0.5 {
			return math.Min(b, 2*s)
		}
		return math.Max(b, 2*s-1)
	},
	HardMix: func(b, s float64) float64 {
		// On 8-bit values, compared exactly.
		bi, si := math.Round(b*255), math.Round(s*255)
		if bi+si > 255 || (bi+si == 255 && bi > 127) {
			return 1
		}
		return 0
	},
	Difference: func(b, s float64) float64 { return math.Abs(b - s) },
	Exclusion:  func(b, s float64) float64 { return b + s - 2*b*s },
	Subtract:   func(b, s float64) float64 { return math.Max(0, b-s) },
	Divide: func(b, s float64) float64 {
		if s == 0 {
			if b == 0 {
				return 0
			}
			return 1
		}
		return math.Min(1, b/s)
	},
}

var levels = []uint8{0, 1, 13, 50, 63, 64, 100, 127, 128, 129, 180, 191, 200, 230, 254, 255}

// flattenOne draws a source pixel over a backdrop pixel with mode m.
func flattenOne(m Mode, b, s color.NRGBA, opacity float64) color.NRGBA {
	bg := solid(1, 1, b)
	fg := solid(1, 1, s)
	out := Flatten(1, 1, []*Layer{
		{Image: bg, Mode: Normal, Opacity: 1, FillOpacity: 1},
		{Image: fg, Mode: m, Opacity: opacity, FillOpacity: 1},
	})
	return out.NRGBAAt(0, 0)
}

func solid(w, h int, c color.NRGBA) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = c.R, c.G, c.B, c.A
	}
	return img
}

func near(t *testing.T, want, got float64, tol float64, msg string, args ...any) {
	t.Helper()
	if math.Abs(want-got) > tol {
		t.Errorf("want %.2f, got %.2f: "+msg, append([]any{want, got}, args...)...)
	}
}

func TestSeparableModesMatchTheirFormulas(t *testing.T) {
	t.Parallel()
	for m, f := range formulas {
		for _, b := range levels {
			for _, s := range levels {
				// The three channels carry different pairs, so that a
				// mode mixing channels up would show.
				got := flattenOne(m, color.NRGBA{b, s, b / 2, 255}, color.NRGBA{s, b, 255 - s, 255}, 1)
				bf, sf := float64(b)/255, float64(s)/255
				near(t, 255*f(bf, sf), float64(got.R), 0.51, "%s b=%d s=%d (red)", m, b, s)
				near(t, 255*f(sf, bf), float64(got.G), 0.51, "%s b=%d s=%d (green)", m, s, b)
				near(t, 255*f(float64(b/2)/255, float64(255-s)/255), float64(got.B), 0.51, "%s (blue)", m)
				assert.Equal(t, uint8(255), got.A)
			}
		}
	}
}

func TestModesDifferWhereTheyShould(t *testing.T) {
	t.Parallel()
	// Literal values worked by hand, chosen where modes part.
	cases := []struct {
		m    Mode
		b, s uint8
		want uint8
	}{
		{Multiply, 128, 128, 64},
		{Screen, 128, 128, 192},
		{Overlay, 64, 200, 100},   // 2·0.251·0.784 = 0.394
		{HardLight, 64, 200, 173}, // 1 − 0.749·(2 − 2·0.784) = 0.677
		// W3C soft light: b=0.2 is on the polynomial arm of D:
		// D = ((3.2−12)·0.2+4)·0.2 = 0.448, 0.2 + 0.6·0.248 = 0.349.
		// The "pegtop" variant would give 2·0.2·0.8 + 0.04·(1−1.6) = 0.296 (75).
		{SoftLight, 51, 204, 89},
		{SoftLight, 200, 50, 174}, // 0.784 − 0.608·0.784·0.216 = 0.681
		{ColorDodge, 100, 200, 255},
		{ColorBurn, 100, 200, 57}, // 1 − 0.608/0.784 = 0.224
		{VividLight, 100, 0, 0},
		{VividLight, 0, 255, 255},
		{HardMix, 128, 127, 255},
		{HardMix, 127, 128, 0},
		{Divide, 100, 0, 255},
		{Subtract, 100, 150, 0},
		{LinearLight, 100, 200, 245}, // 0.392 + 1.569 − 1
		{PinLight, 100, 200, 145},
		{Difference, 100, 200, 100},
		{Exclusion, 128, 128, 128},
	}
	for _, c := range cases {
		got := flattenOne(c.m, color.NRGBA{c.b, c.b, c.b, 255}, color.NRGBA{c.s, c.s, c.s, 255}, 1)
		assert.InDelta(t, int(c.want), int(got.R), 1, "%s b=%d s=%d", c.m, c.b, c.s)
	}
}

func TestNonSeparableModes(t *testing.T) {
	t.Parallel()
	red := color.NRGBA{255, 0, 0, 255}
	grey := color.NRGBA{128, 128, 128, 255}
	teal := color.NRGBA{20, 160, 140, 255}
	lumOf := func(c color.NRGBA) float64 { return 0.3*float64(c.R) + 0.59*float64(c.G) + 0.11*float64(c.B) }

	// Luminosity of grey onto red: SetLum((1,0,0), 0.502) = (1.202,
	// 0.202, 0.202), clipped: 0.502 + (c − 0.502)·0.498/0.700 → (1,
	// 0.289, 0.289).
	got := flattenOne(Luminosity, red, grey, 1)
	assert.InDelta(t, 255, int(got.R), 1)
	assert.InDelta(t, 74, int(got.G), 1)
	assert.InDelta(t, 74, int(got.B), 1)

	// Colour keeps the backdrop's luminosity and takes the source's hue.
	got = flattenOne(Color, grey, teal, 1)
	near(t, lumOf(grey), lumOf(got), 1, "colour keeps luminosity")
	assert.True(t, got.G > got.B && got.B > got.R, "teal's hue: %v", got)

	// Saturation of grey (none) onto red gives red's luminosity in grey.
	got = flattenOne(Saturation, red, grey, 1)
	assert.InDelta(t, 77, int(got.R), 1)
	assert.Equal(t, got.R, got.G)
	assert.Equal(t, got.G, got.B)

	// Hue of teal onto grey: grey has no saturation, so grey stays.
	got = flattenOne(Hue, grey, teal, 1)
	assert.Equal(t, grey, got)

	// Darker and lighter colour take one pixel whole, by luminosity.
	assert.Equal(t, red, flattenOne(DarkerColor, grey, red, 1)) // 76.5 < 128
	assert.Equal(t, grey, flattenOne(LighterColor, grey, red, 1))
	assert.Equal(t, grey, flattenOne(DarkerColor, grey, color.NRGBA{255, 255, 0, 255}, 1))
}

func TestAlphaCompositing(t *testing.T) {
	t.Parallel()
	// A half-transparent source on an opaque backdrop mixes B with the
	// backdrop: 0.5·B + 0.5·b.
	got := flattenOne(Multiply, color.NRGBA{200, 200, 200, 255}, color.NRGBA{100, 100, 100, 255}, 0.5)
	assert.InDelta(t, (200*100/255+200)/2, int(got.R), 1)
	assert.Equal(t, uint8(255), got.A)

	// On a transparent backdrop every mode draws the source as it is.
	for _, m := range Modes {
		if m == Dissolve {
			continue
		}
		out := Flatten(1, 1, []*Layer{{Image: solid(1, 1, color.NRGBA{10, 200, 30, 128}), Mode: m, Opacity: 1, FillOpacity: 1}})
		assert.Equal(t, color.NRGBA{10, 200, 30, 128}, out.NRGBAAt(0, 0), "%s", m)
	}

	// Half over half: αo = 0.75, and the colour by the W3C formula.
	b := color.NRGBA{200, 40, 0, 128}
	s := color.NRGBA{100, 100, 255, 128}
	out := Flatten(1, 1, []*Layer{
		{Image: solid(1, 1, b), Opacity: 1, FillOpacity: 1},
		{Image: solid(1, 1, s), Mode: Screen, Opacity: 1, FillOpacity: 1},
	}).NRGBAAt(0, 0)
	ab, as := 128.0/255, 128.0/255
	ao := as + ab*(1-as)
	assert.InDelta(t, ao*255, float64(out.A), 0.6)
	for c, pair := range [][2]float64{{200, 100}, {40, 100}, {0, 255}} {
		bc, sc := pair[0]/255, pair[1]/255
		want := (as*(1-ab)*sc + as*ab*screen(bc, sc) + (1-as)*ab*bc) / ao
		got := []uint8{out.R, out.G, out.B}[c]
		near(t, want*255, float64(got), 1, "channel %d", c)
	}

	// A fully transparent source changes nothing, whatever its colour.
	got = flattenOne(Difference, color.NRGBA{9, 99, 199, 255}, color.NRGBA{255, 255, 255, 0}, 1)
	assert.Equal(t, color.NRGBA{9, 99, 199, 255}, got)
}

func TestDissolve(t *testing.T) {
	t.Parallel()
	out := Flatten(100, 100, []*Layer{
		{Image: solid(100, 100, color.NRGBA{255, 255, 255, 255}), Opacity: 1, FillOpacity: 1},
		{Image: solid(100, 100, color.NRGBA{0, 0, 0, 255}), Mode: Dissolve, Opacity: 0.25, FillOpacity: 1},
	})
	black := 0
	for i := 0; i < len(out.Pix); i += 4 {
		switch out.Pix[i] {
		case 0:
			black++
		case 255:
		default:
			t.Fatalf("dissolve made a grey pixel: %d", out.Pix[i])
		}
	}
	assert.InDelta(t, 2500, black, 300, "about a quarter of the pixels")
	require.Equal(t, out, Flatten(100, 100, []*Layer{
		{Image: solid(100, 100, color.NRGBA{255, 255, 255, 255}), Opacity: 1, FillOpacity: 1},
		{Image: solid(100, 100, color.NRGBA{0, 0, 0, 255}), Mode: Dissolve, Opacity: 0.25, FillOpacity: 1},
	}), "the same every time")
}
