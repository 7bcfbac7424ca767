package mockup

import (
	"bytes"
	"image"
	"os"
	"testing"

	"github.com/kinohq/kino/server/psd"
)

// FuzzTemplate feeds damaged templates through the whole of a mockup:
// reading, the manifest, and drawing with a design in every smart object.
// Whatever the bytes, it returns an error or a picture, never a panic.
//
//	go test ./server/mockup -run XXX -fuzz FuzzTemplate -fuzztime 60s
func FuzzTemplate(f *testing.F) {
	// Photoshop files and a smart filter: effects in lmfx, a layer clipped to a
	// pass-through group, a gradient fill drawn from its settings, a shape
	// and its vector stroke drawn from its path.
	for _, name := range []string{"testdata/mockup.psd", "testdata/adjusted.psd", "testdata/filtered.psd", "../psd/testdata/photoshop/pt-double-stroke.psd", "../psd/testdata/photoshop/pt-clipping-mask4.psd", "../psd/testdata/photoshop/pt-32bit-rgb.psd", "../psd/testdata/photoshop/pt-minimal-shape-layer.psd"} {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	design := quadrants(64, 64)
	f.Fuzz(func(t *testing.T, b []byte) {
		lim := psd.Limits{MaxPixels: 1 << 20, MaxLayers: 64, MaxDescriptorDepth: 16, MaxEmbeddedBytes: 1 << 20}
		file, err := psd.Decode(bytes.NewReader(b), int64(len(b)), lim)
		if err != nil {
			return
		}
		tpl, err := Open(file)
		if err != nil {
			return
		}
		designs := map[string]image.Image{}
		for _, so := range tpl.Manifest.SmartObjects {
			designs[so.Path] = design
		}
		img, _, err := tpl.Render(Options{Designs: designs})
		if err == nil && img.Bounds() != image.Rect(0, 0, file.Width, file.Height) {
			t.Fatalf("a %dx%d template drew %v", file.Width, file.Height, img.Bounds())
		}
	})
}
