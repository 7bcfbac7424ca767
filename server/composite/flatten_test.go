package composite

import (
	"image"
	"image/color"
	"testing"

	"github.com/stretchr/testify/assert"
)

var (
	white = color.NRGBA{255, 255, 255, 255}
	mid   = color.NRGBA{128, 128, 128, 255}
	red   = color.NRGBA{255, 0, 0, 255}
	blue  = color.NRGBA{0, 0, 255, 255}
)

// at places a solid picture of c over r on the canvas.
func at(r image.Rectangle, c color.NRGBA) *image.NRGBA {
	img := solid(r.Dx(), r.Dy(), c)
	img.Rect = r
	return img
}

func layer(img *image.NRGBA, m Mode) *Layer {
	return &Layer{Image: img, Mode: m, Opacity: 1, FillOpacity: 1}
}

func TestClippingDrawsOnlyOverTheBase(t *testing.T) {
	t.Parallel()
	bg := layer(at(image.Rect(0, 0, 10, 1), white), Normal)
	// The base covers x 2..5, half transparent on x 4..5.
	base := at(image.Rect(2, 0, 6, 1), mid)
	base.Pix[4*2+3], base.Pix[4*3+3] = 128, 128
	shade := layer(at(image.Rect(0, 0, 10, 1), color.NRGBA{100, 100, 100, 255}), Multiply)
	shade.Clipped = true
	top := layer(at(image.Rect(8, 0, 9, 1), blue), Normal) // not clipped: ends the unit
	out := Flatten(10, 1, []*Layer{bg, layer(base, Normal), shade, top})

	assert.Equal(t, white, out.NRGBAAt(0, 0), "outside the base the clipped layer does nothing")
	assert.Equal(t, white, out.NRGBAAt(7, 0))
	// Over the opaque base: the shading multiplies the base, not the
	// white below it: 128·100/255 = 50.
	assert.InDelta(t, 50, int(out.NRGBAAt(2, 0).R), 1)
	// Over the half-transparent base the multiply sees a half-present
	// backdrop (W3C): colour 0.5·100 + 0.5·50 = 75, alpha still the
	// base's 0.5; that unit over white: 0.5·75 + 0.5·255.
	assert.InDelta(t, 165, int(out.NRGBAAt(4, 0).R), 1)
	assert.Equal(t, blue, out.NRGBAAt(8, 0))

	// The base's opacity fades the whole unit; a hidden base hides its
	// clipped layers.
	b2 := layer(base, Normal)
	b2.Opacity = 0.5
	out = Flatten(10, 1, []*Layer{bg, b2, shade})
	assert.InDelta(t, (50+255)/2, int(out.NRGBAAt(2, 0).R), 1)
	b2.Hidden = true
	out = Flatten(10, 1, []*Layer{bg, b2, shade})
	assert.Equal(t, white, out.NRGBAAt(2, 0))

	// A hidden clipped layer is skipped, the base still drawn.
	hiddenShade := *shade
	hiddenShade.Hidden = true
	out = Flatten(10, 1, []*Layer{bg, layer(base, Normal), &hiddenShade})
	assert.Equal(t, mid, out.NRGBAAt(2, 0))

	// The unit blends with the base's mode: a multiply base with a
	// normal red clipped to it multiplies red onto the white below.
	mb := layer(at(image.Rect(2, 0, 6, 1), mid), Multiply)
	redClip := layer(at(image.Rect(0, 0, 10, 1), red), Normal)
	redClip.Clipped = true
	out = Flatten(10, 1, []*Layer{layer(at(image.Rect(0, 0, 10, 1), mid), Normal), mb, redClip})
	assert.Equal(t, color.NRGBA{128, 0, 0, 255}, out.NRGBAAt(3, 0))
}

func TestGroups(t *testing.T) {
	t.Parallel()
	bg := layer(at(image.Rect(0, 0, 4, 1), mid), Normal)
	inner := layer(at(image.Rect(0, 0, 2, 1), mid), Multiply)

	// A normal group is isolated: its multiply child only sees its
	// siblings, here nothing, so it draws as itself over the backdrop.
	g := &Layer{Mode: Normal, Opacity: 1, FillOpacity: 1, Children: []*Layer{inner}}
	out := Flatten(4, 1, []*Layer{bg, g})
	assert.Equal(t, mid, out.NRGBAAt(0, 0))

	// Pass through: the child multiplies the backdrop: 128·128/255 = 64.
	g.Mode = PassThrough
	out = Flatten(4, 1, []*Layer{bg, g})
	assert.InDelta(t, 64, int(out.NRGBAAt(0, 0).R), 1)
	assert.Equal(t, mid, out.NRGBAAt(3, 0), "outside the child nothing changes")

	// Pass through at half opacity: the backdrop mixed halfway with what
	// the children made of it: (128 + 64) / 2.
	g.Opacity = 0.5
	out = Flatten(4, 1, []*Layer{bg, g})
	assert.InDelta(t, 96, int(out.NRGBAAt(0, 0).R), 1)

	// A group with its own mode: the children composite first (normal
	// over nothing), then the group multiplies.
	g = &Layer{Mode: Multiply, Opacity: 1, FillOpacity: 1, Children: []*Layer{layer(at(image.Rect(0, 0, 2, 1), mid), Normal)}}
	out = Flatten(4, 1, []*Layer{bg, g})
	assert.InDelta(t, 64, int(out.NRGBAAt(1, 0).R), 1)

	// Hidden children and hidden groups draw nothing.
	g.Children[0].Hidden = true
	assert.Equal(t, mid, Flatten(4, 1, []*Layer{bg, g}).NRGBAAt(1, 0))
	g.Children[0].Hidden = false
	g.Hidden = true
	assert.Equal(t, mid, Flatten(4, 1, []*Layer{bg, g}).NRGBAAt(1, 0))

	// A group's mask cuts the whole group.
	g.Hidden = false
	g.Mode = Normal
	g.Children[0] = layer(at(image.Rect(0, 0, 4, 1), red), Normal)
	g.Mask = image.NewGray(image.Rect(0, 0, 1, 1))
	g.Mask.Pix[0] = 255
	out = Flatten(4, 1, []*Layer{bg, g})
	assert.Equal(t, red, out.NRGBAAt(0, 0))
	assert.Equal(t, mid, out.NRGBAAt(2, 0), "outside the mask's rectangle, its default 0 hides")
}

func TestMasksOpacityAndFills(t *testing.T) {
	t.Parallel()
	bg := layer(at(image.Rect(0, 0, 4, 1), white), Normal)
	fill := &Layer{Fill: &color.NRGBA{0, 0, 0, 255}, Mode: Normal, Opacity: 1, FillOpacity: 1}
	// The mask: 0 at x=0, 128 at x=1, and its default 255 beyond.
	fill.Mask = image.NewGray(image.Rect(0, 0, 2, 1))
	fill.Mask.Pix[1] = 128
	fill.MaskDefault = 255
	out := Flatten(4, 1, []*Layer{bg, fill})
	assert.Equal(t, white, out.NRGBAAt(0, 0))
	assert.InDelta(t, 127, int(out.NRGBAAt(1, 0).R), 1)
	assert.Equal(t, color.NRGBA{0, 0, 0, 255}, out.NRGBAAt(3, 0), "a fill covers the canvas")

	// Opacity and fill opacity both scale the alpha: 0.5 × 0.5.
	fill.Mask = nil
	fill.Opacity, fill.FillOpacity = 0.5, 0.5
	out = Flatten(4, 1, []*Layer{bg, fill})
	assert.InDelta(t, 191, int(out.NRGBAAt(0, 0).R), 1)
	fill.Opacity, fill.FillOpacity = 1, 0
	assert.Equal(t, white, Flatten(4, 1, []*Layer{bg, fill}).NRGBAAt(0, 0))

	// A layer positioned by Origin.
	px := layer(solid(1, 1, red), Normal)
	px.Origin = image.Pt(2, 0)
	out = Flatten(4, 1, []*Layer{bg, px})
	assert.Equal(t, red, out.NRGBAAt(2, 0))
	assert.Equal(t, white, out.NRGBAAt(1, 0))

	// Layers reaching past the canvas are cut, not refused.
	big := layer(at(image.Rect(-5, -5, 50, 50), blue), Normal)
	assert.Equal(t, blue, Flatten(4, 1, []*Layer{bg, big}).NRGBAAt(3, 0))
}

func TestGroupsInClipping(t *testing.T) {
	t.Parallel()
	bg := layer(at(image.Rect(0, 0, 4, 1), white), Normal)
	// A group as the base: its children, together, are the shape the
	// clipped layer shows in.
	base := &Layer{Mode: Normal, Opacity: 1, FillOpacity: 1, Children: []*Layer{
		layer(at(image.Rect(0, 0, 1, 1), mid), Normal),
		layer(at(image.Rect(2, 0, 3, 1), mid), Normal),
	}}
	clip := layer(at(image.Rect(0, 0, 4, 1), red), Normal)
	clip.Clipped = true
	out := Flatten(4, 1, []*Layer{bg, base, clip})
	assert.Equal(t, red, out.NRGBAAt(0, 0))
	assert.Equal(t, white, out.NRGBAAt(1, 0))
	assert.Equal(t, red, out.NRGBAAt(2, 0))

	// A group clipped to a pixel layer: drawn in isolation, then clipped.
	px := layer(at(image.Rect(1, 0, 3, 1), mid), Normal)
	g := &Layer{Mode: PassThrough, Opacity: 1, FillOpacity: 1, Clipped: true, Children: []*Layer{
		layer(at(image.Rect(0, 0, 4, 1), blue), Normal),
		layer(at(image.Rect(0, 0, 4, 1), color.NRGBA{255, 255, 255, 255}), Multiply),
	}}
	out = Flatten(4, 1, []*Layer{bg, px, g})
	assert.Equal(t, white, out.NRGBAAt(0, 0))
	assert.Equal(t, blue, out.NRGBAAt(1, 0), "blue multiplied by white, over the base only")
	assert.Equal(t, white, out.NRGBAAt(3, 0))

	// A clipped layer with nothing below it is drawn as an ordinary one.
	lone := layer(at(image.Rect(0, 0, 1, 1), red), Normal)
	lone.Clipped = true
	assert.Equal(t, red, Flatten(1, 1, []*Layer{lone}).NRGBAAt(0, 0))
}

// TestAdjustmentKeepsAlpha stacks adjustments over a half-transparent
// layer: Photoshop recolours it and never makes it more opaque (blending
// each adjustment as a layer made it opaque after a few).
func TestAdjustmentKeepsAlpha(t *testing.T) {
	t.Parallel()
	half := color.NRGBA{200, 100, 50, 90}
	var swap [3][256]uint8
	for ch := range swap {
		for v := range swap[ch] {
			swap[ch][v] = uint8(255 - v)
		}
	}
	ls := []*Layer{layer(at(image.Rect(0, 0, 2, 2), half), Normal)}
	for range 4 {
		ls = append(ls, &Layer{Adjust: &Adjustment{Tables: &swap}, Mode: Normal, Opacity: 1, FillOpacity: 1})
	}
	ls = append(ls, &Layer{Adjust: &Adjustment{Color: func(r, g, b uint8) (uint8, uint8, uint8) { return b, g, r }}, Mode: Normal, Opacity: 1, FillOpacity: 1})
	img := Flatten(2, 2, ls)
	assert.Equal(t, color.NRGBA{50, 100, 200, 90}, img.NRGBAAt(1, 1), "4 inverts then a swap of red and blue")
	assert.Equal(t, color.NRGBA{}, Flatten(2, 2, ls[1:]).NRGBAAt(0, 0), "adjustments over nothing")
}

// TestClippedToPassThroughGroup: layers clipped to a pass-through group
// leave its children's modes reaching the backdrop (psd-tools' drawing,
// and Photoshop's merged image in pt-clipping-mask4.psd), and a clipped
// layer that paints nothing leaves the group as it is.
func TestClippedToPassThroughGroup(t *testing.T) {
	t.Parallel()
	back := color.NRGBA{200, 40, 100, 255}
	x := color.NRGBA{60, 180, 30, 255}
	bg := layer(at(image.Rect(0, 0, 4, 1), back), Normal)
	group := func() *Layer {
		return &Layer{Mode: PassThrough, Opacity: 1, FillOpacity: 1,
			Children: []*Layer{layer(at(image.Rect(0, 0, 4, 1), x), Exclusion)}}
	}
	// b + s − 2bs on 0..1, per channel.
	excl := color.NRGBA{A: 255}
	for i, pair := range [][2]uint8{{back.R, x.R}, {back.G, x.G}, {back.B, x.B}} {
		b, s := float64(pair[0])/255, float64(pair[1])/255
		v := uint8((b+s-2*b*s)*255 + 0.5)
		*[]*uint8{&excl.R, &excl.G, &excl.B}[i] = v
	}
	clip := layer(at(image.Rect(2, 0, 4, 1), blue), Normal)
	clip.Clipped = true
	out := Flatten(4, 1, []*Layer{bg, group(), clip})
	for x := 0; x < 2; x++ {
		got := out.NRGBAAt(x, 0)
		assert.InDelta(t, int(excl.R), int(got.R), 1, "x %d: %v, want the exclusion %v", x, got, excl)
		assert.InDelta(t, int(excl.G), int(got.G), 1, "x %d: %v", x, got)
		assert.InDelta(t, int(excl.B), int(got.B), 1, "x %d: %v", x, got)
	}
	assert.Equal(t, blue, out.NRGBAAt(3, 0), "the clipped layer over the group")

	empty := &Layer{Opacity: 1, FillOpacity: 1, Clipped: true}
	want := Flatten(4, 1, []*Layer{bg, group()})
	assert.Equal(t, want.Pix, Flatten(4, 1, []*Layer{bg, group(), empty}).Pix, "an empty clipped layer changes nothing")
}
