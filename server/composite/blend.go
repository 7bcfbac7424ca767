package composite

import (
	"math"
	"sync"
)

// Mode is a Photoshop blend mode, spelled as server/psd spells it.
type Mode string

// The blend modes Photoshop offers for a layer, and pass through for a
// group. An empty or unknown Mode draws as Normal.
const (
	Normal       Mode = "normal"
	Dissolve     Mode = "dissolve"
	Darken       Mode = "darken"
	Multiply     Mode = "multiply"
	ColorBurn    Mode = "color burn"
	LinearBurn   Mode = "linear burn"
	DarkerColor  Mode = "darker color"
	Lighten      Mode = "lighten"
	Screen       Mode = "screen"
	ColorDodge   Mode = "color dodge"
	LinearDodge  Mode = "linear dodge"
	LighterColor Mode = "lighter color"
	Overlay      Mode = "overlay"
	SoftLight    Mode = "soft light"
	HardLight    Mode = "hard light"
	VividLight   Mode = "vivid light"
	LinearLight  Mode = "linear light"
	PinLight     Mode = "pin light"
	HardMix      Mode = "hard mix"
	Difference   Mode = "difference"
	Exclusion    Mode = "exclusion"
	Subtract     Mode = "subtract"
	Divide       Mode = "divide"
	Hue          Mode = "hue"
	Saturation   Mode = "saturation"
	Color        Mode = "color"
	Luminosity   Mode = "luminosity"
	PassThrough  Mode = "pass through"
)

// Modes lists every mode Flatten draws a layer with (PassThrough is a
// group's only).
//
//nolint:gochecknoglobals // read-only table: the blend modes in their documented order
var Modes = []Mode{
	Normal, Dissolve, Darken, Multiply, ColorBurn, LinearBurn, DarkerColor,
	Lighten, Screen, ColorDodge, LinearDodge, LighterColor, Overlay, SoftLight,
	HardLight, VividLight, LinearLight, PinLight, HardMix, Difference,
	Exclusion, Subtract, Divide, Hue, Saturation, Color, Luminosity,
}

// Known reports whether Flatten draws m as itself rather than as Normal.
func (m Mode) Known() bool {
	if m == PassThrough {
		return true
	}
	for _, k := range Modes {
		if k == m {
			return true
		}
	}
	return false
}

// separable holds the per-channel formulas B(b, s) on [0, 1]: b the
// backdrop, s the source. They are the W3C Compositing and Blending
// formulas (which are Adobe's, from the PDF reference) with the
// corrections psd-tools measured against Photoshop's own renders: vivid
// light lets the source's extremes win, hard mix breaks the b+s == 1 tie
// on the backdrop.
//
//nolint:gochecknoglobals // read-only table: each separable mode's formula
var separable = map[Mode]func(b, s float64) float64{
	Normal:   func(b, s float64) float64 { return s },
	Dissolve: func(b, s float64) float64 { return s },
	Darken:   math.Min,
	Multiply: func(b, s float64) float64 { return b * s },
	ColorBurn: func(b, s float64) float64 {
		switch {
		case b >= 1:
			return 1
		case s <= 0:
			return 0
		}
		return 1 - math.Min(1, (1-b)/s)
	},
	LinearBurn: func(b, s float64) float64 { return math.Max(0, b+s-1) },
	Lighten:    math.Max,
	Screen:     screen,
	ColorDodge: func(b, s float64) float64 {
		switch {
		case b <= 0:
			return 0
		case s >= 1:
			return 1
		}
		return math.Min(1, b/(1-s))
	},
	LinearDodge: func(b, s float64) float64 { return math.Min(1, b+s) },
	Overlay:     func(b, s float64) float64 { return hardLight(s, b) },
	SoftLight:   softLight,
	HardLight:   hardLight,
	VividLight: func(b, s float64) float64 {
		switch {
		case s <= 0:
			return 0
		case s >= 1:
			return 1
		case s <= 0.5:
			return 1 - math.Min(1, (1-b)/(2*s))
		}
		return math.Min(1, b/(2*(1-s)))
	},
	LinearLight: func(b, s float64) float64 { return clamp01(b + 2*s - 1) },
	PinLight: func(b, s float64) float64 {
		if s <= 0.5 {
			return math.Min(b, 2*s)
		}
		return math.Max(b, 2*s-1)
	},
	HardMix: func(b, s float64) float64 {
		// 8-bit values summing to exactly 1 miss it by a rounding error.
		if t := b + s; t > 1+1e-9 || (t >= 1-1e-9 && b > 0.5) {
			return 1
		}
		return 0
	},
	Difference: func(b, s float64) float64 { return math.Abs(b - s) },
	Exclusion:  func(b, s float64) float64 { return b + s - 2*b*s },
	Subtract:   func(b, s float64) float64 { return math.Max(0, b-s) },
	Divide: func(b, s float64) float64 {
		if s <= 0 {
			if b <= 0 {
				return 0
			}
			return 1
		}
		return math.Min(1, b/s)
	},
}

func screen(b, s float64) float64 { return b + s - b*s }

func hardLight(b, s float64) float64 {
	if s <= 0.5 {
		return b * 2 * s
	}
	return screen(b, 2*s-1)
}

// softLight is the W3C (PDF) soft light, whose D(b) bends at b = 1/4. It
// is the formula Photoshop's renders match (psd-tools pinned it against
// them, issue 189 there); the older "pegtop" and 2·b·s + b²(1−2s)
// variants that circulate as Photoshop's differ from it by up to a tenth
// for dark backdrops.
func softLight(b, s float64) float64 {
	if s <= 0.5 {
		return b - (1-2*s)*b*(1-b)
	}
	var d float64
	if b <= 0.25 {
		d = ((16*b-12)*b + 4) * b
	} else {
		d = math.Sqrt(b)
	}
	return b + (2*s-1)*(d-b)
}

func clamp01(x float64) float64 {
	switch {
	case x < 0:
		return 0
	case x > 1:
		return 1
	}
	return x
}

// Blend is B(b, s) of mode m for one pixel's colours on [0, 1] (no
// alpha): what the source's colour becomes where it lies on the backdrop.
// Tests and callers that need one value use it; Flatten uses tables made
// from the same functions.
func Blend(m Mode, b, s [3]float64) [3]float64 {
	if f, ok := separable[m]; ok {
		return [3]float64{f(b[0], s[0]), f(b[1], s[1]), f(b[2], s[2])}
	}
	switch m {
	case Hue:
		return setLum(setSat(s, sat(b)), lum(b))
	case Saturation:
		return setLum(setSat(b, sat(s)), lum(b))
	case Color:
		return setLum(s, lum(b))
	case Luminosity:
		return setLum(b, lum(s))
	case DarkerColor:
		if lum(s) < lum(b) {
			return s
		}
		return b
	case LighterColor:
		if lum(s) > lum(b) {
			return s
		}
		return b
	}
	return s
}

// The non-separable helpers of the W3C specification.
func lum(c [3]float64) float64 { return 0.3*c[0] + 0.59*c[1] + 0.11*c[2] }

func setLum(c [3]float64, l float64) [3]float64 {
	d := l - lum(c)
	return clipColor([3]float64{c[0] + d, c[1] + d, c[2] + d})
}

func clipColor(c [3]float64) [3]float64 {
	l := lum(c)
	n := math.Min(c[0], math.Min(c[1], c[2]))
	x := math.Max(c[0], math.Max(c[1], c[2]))
	if n < 0 {
		for i := range c {
			c[i] = l + (c[i]-l)*l/(l-n)
		}
	}
	if x > 1 {
		for i := range c {
			c[i] = l + (c[i]-l)*(1-l)/(x-l)
		}
	}
	for i := range c {
		c[i] = clamp01(c[i])
	}
	return c
}

func sat(c [3]float64) float64 {
	return math.Max(c[0], math.Max(c[1], c[2])) - math.Min(c[0], math.Min(c[1], c[2]))
}

// setSat gives c saturation s keeping its hue: its largest channel becomes
// s, its smallest 0, the middle one scaled between.
func setSat(c [3]float64, s float64) [3]float64 {
	// Indices of the smallest, middle and largest channel.
	lo, mid, hi := 0, 1, 2
	if c[lo] > c[mid] {
		lo, mid = mid, lo
	}
	if c[mid] > c[hi] {
		mid, hi = hi, mid
	}
	if c[lo] > c[mid] {
		lo, mid = mid, lo
	}
	var r [3]float64
	if c[hi] > c[lo] {
		r[mid] = (c[mid] - c[lo]) * s / (c[hi] - c[lo])
		r[hi] = s
	}
	return r
}

// table is a separable mode's B for every pair of 8-bit values, indexed
// b<<8 | s: 64 KiB, made the first time a mode is drawn.
type table [1 << 16]uint8

//nolint:gochecknoglobals // a memo of a pure function of the mode (64 KiB a mode, made on first use), the same for every caller
var (
	tablesMu sync.Mutex
	tables   = map[Mode]*table{}
)

func tableOf(m Mode) *table {
	f, ok := separable[m]
	if !ok {
		return nil
	}
	tablesMu.Lock()
	defer tablesMu.Unlock()
	if t := tables[m]; t != nil {
		return t
	}
	t := new(table)
	for b := 0; b < 256; b++ {
		for s := 0; s < 256; s++ {
			t[b<<8|s] = uint8(f(float64(b)/255, float64(s)/255)*255 + 0.5)
		}
	}
	tables[m] = t
	return t
}
