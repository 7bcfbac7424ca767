package psd

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"
)

// TestEveryAdjustmentKindRead: the file stacking all sixteen kinds has
// each one's block read, with what kino draws of it, except vibrance,
// which its layer names as not drawn. (Its merged image cannot tell:
// threshold sits above the others.)
func TestEveryAdjustmentKindRead(t *testing.T) {
	f := open(t, "testdata/photoshop/ag-adjustment-layers.psd")
	want := map[string]string{
		"Brightness/Contrast 1": "brightness/contrast", "Levels 1": "levels", "Curves 1": "curves",
		"Exposure 1": "exposure", "Hue/Saturation 1": "hue/saturation", "Color Balance 1": "color balance",
		"Black & White 1": "black & white", "Photo Filter 1": "photo filter", "Channel Mixer 1": "channel mixer",
		"Color Lookup 1": "color lookup", "Invert 1": "invert", "Posterize 1": "posterize",
		"Threshold 1": "threshold", "Gradient Map 1": "gradient map", "Selective Color 1": "selective color",
	}
	for name, kind := range want {
		l := f.Find(name)
		if l == nil || l.Adjustment == nil || l.Adjustment.Kind != kind {
			t.Errorf("%s: want a %s drawn, got %+v", name, kind, l)
		}
	}
	if v := f.Find("Vibrance 1"); v == nil || v.Adjustment != nil || !strings.Contains(strings.Join(v.Unsupported, ","), "vibrance") {
		t.Errorf("vibrance: want it named as not drawn, got %+v", v)
	}
	// The colour lookup is the file's 17-point Candlelight cube: black
	// stays near black, white turns warm.
	lut := f.Find("Color Lookup 1").Adjustment
	if r, g, b := lut.Color(255, 255, 255); !(r > b && r > 200) {
		t.Errorf("Candlelight on white gave %d,%d,%d: want a warm light", r, g, b)
	}
	// The photo filter is Lab 45, 18, -123 (a deep blue) at 25%, keeping
	// luminosity: a grey turns bluish, no lighter or darker.
	r, g, b := f.Find("Photo Filter 1").Adjustment.Color(128, 128, 128)
	if !(b > r && b > g) || abs(lumOf(r, g, b)-128) > 2 {
		t.Errorf("photo filter on grey gave %d,%d,%d: want a blue of the same luminosity", r, g, b)
	}
}

func lumOf(r, g, b uint8) float64 { return 0.3*float64(r) + 0.59*float64(g) + 0.11*float64(b) }

// colorCase is one pixel through an adjustment: in, want out (±1).
type colorCase struct {
	name    string
	adj     *Adjustment
	in, out [3]uint8
}

func checkColors(t *testing.T, cases []colorCase) {
	t.Helper()
	for _, tc := range cases {
		if tc.adj == nil || tc.adj.Color == nil {
			t.Errorf("%s: not read", tc.name)
			continue
		}
		r, g, b := tc.adj.Color(tc.in[0], tc.in[1], tc.in[2])
		got := [3]uint8{r, g, b}
		for i := range got {
			if d := int(got[i]) - int(tc.out[i]); d < -1 || d > 1 {
				t.Errorf("%s: %v gave %v, want %v", tc.name, tc.in, got, tc.out)
				break
			}
		}
	}
}

func adjustBlock(key string, b []byte) *Adjustment {
	return readAdjustment(key, newCursor(bytes.NewReader(b), 0, int64(len(b)), key), RGB, 8)
}

// TestColorBalance holds GIMP's colour balance: a channel moves by 0.7
// of a range's setting where the pixel's lightness is in that range's
// mask; preserve luminosity gives the lightness back.
func TestColorBalance(t *testing.T) {
	balance := func(shadowsRed, midtonesRed int16, keep uint8) *Adjustment {
		return adjustBlock("blnc", colorBalanceBlock(shadowsRed, midtonesRed, keep))
	}
	checkColors(t, []colorCase{
		{"shadows red on black", balance(100, 0, 0), [3]uint8{0, 0, 0}, [3]uint8{179, 0, 0}},
		{"shadows red on black, luminosity kept", balance(100, 0, 1), [3]uint8{0, 0, 0}, [3]uint8{0, 0, 0}},
		{"shadows red on white: outside the shadows", balance(100, 0, 0), [3]uint8{255, 255, 255}, [3]uint8{255, 255, 255}},
		{"midtones cyan on grey", balance(0, -100, 0), [3]uint8{128, 128, 128}, [3]uint8{0, 128, 128}},
		{"midtones cyan on white: outside the midtones", balance(0, -100, 0), [3]uint8{255, 255, 255}, [3]uint8{255, 255, 255}},
	})
	if adjustBlock("blnc", []byte{0, 101}) != nil {
		t.Error("a short or out-of-range block was read")
	}
}

// TestPhotoFilter: the pixel multiplied by the filter's colour, mixed by
// the density; preserve luminosity keeps 0.3 R + 0.59 G + 0.11 B.
func TestPhotoFilter(t *testing.T) {
	filter := func(density uint32, keep uint8) *Adjustment {
		return adjustBlock("phfl", photoFilterBlock(density, keep))
	}
	checkColors(t, []colorCase{
		{"red at 100% on white", filter(100, 0), [3]uint8{255, 255, 255}, [3]uint8{255, 0, 0}},
		{"red at 50% on white", filter(50, 0), [3]uint8{255, 255, 255}, [3]uint8{255, 128, 128}},
		{"red at 100% on grey, luminosity kept", filter(100, 1), [3]uint8{128, 128, 128}, [3]uint8{218, 90, 90}},
	})
}

// TestBlackWhite holds the six weights' definition: the smallest
// channel, plus the step to the middle one by its secondary's weight,
// plus the step to the largest by its primary's.
func TestBlackWhite(t *testing.T) {
	bw := func(tint bool) *Adjustment { return adjustBlock("blwh", blackWhiteBlock(tint)) }
	checkColors(t, []colorCase{
		{"red: reds' 40%", bw(false), [3]uint8{255, 0, 0}, [3]uint8{102, 102, 102}},
		{"yellow: yellows' 60%", bw(false), [3]uint8{255, 255, 0}, [3]uint8{153, 153, 153}},
		{"orange: blue, then yellows', then reds'", bw(false), [3]uint8{200, 100, 50}, [3]uint8{120, 120, 120}},
		{"white stays", bw(false), [3]uint8{255, 255, 255}, [3]uint8{255, 255, 255}},
		{"a red tint at the grey's luminosity", bw(true), [3]uint8{255, 0, 0}, [3]uint8{255, 36, 36}},
	})
}

// TestColorLookup reads a .cube table and looks pixels up in it; a
// table short of its points, or too large, is not read.
func TestColorLookup(t *testing.T) {
	cubeText := func(n, lines int) string {
		var s strings.Builder
		fmt.Fprintf(&s, "TITLE \"invert red\"\n# a comment\nLUT_3D_SIZE %d\nDOMAIN_MIN 0 0 0\nDOMAIN_MAX 1 1 1\n", n)
		for i := 0; i < lines; i++ {
			r, g, b := i%n, i/n%n, i/n/n
			fmt.Fprintf(&s, "%g %g %g\n", 1-float64(r)/float64(n-1), float64(g)/float64(n-1), float64(b)/float64(n-1))
		}
		return s.String()
	}
	lookup := func(text string) *Adjustment { return adjustBlock("clrL", colorLookupBlock(text)) }
	checkColors(t, []colorCase{
		{"a 2-point cube inverting red", lookup(cubeText(2, 8)), [3]uint8{255, 128, 0}, [3]uint8{0, 128, 0}},
		{"a 5-point cube, between its points", lookup(cubeText(5, 125)), [3]uint8{100, 30, 220}, [3]uint8{155, 30, 220}},
	})
	if lookup(cubeText(5, 124)) != nil || lookup(cubeText(66, 0)) != nil || lookup("LUT_1D_SIZE 4\n0 0 0\n") != nil {
		t.Error("a short, oversized or one-dimensional table was read")
	}
}

// descKey writes a descriptor key: a 4-character code, or a length and
// the name.
func descKey(b *builder, k string) {
	if len(k) == 4 {
		b.u32(0)
	} else {
		b.u32(uint32(len(k)))
	}
	b.s(k)
}

// colorBalanceBlock is a blnc block: red in the shadows and midtones.
func colorBalanceBlock(shadowsRed, midtonesRed int16, keep uint8) []byte {
	var b builder
	for _, v := range []int16{shadowsRed, 0, 0, midtonesRed, 0, 0, 0, 0, 0} {
		b.u16(uint16(v))
	}
	b.u8(keep)
	return b.Bytes()
}

// photoFilterBlock is a phfl block (version 2) of an RGB red filter.
func photoFilterBlock(density uint32, keep uint8) []byte {
	var b builder
	b.u16(2)
	for _, v := range []uint16{0, 65535, 0, 0, 0} {
		b.u16(v)
	}
	b.u32(density)
	b.u8(keep)
	return b.Bytes()
}

// blackWhiteBlock is a blwh descriptor of Photoshop's default weights,
// with a red tint or none.
func blackWhiteBlock(tint bool) []byte {
	var b builder
	b.u32(16)
	b.u32(1) // name: one nul
	b.u16(0)
	b.u32(0)
	b.s("null")
	n := uint32(7)
	if tint {
		n = 8
	}
	b.u32(n)
	for i, k := range []string{"Rd  ", "Yllw", "Grn ", "Cyn ", "Bl  ", "Mgnt"} {
		descKey(&b, k)
		b.s("long")
		b.u32(uint32([]int32{40, 60, 40, 60, 20, 80}[i]))
	}
	descKey(&b, "useTint")
	b.s("bool")
	if tint {
		b.u8(1)
		descKey(&b, "tintColor")
		b.s("Objc")
		b.u32(1)
		b.u16(0)
		b.u32(0)
		b.s("RGBC")
		b.u32(3)
		for _, k := range []string{"Rd  ", "Grn ", "Bl  "} {
			descKey(&b, k)
			b.s("doub")
			b.u64(math.Float64bits(map[string]float64{"Rd  ": 255, "Grn ": 0, "Bl  ": 0}[k]))
		}
	} else {
		b.u8(0)
	}
	return b.Bytes()
}

// colorLookupBlock is a clrL block holding a .cube text.
func colorLookupBlock(text string) []byte {
	var b builder
	b.u16(1)
	b.u32(16)
	b.u32(1) // name: one nul
	b.u16(0)
	b.u32(0)
	b.s("null")
	b.u32(1)
	descKey(&b, "LUT3DFileData")
	b.s("tdta")
	b.u32(uint32(len(text)))
	b.s(text)
	return b.Bytes()
}
