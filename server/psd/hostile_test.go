package psd

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"math"
	"os"
	"strings"
	"sync/atomic"
	"testing"
)

// builder writes small PSDs for the hostile-input tests: big-endian
// fields appended in order.
type builder struct{ bytes.Buffer }

func (b *builder) u8(v uint8)   { b.WriteByte(v) }
func (b *builder) u16(v uint16) { binary.Write(b, binary.BigEndian, v) }
func (b *builder) u32(v uint32) { binary.Write(b, binary.BigEndian, v) }
func (b *builder) s(v string)   { b.WriteString(v) }
func (b *builder) u64(v uint64) { binary.Write(b, binary.BigEndian, v) }

type testChannel struct {
	id   int16
	data []byte // compression tag included
}

type testLayer struct {
	name     string
	rect     image.Rectangle
	channels []testChannel
	blocks   []byte // additional layer information, ready made
}

// psdFile writes an 8-bit file of mode with these layers and a raw merged
// image of zeros (left out above a million pixels), with 3 channels (4 in
// CMYK).
func psdFile(w, h int, mode ColorMode, layers []testLayer) []byte {
	return psdFileGlobal(w, h, mode, layers, nil)
}

// psdFileGlobal is psdFile with global additional information blocks
// (ready made) after the layers.
func psdFileGlobal(w, h int, mode ColorMode, layers []testLayer, global []byte) []byte {
	var info builder
	info.u16(uint16(len(layers)))
	for _, l := range layers {
		info.u32(uint32(l.rect.Min.Y))
		info.u32(uint32(l.rect.Min.X))
		info.u32(uint32(l.rect.Max.Y))
		info.u32(uint32(l.rect.Max.X))
		info.u16(uint16(len(l.channels)))
		for _, c := range l.channels {
			info.u16(uint16(c.id))
			info.u32(uint32(len(c.data)))
		}
		info.s("8BIMnorm")
		info.Write([]byte{255, 0, 0, 0})
		var extra builder
		extra.u32(0)
		extra.u32(0)
		n := len(l.name)
		extra.u8(uint8(n))
		extra.s(l.name)
		for (1+n)%4 != 0 {
			extra.u8(0)
			n++
		}
		extra.Write(l.blocks)
		info.u32(uint32(extra.Len()))
		info.Write(extra.Bytes())
	}
	for _, l := range layers {
		for _, c := range l.channels {
			info.Write(c.data)
		}
	}
	if info.Len()%2 != 0 {
		info.u8(0)
	}
	var b builder
	b.s("8BPS")
	b.u16(1)
	b.Write(make([]byte, 6))
	nch := 3
	if mode == CMYK {
		nch = 4
	}
	b.u16(uint16(nch))
	b.u32(uint32(h))
	b.u32(uint32(w))
	b.u16(8)
	b.u16(uint16(mode))
	b.u32(0)
	b.u32(0)
	b.u32(uint32(4 + info.Len() + 4 + len(global)))
	b.u32(uint32(info.Len()))
	b.Write(info.Bytes())
	b.u32(0)
	b.Write(global)
	b.u16(compRaw)
	if w*h <= 1<<20 {
		b.Write(make([]byte, nch*w*h))
	}
	return b.Bytes()
}

var image4 = image.Rect(0, 0, 4, 4)

func rawChannel(n int) []byte { return append([]byte{0, 0}, make([]byte, n)...) }

func block(key string, data []byte) []byte {
	var b builder
	b.s("8BIM" + key)
	b.u32(uint32(len(data)))
	b.Write(data)
	if len(data)%2 != 0 {
		b.u8(0)
	}
	return b.Bytes()
}

// nestedDescriptor is a version-16 descriptor nested depth deep.
func nestedDescriptor(depth int) []byte {
	var b builder
	b.u32(16)
	for i := 0; i < depth; i++ {
		b.u32(0) // name
		b.u32(0)
		b.s("null")
		b.u32(1)
		b.u32(0)
		b.s("deep")
		b.s("Objc")
	}
	b.u32(0)
	b.u32(0)
	b.s("null")
	b.u32(0)
	return b.Bytes()
}

// placedFile is a 4x4 file whose one layer, "so", is a smart object
// placed by desc.
func placedFile(desc []byte) []byte {
	return psdFile(4, 4, RGB, []testLayer{{name: "so", rect: image.Rect(0, 0, 4, 4), blocks: block("SoLd", append([]byte("soLD\x00\x00\x00\x04"), desc...))}})
}

func decodeBytes(b []byte, lim Limits) (*File, error) {
	return Decode(bytes.NewReader(b), int64(len(b)), lim)
}

// countingReader counts the bytes read from it.
type countingReader struct {
	r *bytes.Reader
	n atomic.Int64
}

func (c *countingReader) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n.Add(int64(n))
	return n, err
}

func TestHostileFiles(t *testing.T) {
	rect := image.Rect(0, 0, 4, 4)
	good := testLayer{name: "ok", rect: rect, channels: []testChannel{{0, rawChannel(16)}, {1, rawChannel(16)}, {2, rawChannel(16)}}}
	var bomb bytes.Buffer
	zw := zlib.NewWriter(&bomb)
	zw.Write(make([]byte, 16<<20)) // 16 MiB of zeros in 16 KB
	zw.Close()

	for _, tc := range []struct {
		name  string
		file  []byte
		lim   Limits
		where string // "decode" or "image"
		want  string // in the error
	}{
		{"not a PSD", []byte("GIF89a........................"), Limits{}, "decode", "no 8BPS signature"},
		{"30000x30000 canvas", psdFile(30000, 30000, RGB, nil), Limits{}, "decode", "30000x30000 pixels is over the limit"},
		{"multichannel", psdFile(4, 4, Multichannel, nil), Limits{}, "decode", "multichannel colour mode"},
		{"CMYK with 3 channels", func() []byte {
			b := psdFile(4, 4, CMYK, nil)
			b[13] = 3 // the header's channel count
			return b
		}(), Limits{}, "decode", "3 channels for CMYK (at least 4 needed)"},
		{"duotone", psdFile(4, 4, Duotone, nil), Limits{}, "decode", "duotone colour mode"},
		{"layer over the limit", psdFile(8, 8, RGB, []testLayer{{name: "huge", rect: image.Rect(0, 0, 30000, 30000), channels: []testChannel{{0, rawChannel(4)}}}}), Limits{}, "decode", `layer 0 "huge": bounds: 30000x30000 pixels is over the limit`},
		{"channel length past the section", func() []byte {
			l := good
			l.channels = []testChannel{{0, rawChannel(16)}}
			b := psdFile(4, 4, RGB, []testLayer{l})
			// The channel's length field follows the 18 bytes of rect and count.
			at := bytes.Index(b, []byte("8BIMnorm")) - 4
			binary.BigEndian.PutUint32(b[at:], 1<<30)
			return b
		}(), Limits{}, "decode", "run past the layer info section"},
		{"truncated", psdFile(4, 4, RGB, []testLayer{good})[:120], Limits{}, "decode", "truncated or a length is wrong"},
		{"deep descriptor", psdFile(4, 4, RGB, []testLayer{{name: "so", rect: rect, blocks: block("SoLd", append([]byte("soLD\x00\x00\x00\x04"), nestedDescriptor(1000)...))}}), Limits{}, "decode", "nested deeper than 32"},
		{"descriptor count lie", psdFile(4, 4, RGB, []testLayer{{name: "so", rect: rect, blocks: block("SoLd", []byte("soLD\x00\x00\x00\x04\x00\x00\x00\x10\x00\x00\x00\x00\x00\x00\x00\x00null\x7f\xff\xff\xff"))}}), Limits{}, "decode", "declares 2147483647 items"},
		{"huge layer, little data", psdFile(8, 8, RGB, []testLayer{{name: "Shadow", rect: image.Rect(0, 0, 20000, 20000), channels: []testChannel{{0, rawChannel(10)}}}}), Limits{MaxPixels: 1 << 30}, "image", `layer 0 "Shadow": channel 0: 10 bytes of data cannot hold 20000x20000 samples`},
		{"RLE rows past the data", psdFile(4, 4, RGB, []testLayer{{name: "Shadow", rect: rect, channels: []testChannel{
			{0, []byte{0, 1, 0, 200, 0, 2, 0, 2, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}}}}}), Limits{}, "image", `layer 0 "Shadow": channel 0: RLE data runs past the layer's data`},
		{"RLE row too long", psdFile(4, 4, RGB, []testLayer{{name: "Shadow", rect: rect, channels: []testChannel{
			{0, []byte{0, 1, 0, 2, 0, 2, 0, 2, 0, 2, 0xf0, 7, 0xfd, 7, 0xfd, 7, 0xfd, 7}}}}}), Limits{}, "image", "row 0: RLE row runs past its length"},
		{"quad of NaN", placedFile(descriptorBytes("Trnf", []float64{0, 0, 4, 0, 4, 4, 0, 4}, "nonAffineTransform", []float64{0, 0, math.NaN(), 0, 4, 4, 0, 4})), Limits{}, "decode", `layer 0 "so": placed layer: corner 1 of its transform (NaN, 0) is not a number`},
		{"quad at infinity", placedFile(descriptorBytes("Trnf", []float64{0, 0, math.Inf(1), 0, 4, 4, 0, 4})), Limits{}, "decode", "corner 1 of its transform (+Inf, 0)"},
		{"quad far away", placedFile(descriptorBytes("Trnf", []float64{-1e300, 0, 4, 0, 4, 4, 0, 4})), Limits{}, "decode", "corner 0 of its transform (-1e+300, 0)"},
		{"content 1e9 wide", placedFile(descriptorBytes("Trnf", []float64{0, 0, 4, 0, 4, 4, 0, 4}, "Sz  ", [2]float64{1e9, 1})), Limits{}, "decode", "content size 1e+09x1 is not within 0 to 1e+07"},
		{"2000 layers of nothing", func() []byte {
			// Each layer declares the whole pixel limit; together they
			// would cost 9 times it when drawn.
			var ls []testLayer
			for i := 0; i < 9; i++ {
				ls = append(ls, testLayer{name: fmt.Sprint("l", i), rect: image.Rect(0, 0, 1024, 1024), channels: []testChannel{{0, rawChannel(4)}}})
			}
			return psdFile(8, 8, RGB, ls)
		}(), Limits{MaxPixels: 1 << 20}, "decode", `layer 8 "l8": layers, masks and fills up to this one hold 9437184 pixels, over the limit of 8388608`},
		{"fills of a large canvas", func() []byte {
			var ls []testLayer
			for i := 0; i < 9; i++ {
				ls = append(ls, testLayer{name: fmt.Sprint("fill", i), blocks: block("SoCo", descriptorBytes())})
			}
			return psdFile(1024, 1024, RGB, ls)
		}(), Limits{MaxPixels: 1 << 20}, "decode", `layer 8 "fill8": layers, masks and fills up to this one hold 9437184 pixels`},
		{"long group names repeated in paths", func() []byte {
			// 16 groups named with 100,000 characters each hold 300
			// layers: 480 MB of paths from a 3 MB file.
			luni := func(n int) []byte {
				var b builder
				b.u32(uint32(n))
				for i := 0; i < n; i++ {
					b.u16('g')
				}
				return block("luni", b.Bytes())
			}
			var ls []testLayer
			for i := 0; i < 16; i++ {
				ls = append(ls, testLayer{name: "</Layer group>", blocks: block("lsct", []byte{0, 0, 0, 3})})
			}
			for i := 0; i < 300; i++ {
				ls = append(ls, testLayer{name: fmt.Sprint("l", i)})
			}
			for i := 0; i < 16; i++ {
				ls = append(ls, testLayer{name: "g", blocks: append(block("lsct", []byte{0, 0, 0, 1}), luni(100_000)...)})
			}
			return psdFile(4, 4, RGB, ls)
		}(), Limits{}, "decode", "layer paths (group names repeated in each layer's path) would take"},
		{"smart objects of one name covering the canvas", func() []byte {
			// A pixel of their own each, but a design drawn into each is
			// a canvas-sized picture.
			desc := descriptorBytes("Trnf", []float64{0, 0, 1024, 0, 1024, 1024, 0, 1024})
			var ls []testLayer
			for i := 0; i < 9; i++ {
				ls = append(ls, testLayer{name: "Design", rect: image.Rect(0, 0, 1, 1), blocks: block("SoLd", append([]byte("soLD\x00\x00\x00\x04"), desc...))})
			}
			return psdFile(1024, 1024, RGB, ls)
		}(), Limits{MaxPixels: 1 << 20}, "decode", `layer 7 "Design": layers, masks and fills up to this one hold 8388616 pixels`},
		{"groups 17 deep", func() []byte {
			// Bottom to top: 17 end markers, then the 17 groups' records.
			var ls []testLayer
			for i := 0; i < 17; i++ {
				ls = append(ls, testLayer{name: "</Layer group>", blocks: block("lsct", []byte{0, 0, 0, 3})})
			}
			for i := 0; i < 17; i++ {
				ls = append(ls, testLayer{name: fmt.Sprint("g", i), blocks: block("lsct", []byte{0, 0, 0, 1})})
			}
			return psdFile(4, 4, RGB, ls)
		}(), Limits{}, "decode", "groups nested more than 16 deep"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := decodeBytes(tc.file, tc.lim)
			if tc.where == "image" {
				if err != nil {
					t.Fatalf("decode: %v", err)
				}
				_, err = f.Layers[0].Image()
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one saying %q", err, tc.want)
			}
			var fe *FormatError
			var ue *UnsupportedError
			if !errors.As(err, &fe) && !errors.As(err, &ue) {
				t.Errorf("error %T is neither a FormatError nor an UnsupportedError", err)
			}
		})
	}

	t.Run("unsupported by name", func(t *testing.T) {
		_, err := decodeBytes(psdFile(4, 4, Multichannel, nil), Limits{})
		var ue *UnsupportedError
		if !errors.As(err, &ue) || ue.Feature != "multichannel colour mode" {
			t.Fatalf("error %v", err)
		}
	})

	t.Run("ZIP bomb", func(t *testing.T) {
		// A 256x256 layer whose channel inflates to 16 MiB: it is refused
		// once the 64 KiB the layer holds are inflated and one byte more
		// is asked for, the compressed stream read no further.
		ch := append([]byte{0, compZIP}, bomb.Bytes()...)
		b := psdFile(256, 256, RGB, []testLayer{{name: "bomb", rect: image.Rect(0, 0, 256, 256), channels: []testChannel{{0, ch}, {1, ch}, {2, ch}}}})
		cr := &countingReader{r: bytes.NewReader(b)}
		f, err := Decode(cr, int64(len(b)), Limits{})
		if err != nil {
			t.Fatal(err)
		}
		before := cr.n.Load()
		_, err = f.Layers[0].Image()
		if err == nil || !strings.Contains(err.Error(), "ZIP data inflates past the 256x256 plane") {
			t.Fatalf("error %v, want the bomb refused", err)
		}
		read := cr.n.Load() - before
		if read > 3*8<<10 {
			t.Fatalf("read %d bytes of a %d-byte stream for a 64 KiB channel", read/3, bomb.Len())
		}
	})

	t.Run("truncated anywhere", func(t *testing.T) {
		full, err := os.ReadFile("testdata/template-zip.psd")
		if err != nil {
			t.Fatal(err)
		}
		for n := 0; n < len(full); n += 331 {
			f, err := decodeBytes(full[:n], Limits{})
			if err != nil {
				continue
			}
			// What decodes must fail cleanly or succeed when drawn.
			f.Walk(func(l *Layer) error {
				l.Image()
				if l.Mask != nil {
					l.Mask.Image()
				}
				return nil
			})
			f.Composite()
		}
	})
}

// TestEffectSizesNotNaN: an effect's size or distance stored as NaN reads
// as 0, as a negative one does. NaN went through the clamp, and the
// drawing's reach and the work estimate, int(NaN) each, left the effects
// out of the estimate: a file asking for any work in effects was let in.
func TestEffectSizesNotNaN(t *testing.T) {
	b, err := os.ReadFile("testdata/photoshop/pt-layer-params.psd")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, key := range []string{"blurUntF#Pxl", "DstnUntF#Pxl", "Sz  UntF#Pxl"} {
		for i := 0; ; {
			j := bytes.Index(b[i:], []byte(key))
			if j < 0 {
				break
			}
			i += j + len(key)
			binary.BigEndian.PutUint64(b[i:], math.Float64bits(math.NaN()))
			n++
		}
	}
	f, err := decodeBytes(b, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	check := func(what string, vs ...float64) {
		for _, v := range vs {
			checked++
			if !(v >= 0 && v <= 1000) {
				t.Errorf("%s: %v", what, v)
			}
		}
	}
	for _, l := range f.Layers {
		e := l.Effects
		if e == nil {
			continue
		}
		for _, s := range append(append([]Shadow(nil), e.DropShadows...), e.InnerShadows...) {
			check("shadow", s.Size, s.Distance)
		}
		for _, g := range append(append([]Glow(nil), e.OuterGlows...), e.InnerGlows...) {
			check("glow", g.Size)
		}
		for _, s := range e.Strokes {
			check("stroke", s.Size)
		}
		for _, s := range e.Satins {
			check("satin", s.Size, s.Distance)
		}
	}
	if n == 0 || checked == 0 {
		t.Fatalf("%d sizes changed, %d read", n, checked)
	}
}
