package psd

import (
	"bytes"
	"encoding/binary"
	"image"
	"math"
	"os"
	"testing"
)

// packBits compresses one row as Photoshop does (PackBits).
func packBits(row []byte) []byte {
	var out []byte
	for i := 0; i < len(row); {
		j := i + 1
		for j < len(row) && j-i < 128 && row[j] == row[i] {
			j++
		}
		if j-i >= 3 {
			out = append(out, byte(int8(1-(j-i))), row[i])
			i = j
			continue
		}
		j = i + 1
		for j < len(row) && j-i < 128 && !(j+2 < len(row) && row[j] == row[j+1] && row[j] == row[j+2]) {
			j++
		}
		out = append(out, byte(j-i-1))
		out = append(out, row[i:j]...)
		i = j
	}
	return out
}

// rleChannel encodes a w x h channel whose samples are fn(x, y).
func rleChannel(w, h int, fn func(x, y int) byte) []byte {
	counts := make([]byte, 2*h)
	var data []byte
	row := make([]byte, w)
	for y := 0; y < h; y++ {
		for x := range row {
			row[x] = fn(x, y)
		}
		p := packBits(row)
		binary.BigEndian.PutUint16(counts[2*y:], uint16(len(p)))
		data = append(data, p...)
	}
	return append(append([]byte{0, compRLE}, counts...), data...)
}

// descriptorBytes writes a version-16 descriptor of class "null" holding
// keys and values: float64 lists as VlLs of doub, strings as TEXT, maps
// as Objc of doub.
func descriptorBytes(kv ...any) []byte {
	var b builder
	b.u32(16)
	b.u32(0)
	b.u32(0)
	b.s("null")
	b.u32(uint32(len(kv) / 2))
	for i := 0; i < len(kv); i += 2 {
		key := kv[i].(string)
		if len(key) == 4 {
			b.u32(0)
		} else {
			b.u32(uint32(len(key)))
		}
		b.s(key)
		switch v := kv[i+1].(type) {
		case string:
			b.s("TEXT")
			b.u32(uint32(len(v) + 1))
			for _, r := range v {
				b.u16(uint16(r))
			}
			b.u16(0)
		case []float64:
			b.s("VlLs")
			b.u32(uint32(len(v)))
			for _, f := range v {
				b.s("doub")
				binary.Write(&b, binary.BigEndian, math.Float64bits(f))
			}
		case float64:
			b.s("doub")
			binary.Write(&b, binary.BigEndian, math.Float64bits(v))
		case bool:
			b.s("bool")
			var one uint8
			if v {
				one = 1
			}
			b.u8(one)
		case [2]float64: // a Pnt of Wdth and Hght
			b.s("Objc")
			b.u32(0)
			b.u32(0)
			b.s("Pnt ")
			b.u32(2)
			for j, k := range []string{"Wdth", "Hght"} {
				b.u32(0)
				b.s(k)
				b.s("doub")
				binary.Write(&b, binary.BigEndian, math.Float64bits(v[j]))
			}
		}
	}
	return b.Bytes()
}

// bigTemplate is the benchmark template: a 3000x3000 background,
// a smart object placed with a perspective quad, and a multiply shading
// layer clipped to it, RLE-compressed as Photoshop writes them.
func bigTemplate() []byte {
	const W, H = 3000, 3000
	bg := func(x, y int) byte { return byte(200 + x/200 + y/300) }
	so := image.Rect(700, 600, 2300, 2500)
	shade := func(x, y int) byte { return byte(255 - x/16) }
	placed := descriptorBytes(
		"Idnt", "5a96c404-ab9c-1177-97ef-96ca454b82b7",
		"Trnf", []float64{700, 600, 2300, 600, 2300, 2500, 700, 2500},
		"nonAffineTransform", []float64{700, 650, 2300, 600, 2250, 2500, 760, 2400},
		"Sz  ", [2]float64{2000, 2000},
	)
	layers := []testLayer{
		{name: "Background", rect: image.Rect(0, 0, W, H), channels: []testChannel{
			{0, rleChannel(W, H, bg)}, {1, rleChannel(W, H, bg)}, {2, rleChannel(W, H, bg)}}},
		{name: "Design", rect: so, blocks: block("SoLd", append([]byte("soLD\x00\x00\x00\x04"), placed...)), channels: []testChannel{
			{-1, rleChannel(so.Dx(), so.Dy(), func(x, y int) byte { return 255 })},
			{0, rleChannel(so.Dx(), so.Dy(), func(x, y int) byte { return byte(x / 64 * 40) })},
			{1, rleChannel(so.Dx(), so.Dy(), func(x, y int) byte { return byte(y / 64 * 40) })},
			{2, rleChannel(so.Dx(), so.Dy(), func(x, y int) byte { return 128 })}}},
		{name: "Shading", rect: so, channels: []testChannel{
			{0, rleChannel(so.Dx(), so.Dy(), shade)}, {1, rleChannel(so.Dx(), so.Dy(), shade)}, {2, rleChannel(so.Dx(), so.Dy(), shade)}}},
	}
	b := psdFile(W, H, RGB, layers)
	// Make Shading multiply and clipped: its record's blend key follows
	// the second "8BIMnorm" after Design's.
	at := bytes.LastIndex(b, []byte("8BIMnorm"))
	copy(b[at+4:], "mul ")
	b[at+9] = 1
	return b
}

// BenchmarkDecode reads the benchmark template's records (Decode) and then
// every picture in it, as a render does.
func BenchmarkDecode(b *testing.B) {
	file := bigTemplate()
	b.Run("records", func(b *testing.B) {
		b.SetBytes(int64(len(file)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := decodeBytes(file, Limits{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("records+pixels", func(b *testing.B) {
		b.SetBytes(int64(len(file)))
		b.ReportAllocs()
		for b.Loop() {
			f, err := decodeBytes(file, Limits{})
			if err != nil {
				b.Fatal(err)
			}
			for _, l := range f.Layers {
				if _, err := l.Image(); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

func TestBenchTemplate(t *testing.T) {
	f, err := decodeBytes(bigTemplate(), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	sh := f.Find("Shading")
	so := f.Find("Design")
	if f.Width != 3000 || sh == nil || sh.Blend != "multiply" || !sh.Clipped || so.Kind != KindSmartObject || so.Placed.NonAffine[1] != (Point{2300, 600}) || so.Placed.Width != 2000 {
		t.Fatalf("template misread: %+v %+v", sh, so)
	}
	// The background, Design and Shading, and the box of Design's quad.
	if want := int64(3000*3000 + 3*1600*1900); f.Pixels() != want {
		t.Errorf("Pixels %d, want %d", f.Pixels(), want)
	}
	img, err := sh.Image()
	if err != nil {
		t.Fatal(err)
	}
	if img.Pix[0] != 255 || img.Pix[4*1599] != 255-1599/16 || img.Pix[3] != 255 {
		t.Fatalf("shading pixels %v", img.Pix[:8])
	}
}

// BenchmarkConvert times what a pixel costs to bring to 8-bit RGB beyond
// unpacking it, per 4096-pixel row: an 8-bit row spread (the baseline a
// decoded pixel's work unit stands for), a 32-bit row tone-mapped (three
// samples), and CMYK through the ICC profile of ag-cmyk.psd.
func BenchmarkConvert(b *testing.B) {
	const n = 4096
	dst := make([]byte, 4*n)
	b.Run("8-bit", func(b *testing.B) {
		row := make([]byte, n)
		for b.Loop() {
			for c := 0; c < 3; c++ {
				putRow(row, 1, dst[c:], 4, true)
			}
		}
	})
	b.Run("32-bit", func(b *testing.B) {
		row := make([]byte, 4*n)
		for i := 0; i < n; i++ {
			binary.BigEndian.PutUint32(row[4*i:], math.Float32bits(float32(i)/n))
		}
		for b.Loop() {
			for c := 0; c < 3; c++ {
				putRow(row, 4, dst[c:], 4, true)
			}
		}
	})
	b.Run("CMYK-profile", func(b *testing.B) {
		fb, err := os.ReadFile("testdata/photoshop/ag-cmyk.psd")
		if err != nil {
			b.Fatal(err)
		}
		f, err := decodeBytes(fb, Limits{})
		if err != nil || f.profile == nil {
			b.Fatal("no profile", err)
		}
		conv := f.cmykConverter()
		for b.Loop() {
			for i := 0; i+4 <= len(dst); i += 4 {
				dst[i], dst[i+1], dst[i+2] = byte(i), byte(i>>8), byte(i>>4)
				conv(dst[i:i+4], byte(i>>2))
			}
		}
	})
}
