package mockup

import (
	"image"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// logo is a sample design: a sunset disc on a sky, with bands.
func logo(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			u, v := float64(x)/float64(w), float64(y)/float64(h)
			c := color.NRGBA{uint8(40 + 120*v), uint8(60 + 60*v), uint8(160 - 60*v), 255}
			if d := math.Hypot(u-0.5, v-0.55); d < 0.28 {
				c = color.NRGBA{250, uint8(200 - 250*d), 60, 255}
				if int(v*40)%5 == 0 && v > 0.55 {
					c = color.NRGBA{40, 60, 140, 255}
				}
			}
			img.SetNRGBA(x, y, c)
		}
	}
	return img
}

// TestDocPictures renders the pictures of docs/mockups.md from the test
// template (make mockup-pictures writes them; otherwise they are only
// drawn).
func TestDocPictures(t *testing.T) {
	tpl := load(t, "mockup.psd")
	for _, p := range []struct {
		name string
		opts Options
	}{
		{"mockup-template.png", Options{}},
		{"mockup-design.png", Options{Designs: map[string]image.Image{"Design": logo(400, 400)}, Hide: []string{"Other"}}},
		{"mockup-front-back.png", Options{Designs: map[string]image.Image{"Design": logo(400, 400), "Back": quadrants(200, 200)},
			Hide: []string{"Other"}, Colors: map[string]color.NRGBA{"Shirt": {170, 40, 40, 255}}}},
		{"mockup-contain.png", Options{Designs: map[string]image.Image{"Design": logo(400, 200)}, Fit: Contain, Hide: []string{"Other"}}},
	} {
		img, _, err := tpl.Render(p.opts)
		if err != nil {
			t.Fatalf("%s: %v", p.name, err)
		}
		if os.Getenv("KINO_WRITE_MOCKUP_PICTURES") == "" {
			continue
		}
		f, err := os.Create(filepath.Join("..", "..", "docs", "img", p.name))
		if err != nil {
			t.Fatal(err)
		}
		if err := EncodePNG(f, Resize(img, 300)); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
