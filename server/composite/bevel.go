package composite

import "math"

// Satin is the coverage of a satin: the shape blurred over size, mapped
// by contour (nil for linear), and two copies of it moved dx, dy apart
// each way; where they differ is covered (where they agree, inverted),
// seen through the shape.
func Satin(s Shape, dx, dy, size float64, invert bool, contour func(float64) float64) Shape {
	a := s.Blur(size)
	if contour != nil {
		for i, v := range a.A {
			a.A[i] = float32(contour(float64(v)))
		}
	}
	p, q := a.Shift(dx, dy, 0), a.Shift(-dx, -dy, 0)
	o := Shape{Rect: s.Rect, A: make([]float32, len(s.A))}
	for i := range o.A {
		v := p.A[i] - q.A[i]
		if v < 0 {
			v = -v
		}
		if invert {
			v = 1 - v
		}
		o.A[i] = v * s.A[i]
	}
	return o
}

// BevelStyle is how a bevel and emboss is drawn.
type BevelStyle struct {
	// Style is "inner", "outer", "emboss" or "pillow"; Technique
	// "smooth", "chisel hard" or "chisel soft".
	Style, Technique string
	Size, Depth      float64
	Down             bool
	// Angle and Altitude are the light's, in degrees: the light comes
	// from Angle, counter-clockwise from the positive x axis.
	Angle, Altitude float64
	Soften          float64
	// Edge maps the height across the bevel, Gloss the shading; nil for
	// linear.
	Edge, Gloss func(float64) float64
}

// Bevel is the coverage of a bevel's highlight and of its shadow: the
// shape's edge raised into a slope Size wide (a height from its signed
// distance to the edge), lit, and what is brighter than flat ground
// highlighted, what is darker shaded.
func Bevel(s Shape, b BevelStyle) (highlight, shadow Shape) {
	w, h := s.Rect.Dx(), s.Rect.Dy()
	height := bevelHeight(s, b)
	// The height, 0 to 1, rises Size × Depth / 2 pixels: fitted to
	// Photoshop's pictures (pt-layer-effects.psd's bevel and emboss of 41
	// pixels drawn at 35 and 34 dB against 25 and 23 at Size × Depth).
	k := b.Size * b.Depth / 2
	az, el := b.Angle*math.Pi/180, b.Altitude*math.Pi/180
	lx, ly, lz := math.Cos(el)*math.Cos(az), -math.Cos(el)*math.Sin(az), math.Sin(el)
	highlight = Shape{Rect: s.Rect, A: make([]float32, len(s.A))}
	shadow = Shape{Rect: s.Rect, A: make([]float32, len(s.A))}
	at := func(x, y int) float64 {
		x, y = min(max(x, 0), w-1), min(max(y, 0), h-1)
		return float64(height[y*w+x])
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			gx := (at(x+1, y) - at(x-1, y)) / 2 * k
			gy := (at(x, y+1) - at(x, y-1)) / 2 * k
			if gx == 0 && gy == 0 {
				continue
			}
			shade := (-gx*lx - gy*ly + lz) / math.Sqrt(gx*gx+gy*gy+1)
			if b.Gloss != nil {
				shade = b.Gloss(math.Max(shade, 0))
			}
			i := y*w + x
			if shade > lz {
				highlight.A[i] = float32(math.Min((shade-lz)/(1-lz+1e-9), 1))
			} else {
				shadow.A[i] = float32(math.Min((lz-shade)/(lz+1e-9), 1))
			}
		}
	}
	if b.Soften > 0 {
		highlight, shadow = highlight.Blur(b.Soften), shadow.Blur(b.Soften)
	}
	return highlight, shadow
}

// bevelHeight is the bevel's height, 0 to 1, at each pixel of s. For
// the chisel techniques a ramp over Size from the edge (inside it for an
// inner bevel, outside for an outer one, across it for an emboss, down
// into it from both sides for a pillow emboss), a little blurred for
// chisel soft; for smooth, smoothHeight.
func bevelHeight(s Shape, b BevelStyle) []float32 {
	if b.Technique == "smooth" {
		return smoothHeight(s, b)
	}
	w, h := s.Rect.Dx(), s.Rect.Dy()
	out := SquaredDistance(s.A, w, h)
	in := SquaredDistance(s.Invert().A, w, h)
	size := math.Max(b.Size, 1)
	height := make([]float32, len(s.A))
	for i, a := range s.A {
		// Signed distance to the edge, positive inside: half a pixel
		// past the centres of the pixels either side, the coverage
		// placing it within the pixel at the edge.
		var d float64
		switch {
		case a >= 0.5 && in[i] <= 1, a < 0.5 && out[i] <= 1:
			d = float64(a) - 0.5
		case a >= 0.5:
			d = math.Sqrt(in[i]) - 0.5
		default:
			d = 0.5 - math.Sqrt(out[i])
		}
		var v float64
		switch b.Style {
		case "outer":
			v = (d + size) / size
		case "emboss":
			v = (d + size/2) / size
		case "pillow":
			v = math.Abs(d) / (size / 2)
		default:
			v = d / size
		}
		v = math.Min(math.Max(v, 0), 1)
		if b.Edge != nil {
			v = b.Edge(v)
		}
		if b.Down {
			v = 1 - v
		}
		height[i] = float32(v)
	}
	if b.Technique == "chisel soft" {
		height = Shape{Rect: s.Rect, A: height}.Blur(2).A
	}
	return height
}

// smoothHeight is a smooth bevel's height: the shape's alpha blurred
// over half its size, a slope across the edge that follows the shape
// (where letters stand closer than the bevel is wide, a ramp from the
// distance to the edge fills the gaps into a plateau Photoshop does not
// draw). An inner bevel is the same slope seen inside the shape only.
func smoothHeight(s Shape, b BevelStyle) []float32 {
	size := math.Max(b.Size, 1)
	r := size / 2
	h := s.Blur(r)
	switch b.Style {
	case "outer":
		// Its slope lies outside the shape.
		h = s.Dilate(size / 2).Blur(r)
	case "pillow":
		// The edge sinks: the slope falls to it from both sides.
		for i, v := range h.A {
			h.A[i] = float32(math.Abs(2*float64(v) - 1))
		}
	}
	for i, v := range h.A {
		if b.Edge != nil {
			v = float32(b.Edge(float64(v)))
		}
		if b.Down {
			v = 1 - v
		}
		h.A[i] = v
	}
	return h.A
}
