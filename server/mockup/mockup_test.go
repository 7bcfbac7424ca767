package mockup

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/kinohq/kino/server/composite"
	"github.com/kinohq/kino/server/psd"
)

// quadrants is a design of four flat colours: red, green / blue, yellow.
func quadrants(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := color.NRGBA{220, 30, 30, 255}
			switch {
			case x >= w/2 && y < h/2:
				c = color.NRGBA{30, 200, 30, 255}
			case x < w/2 && y >= h/2:
				c = color.NRGBA{30, 30, 220, 255}
			case x >= w/2 && y >= h/2:
				c = color.NRGBA{230, 220, 20, 255}
			}
			img.SetNRGBA(x, y, c)
		}
	}
	return img
}

func load(t testing.TB, name string) *Template {
	t.Helper()
	tpl, c, err := Load("testdata/"+name, 50_000_000)
	if err != nil {
		t.Fatalf("load %s: %v", name, err)
	}
	t.Cleanup(func() { c.Close() })
	return tpl
}

func TestRenderPlacesTheDesignInTheQuad(t *testing.T) {
	tpl := load(t, "mockup.psd")
	so, ok := tpl.Manifest.SmartObject("Front/Design")
	if !ok {
		t.Fatalf("no smart object Front/Design in %+v", tpl.Manifest.SmartObjects)
	}
	img, warn, err := tpl.Render(Options{Designs: map[string]image.Image{"Front/Design": quadrants(400, 400)}, Hide: []string{"Other"}})
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("MOCKUP_OUT") != "" {
		f, _ := os.Create(os.Getenv("MOCKUP_OUT"))
		EncodePNG(f, img)
		f.Close()
	}
	t.Log(warn)
	var quad [4]composite.Point
	for i, c := range so.Quad {
		quad[i] = composite.Point{X: c[0], Y: c[1]}
	}
	h := composite.Perspective(quad)
	// The centre of each quadrant lands, darkened by the multiply shading,
	// where the homography maps it.
	for _, s := range []struct {
		u, v float64
		c    color.NRGBA
	}{{0.25, 0.25, color.NRGBA{220, 30, 30, 255}}, {0.75, 0.25, color.NRGBA{30, 200, 30, 255}},
		{0.25, 0.75, color.NRGBA{30, 30, 220, 255}}, {0.75, 0.75, color.NRGBA{230, 220, 20, 255}}} {
		p := h.Map(composite.Point{X: s.u, Y: s.v})
		got := img.NRGBAAt(int(math.Round(p.X)), int(math.Round(p.Y)))
		t.Logf("(%.2f,%.2f) -> (%.0f,%.0f): %v", s.u, s.v, p.X, p.Y, got)
	}
	if got := img.NRGBAAt(70, 550); got.G > 200 && got.R < 50 {
		t.Errorf("hidden layer Other is drawn: %v", got)
	}
}

// TestEncodePNG: the parallel encoder's files decode, by Go's decoder, to
// the very pixels given, opaque (RGB) and not (RGBA), at odd sizes.
func TestEncodePNG(t *testing.T) {
	for _, size := range []image.Point{{1, 1}, {3, 2}, {257, 131}} {
		for _, alpha := range []bool{false, true} {
			img := quadrants(size.X, size.Y)
			for i := range img.Pix {
				img.Pix[i] ^= uint8(i * 7)
				if i%4 == 3 && !alpha {
					img.Pix[i] = 255
				}
			}
			var b bytes.Buffer
			if err := EncodePNG(&b, img); err != nil {
				t.Fatal(err)
			}
			got, err := png.Decode(&b)
			if err != nil {
				t.Fatalf("%v alpha %v: %v", size, alpha, err)
			}
			for y := 0; y < size.Y; y++ {
				for x := 0; x < size.X; x++ {
					if c := color.NRGBAModel.Convert(got.At(x, y)); c != img.NRGBAAt(x, y) {
						t.Fatalf("%v alpha %v: pixel %d,%d is %v, want %v", size, alpha, x, y, c, img.NRGBAAt(x, y))
					}
				}
			}
		}
	}
}

// TestCache: the same file twice is one decoded template; a different one
// is another; the oldest goes past Size.
func TestCache(t *testing.T) {
	c := &Cache{Size: 1, MaxPixels: 1 << 30}
	a, ra, err := c.Load("testdata/mockup.psd", 50_000_000)
	if err != nil {
		t.Fatal(err)
	}
	b, rb, err := c.Load("testdata/mockup.psd", 50_000_000)
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Fatal("the same file decoded twice")
	}
	ra()
	rb()
	d, rd, err := c.Load("testdata/bench.psd", 50_000_000)
	if err != nil || d == a {
		t.Fatalf("another file: %v", err)
	}
	rd()
	if len(c.entries) != 1 || c.entries[0].tpl != d {
		t.Fatalf("entries %+v", c.entries)
	}
	e, rd2, err := c.Load("testdata/mockup.psd", 50_000_000)
	if err != nil || e == a {
		t.Fatalf("an evicted template is decoded again: %v", err)
	}
	rd2()
}

// TestRefusedAndIgnored: an adjustment kino draws, clipped to a smart
// object, recolours the design; one it does not draw is refused there by
// name; a layer effect kino draws is not listed.
func TestRefusedAndIgnored(t *testing.T) {
	tpl, closer, err := Load("testdata/adjusted.psd", 50_000_000)
	if err != nil {
		t.Fatalf("a hue/saturation clipped to a smart object: %v", err)
	}
	defer closer.Close()
	for _, u := range tpl.Manifest.Unsupported {
		if strings.HasPrefix(u.Feature, "adjustment") || u.Path == "Glow" {
			t.Errorf("listed though drawn: %+v", u)
		}
	}
	so := tpl.Manifest.SmartObjects[0]
	design := image.NewNRGBA(image.Rect(0, 0, 8, 8))
	for i := 0; i < len(design.Pix); i += 4 {
		copy(design.Pix[i:], []byte{200, 40, 40, 255})
	}
	designs := map[string]image.Image{so.Path: design}
	tinted, _, err := tpl.Render(Options{Designs: designs})
	if err != nil {
		t.Fatal(err)
	}
	plain, _, err := tpl.Render(Options{Designs: designs, Hide: []string{"Tint"}})
	if err != nil {
		t.Fatal(err)
	}
	c := image.Pt(int((so.Quad[0][0]+so.Quad[2][0])/2), int((so.Quad[0][1]+so.Quad[2][1])/2))
	a, b := tinted.NRGBAAt(c.X, c.Y), plain.NRGBAAt(c.X, c.Y)
	if b.R < 150 || a.G <= b.G+20 {
		t.Errorf("the design's red at %v: %v under Tint (hue +30), %v without", c, a, b)
	}

	f, err := os.Open("testdata/adjusted.psd")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	file, err := psd.Decode(f, st.Size(), psd.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	file.Walk(func(l *psd.Layer) error {
		if l.Name == "Tint" {
			l.Adjustment, l.Unsupported = nil, []string{"adjustment: color balance"}
		}
		return nil
	})
	var got []string
	for _, u := range manifest(file).Unsupported {
		got = append(got, u.Path+": "+u.Feature+" ("+u.Action+")")
	}
	if all := strings.Join(got, "; "); !strings.Contains(all, "Tint: adjustment: color balance (refused)") {
		t.Errorf("an adjustment not drawn, clipped to a smart object: %s", all)
	}
}
