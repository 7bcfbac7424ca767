// Package paint draws the pictures kino generates instead of asking ffmpeg
// to compute them on every frame: rectangles, with rounded corners or not,
// and ellipses, filled with a colour or a linear or radial gradient and
// outlined by a stroke, antialiased. A picture is drawn once, as a PNG
// file that ffmpeg reads and repeats, so a shape costs what an image
// layer costs.
package paint

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"math"
)

// Shape is a rectangle or an ellipse, Width × Height pixels.
type Shape struct {
	Ellipse       bool
	Width, Height int
	// Radius rounds the corners of a rectangle; it is at most half the
	// shorter side.
	Radius int
	// Fill is the colour inside, unless Gradient is set.
	Fill     color.NRGBA
	Gradient *Gradient
	// StrokeWidth pixels along the inside of the outline are Stroke, so
	// the shape keeps its size.
	StrokeWidth int
	Stroke      color.NRGBA
}

// Gradient blends colours across a shape.
type Gradient struct {
	// Radial gradients run from the centre (offset 0) to the ellipse
	// inscribed in the shape (offset 1); linear ones along Angle.
	Radial bool
	// Angle is the direction of a linear gradient in degrees, as in CSS:
	// 0 runs upwards, 90 to the right, 180 downwards. Offset 0 and 1 are
	// the corners the line meets first and last.
	Angle float64
	// Stops are at least two, by offset from 0 to 1, in order. Before the
	// first and after the last, their colours hold.
	Stops []Stop
}

// Stop is a colour of a gradient at an offset from 0 to 1.
type Stop struct {
	Offset float64
	Color  color.NRGBA
}

// Draw paints s with its top-left corner at x, y of a transparent picture
// w × h pixels: the part of the frame the picture covers, which may show
// only part of the shape.
func Draw(s Shape, x, y, w, h int) *image.NRGBA {
	img, _ := DrawContext(context.Background(), s, x, y, w, h)
	return img
}

// checkRows is how many rows DrawContext paints between two looks at its
// context: a 4K row of a gradient takes some 50 µs.
const checkRows = 16

// DrawContext is Draw that stops once ctx is done, returning ctx's error
// and no picture: a hostile composition asks for hundreds of frame-sized
// pictures, and the client that asked may have left.
func DrawContext(ctx context.Context, s Shape, x, y, w, h int) (*image.NRGBA, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	hw, hh := float64(s.Width)/2, float64(s.Height)/2
	r := math.Min(float64(s.Radius), math.Min(hw, hh))
	width := float64(s.StrokeWidth)
	stroke := premultiply(s.Stroke)
	fills := palette{premultiply(s.Fill)}
	var dir [2]float64
	if g := s.Gradient; g != nil {
		fills = g.palette()
		if !g.Radial {
			a := g.Angle * math.Pi / 180
			dir = [2]float64{math.Sin(a), -math.Cos(a)}
			// The gradient line is as long as the shape's extent along
			// it, so that offsets 0 and 1 fall on the far corners.
			length := math.Abs(float64(s.Width)*dir[0]) + math.Abs(float64(s.Height)*dir[1])
			dir[0], dir[1] = dir[0]/length, dir[1]/length
		}
	}
	straight := fills.straight()
	for py := 0; py < h; py++ {
		if py%checkRows == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		row := img.Pix[py*img.Stride:]
		// The centre of the pixel, from the centre of the shape.
		cy := float64(py-y) + 0.5 - hh
		for px := 0; px < w; px++ {
			cx := float64(px-x) + 0.5 - hw
			var d float64
			if s.Ellipse {
				d = ellipseDistance(cx, cy, hw, hh)
			} else {
				d = roundedRectDistance(cx, cy, hw, hh, r)
			}
			// Coverage of a pixel by an edge at distance d from its
			// centre: a one-pixel ramp, the usual antialiasing.
			outer := clamp(0.5 - d)
			inner := outer
			if width > 0 {
				inner = clamp(0.5 - (d + width))
			}
			i := 0
			if s.Gradient != nil {
				var t float64
				if s.Gradient.Radial {
					t = math.Sqrt(cx*cx/(hw*hw) + cy*cy/(hh*hh))
				} else {
					t = cx*dir[0] + cy*dir[1] + 0.5
				}
				i = int(clamp(t)*(paletteSize-1) + 0.5)
			}
			var c color.NRGBA
			switch {
			case inner == 1:
				c = straight[i]
			case outer == 0 && width > 0:
				// Transparent pixels keep the colour beside them: a YUV
				// 4:2:0 frame averages the colour of four pixels whatever
				// their alpha, and black there would darken the edge.
				c = unpremultiply(stroke)
				c.A = 0
			case outer == 0:
				c = straight[i]
				c.A = 0
			default:
				f := fills[i]
				var m [4]float64
				for j := range m {
					m[j] = f[j]*inner + stroke[j]*(outer-inner)
				}
				c = unpremultiply(m)
			}
			row[4*px], row[4*px+1], row[4*px+2], row[4*px+3] = c.R, c.G, c.B, c.A
		}
	}
	return img, nil
}

// paletteSize is how many steps a gradient is drawn in: finer than 8-bit
// colour can show.
const paletteSize = 1024

// palette is a fill's colours, premultiplied: one for a colour, the
// gradient at paletteSize offsets from 0 to 1 for a gradient.
type palette [][4]float64

// straight is the palette unpremultiplied, for fully covered pixels.
func (p palette) straight() []color.NRGBA {
	out := make([]color.NRGBA, len(p))
	for i, c := range p {
		out[i] = unpremultiply(c)
	}
	return out
}

func (g *Gradient) palette() palette {
	p := make(palette, paletteSize)
	for i := range p {
		p[i] = g.at(float64(i) / (paletteSize - 1))
	}
	return p
}

// at is the gradient's colour at offset t, premultiplied: colours blend
// with their alpha, as CSS does, so a fade to transparent does not darken.
func (g *Gradient) at(t float64) [4]float64 {
	stops := g.Stops
	if t <= stops[0].Offset {
		return premultiply(stops[0].Color)
	}
	for i := 1; i < len(stops); i++ {
		if t < stops[i].Offset {
			a, b := stops[i-1], stops[i]
			k := (t - a.Offset) / (b.Offset - a.Offset)
			pa, pb := premultiply(a.Color), premultiply(b.Color)
			var c [4]float64
			for j := range c {
				c[j] = pa[j] + (pb[j]-pa[j])*k
			}
			return c
		}
	}
	return premultiply(stops[len(stops)-1].Color)
}

// roundedRectDistance is the signed distance from p to the outline of a
// rectangle of half sides hw, hh centred on the origin, its corners
// rounded by r: negative inside.
func roundedRectDistance(px, py, hw, hh, r float64) float64 {
	qx, qy := math.Abs(px)-hw+r, math.Abs(py)-hh+r
	switch {
	case qx > 0 && qy > 0:
		return math.Sqrt(qx*qx+qy*qy) - r
	case qx > qy:
		return qx - r
	}
	return qy - r
}

// ellipseDistance is close to the signed distance from p to the outline of
// the ellipse of half axes a, b centred on the origin: exact on the
// outline and good to a fraction of a pixel near it, which is all
// antialiasing and a stroke need.
func ellipseDistance(px, py, a, b float64) float64 {
	k0 := math.Sqrt(px*px/(a*a) + py*py/(b*b))
	k1 := math.Sqrt(px*px/(a*a*a*a) + py*py/(b*b*b*b))
	if k1 == 0 {
		return -math.Min(a, b)
	}
	return k0 * (k0 - 1) / k1
}

// clamp is v within 0 and 1 (math.Min and Max, careful with NaN and
// signed zeros, are slow in the loop of every pixel).
func clamp(v float64) float64 {
	switch {
	case v < 0:
		return 0
	case v > 1:
		return 1
	}
	return v
}

// premultiply is c with its colour multiplied by its alpha, from 0 to 1.
func premultiply(c color.NRGBA) [4]float64 {
	a := float64(c.A) / 255
	return [4]float64{float64(c.R) / 255 * a, float64(c.G) / 255 * a, float64(c.B) / 255 * a, a}
}

// unpremultiply is c as a straight colour.
func unpremultiply(c [4]float64) color.NRGBA {
	ch := func(v float64) uint8 { return uint8(math.Round(255 * clamp(v))) }
	if c[3] <= 0 {
		return color.NRGBA{}
	}
	return color.NRGBA{R: ch(c[0] / c[3]), G: ch(c[1] / c[3]), B: ch(c[2] / c[3]), A: ch(c[3])}
}

// PNG encodes a picture for ffmpeg, favouring speed over size: the file
// lives as long as one render.
func PNG(img image.Image) []byte {
	var b bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&b, img); err != nil {
		panic(err) //nolint:forbidigo // programmer error: encoding to memory fails only for an invalid picture, which Draw never makes
	}
	return b.Bytes()
}
