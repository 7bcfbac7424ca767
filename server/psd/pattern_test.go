package psd

import (
	"bytes"
	"image"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

func TestPatternsOfPhotoshopFiles(t *testing.T) {
	for _, c := range []struct {
		file, id string
		size     int
		scale    float64
	}{
		{"ag-pattern.psd", "1b29876b-58b7-11d4-b895-a898787104c1", 64, 0.81},   // RLE channels
		{"pt-fill-opacity.psd", "2ab8ff7f-7c39-11d4-97f0-ce0e81abb313", 80, 1}, // raw and RLE
	} {
		f := open(t, filepath.Join("testdata", "photoshop", c.file))
		var o *PatternOverlay
		f.Walk(func(l *Layer) error {
			if l.Effects != nil && len(l.Effects.PatternOverlays) > 0 {
				o = &l.Effects.PatternOverlays[0]
			}
			return nil
		})
		if o == nil || o.Fill.Pattern != c.id || o.Fill.Scale != c.scale || !o.Fill.Linked {
			t.Fatalf("%s: pattern overlay %+v", c.file, o)
		}
		p := f.Pattern(c.id)
		if p == nil || p.Width != c.size || p.Height != c.size {
			t.Fatalf("%s: pattern %+v", c.file, p)
		}
		img, err := p.Image()
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		colours := map[[3]uint8]bool{}
		for i := 0; i < len(img.Pix); i += 4 {
			colours[[3]uint8{img.Pix[i], img.Pix[i+1], img.Pix[i+2]}] = true
			if img.Pix[i+3] != 255 {
				t.Fatalf("%s: pattern pixel %d not opaque", c.file, i/4)
			}
		}
		if len(colours) < 100 {
			t.Errorf("%s: pattern of %d colours: not decoded", c.file, len(colours))
		}
	}
}

// patternBlock is a Patt block of one RGB pattern of w x h whose three
// channels are the given data (compression byte first).
func patternBlock(id string, w, h uint32, channels ...[]byte) []byte {
	var vm builder
	vm.u32(0)
	vm.u32(0)
	vm.u32(h)
	vm.u32(w)
	vm.u32(24)
	for i := 0; i < 26; i++ {
		if i >= len(channels) {
			vm.u32(0)
			continue
		}
		vm.u32(1)
		vm.u32(uint32(23 + len(channels[i]) - 1))
		vm.u32(8)
		vm.u32(0)
		vm.u32(0)
		vm.u32(h)
		vm.u32(w)
		vm.u16(8)
		vm.Write(channels[i])
	}
	var p builder
	p.u32(1)
	p.u32(uint32(RGB))
	p.u16(uint16(h))
	p.u16(uint16(w))
	p.u32(2)
	p.u16('P')
	p.u16(0)
	p.u8(uint8(len(id)))
	p.s(id)
	p.u32(3)
	p.u32(uint32(vm.Len()))
	p.Write(vm.Bytes())
	var b builder
	b.u32(uint32(p.Len()))
	b.Write(p.Bytes())
	for b.Len()%4 != 0 {
		b.u8(0)
	}
	return block("Patt", b.Bytes())
}

// patternFX is an lfx2 block with a pattern overlay naming id.
func patternFX(id string) []byte { return effectFX("patternFill", id, false) }

// effectFX is an lfx2 block with one effect, key, switched on and
// naming pattern id (a stroke painted with it when stroke).
func effectFX(key, id string, stroke bool) []byte {
	var b builder
	b.u32(0)  // effects version
	b.u32(16) // descriptor version
	b.u32(0)
	b.u32(0)
	b.s("null")
	b.u32(1)
	b.u32(uint32(len(key)))
	b.s(key)
	b.s("Objc")
	b.u32(0)
	b.u32(0)
	b.s("null")
	if stroke {
		b.u32(3)
		b.u32(0)
		b.s("PntT")
		b.s("enum")
		b.u32(0)
		b.s("FrFl")
		b.u32(0)
		b.s("Ptrn")
	} else {
		b.u32(2)
	}
	b.u32(0)
	b.s("enab")
	b.s("bool")
	b.u8(1)
	b.u32(0)
	b.s("Ptrn")
	b.s("Objc")
	b.u32(0)
	b.u32(0)
	b.s("Ptrn")
	b.u32(1)
	b.u32(0)
	b.s("Idnt")
	b.s("TEXT")
	b.u32(uint32(len(id)))
	for _, r := range id {
		b.u16(uint16(r))
	}
	return block("lfx2", b.Bytes())
}

// longRecord makes a Patt block's first record claim more bytes than
// the block holds.
func longRecord(b []byte) []byte {
	b[12], b[13] = 0x7f, 0xff
	return b
}

func TestPatternsBounded(t *testing.T) {
	raw := func(n int) []byte { return append([]byte{compRaw}, make([]byte, n)...) }
	for _, c := range []struct {
		name   string
		global []byte
		read   bool
	}{
		{"a 2x2 pattern", patternBlock("ok", 2, 2, raw(4), raw(4), raw(4)), true},
		{"a pattern of 4000x4000 with 4 bytes a channel", patternBlock("ok", 4000, 4000, raw(4), raw(4), raw(4)), false},
		{"a pattern larger than the pixel limit", patternBlock("ok", 20000, 20000, raw(4), raw(4), raw(4)), false},
		{"a pattern missing a colour channel", patternBlock("ok", 2, 2, raw(4), raw(4)), false},
		{"an RLE channel shorter than its row counts", patternBlock("ok", 2, 2, []byte{compRLE, 0}, raw(4), raw(4)), false},
		{"a pattern record running past its block", longRecord(patternBlock("ok", 2, 2, raw(4), raw(4), raw(4))), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := psdFileGlobal(4, 4, RGB, []testLayer{{name: "l", rect: image4, channels: []testChannel{{0, rawChannel(16)}, {1, rawChannel(16)}, {2, rawChannel(16)}}, blocks: patternFX("ok")}}, c.global)
			f, err := Decode(bytes.NewReader(b), int64(len(b)), Limits{MaxPixels: 1 << 24})
			if err != nil {
				t.Fatal(err)
			}
			l := f.Layers[0]
			if p := f.Pattern("ok"); (p != nil) != c.read {
				t.Fatalf("pattern read: %v, want %v", p != nil, c.read)
			} else if p != nil {
				if img, err := p.Image(); err != nil || img.Rect != image.Rect(0, 0, 2, 2) {
					t.Fatalf("pattern image %v, %v", img.Rect, err)
				}
			}
			named := strings.Contains(strings.Join(l.Unsupported, ","), "pattern overlay")
			if drawn := l.Effects != nil && len(l.Effects.PatternOverlays) == 1; drawn != c.read || named == c.read {
				t.Fatalf("overlay kept %v, named in unsupported %v (%v); pattern read %v", drawn, named, l.Unsupported, c.read)
			}
		})
	}
}

// ptflBlock is a PtFl block naming pattern id, at 50 %.
func ptflBlock(id string) []byte {
	var b builder
	b.u32(16)
	b.u32(0)
	b.u32(0)
	b.s("null")
	b.u32(2)
	b.u32(0)
	b.s("Ptrn")
	b.s("Objc")
	b.u32(0)
	b.u32(0)
	b.s("Ptrn")
	b.u32(1)
	b.u32(0)
	b.s("Idnt")
	b.s("TEXT")
	b.u32(uint32(len(id)))
	for _, r := range id {
		b.u16(uint16(r))
	}
	b.u32(0)
	b.s("Scl ")
	b.s("UntF")
	b.s("#Prc")
	b.u64(math.Float64bits(50))
	return block("PtFl", b.Bytes())
}

func TestPatternFillLayer(t *testing.T) {
	raw := append([]byte{compRaw}, 1, 2, 3, 4)
	for _, c := range []struct {
		name  string
		named string
	}{{"ok", ""}, {"missing", "pattern fill"}} {
		b := psdFileGlobal(4, 4, RGB, []testLayer{{name: "fill", rect: image4, channels: []testChannel{{0, rawChannel(16)}, {1, rawChannel(16)}, {2, rawChannel(16)}}, blocks: ptflBlock(c.name)}}, patternBlock("ok", 2, 2, raw, raw, raw))
		f, err := Decode(bytes.NewReader(b), int64(len(b)), Limits{})
		if err != nil {
			t.Fatal(err)
		}
		l := f.Layers[0]
		got := strings.Join(l.Unsupported, ",")
		if l.Kind != KindFill || got != c.named || (l.FillPattern != nil) != (c.named == "") {
			t.Fatalf("%s: kind %v, pattern %+v, unsupported %q", c.name, l.Kind, l.FillPattern, got)
		}
		if p := l.FillPattern; p != nil && (p.Scale != 0.5 || !p.Linked) {
			t.Errorf("%s: %+v: scale 0.5 linked expected", c.name, p)
		}
	}
}

func TestStrokeInAPattern(t *testing.T) {
	raw := append([]byte{compRaw}, 1, 2, 3, 4)
	for _, c := range []struct {
		id    string
		named bool
	}{{"ok", false}, {"missing", true}} {
		b := psdFileGlobal(4, 4, RGB, []testLayer{{name: "l", rect: image4, channels: []testChannel{{0, rawChannel(16)}, {1, rawChannel(16)}, {2, rawChannel(16)}}, blocks: effectFX("FrFX", c.id, true)}}, patternBlock("ok", 2, 2, raw, raw, raw))
		f, err := Decode(bytes.NewReader(b), int64(len(b)), Limits{})
		if err != nil {
			t.Fatal(err)
		}
		l := f.Layers[0]
		if l.Effects == nil || len(l.Effects.Strokes) != 1 {
			t.Fatalf("%s: effects %+v", c.id, l.Effects)
		}
		named := strings.Contains(strings.Join(l.Unsupported, ","), "stroke in a pattern")
		if s := l.Effects.Strokes[0]; (s.Pattern == nil) != c.named || named != c.named {
			t.Errorf("%s: stroke pattern %+v, named %v (%v)", c.id, s.Pattern, named, l.Unsupported)
		}
	}
}

// TestPatternAtItsOwnDepth: an 8-bit pattern in a 16- or 32-bit file is
// read at 8 bits. Its rows were read at the file's depth, two or four
// times as long as the pattern's: past the end of the picture at its
// last row (a panic), given the bytes to read.
func TestPatternAtItsOwnDepth(t *testing.T) {
	ch := func(v byte) []byte {
		return []byte{compRaw, v, v + 1, v + 2, v + 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	}
	for _, depth := range []uint16{16, 32} {
		b := psdFileGlobal(4, 4, RGB, []testLayer{{name: "l", rect: image4, channels: []testChannel{{0, rawChannel(16)}, {1, rawChannel(16)}, {2, rawChannel(16)}}, blocks: patternFX("ok")}}, patternBlock("ok", 2, 2, ch(10), ch(20), ch(30)))
		b[22], b[23] = byte(depth>>8), byte(depth)
		f, err := Decode(bytes.NewReader(b), int64(len(b)), Limits{})
		if err != nil {
			t.Fatal(err)
		}
		p := f.Pattern("ok")
		if p == nil {
			t.Fatalf("%d bits: no pattern", depth)
		}
		img, err := p.Image()
		if err != nil {
			t.Fatalf("%d bits: %v", depth, err)
		}
		if got := img.Pix[4*3 : 4*3+4]; !bytes.Equal(got, []byte{13, 23, 33, 255}) {
			t.Errorf("%d bits: last pixel %v, want [13 23 33 255]", depth, got)
		}
	}
}
