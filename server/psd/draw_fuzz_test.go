package psd_test

import (
	"bytes"
	"image"
	"image/color"
	"os"
	"path/filepath"
	"testing"

	"github.com/kinohq/kino/server/mockup"
	"github.com/kinohq/kino/server/psd"
)

// FuzzDraw decodes arbitrary bytes and draws them as a mockup render
// does, a small design in every smart object: no input may panic, hang
// or allocate past what its canvas and the reader's limits allow.
func FuzzDraw(f *testing.F) {
	for _, name := range []string{"warp-quilt.psd", "warp-custom.psd", "template-zip.psd", "grey8-zip-predict.psd", "photoshop/ag-smart-object-png.psd", "photoshop/pt-minimal-shape-layer.psd", "adjustments.psd", "photoshop/pt-fill-opacity.psd", "photoshop/pt-32bit-5x5.psd",
		// Read and drawn since: patterns, Lab, indexed and bitmap pixels,
		// inside strokes and satins, strokes and glows in gradients.
		"photoshop/ag-pattern.psd", "photoshop/pt-lab-8bit.psd", "photoshop/ag-indexed.psd", "photoshop/ag-bitmap-rle.psd", "photoshop/pt-shape-fx2.psd", "photoshop/pt-stroke-gradient.psd"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, uint8(0))
	}
	design := image.NewNRGBA(image.Rect(0, 0, 16, 9))
	for i := range design.Pix {
		design.Pix[i] = uint8(i * 37)
	}
	fits := []string{mockup.Cover, mockup.Contain, mockup.FitFill}
	lim := psd.Limits{MaxPixels: 1 << 20, MaxLayers: 100, MaxDescriptorDepth: 16, MaxEmbeddedBytes: 1 << 20}
	f.Fuzz(func(t *testing.T, b []byte, fit uint8) {
		file, err := psd.Decode(bytes.NewReader(b), int64(len(b)), lim)
		if err != nil {
			return
		}
		tpl, err := mockup.Open(file)
		if err != nil {
			return
		}
		opts := mockup.Options{Designs: map[string]image.Image{}, Fit: fits[int(fit)%len(fits)], Colors: map[string]color.NRGBA{}}
		for i, so := range tpl.Manifest.SmartObjects {
			if i < 20 {
				opts.Designs[so.Path] = design
			}
		}
		img, _, err := tpl.Render(opts)
		if err == nil && img != nil && len(file.Layers) > 0 && (img.Rect.Dx() != file.Width || img.Rect.Dy() != file.Height) {
			t.Fatalf("rendered %v for a %dx%d canvas", img.Rect, file.Width, file.Height)
		}
	})
}
