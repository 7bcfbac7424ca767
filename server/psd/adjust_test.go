package psd

import (
	"bytes"
	"math"
	"os"
	"testing"
)

// adjustmentFile is a 4x4 RGB file with one adjustment layer of each kind
// the reader draws, its settings as Photoshop stores them
// (testdata/adjustments.psd, a seed of the fuzz targets).
func adjustmentFile() []byte {
	var levl, curv, brit, expA, hue, grdm, mixr, selc builder
	levl.u16(2)
	for i := range 29 {
		if i == 1 { // red: input 10..245, gamma 1.5
			for _, v := range []uint16{10, 245, 0, 255, 150} {
				levl.u16(v)
			}
			continue
		}
		for _, v := range []uint16{0, 255, 0, 255, 100} {
			levl.u16(v)
		}
	}
	curv.u8(0)
	curv.u16(1)
	curv.u32(0b1011) // composite, red, blue
	for range 3 {
		curv.u16(3)
		for _, p := range [][2]uint16{{0, 0}, {180, 128}, {255, 255}} { // output, input
			curv.u16(p[0])
			curv.u16(p[1])
		}
	}
	for _, v := range []uint16{20, 0xfff6, 127} {
		brit.u16(v)
	}
	brit.u16(0)
	expA.u16(1)
	for _, v := range []float32{1, 0.1, 1.2} {
		expA.u32(math.Float32bits(v))
	}
	hue.u16(2)
	hue.u8(1)
	hue.u8(0)
	for _, v := range []int16{200, 50, -10, 30, 20, 10} {
		hue.u16(uint16(v))
	}
	for range 6 {
		for _, v := range []uint16{315, 345, 15, 45, 0, 0, 0} {
			hue.u16(v)
		}
	}
	grdm.u16(1)
	grdm.u16(0)
	grdm.u32(1)
	grdm.u16('g')
	grdm.u16(2)
	for _, s := range [][6]uint16{{0, 50, 65535, 0, 0, 0}, {4096, 30, 0, 0, 65535, 0}} {
		grdm.u32(uint32(s[0]))
		grdm.u32(uint32(s[1]))
		grdm.u16(0)
		for _, v := range s[2:] {
			grdm.u16(v)
		}
		grdm.u16(0)
	}
	// Transparency stops, then what Photoshop writes after them: the
	// expansion (2), interpolation, length (32), mode, seed, two flags,
	// roughness, colour model, minimum and maximum colours, padding.
	grdm.u16(2)
	for _, loc := range []uint32{0, 4096} {
		grdm.u32(loc)
		grdm.u32(50)
		grdm.u16(255)
	}
	for _, v := range []uint16{2, 4096, 32, 0} {
		grdm.u16(v)
	}
	grdm.u32(1)
	grdm.u16(0)
	grdm.u16(0)
	grdm.u32(2048)
	grdm.u16(3)
	grdm.Write(make([]byte, 18))
	mixr.u16(1)
	mixr.u16(0)
	for _, v := range []int16{50, 50, 0, 0, 10, 0, 100, 0, 0, 0, 0, 0, 100, 0, 0} {
		mixr.u16(uint16(v))
	}
	selc.u16(1)
	selc.u16(1)
	for i := range 10 {
		for _, v := range []int16{int16(i * 7), -14, 33, 6} {
			selc.u16(uint16(v))
		}
	}
	var ls []testLayer
	for _, b := range []struct {
		key  string
		data []byte
	}{{"levl", levl.Bytes()}, {"curv", curv.Bytes()}, {"brit", brit.Bytes()}, {"expA", expA.Bytes()}, {"hue2", hue.Bytes()},
		{"grdm", grdm.Bytes()}, {"mixr", mixr.Bytes()}, {"selc", selc.Bytes()}} {
		ls = append(ls, testLayer{name: b.key, blocks: block(b.key, b.data)})
	}
	pix := testLayer{name: "photo", rect: image4}
	for _, id := range []int16{0, 1, 2} {
		ch := rawChannel(16)
		for i := 2; i < len(ch); i++ {
			ch[i] = byte(i*40 + int(id)*70)
		}
		pix.channels = append(pix.channels, testChannel{id: id, data: ch})
	}
	return psdFile(4, 4, RGB, append([]testLayer{pix}, ls...))
}

// TestAdjustmentBlocks reads each adjustment kind from its block.
func TestAdjustmentBlocks(t *testing.T) {
	t.Parallel()
	b := adjustmentFile()
	if seed, err := os.ReadFile("testdata/adjustments.psd"); err != nil || !bytes.Equal(seed, b) {
		t.Errorf("testdata/adjustments.psd is not adjustmentFile()'s output (%v): write it again", err)
	}
	f, err := Decode(bytes.NewReader(b), int64(len(b)), DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{"levl": "levels", "curv": "curves", "brit": "brightness/contrast", "expA": "exposure",
		"hue2": "hue/saturation", "grdm": "gradient map", "mixr": "channel mixer", "selc": "selective color"}
	for _, l := range f.Layers[1:] {
		a := l.Adjustment
		if a == nil || a.Kind != kinds[l.Name] || len(l.Unsupported) > 0 {
			t.Errorf("%s: %+v, unsupported %q", l.Name, a, l.Unsupported)
			continue
		}
		if a.Tables == nil && a.Color == nil {
			t.Errorf("%s: draws nothing", l.Name)
		}
	}
	// Curves: points are output then input, red's curve then the
	// composite's: 128 goes to 180, then 180 through the composite.
	c := f.Layers[2].Adjustment.Tables
	if c[1][128] != 180 || c[0][128] <= 180 || c[2][128] != c[0][128] {
		t.Errorf("curves at 128: %d %d %d", c[0][128], c[1][128], c[2][128])
	}
	// Levels: red's input 10..245 at gamma 1.5.
	if lv := f.Layers[1].Adjustment.Tables; lv[0][10] != 0 || lv[0][245] != 255 || lv[1][128] != 128 || lv[0][128] <= 128 {
		t.Errorf("levels: %d %d %d %d", lv[0][10], lv[0][245], lv[1][128], lv[0][128])
	}
	// Channel mixer: red is half red and half green, plus 10% white.
	if r, g, bl := f.Layers[7].Adjustment.Color(100, 200, 50); r != 176 || g != 200 || bl != 50 {
		t.Errorf("channel mixer: %d %d %d", r, g, bl)
	}
	// Gradient map: black to red, white to blue.
	if r, _, bl := f.Layers[6].Adjustment.Color(0, 0, 0); r != 255 || bl != 0 {
		t.Errorf("gradient map at black: %d %d", r, bl)
	}
}

// hueSatBlock is a hue2 block, not colorized: the master's hue,
// saturation and lightness, then six ranges of bounds and settings.
func hueSatBlock(master [3]int16, ranges [6][7]int16) []byte {
	var b builder
	b.u16(2)
	b.u8(0)
	b.u8(0)
	for _, v := range []int16{0, 25, 0} {
		b.u16(uint16(v))
	}
	for _, v := range master {
		b.u16(uint16(v))
	}
	for _, r := range ranges {
		for _, v := range r {
			b.u16(uint16(v))
		}
	}
	return b.Bytes()
}

// TestHueSaturationRanges holds the colour ranges' formula measured on
// Photoshop's merged images: a range's lightness moves channels towards
// the pixel's largest (+100 makes a colour grey at its brightest) and
// leaves greys; saturation counts by the hue's place in the fall-off;
// hues outside a range are untouched.
func TestHueSaturationRanges(t *testing.T) {
	reds := [7]int16{315, 345, 15, 45}
	var lighter, desat [6][7]int16
	lighter[0], desat[0] = reds, reds
	lighter[0][6] = 100 // reds' lightness +100
	desat[0][5] = -100  // reds' saturation -100
	// The same reds, their bounds written a turn further round.
	turned := desat
	turned[0] = [7]int16{675, 705, 375, 405, 0, -100, 0}
	cases := []struct {
		name    string
		block   []byte
		in, out [3]uint8
	}{
		{"lightness: a red turns grey at its brightest", hueSatBlock([3]int16{}, lighter), [3]uint8{200, 40, 60}, [3]uint8{200, 200, 200}},
		{"lightness: a grey stays", hueSatBlock([3]int16{}, lighter), [3]uint8{90, 90, 90}, [3]uint8{90, 90, 90}},
		{"lightness: a green is outside reds", hueSatBlock([3]int16{}, lighter), [3]uint8{40, 200, 60}, [3]uint8{40, 200, 60}},
		{"lightness: then the master's, towards white", hueSatBlock([3]int16{0, 0, 50}, lighter), [3]uint8{200, 40, 60}, [3]uint8{228, 228, 228}},
		{"saturation: a red inside reds loses it all", hueSatBlock([3]int16{}, desat), [3]uint8{255, 0, 0}, [3]uint8{128, 128, 128}},
		// Hue 30° is halfway down reds' fall-off (15..45): half its saturation.
		{"saturation: half in the fall-off", hueSatBlock([3]int16{}, desat), [3]uint8{255, 128, 0}, [3]uint8{191, 128, 64}},
		{"bounds a turn round read as the same", hueSatBlock([3]int16{}, turned), [3]uint8{255, 128, 0}, [3]uint8{191, 128, 64}},
		{"bounds a turn round: a green stays", hueSatBlock([3]int16{}, turned), [3]uint8{40, 200, 60}, [3]uint8{40, 200, 60}},
	}
	for _, tc := range cases {
		a := readAdjustment("hue2", newCursor(bytes.NewReader(tc.block), 0, int64(len(tc.block)), "hue2"), RGB, 8)
		if a == nil || a.Color == nil {
			t.Fatalf("%s: not read", tc.name)
		}
		r, g, b := a.Color(tc.in[0], tc.in[1], tc.in[2])
		got := [3]uint8{r, g, b}
		for i := range got {
			if d := int(got[i]) - int(tc.out[i]); d < -1 || d > 1 {
				t.Errorf("%s: %v gave %v, want %v", tc.name, tc.in, got, tc.out)
				break
			}
		}
	}
}

// TestBrightnessContrastModern holds the modern brightness/contrast to
// what Photoshop drew for each slider alone (the merged images of
// CyberAgent/psd2svg's brightnesscontrast-b±150-c0, -b0-c+100 and
// -b0-c-50 test files: input level, Photoshop's output). Contrast is
// exact to a level; brightness's highlight roll-off is fitted, so it
// is held to two.
func TestBrightnessContrastModern(t *testing.T) {
	cases := []struct {
		b, k float64
		tol  int
		pts  [][2]int
	}{
		{150, 0, 2, [][2]int{{11, 28}, {48, 124}, {80, 193}, {104, 222}, {128, 239}, {160, 249}, {200, 253}}},
		{-150, 0, 2, [][2]int{{11, 4}, {80, 31}, {128, 50}, {200, 85}, {235, 121}, {245, 145}, {250, 167}}},
		{0, 100, 1, [][2]int{{11, 3}, {60, 36}, {102, 86}, {128, 128}, {153, 170}, {200, 224}, {250, 254}}},
		{0, -50, 1, [][2]int{{11, 15}, {60, 72}, {102, 110}, {128, 128}, {153, 145}, {200, 188}, {250, 248}}},
	}
	for _, c := range cases {
		tab := brightnessContrast(c.b, c.k).Tables
		for _, p := range c.pts {
			for ch := range tab {
				if got := int(tab[ch][p[0]]); got < p[1]-c.tol || got > p[1]+c.tol {
					t.Errorf("brightness %v contrast %v, channel %d: %d drawn %d, Photoshop %d", c.b, c.k, ch, p[0], got, p[1])
				}
			}
		}
		if tab[0][0] != 0 || tab[0][255] != 255 {
			t.Errorf("brightness %v contrast %v: black %d, white %d, want 0 and 255", c.b, c.k, tab[0][0], tab[0][255])
		}
	}
}

// TestBrightnessSettingsOutOfRange: modern brightness/contrast settings
// out of Photoshop's ranges, NaN among them (which fails every
// comparison), leave the layer's legacy reading as it was instead of
// drawing a table made of them; settings in range replace it.
func TestBrightnessSettingsOutOfRange(t *testing.T) {
	legacy := brightnessLegacy(10, 10, 127)
	for _, tc := range []struct {
		name       string
		b, k, mean float64
		replaced   bool
	}{
		{"in range", 40, -20, 127, true},
		{"brightness NaN", math.NaN(), 0, 127, false},
		{"contrast NaN", 0, math.NaN(), 127, false},
		{"mean NaN", 0, 0, math.NaN(), false},
		{"brightness past 150", 151, 0, 127, false},
		{"contrast infinite", 0, math.Inf(-1), 127, false},
	} {
		l := &Layer{Kind: KindAdjustment, Adjustment: legacy}
		b := descriptorBytes("Brgh", tc.b, "Cntr", tc.k, "means", tc.mean, "useLegacy", false)
		d := &decoder{lim: DefaultLimits.withDefaults(), f: &File{}}
		d.brightnessSettings(l, newCursor(bytes.NewReader(b), 0, int64(len(b)), "CgEd"))
		if got := l.Adjustment != legacy; got != tc.replaced {
			t.Errorf("%s: replaced %v, want %v", tc.name, got, tc.replaced)
		}
	}
}
