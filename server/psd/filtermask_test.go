package psd

import (
	"bytes"
	"encoding/binary"
	"image"
	"os"
	"strings"
	"testing"
)

// smartFilterBlur reads ag-smart-filter-blur.psd, its filter mask's last
// row changed by paint unless it is nil, and returns its smart object.
func smartFilterBlur(t *testing.T, paint func(row []byte)) (*File, *Layer) {
	t.Helper()
	b, err := os.ReadFile("testdata/photoshop/ag-smart-filter-blur.psd")
	if err != nil {
		t.Fatal(err)
	}
	if paint != nil {
		// The FEid block ends with the mask's last RLE row (8 bytes:
		// runs of 116 and 3 × 128 white) and a byte of padding.
		i := bytes.Index(b, []byte("8BIMFEid"))
		if i < 0 {
			t.Fatal("no FEid block")
		}
		end := i + 12 + int(binary.BigEndian.Uint32(b[i+8:]))
		paint(b[end-9 : end-1])
	}
	f, err := decodeBytes(b, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range f.Layers {
		if l.Placed != nil {
			return f, l
		}
	}
	t.Fatal("no smart object")
	return nil, nil
}

// TestFilterMaskWhite: the fixture's filter mask is switched on and white
// over the whole canvas: no mask, nothing named.
func TestFilterMaskWhite(t *testing.T) {
	_, l := smartFilterBlur(t, nil)
	if l.Placed.FilterMask != nil {
		t.Errorf("a white filter mask was kept: %+v", l.Placed.FilterMask)
	}
	if len(l.Placed.Filters) == 0 || l.Placed.instance == "" || !l.Placed.maskOn {
		t.Errorf("filters %v, instance %q, mask on %v", l.Placed.Filters, l.Placed.instance, l.Placed.maskOn)
	}
	for _, u := range l.Unsupported {
		t.Errorf("unsupported: %s", u)
	}
}

// TestFilterMaskPainted: the mask's last row painted black over its run
// of 116 pixels is read, where it lies.
func TestFilterMaskPainted(t *testing.T) {
	_, l := smartFilterBlur(t, func(row []byte) {
		if !bytes.Contains(row, []byte{0x8d, 0xff}) {
			t.Fatalf("last row % x: no run of 116", row)
		}
		i := bytes.Index(row, []byte{0x8d, 0xff})
		row[i+1] = 0
	})
	m := l.Placed.FilterMask
	if m == nil {
		t.Fatal("no filter mask")
	}
	r := m.Image.Rect
	black := 0
	for x := r.Min.X; x < r.Max.X; x++ {
		if m.Image.GrayAt(x, r.Max.Y-1).Y == 0 {
			black++
		}
	}
	if black != 116 || m.Image.GrayAt(r.Min.X, r.Min.Y).Y != 255 || m.Outside != 255 {
		t.Errorf("last row black %d pixels (116 expected), top left %d, outside %d", black, m.Image.GrayAt(r.Min.X, r.Min.Y).Y, m.Outside)
	}
	if len(l.Unsupported) != 0 {
		t.Errorf("unsupported: %v", l.Unsupported)
	}
}

// TestFilterMaskDamaged: a mask whose rows do not decode is named, the
// filters drawn over the whole design.
func TestFilterMaskDamaged(t *testing.T) {
	_, l := smartFilterBlur(t, func(row []byte) { row[0] = 0x7f }) // a literal run past the row
	if l.Placed.FilterMask != nil {
		t.Error("a damaged mask was kept")
	}
	want := "smart filter: mask (the filters drawn over the whole design)"
	if len(l.Unsupported) != 1 || l.Unsupported[0] != want {
		t.Errorf("unsupported %q, want [%q]", l.Unsupported, want)
	}
}

// filterEffectsBytes is a filter effects block (version 3) of one entry:
// instance id, no channels written, and a filter mask over r stored as
// mask (its compression first).
func filterEffectsBytes(id string, r image.Rectangle, mask []byte) []byte {
	var body builder
	for _, v := range []int{r.Min.Y, r.Min.X, r.Max.Y, r.Max.X} {
		body.u32(uint32(v))
	}
	body.u32(8) // depth
	body.u32(0) // channels besides the two masks
	body.u32(0)
	body.u32(0)
	var e builder
	e.u8(uint8(len(id)))
	e.s(id)
	e.u32(1)
	e.u64(uint64(body.Len()))
	e.Write(body.Bytes())
	e.u8(1)
	for _, v := range []int{r.Min.Y, r.Min.X, r.Max.Y, r.Max.X} {
		e.u32(uint32(v))
	}
	e.u64(uint64(len(mask)))
	e.Write(mask)
	var b builder
	b.u32(3)
	b.u64(uint64(e.Len()))
	b.Write(e.Bytes())
	for b.Len()%4 != 0 {
		b.u8(0)
	}
	return b.Bytes()
}

// TestFilterEffectsBlock reads a filter mask from a block built per the
// specification, and decodes it: painted, kept; white, dropped.
func TestFilterEffectsBlock(t *testing.T) {
	d := &decoder{f: &File{Width: 4, Height: 4}, lim: Limits{}.withDefaults()}
	b := filterEffectsBytes("id", image.Rect(1, 1, 3, 3), []byte{0, compRaw, 0, 255, 128, 255})
	d.f.r = readerAt{r: bytes.NewReader(b)}
	d.filterEffects(newCursor(bytes.NewReader(b), 0, int64(len(b)), "FEid"))
	fm := d.filterMasks["id"]
	if fm == nil || fm.rect != image.Rect(1, 1, 3, 3) || fm.depth != 8 {
		t.Fatalf("filter mask %+v", fm)
	}
	m, err := d.filterMask(fm, true)
	if err != nil || m == nil || !bytes.Equal(m.Image.Pix, []byte{0, 255, 128, 255}) || m.Outside != 255 {
		t.Fatalf("mask %+v, %v", m, err)
	}
	// White over its rectangle, white outside: no mask. Black outside
	// (not extended with white): a mask.
	b = filterEffectsBytes("w", image.Rect(1, 1, 3, 3), []byte{0, compRaw, 255, 255, 255, 255})
	d.f.r = readerAt{r: bytes.NewReader(b)}
	d.filterEffects(newCursor(bytes.NewReader(b), 0, int64(len(b)), "FEid"))
	if m, err := d.filterMask(d.filterMasks["w"], true); m != nil || err != nil {
		t.Errorf("a white mask: %+v, %v", m, err)
	}
	if m, err := d.filterMask(d.filterMasks["w"], false); m == nil || err != nil || m.Outside != 0 {
		t.Errorf("a white mask black outside: %+v, %v", m, err)
	}
}

// filterMaskDecoder is a decoder of an 8x8 canvas whose filter effects
// hold a black 8x8 mask for each of ids, and a smart object with a blur
// for each of owners (the instance ids their placed descriptors name).
func filterMaskDecoder(ids, owners []string) *decoder {
	d := &decoder{f: &File{Width: 8, Height: 8}, lim: Limits{MaxPixels: 64}.withDefaults()}
	var b []byte
	for _, id := range ids {
		b = append(b, filterEffectsBytes(id, image.Rect(0, 0, 8, 8), append([]byte{0, compRaw}, make([]byte, 64)...))...)
	}
	d.f.r = readerAt{r: bytes.NewReader(b), size: int64(len(b))}
	for at := 0; at < len(b); {
		n := len(filterEffectsBytes(ids[0], image.Rect(0, 0, 8, 8), make([]byte, 66)))
		d.filterEffects(newCursor(bytes.NewReader(b), int64(at), int64(at+n), "FEid"))
		at += n
	}
	for i, id := range owners {
		p := &Placed{Filters: []SmartFilter{{ID: "GsnB", Radius: 1, Opacity: 1}}, instance: id, maskOn: true, maskOutsideWhite: true}
		d.records = append(d.records, &Layer{Index: i, Placed: p})
	}
	return d
}

// TestFilterMaskDecodedOnce: smart objects naming one filter mask share
// one decoding of it. Each decoding its own, a file of 2,000 smart
// objects naming a mask of Limits.MaxPixels, a few hundred KB, held
// 2,000 times the pixel limit.
func TestFilterMaskDecodedOnce(t *testing.T) {
	owners := make([]string, 20)
	for i := range owners {
		owners[i] = "id"
	}
	d := filterMaskDecoder([]string{"id"}, owners)
	if err := d.attachFilterMasks(); err != nil {
		t.Fatal(err)
	}
	first := d.records[0].Placed.FilterMask
	for _, l := range d.records {
		if m := l.Placed.FilterMask; m == nil || m != first {
			t.Fatalf("layer %d: mask %p, layer 0's %p", l.Index, m, first)
		}
	}
}

// TestFilterMasksBounded: distinct filter masks count with the layers and
// masks against 8 times the pixel limit, and past it the file is refused
// by name.
func TestFilterMasksBounded(t *testing.T) {
	ids := make([]string, maxTotalPixels+1)
	for i := range ids {
		ids[i] = string(rune('a' + i))
	}
	d := filterMaskDecoder(ids, ids)
	err := d.attachFilterMasks()
	if err == nil || !strings.Contains(err.Error(), "filter mask") || !strings.Contains(err.Error(), "over the limit") {
		t.Fatalf("%d masks of the pixel limit: %v", len(ids), err)
	}
	d = filterMaskDecoder(ids[:maxTotalPixels], ids[:maxTotalPixels])
	if err := d.attachFilterMasks(); err != nil {
		t.Fatalf("%d masks of the pixel limit: %v", maxTotalPixels, err)
	}
}
