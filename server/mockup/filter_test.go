package mockup

import (
	"context"
	"image"
	"image/color"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kinohq/kino/server/psd"
)

// TestSmartFilterBlur puts the content embedded in a smart object with a
// Gaussian blur smart filter back into it as the design, and compares
// kino's picture with the merged image Photoshop saved: blurred, it must
// match far better than drawn sharp.
func TestSmartFilterBlur(t *testing.T) {
	t.Parallel()
	name := filepath.Join("..", "psd", "testdata", "photoshop", "ag-smart-filter-blur.psd")
	tpl, closer, err := Load(name, 50_000_000)
	if err != nil {
		t.Fatal(err)
	}
	defer closer.Close()
	l := tpl.File.Find("Ellipse 1")
	if l == nil || l.Placed == nil || len(l.Placed.Filters) != 1 {
		t.Fatalf("smart object Ellipse 1 with one filter drawn expected, got %+v", l)
	}
	design := content(t, tpl.File.Linked[l.Placed.ID])
	merged, ok := mergedImage(t, name)
	if !ok {
		t.Fatal("no merged image")
	}
	full := image.Rect(0, 0, tpl.File.Width, tpl.File.Height)
	draw := func() float64 {
		img, _, err := tpl.Render(Options{Designs: map[string]image.Image{"Ellipse 1": design}, Fit: FitFill})
		if err != nil {
			t.Fatal(err)
		}
		return psnr(merged, img, full)
	}
	blurred := draw()
	filters := l.Placed.Filters
	l.Placed.Filters = nil
	sharp := draw()
	l.Placed.Filters = filters
	// A filter mask black everywhere keeps the design sharp.
	l.Placed.FilterMask = &psd.FilterMask{Image: image.NewGray(full)}
	if masked := draw(); masked != sharp {
		t.Errorf("through a black filter mask %.2f dB, sharp %.2f dB", masked, sharp)
	}
	l.Placed.FilterMask = nil
	t.Logf("blurred %.1f dB, sharp %.1f dB", blurred, sharp)
	if blurred < 47 || blurred < sharp+10 {
		t.Errorf("blurred design at %.1f dB (sharp %.1f): at least 47, and 10 more than sharp, expected", blurred, sharp)
	}
}

// TestSmartFilterOpacity draws a blur at half opacity: each pixel is
// halfway between the sharp picture and the blurred one.
func TestSmartFilterOpacity(t *testing.T) {
	t.Parallel()
	sharp := image.NewNRGBA(image.Rect(0, 0, 60, 60))
	for y := 20; y < 40; y++ {
		for x := 20; x < 40; x++ {
			sharp.SetNRGBA(x, y, color.NRGBA{0, 0, 255, 255})
		}
	}
	full := image.NewNRGBA(sharp.Rect)
	half := image.NewNRGBA(sharp.Rect)
	copy(full.Pix, sharp.Pix)
	copy(half.Pix, sharp.Pix)
	smartFilters(context.Background(), full, []psd.SmartFilter{{ID: "GsnB", Radius: 2, Opacity: 1}}, nil)
	smartFilters(context.Background(), half, []psd.SmartFilter{{ID: "GsnB", Radius: 2, Opacity: 0.5}}, nil)
	for _, x := range []int{17, 19, 21, 30} {
		s, f, h := sharp.NRGBAAt(x, 30).A, full.NRGBAAt(x, 30).A, half.NRGBAAt(x, 30).A
		if want := (int(s) + int(f)) / 2; int(h) < want-1 || int(h) > want+1 || h == s && s != f {
			t.Errorf("x %d: alpha %d at half opacity, sharp %d, blurred %d", x, h, s, f)
		}
	}
}

// TestSmartFiltersInManifest reads filtered.psd (ag-psd: a Gaussian blur
// at half opacity and a motion blur on one smart object): the blur is
// listed as drawn, the motion blur named as ignored, and a render's
// mockup layer refuses the smart object.
func TestSmartFiltersInManifest(t *testing.T) {
	t.Parallel()
	tpl, closer, err := Load("testdata/filtered.psd", 50_000_000)
	if err != nil {
		t.Fatal(err)
	}
	defer closer.Close()
	so, ok := tpl.Manifest.SmartObject("Design")
	if !ok || !slices.Equal(so.Filters, []string{"gaussian blur 4 px"}) {
		t.Errorf("smart object %+v: filters [gaussian blur 4 px] expected", so)
	}
	want := Feature{Path: "Design", Feature: "smart filter: Motion Blur", Action: Ignored}
	if !slices.Contains(tpl.Manifest.Unsupported, want) {
		t.Errorf("unsupported %+v, %+v expected", tpl.Manifest.Unsupported, want)
	}
	if err := CheckSplit(&tpl.Manifest, "Design", nil, nil); err == nil || !strings.Contains(err.Error(), "smart filters") {
		t.Errorf("CheckSplit: %v, a refusal naming its smart filters expected", err)
	}
}

// TestSmartFilterMask draws a blur through a filter mask black on the
// left half of the canvas and white on the right: the left keeps the
// sharp picture, the right is the blurred one.
func TestSmartFilterMask(t *testing.T) {
	t.Parallel()
	sharp := image.NewNRGBA(image.Rect(0, 0, 60, 60))
	for y := 20; y < 40; y++ {
		for x := 10; x < 50; x++ {
			sharp.SetNRGBA(x, y, color.NRGBA{0, 0, 255, 255})
		}
	}
	full := image.NewNRGBA(sharp.Rect)
	masked := image.NewNRGBA(sharp.Rect)
	copy(full.Pix, sharp.Pix)
	copy(masked.Pix, sharp.Pix)
	mask := &psd.FilterMask{Image: image.NewGray(image.Rect(0, 0, 30, 60)), Outside: 255}
	blur := []psd.SmartFilter{{ID: "GsnB", Radius: 2, Opacity: 1}}
	smartFilters(context.Background(), full, blur, nil)
	smartFilters(context.Background(), masked, blur, mask)
	for _, p := range []image.Point{{10, 19}, {10, 20}, {20, 19}, {29, 41}, {30, 19}, {49, 20}, {50, 30}, {45, 41}} {
		want := full.NRGBAAt(p.X, p.Y)
		if p.X < 30 {
			want = sharp.NRGBAAt(p.X, p.Y)
		}
		if got := masked.NRGBAAt(p.X, p.Y); got != want {
			t.Errorf("%v: %v, want %v (sharp %v, blurred %v)", p, got, want, sharp.NRGBAAt(p.X, p.Y), full.NRGBAAt(p.X, p.Y))
		}
	}
	if sharp.NRGBAAt(10, 19) == full.NRGBAAt(10, 19) || sharp.NRGBAAt(49, 20) == full.NRGBAAt(49, 20) {
		t.Error("the blur changes nothing where the test looks")
	}
}
