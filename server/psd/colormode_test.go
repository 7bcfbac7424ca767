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
// of the depths (a misread 16-bit plane, or K taken for transparency,
// would not).
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
		if d := int(a.Pix[i]) - int(b.Pix[i]); d > 2 || d < -2 {
			t.Fatalf("byte %d: 8-bit %v, 16-bit %v", i, a.Pix[i&^3:i&^3+4], b.Pix[i&^3:i&^3+4])
		}
		if i%4 == 0 {
			distinct[[3]uint8{a.Pix[i], a.Pix[i+1], a.Pix[i+2]}] = true
		}
	}
	// The document is a colourful gradient: a K plane read as colour, or
	// inks not inverted, would not give these colours, Photoshop's red among them.
	if len(distinct) < 8 {
		t.Errorf("%d distinct colours in a 4x4 gradient", len(distinct))
	}
	if got := a.Pix[8:12]; got[0] != 255 || got[1] > 20 || got[2] > 20 {
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
