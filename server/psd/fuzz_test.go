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
	for _, name := range []string{"grey8-zip-predict.psd", "grey16-raw.psd", "rgb16-zip-predict.psd", "template-zip.psd", "warp-quilt.psd", "photoshop/ag-smart-object-png.psd", "adjustments.psd", "photoshop/pt-double-stroke.psd", "photoshop/pt-32bit-5x5.psd", "photoshop/pt-32bit-rgb.psd", "photoshop/pt-lab-8bit.psd", "photoshop/ag-indexed.psd", "photoshop/ag-bitmap-rle.psd"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add(psdFile(4, 4, RGB, []testLayer{{name: "so", rect: image4, blocks: block("SoLd", append([]byte("soLD\x00\x00\x00\x04"), nestedDescriptor(3)...))}}))
	// A shape without pixels: its path, fill and stroke are all there is.
	f.Add(psdFile(8, 8, RGB, []testLayer{{name: "shape", blocks: append(socoBlock(255, 0, 0), vmskBlock(2, [2]float64{0.1, 0.1}, [2]float64{0.9, 0.2}, [2]float64{0.5, 0.9})...)}}))
	if b, err := os.ReadFile(filepath.Join("testdata", "photoshop", "pt-minimal-shape-layer.psd")); err == nil {
		f.Add(b)
	}
	// Effects descriptors under each of their keys (lfx2, lfxs, lmfx),
	// the last two read since the test files showed them.
	fx := append([]byte{0, 0, 0, 0}, nestedDescriptor(3)...)
	f.Add(psdFile(4, 4, RGB, []testLayer{{name: "fx", rect: image4, blocks: append(append(block("lmfx", fx), block("lfxs", fx)...), block("lfx2", fx)...)}}))
	// The old effects block, every entry it may hold.
	f.Add(psdFile(4, 4, RGB, []testLayer{{name: "lrfx", rect: image4, blocks: block("lrFX", lrfxBlock(true))}}))
	// CMYK without its 577 KB ICC profile: header, layer and merged image.
	f.Add(psdFile(4, 4, CMYK, []testLayer{{name: "cmyk", rect: image4, channels: []testChannel{{-1, rawChannel(16)}, {0, rawChannel(16)}, {1, rawChannel(16)}, {2, rawChannel(16)}, {3, rawChannel(16)}}}}))
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
	})
}
