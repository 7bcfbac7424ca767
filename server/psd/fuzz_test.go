package psd

import (
	"bytes"
	"image"
	"os"
	"path/filepath"
	"testing"
)

// FuzzDecode decodes arbitrary bytes and then every picture in them: no
// input may panic, hang or allocate past the limits.
func FuzzDecode(f *testing.F) {
	// The small fixtures seed it; the large Photoshop files would make
	// every mutation slow.
	for _, name := range []string{"grey8-zip-predict.psd", "grey16-raw.psd", "rgb16-zip-predict.psd", "template-zip.psd", "warp-quilt.psd", "photoshop/ag-smart-object-png.psd", "adjustments.psd", "photoshop/pt-double-stroke.psd", "photoshop/pt-fill-opacity.psd", "photoshop/pt-32bit-5x5.psd", "photoshop/pt-32bit-rgb.psd", "photoshop/pt-lab-8bit.psd", "photoshop/ag-indexed.psd", "photoshop/ag-bitmap-rle.psd", "photoshop/ag-vector-complex.psd"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add(psdFile(4, 4, RGB, []testLayer{{name: "so", rect: image4, blocks: block("SoLd", append([]byte("soLD\x00\x00\x00\x04"), nestedDescriptor(3)...))}}))
	// A filter effects block holding a 2x2 filter mask.
	f.Add(psdFileGlobal(4, 4, RGB, nil, block("FEid", filterEffectsBytes("id", image.Rect(1, 1, 3, 3), []byte{0, compRaw, 0, 255, 128, 255}))))
	// A shape without pixels: its path, fill and stroke are all there is.
	f.Add(psdFile(8, 8, RGB, []testLayer{{name: "shape", blocks: append(socoBlock(255, 0, 0), vmskBlock(2, [2]float64{0.1, 0.1}, [2]float64{0.9, 0.2}, [2]float64{0.5, 0.9})...)}}))
	if b, err := os.ReadFile(filepath.Join("testdata", "photoshop", "pt-minimal-shape-layer.psd")); err == nil {
		f.Add(b)
	}
	// Effects descriptors under each of their keys (lfx2, lfxs, lmfx),
	// the last two read since the test files showed them.
	fx := append([]byte{0, 0, 0, 0}, nestedDescriptor(3)...)
	f.Add(psdFile(4, 4, RGB, []testLayer{{name: "fx", rect: image4, blocks: append(append(block("lmfx", fx), block("lfxs", fx)...), block("lfx2", fx)...)}}))
	// A pattern, and a pattern overlay naming it.
	f.Add(psdFileGlobal(4, 4, RGB, []testLayer{{name: "l", rect: image4, blocks: patternFX("p")}}, patternBlock("p", 2, 2, []byte{compRLE, 0, 3, 0, 3, 1, 7, 7, 1, 7, 7}, append([]byte{compRaw}, 1, 2, 3, 4), append([]byte{compRaw}, 5, 6, 7, 8))))
	// The colour adjustments' blocks: balance, filter, black & white (a
	// descriptor) and a lookup's .cube text.
	var colour []byte
	for _, b := range []struct {
		key  string
		data []byte
	}{{"blnc", colorBalanceBlock(40, -20, 1)}, {"phfl", photoFilterBlock(50, 1)}, {"blwh", blackWhiteBlock(true)},
		{"clrL", colorLookupBlock("LUT_3D_SIZE 2\n0 0 0\n1 0 0\n0 1 0\n1 1 0\n0 0 1\n1 0 1\n0 1 1\n1 1 1\n")}} {
		colour = append(colour, block(b.key, b.data)...)
	}
	f.Add(psdFile(4, 4, RGB, []testLayer{{name: "photo", rect: image4}, {name: "colour", blocks: colour}}))
	// The old effects block, every entry it may hold.
	f.Add(psdFile(4, 4, RGB, []testLayer{{name: "lrfx", rect: image4, blocks: block("lrFX", lrfxBlock(true))}}))
	// CMYK without its 577 KB ICC profile: header, layer and merged image.
	f.Add(psdFile(4, 4, CMYK, []testLayer{{name: "cmyk", rect: image4, channels: []testChannel{{-1, rawChannel(16)}, {0, rawChannel(16)}, {1, rawChannel(16)}, {2, rawChannel(16)}, {3, rawChannel(16)}}}}))
	f.Add(psdFileGlobal(4, 4, RGB, []testLayer{{name: "l", rect: image4, blocks: effectFX("FrFX", "p", true)}}, patternBlock("p", 1, 1, []byte{compRaw, 9}, []byte{compRaw, 8}, []byte{compRaw, 7})))
	// An 8-bit pattern in a 16-bit file (TestPatternAtItsOwnDepth).
	deep := psdFileGlobal(4, 4, RGB, []testLayer{{name: "l", rect: image4, blocks: patternFX("p")}}, patternBlock("p", 2, 2, append([]byte{compRaw, 1, 2, 3, 4}, make([]byte, 12)...), append([]byte{compRaw, 5, 6, 7, 8}, make([]byte, 12)...), append([]byte{compRaw, 9, 9, 9, 9}, make([]byte, 12)...)))
	deep[23] = 16
	f.Add(deep)
	lim := Limits{MaxPixels: 1 << 20, MaxLayers: 100, MaxDescriptorDepth: 16, MaxEmbeddedBytes: 1 << 20}
	f.Fuzz(func(t *testing.T, b []byte) {
		file, err := Decode(bytes.NewReader(b), int64(len(b)), lim)
		if err != nil {
			return
		}
		file.Walk(func(l *Layer) error {
			if img, err := l.Image(); err == nil && img.Rect != l.Rect {
				t.Fatalf("layer %d: image %v, rect %v", l.Index, img.Rect, l.Rect)
			}
			if l.Mask != nil {
				l.Mask.Image()
			}
			if r := l.PathRect(); !r.Empty() && !r.In(image.Rect(0, 0, file.Width, file.Height)) {
				t.Fatalf("layer %d: path drawn over %v, off the canvas", l.Index, r)
			}
			return nil
		})
		file.Composite()
		for _, p := range file.patterns {
			if img, err := p.Image(); err == nil && (img.Rect.Dx() != p.Width || img.Rect.Dy() != p.Height) {
				t.Fatalf("pattern %q: image %v for %dx%d", p.Name, img.Rect, p.Width, p.Height)
			}
		}
	})
}
