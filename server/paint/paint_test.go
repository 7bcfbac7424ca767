package paint

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	red   = color.NRGBA{R: 255, A: 255}
	blue  = color.NRGBA{B: 255, A: 255}
	white = color.NRGBA{R: 255, G: 255, B: 255, A: 255}
)

func TestRoundedRectangle(t *testing.T) {
	t.Parallel()
	img := Draw(Shape{Width: 40, Height: 20, Radius: 8, Fill: red}, 0, 0, 40, 20)
	assert.Zero(t, img.NRGBAAt(0, 0).A, "the very corner is outside the rounding")
	assert.Zero(t, img.NRGBAAt(39, 19).A)
	assert.Zero(t, img.NRGBAAt(1, 1).A)
	assert.Equal(t, red, img.NRGBAAt(20, 0), "the middle of an edge is inside")
	assert.Equal(t, red, img.NRGBAAt(0, 10))
	assert.Equal(t, red, img.NRGBAAt(8, 8), "inside the corner's circle")
	// Along the diagonal of the corner, the edge is antialiased.
	edge := img.NRGBAAt(2, 2).A
	assert.True(t, edge > 0 && edge < 255, "alpha %d on the rounded edge", edge)

	square := Draw(Shape{Width: 10, Height: 10, Fill: red}, 0, 0, 10, 10)
	assert.Equal(t, red, square.NRGBAAt(0, 0), "no radius: square corners")

	round := Draw(Shape{Width: 20, Height: 10, Radius: 1000, Fill: red}, 0, 0, 20, 10)
	assert.Zero(t, round.NRGBAAt(0, 0).A, "the radius is at most half the shorter side")
	assert.Equal(t, red, round.NRGBAAt(10, 0))
}

func TestEllipse(t *testing.T) {
	t.Parallel()
	img := Draw(Shape{Ellipse: true, Width: 60, Height: 30, Fill: blue}, 0, 0, 60, 30)
	assert.Equal(t, blue, img.NRGBAAt(30, 15), "centre")
	assert.Equal(t, blue, img.NRGBAAt(1, 15), "left end of the long axis")
	assert.Equal(t, blue, img.NRGBAAt(30, 1), "top of the short axis")
	for _, p := range []image.Point{{0, 0}, {59, 29}, {5, 3}, {54, 26}} {
		assert.Zero(t, img.NRGBAAt(p.X, p.Y).A, "outside at %v", p)
	}
	// (x/30)² + (y/15)² = 0.5 is inside, 1.5 outside.
	assert.Equal(t, blue, img.NRGBAAt(30+18, 15+9))
	assert.Zero(t, img.NRGBAAt(30+26, 15+13).A)
}

func TestStroke(t *testing.T) {
	t.Parallel()
	img := Draw(Shape{Width: 30, Height: 30, Fill: white, StrokeWidth: 4, Stroke: red}, 0, 0, 30, 30)
	for _, p := range []image.Point{{0, 0}, {3, 15}, {15, 29}, {29, 29}} {
		assert.Equal(t, red, img.NRGBAAt(p.X, p.Y), "stroke at %v", p)
	}
	for _, p := range []image.Point{{4, 15}, {15, 15}, {25, 25}} {
		assert.Equal(t, white, img.NRGBAAt(p.X, p.Y), "fill at %v", p)
	}
	outline := Draw(Shape{Ellipse: true, Width: 30, Height: 30, StrokeWidth: 2, Stroke: red}, 0, 0, 30, 30)
	assert.Equal(t, red, outline.NRGBAAt(15, 1))
	assert.Zero(t, outline.NRGBAAt(15, 15).A, "no fill: transparent inside")
}

func TestGradients(t *testing.T) {
	t.Parallel()
	stops := []Stop{{0, red}, {1, blue}}
	right := Draw(Shape{Width: 100, Height: 10, Gradient: &Gradient{Angle: 90, Stops: stops}}, 0, 0, 100, 10)
	assert.Equal(t, uint8(254), right.NRGBAAt(0, 5).R, "red at the left")
	assert.Equal(t, uint8(254), right.NRGBAAt(99, 5).B, "blue at the right")
	for x := 1; x < 100; x++ {
		a, b := right.NRGBAAt(x-1, 5), right.NRGBAAt(x, 5)
		assert.Less(t, b.R, a.R, "red falls at x=%d", x)
		assert.Greater(t, b.B, a.B, "blue rises at x=%d", x)
	}
	down := Draw(Shape{Width: 10, Height: 100, Gradient: &Gradient{Angle: 180, Stops: stops}}, 0, 0, 10, 100)
	assert.Greater(t, down.NRGBAAt(5, 10).R, down.NRGBAAt(5, 90).R, "180 degrees runs downwards")
	up := Draw(Shape{Width: 10, Height: 100, Gradient: &Gradient{Angle: 0, Stops: stops}}, 0, 0, 10, 100)
	assert.Less(t, up.NRGBAAt(5, 10).R, up.NRGBAAt(5, 90).R, "0 degrees runs upwards")

	radial := Draw(Shape{Width: 100, Height: 100, Gradient: &Gradient{Radial: true, Stops: stops}}, 0, 0, 100, 100)
	assert.Greater(t, radial.NRGBAAt(50, 50).R, uint8(250), "red at the centre")
	assert.Equal(t, blue, radial.NRGBAAt(0, 0), "past the inscribed circle: the last colour")
	for x := 51; x < 100; x++ {
		assert.LessOrEqual(t, radial.NRGBAAt(x, 50).R, radial.NRGBAAt(x-1, 50).R, "red falls outwards at x=%d", x)
	}

	three := &Gradient{Angle: 90, Stops: []Stop{{0, red}, {0.5, white}, {1, blue}}}
	img := Draw(Shape{Width: 101, Height: 1, Gradient: three}, 0, 0, 101, 1)
	assert.Equal(t, white, img.NRGBAAt(50, 0), "the middle stop")

	// A fade to transparent keeps its colour: premultiplied blending.
	fade := Draw(Shape{Width: 100, Height: 1, Gradient: &Gradient{Angle: 90, Stops: []Stop{{0, red}, {1, color.NRGBA{}}}}}, 0, 0, 100, 1)
	mid := fade.NRGBAAt(50, 0)
	assert.Equal(t, uint8(255), mid.R)
	assert.InDelta(t, 127, int(mid.A), 3)
}

func TestDrawPart(t *testing.T) {
	t.Parallel()
	// A 100×100 circle whose centre is at 10, 10 of a 20×20 picture.
	img := Draw(Shape{Ellipse: true, Width: 100, Height: 100, Fill: red}, -40, -40, 20, 20)
	assert.Equal(t, red, img.NRGBAAt(10, 10))
	assert.Equal(t, red, img.NRGBAAt(0, 0))
	shifted := Draw(Shape{Width: 4, Height: 4, Fill: red}, 3, 2, 10, 10)
	assert.Zero(t, shifted.NRGBAAt(2, 2).A)
	assert.Equal(t, red, shifted.NRGBAAt(3, 2))
	assert.Equal(t, red, shifted.NRGBAAt(6, 5))
	assert.Zero(t, shifted.NRGBAAt(7, 5).A)
	assert.Equal(t, color.NRGBA{R: 255}, shifted.NRGBAAt(9, 9), "transparent, in the colour beside it")
}

func TestPNG(t *testing.T) {
	t.Parallel()
	img := Draw(Shape{Width: 8, Height: 8, Radius: 3, Fill: red}, 0, 0, 8, 8)
	back, err := png.Decode(bytes.NewReader(PNG(img)))
	require.NoError(t, err)
	assert.Equal(t, image.Rect(0, 0, 8, 8), back.Bounds())
	assert.Equal(t, img.At(0, 0), color.NRGBAModel.Convert(back.At(0, 0)))
	assert.Equal(t, img.At(4, 4), color.NRGBAModel.Convert(back.At(4, 4)))
}

// BenchmarkDrawFullFrame draws and encodes the largest picture a render
// may ask for: a 4K frame of gradient with rounded corners.
func BenchmarkDrawFullFrame(b *testing.B) {
	s := Shape{Width: 3840, Height: 2160, Radius: 40, Gradient: &Gradient{Angle: 135, Stops: []Stop{{0, red}, {1, blue}}}}
	for b.Loop() {
		PNG(Draw(s, 0, 0, 3840, 2160))
	}
}
