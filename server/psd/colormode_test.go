package psd

import (
	"math"
	"os"
	"testing"
)

func decodeFixture(t *testing.T, name string) *File {
	t.Helper()
	b, err := os.ReadFile("testdata/photoshop/" + name)
	if err != nil {
		t.Fatal(err)
	}
	f, err := decodeBytes(b, Limits{})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return f
}

// TestCMYKDepths reads one CMYK document Photoshop saved at 8 and at 16
// bits: their merged images, converted to RGB, agree within the rounding
// of the depths, which a steep part of the profile makes 8 levels (a
// misread 16-bit plane, or K taken for transparency, would not).
func TestCMYKDepths(t *testing.T) {
	t.Parallel()
	f8, f16 := decodeFixture(t, "pt-cmyk-8bit.psd"), decodeFixture(t, "pt-cmyk-16bit.psd")
	if f8.Mode != CMYK || f16.Mode != CMYK || f16.Depth != 16 {
		t.Fatalf("modes %v/%d, %v/%d", f8.Mode, f8.Depth, f16.Mode, f16.Depth)
	}
	a, err := f8.Composite()
	if err != nil {
		t.Fatal(err)
	}
	b, err := f16.Composite()
	if err != nil {
		t.Fatal(err)
	}
	distinct := map[[3]uint8]bool{}
	for i := range a.Pix {
		if d := int(a.Pix[i]) - int(b.Pix[i]); d > 8 || d < -8 {
			t.Fatalf("byte %d: 8-bit %v, 16-bit %v", i, a.Pix[i&^3:i&^3+4], b.Pix[i&^3:i&^3+4])
		}
		if i%4 == 0 {
			distinct[[3]uint8{a.Pix[i], a.Pix[i+1], a.Pix[i+2]}] = true
		}
	}
	// The document is a colourful gradient: a K plane read as colour, or
	// inks not inverted, would not give these colours, Photoshop's red among them.
	if len(distinct) < 6 {
		t.Errorf("%d distinct colours in a 4x4 gradient", len(distinct))
	}
	if got := a.Pix[8:12]; got[0] < 200 || got[1] > 60 || got[2] > 60 {
		t.Errorf("pixel (2,0) is %v, Photoshop's red expected", got)
	}
}

// TestCMYKToRGB pins the conversion: stored values are inverted inks.
func TestCMYKToRGB(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		cmyk [4]byte // as stored: 255 is no ink
		want [3]byte
	}{
		{[4]byte{255, 255, 255, 255}, [3]byte{255, 255, 255}}, // paper
		{[4]byte{255, 255, 255, 0}, [3]byte{0, 0, 0}},         // full black
		{[4]byte{0, 255, 255, 255}, [3]byte{0, 255, 255}},     // cyan
		{[4]byte{255, 128, 255, 128}, [3]byte{128, 64, 128}},  // half magenta, half black
	} {
		p := []byte{tc.cmyk[0], tc.cmyk[1], tc.cmyk[2], 255}
		cmykToRGB(p, tc.cmyk[3])
		if [3]byte(p[:3]) != tc.want {
			t.Errorf("%v: %v, want %v", tc.cmyk, p[:3], tc.want)
		}
	}
	if c := descColor(&descriptor{Keys: []string{"Cyn ", "Mgnt", "Ylw ", "Blck"}, Vals: []any{100.0, 0.0, 0.0, 0.0}}); c.R != 0 || c.G != 255 || c.B != 255 {
		t.Errorf("descriptor cyan: %v", c)
	}
}

// TestToneMap pins how 32-bit samples become 8-bit: colour through the
// sRGB curve, coverage linearly, out-of-range and NaN clamped.
func TestToneMap(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		v    float32
		want uint8
	}{
		{0, 0}, {1, 255}, {4, 255}, {-1, 0}, {float32(math.NaN()), 0},
		{0.21586, 128}, // sRGB 128
		{0.001, 3},     // the linear toe
	} {
		if got := toneMap(tc.v); got != tc.want {
			t.Errorf("toneMap(%v) = %d, want %d", tc.v, got, tc.want)
		}
	}
	row := []byte{0x3f, 0, 0, 0, 0x3e, 0x80, 0, 0} // 0.5, 0.25
	dst := make([]byte, 2)
	putRow(row, 4, dst, 1, false)
	if dst[0] != 128 || dst[1] != 64 {
		t.Errorf("coverage 0.5, 0.25 gave %v", dst)
	}
}

// TestUnpredict32 undoes the 32-bit ZIP prediction: byte planes, then
// byte deltas along the row.
func TestUnpredict32(t *testing.T) {
	t.Parallel()
	want := []byte{0x3f, 0x80, 0, 0, 0x3e, 0x80, 0, 1} // 1.0, 0.25+
	planes := []byte{want[0], want[4], want[1], want[5], want[2], want[6], want[3], want[7]}
	row := make([]byte, len(planes))
	row[0] = planes[0]
	for i := 1; i < len(planes); i++ {
		row[i] = planes[i] - planes[i-1]
	}
	unpredict(row, 4, make([]byte, len(row)))
	if string(row) != string(want) {
		t.Errorf("got % x, want % x", row, want)
	}
}

// TestCMYKProfile converts inks through the ICC profile Photoshop
// embedded (U.S. Web Coated (SWOP) v2, in ag-cmyk.psd) and finds the
// colours Photoshop exported: pixels of psd-tools' levels_cmyk and
// invert_cmyk merged images, stored CMYK, beside the same pixels of the
// PNGs of them in psd-tools' tests, and full black from threshold_cmyk's.
func TestCMYKProfile(t *testing.T) {
	t.Parallel()
	f := decodeFixture(t, "ag-cmyk.psd")
	if f.profile == nil {
		t.Fatal("ag-cmyk.psd: its ICC profile is not read")
	}
	worst := 0
	for _, tc := range []struct {
		cmyk [4]uint8 // stored: 255 is no ink
		want [3]uint8 // Photoshop's RGB
	}{
		{[4]uint8{0, 83, 64, 32}, [3]uint8{0, 5, 2}},
		{[4]uint8{240, 222, 196, 255}, [3]uint8{238, 218, 194}},
		{[4]uint8{163, 158, 216, 251}, [3]uint8{163, 151, 176}},
		{[4]uint8{127, 131, 222, 255}, [3]uint8{138, 131, 172}},
		{[4]uint8{255, 235, 103, 255}, [3]uint8{255, 229, 129}},
		{[4]uint8{112, 64, 68, 50}, [3]uint8{40, 17, 11}},
		{[4]uint8{168, 210, 229, 255}, [3]uint8{167, 189, 208}},
		{[4]uint8{178, 139, 83, 23}, [3]uint8{39, 24, 0}},
		{[4]uint8{93, 95, 150, 206}, [3]uint8{98, 90, 107}},
		{[4]uint8{172, 177, 167, 218}, [3]uint8{155, 147, 140}},
		{[4]uint8{255, 255, 255, 0}, [3]uint8{35, 31, 32}}, // K alone
		{[4]uint8{255, 255, 255, 255}, [3]uint8{255, 255, 255}},
	} {
		got := f.profile.rgb(tc.cmyk[0], tc.cmyk[1], tc.cmyk[2], tc.cmyk[3])
		for i := range got {
			d := int(got[i]) - int(tc.want[i])
			worst = max(worst, d, -d)
		}
		t.Logf("%v: %v, Photoshop %v", tc.cmyk, got, tc.want)
	}
	if worst > 4 {
		t.Errorf("a channel %d levels from Photoshop's", worst)
	}
	if p := parseCMYKProfile([]byte("too short")); p != nil {
		t.Errorf("a 9-byte profile read as %+v", p)
	}
}

// TestLabFile reads a Lab document Photoshop saved at 8 and 16 bits, a
// gradient from blue to red to yellow: its ends come out as the RGB
// version of the same document stores them (psd-tools'
// colormodes/4x4_8bit_rgb.psd: blue (10,0,178) at (0,0), red (255,0,0) at
// (2,0)); the colours between differ, the gradient being interpolated in
// Lab.
func TestLabFile(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"pt-lab-8bit.psd", "pt-lab-16bit.psd"} {
		f := decodeFixture(t, name)
		if f.Mode != Lab {
			t.Fatalf("%s: mode %v", name, f.Mode)
		}
		m, err := f.Composite()
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			at   int
			want [3]int
		}{{0, [3]int{10, 0, 178}}, {2, [3]int{255, 0, 0}}} {
			p := m.Pix[4*tc.at:]
			for c := 0; c < 3; c++ {
				if d := int(p[c]) - tc.want[c]; d > 10 || d < -10 {
					t.Errorf("%s: pixel %d is %v, RGB's is %v", name, tc.at, p[:3], tc.want)
					break
				}
			}
		}
	}
	if c := descColor(&descriptor{Keys: []string{"Lmnc", "A   ", "B   "}, Vals: []any{100.0, 0.0, 0.0}}); c.R < 254 || c.G < 254 || c.B < 254 {
		t.Errorf("Lab white: %v", c)
	}
}

// TestCMYKSpotIsNotTransparency: a CMYK file's fifth channel, without
// alpha identifiers or a merged-transparency block, is a spot ink (stored
// as inks are, 255 for none), not the merged image's transparency.
func TestCMYKSpotIsNotTransparency(t *testing.T) {
	t.Parallel()
	b := psdFile(4, 4, CMYK, nil)
	b[13] = 5 // the header's channel count
	for i := 0; i < 16; i++ {
		b = append(b, 255)
	}
	f, err := decodeBytes(b, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := f.Composite()
	if err != nil {
		t.Fatal(err)
	}
	for i := 3; i < len(m.Pix); i += 4 {
		if m.Pix[i] != 255 {
			t.Fatalf("pixel %d: alpha %d, the spot channel taken for transparency", i/4, m.Pix[i])
		}
	}
}

// TestCMYKFillThroughProfile: a CMYK file's solid colour fill is
// converted as its pixels are, through the profile (100% black alone is
// Photoshop's (35,31,32), not the naive conversion's (0,0,0)).
func TestCMYKFillThroughProfile(t *testing.T) {
	t.Parallel()
	f := decodeFixture(t, "ag-cmyk.psd")
	d := &decoder{f: f}
	c := d.color(&descriptor{Keys: []string{"Cyn ", "Mgnt", "Ylw ", "Blck"}, Vals: []any{0.0, 0.0, 0.0, 100.0}})
	if c.R != 35 || c.G != 31 || c.B != 32 {
		t.Errorf("100%% black: %v", c)
	}
	if c := d.color(&descriptor{Keys: []string{"Rd  ", "Grn ", "Bl  "}, Vals: []any{10.0, 20.0, 30.0}}); c.R != 10 || c.G != 20 || c.B != 30 {
		t.Errorf("RGB: %v", c)
	}
}
