// Package psdtest writes PSD files for tests: pixel layers of one colour,
// solid-colour fills, smart objects placed by a quad, and groups nested
// as deep as asked, RLE-compressed as Photoshop writes them, so that a
// test can build the hostile templates it needs in Go, any size, in a few
// megabytes. Hostile returns the templates the budgets were made for.
package psdtest

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"math"
)

// Kind is what a Layer is.
type Kind int

// The kinds of layer Write writes.
const (
	Pixel Kind = iota
	Group
	Fill
	SmartObject
)

// Layer is one layer, or a group and its children (bottom to top).
type Layer struct {
	Name string
	Kind Kind
	// Rect is a pixel layer's or a smart object's pixels on the canvas.
	Rect image.Rectangle
	// Blend is the four-letter key of its mode ("norm", "mul ", "hue ",
	// "pass" for a group that passes through); "" is "norm".
	Blend string
	// Value is the grey of each of its pixels, opaque.
	Value byte
	// Clipped clips it to the layer below.
	Clipped bool
	// Quad is where a smart object's content goes: top-left, top-right,
	// bottom-right, bottom-left (x, y pairs); Content is its size.
	Quad    [8]float64
	Content [2]float64
	// Children are a group's layers.
	Children []Layer
}

// Write writes an 8-bit RGB file of w × h pixels holding layers (bottom
// to top), with a merged image of grey rows.
func Write(w, h int, layers []Layer) []byte {
	var recs []record
	for _, l := range layers {
		recs = flatten(recs, l)
	}
	var info bytes.Buffer
	put(&info, int16(len(recs)))
	for _, r := range recs {
		r.header(&info)
	}
	for _, r := range recs {
		for _, c := range r.channels {
			info.Write(c)
		}
	}
	if info.Len()%2 != 0 {
		info.WriteByte(0)
	}
	var b bytes.Buffer
	b.WriteString("8BPS")
	put(&b, uint16(1))
	b.Write(make([]byte, 6))
	put(&b, uint16(3))
	put(&b, uint32(h))
	put(&b, uint32(w))
	put(&b, uint16(8))
	put(&b, uint16(3)) // RGB
	put(&b, uint32(0))
	put(&b, uint32(0))
	put(&b, uint32(4+info.Len()+4))
	put(&b, uint32(info.Len()))
	b.Write(info.Bytes())
	put(&b, uint32(0)) // global mask
	// The merged image, RLE: its row counts for 3 channels, then rows.
	put(&b, uint16(1))
	row := packBits(200, w)
	for range 3 * h {
		put(&b, uint16(len(row)))
	}
	for range 3 * h {
		b.Write(row)
	}
	return b.Bytes()
}

// record is one layer record as stored: a group is an end marker, its
// children, then its own record.
type record struct {
	clipped  bool
	name     string
	rect     image.Rectangle
	blend    string
	channels [][]byte // with their compression tag
	blocks   []byte
}

func flatten(recs []record, l Layer) []record {
	blend := l.Blend
	if blend == "" {
		blend = "norm"
	}
	switch l.Kind {
	case Group:
		recs = append(recs, record{name: "</Layer group>", blend: "norm", channels: emptyChannels(), blocks: block("lsct", u32s(3))})
		for _, c := range l.Children {
			recs = flatten(recs, c)
		}
		lsct := append(u32s(1), []byte("8BIM"+blend)...)
		recBlend := blend
		if blend == "pass" {
			recBlend = "norm"
		}
		return append(recs, record{name: l.Name, blend: recBlend, channels: emptyChannels(), blocks: block("lsct", lsct)})
	case Fill:
		desc := descriptor("Clr ", rgb{float64(l.Value), float64(l.Value), float64(l.Value)})
		return append(recs, record{name: l.Name, rect: l.Rect, blend: blend, channels: pixels(l.Rect, l.Value), blocks: block("SoCo", desc)})
	case SmartObject:
		desc := descriptor("Idnt", "00000000-0000-0000-0000-000000000001", "Trnf", l.Quad[:], "Sz  ", l.Content)
		so := append([]byte("soLD\x00\x00\x00\x04"), desc...)
		return append(recs, record{name: l.Name, rect: l.Rect, blend: blend, channels: pixels(l.Rect, l.Value), blocks: block("SoLd", so)})
	}
	return append(recs, record{name: l.Name, rect: l.Rect, blend: blend, channels: pixels(l.Rect, l.Value), clipped: l.Clipped})
}

func (r record) header(b *bytes.Buffer) {
	put(b, int32(r.rect.Min.Y))
	put(b, int32(r.rect.Min.X))
	put(b, int32(r.rect.Max.Y))
	put(b, int32(r.rect.Max.X))
	put(b, uint16(len(r.channels)))
	for i, c := range r.channels {
		put(b, int16(i-1)) // -1 (alpha), 0, 1, 2
		put(b, uint32(len(c)))
	}
	b.WriteString("8BIM" + r.blend)
	clip := byte(0)
	if r.clipped {
		clip = 1
	}
	b.Write([]byte{255, clip, 0, 0}) // opacity, clipping, flags, filler
	var extra bytes.Buffer
	put(&extra, uint32(0)) // mask
	put(&extra, uint32(0)) // blending ranges
	n := len(r.name)
	extra.WriteByte(byte(n))
	extra.WriteString(r.name)
	for (1+n)%4 != 0 {
		extra.WriteByte(0)
		n++
	}
	extra.Write(r.blocks)
	put(b, uint32(extra.Len()))
	b.Write(extra.Bytes())
}

// emptyChannels are the four channels of a record without pixels.
func emptyChannels() [][]byte {
	return [][]byte{{0, 0}, {0, 0}, {0, 0}, {0, 0}}
}

// pixels are the four RLE channels of r, opaque, every sample v.
func pixels(r image.Rectangle, v byte) [][]byte {
	if r.Empty() {
		return emptyChannels()
	}
	out := [][]byte{rle(r.Dx(), r.Dy(), 255)}
	c := rle(r.Dx(), r.Dy(), v)
	return append(out, c, c, c)
}

// rle is a w × h channel of v, RLE-compressed, its tag first.
func rle(w, h int, v byte) []byte {
	row := packBits(v, w)
	var b bytes.Buffer
	put(&b, uint16(1))
	for range h {
		put(&b, uint16(len(row)))
	}
	for range h {
		b.Write(row)
	}
	return b.Bytes()
}

// packBits is PackBits of n copies of v.
func packBits(v byte, n int) []byte {
	var out []byte
	for n > 0 {
		c := min(n, 128)
		if c == 1 {
			out = append(out, 0, v)
		} else {
			out = append(out, byte(257-c), v)
		}
		n -= c
	}
	return out
}

func put(b *bytes.Buffer, v any) { _ = binary.Write(b, binary.BigEndian, v) }

func u32s(v uint32) []byte {
	var b bytes.Buffer
	put(&b, v)
	return b.Bytes()
}

// block is a tagged block of additional layer information.
func block(key string, data []byte) []byte {
	var b bytes.Buffer
	b.WriteString("8BIM" + key)
	put(&b, uint32(len(data)))
	b.Write(data)
	if len(data)%2 != 0 {
		b.WriteByte(0)
	}
	return b.Bytes()
}

type rgb [3]float64

// descriptor writes a version-16 descriptor of class "null": strings as
// TEXT, float lists as VlLs of doub, a size as a Pnt of Wdth and Hght, a
// colour as an RGBC of Rd, Grn and Bl.
func descriptor(kv ...any) []byte {
	var b bytes.Buffer
	put(&b, uint32(16))
	put(&b, uint32(0))
	put(&b, uint32(0))
	b.WriteString("null")
	put(&b, uint32(len(kv)/2))
	for i := 0; i < len(kv); i += 2 {
		key := kv[i].(string)
		if len(key) == 4 {
			put(&b, uint32(0))
		} else {
			put(&b, uint32(len(key)))
		}
		b.WriteString(key)
		switch v := kv[i+1].(type) {
		case string:
			b.WriteString("TEXT")
			put(&b, uint32(len(v)+1))
			for _, r := range v {
				put(&b, uint16(r))
			}
			put(&b, uint16(0))
		case []float64:
			b.WriteString("VlLs")
			put(&b, uint32(len(v)))
			for _, f := range v {
				b.WriteString("doub")
				put(&b, math.Float64bits(f))
			}
		case [2]float64:
			object(&b, "Pnt ", []string{"Wdth", "Hght"}, v[:])
		case rgb:
			object(&b, "RGBC", []string{"Rd  ", "Grn ", "Bl  "}, v[:])
		}
	}
	return b.Bytes()
}

// object writes an Objc of class of doubles.
func object(b *bytes.Buffer, class string, keys []string, vs []float64) {
	b.WriteString("Objc")
	put(b, uint32(0))
	put(b, uint32(0))
	b.WriteString(class)
	put(b, uint32(len(keys)))
	for j, k := range keys {
		put(b, uint32(0))
		b.WriteString(k)
		b.WriteString("doub")
		put(b, math.Float64bits(vs[j]))
	}
}

// nest puts layers inside n groups of mode blend, one in the other.
func nest(n int, blend string, layers []Layer) []Layer {
	for i := n; i > 0; i-- {
		layers = []Layer{{Name: fmt.Sprintf("group %d", i), Kind: Group, Blend: blend, Children: layers}}
	}
	return layers
}

// Hostile are the templates that each cost gigabytes or a minute of CPU
// to draw before kino had budgets, all within its other limits, by name:
//
//   - "nested-smart-object": a 7071×7071 canvas, one smart object whose
//     transform covers it (its content 1×1), six tiny fill layers, all
//     inside 16 nested groups;
//   - "isolated-exotic": 16 nested isolated groups holding 7 canvas-sized
//     layers in non-separable blend modes, on a 5000×5000 canvas;
//   - "many-layers": 1,999 layers of 440×440 on a 4000×4000 canvas;
//   - "hue-fills": 20 solid-colour fills in hue mode, each blended over
//     the whole of a 4472×4472 canvas in floating point.
func Hostile() map[string][]byte {
	const side = 7071
	inner := []Layer{{Name: "Design", Kind: SmartObject, Rect: image.Rect(0, 0, side, side), Value: 90,
		Quad: [8]float64{0, 0, side, 0, side, side, 0, side}, Content: [2]float64{1, 1}}}
	for i := range 6 {
		inner = append(inner, Layer{Name: fmt.Sprintf("fill %d", i), Kind: Fill, Rect: image.Rect(10*i, 0, 10*i+4, 4), Value: byte(40 * i)})
	}
	var exotic []Layer
	for i, mode := range []string{"hue ", "sat ", "colr", "lum ", "dkCl", "lgCl", "vLit"} {
		exotic = append(exotic, Layer{Name: fmt.Sprintf("layer %d", i), Rect: image.Rect(0, 0, 5000, 5000), Blend: mode, Value: byte(30 * i)})
	}
	var many []Layer
	for i := range 1999 {
		x, y := 440*(i%9), 440*(i/9%9)
		many = append(many, Layer{Name: fmt.Sprintf("layer %d", i), Rect: image.Rect(x, y, x+440, y+440), Value: byte(i)})
	}
	var fills []Layer
	for i := range 20 {
		fills = append(fills, Layer{Name: fmt.Sprintf("fill %d", i), Kind: Fill, Blend: "hue ", Value: byte(12 * i)})
	}
	return map[string][]byte{
		"hue-fills":           Write(4472, 4472, fills),
		"nested-smart-object": Write(side, side, nest(16, "norm", inner)),
		"isolated-exotic":     Write(5000, 5000, nest(16, "norm", exotic)),
		"many-layers":         Write(4000, 4000, many),
	}
}

// Largest is about the largest template of the usual shape that kino's
// budgets accept: a 3500×3500 canvas (12 MP), a background, a smart
// object covering a third of it with a multiply shade clipped to it,
// inside a group drawn in isolation, and a canvas-sized layer over all
// of it (normal: a render draws a video design under such layers only).
func Largest() []byte {
	box := image.Rect(750, 750, 2750, 2750)
	product := []Layer{
		{Name: "Design", Kind: SmartObject, Rect: box, Value: 128, Quad: [8]float64{750, 850, 2750, 750, 2650, 2750, 850, 2650}, Content: [2]float64{2000, 2000}},
		{Name: "Shade", Rect: box, Blend: "mul ", Value: 180, Clipped: true},
	}
	return Write(3500, 3500, []Layer{
		{Name: "Background", Rect: image.Rect(0, 0, 3500, 3500), Value: 230},
		{Name: "Product", Kind: Group, Children: product},
		{Name: "Glare", Rect: image.Rect(0, 0, 3500, 3500), Value: 20},
	})
}
