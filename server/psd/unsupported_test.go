package psd

import (
	"slices"
	"testing"
)

// effectsBlock is an lfx2 block with one drop shadow, on or off.
func effectsBlock(on bool) []byte {
	var b builder
	b.u32(0) // effects version
	b.u32(16)
	b.u32(0)
	b.u32(0)
	b.s("null")
	b.u32(1)
	b.u32(0)
	b.s("DrSh")
	b.s("Objc")
	b.u32(0)
	b.u32(0)
	b.s("DrSh")
	b.u32(1)
	b.u32(0)
	b.s("enab")
	b.s("bool")
	if on {
		b.u8(1)
	} else {
		b.u8(0)
	}
	return block("lfx2", b.Bytes())
}

func TestUnsupportedNamed(t *testing.T) {
	layers := []testLayer{
		{name: "curves", rect: image4, blocks: block("curv", make([]byte, 8))},
		{name: "shadowed", rect: image4, blocks: effectsBlock(true)},
		{name: "shadow off", rect: image4, blocks: append(effectsBlock(false), block("lrFX", make([]byte, 4))...)},
		{name: "gradient", rect: image4, blocks: block("GdFl", make([]byte, 4))},
		{name: "vector masked", rect: image4, blocks: block("vmsk", make([]byte, 8))},
		{name: "masked fill", blocks: append(block("GdFl", make([]byte, 4)), block("vmsk", make([]byte, 8))...)},
	}
	f, err := decodeBytes(psdFile(4, 4, RGB, layers), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		kind Kind
		want []string
	}{
		{"curves", KindAdjustment, []string{"adjustment: curves"}},
		{"shadowed", KindPixel, nil}, // a drop shadow is drawn
		{"shadow off", KindPixel, nil},
		{"gradient", KindFill, []string{"gradient fill"}},
		{"vector masked", KindPixel, nil}, // drawn from its path
		// Its vector mask is drawn (PathMask); its gradient is not read.
		{"masked fill", KindFill, []string{"gradient fill"}},
	} {
		l := f.Find(tc.path)
		if l == nil || l.Kind != tc.kind || !slices.Equal(l.Unsupported, tc.want) {
			t.Errorf("%s: %+v, want kind %v and %q", tc.path, l, tc.kind, tc.want)
		}
	}
	if e := f.Find("shadowed").Effects; e == nil || len(e.DropShadows) != 1 {
		t.Errorf("shadowed: effects %+v, want one drop shadow", e)
	}
	if l := f.Find("vector masked"); !l.PathMask || l.Vector == nil {
		t.Errorf("vector masked: PathMask %v, vector %v: its vector mask is not drawn", l.PathMask, l.Vector)
	}
	if l := f.Find("masked fill"); !l.PathMask {
		t.Errorf("masked fill: PathMask false: a fill's vector mask is not drawn")
	}
	if e := f.Find("shadow off").Effects; e != nil {
		t.Errorf("shadow off: effects %+v, want none", e)
	}
}
