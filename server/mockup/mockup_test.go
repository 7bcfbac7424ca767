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

// TestRefusedAndIgnored: an adjustment clipped to a smart object is
// refused by name; a layer effect elsewhere is listed as ignored.
func TestRefusedAndIgnored(t *testing.T) {
	_, _, err := Load("testdata/adjusted.psd", 50_000_000)
	if err == nil || !strings.Contains(err.Error(), `layer "Tint": adjustment`) {
		t.Fatalf("want a refusal naming Tint, got %v", err)
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
	m := manifest(file)
	var got []string
	for _, u := range m.Unsupported {
		got = append(got, u.Path+": "+u.Feature+" ("+u.Action+")")
	}
	all := strings.Join(got, "; ")
	for _, want := range []string{"Tint: adjustment", "(refused)"} {
		if !strings.Contains(all, want) {
			t.Errorf("manifest's unsupported lacks %q: %s", want, all)
		}
	}
	// Glow's effect is drawn now: not listed.
	if strings.Contains(all, "Glow:") {
		t.Errorf("manifest lists Glow's drawn effect: %s", all)
	}
}
