package mockup

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"math"
	"slices"
	"strings"

	xdraw "golang.org/x/image/draw"
	"golang.org/x/image/math/f64"

	"github.com/kinohq/kino/server/composite"
	"github.com/kinohq/kino/server/psd"
)

// Split is a template taken apart around one smart object, for a renderer
// that draws a new design into it on every frame of a video: what lies
// under the smart object and what lies over it drawn once, and what a
// frame of the design needs to land where Render puts a still design
// (where its corners go, which pixels of the canvas it covers, and the
// layers clipped to it that shade it).
type Split struct {
	Width, Height int
	// Under is the template without the smart object and what lies above
	// it; Over is what lies above it, cut to what it draws from even
	// pixels (its Bounds() are where it goes on the canvas), nil when
	// nothing does.
	Under, Over *image.NRGBA
	// Box is the part of the canvas the design can cover; it starts on
	// even pixels.
	Box image.Rectangle
	// Corners are where the design's frame lands on the canvas: its
	// top-left, top-right, bottom-right and bottom-left corners.
	Corners [4]composite.Point
	// Mask is how much of each pixel of Box the design covers (its quad,
	// the smart object's mask and opacity), Box-sized.
	Mask *image.Gray
	// Crop is the aspect ratio (width / height) a frame is cut to first,
	// for Cover; 0 when the whole frame is used.
	Crop float64
	// Shades are the layers clipped to the smart object, bottom first, in
	// the order they apply to the design, each Box-sized.
	Shades []Shade
	// warp is the mapping of a warped smart object's design (its unit
	// square) to the canvas, nil when it has no warp: its frames are then
	// drawn through Remap's maps, not by Corners.
	warp composite.Mapping
	// ctx is the drawing's that made the split (SplitContext), for Remap.
	ctx context.Context
}

// Shade is a layer clipped to the smart object. Its pixels are flattened,
// with their alpha, onto the colour that Mode leaves unchanged (white for
// multiply, black for screen, mid grey for overlay), so that blending the
// opaque result onto the design equals blending the layer itself: each
// of these modes is linear in the layer's colour. A Normal shade keeps
// its alpha instead, and is drawn over the design.
type Shade struct {
	Mode  composite.Mode
	Image *image.NRGBA
}

// RenderModes are the blend modes a layer clipped to the smart object may
// have in a render, with the colour each leaves unchanged.
//
//nolint:gochecknoglobals // read-only table: the render modes by blend mode
var RenderModes = map[composite.Mode]uint8{
	composite.Normal: 0, composite.Multiply: 255, composite.Screen: 0, composite.LinearDodge: 0,
	composite.Overlay: 128, composite.SoftLight: 128, composite.HardLight: 128,
}

// CheckSplit refuses a smart object that a renderer cannot draw frame by
// frame (see Split): its path, as Check, and then what Split needs: a
// smart object drawn normally, inside groups that pass through or blend
// normally, shaded by layers of RenderModes, under layers that blend
// normally. A warp is drawn (Remap). hide and show are the request's. The error is a
// *PathError of the smartObject param.
func CheckSplit(m *Manifest, smartObject string, hide, show []string) error {
	if err := Check(m, []string{smartObject}, hide, show, nil); err != nil {
		return err
	}
	so, _ := m.SmartObject(smartObject)
	refuse := func(format string, args ...any) error {
		return &PathError{"smartObject", so.Path, "cannot be drawn in a render: " + fmt.Sprintf(format, args...)}
	}
	if composite.Mode(so.Blend) != composite.Normal {
		return refuse("it blends by %s; a render draws a smart object that blends normally", so.Blend)
	}
	if len(so.Filters) > 0 {
		return refuse("it has smart filters (%s); a render draws a design's frames unfiltered", joinComma(so.Filters))
	}
	visible := visibility(m, hide, show)
	k := slices.IndexFunc(m.Layers, func(l LayerInfo) bool { return l.Path == so.Path })
	for _, l := range m.Layers[:k] {
		if strings.HasPrefix(so.Path, l.Path+"/") && l.Blend != string(composite.PassThrough) && l.Blend != string(composite.Normal) {
			return refuse("its group %q blends by %s; a render draws a smart object in groups that pass through or blend normally", l.Path, l.Blend)
		}
	}
	for _, p := range so.Clipped {
		l, _ := m.Layer(p)
		if _, ok := RenderModes[composite.Mode(l.Blend)]; !ok && visible[l.Path] {
			return refuse("layer %q clipped to it blends by %s; a render shades a design by normal, multiply, screen, linear dodge, overlay, soft light or hard light", l.Path, l.Blend)
		}
	}
	for _, l := range m.Layers[k+1:] {
		if !visible[l.Path] || l.Clipped || slices.Contains(so.Clipped, l.Path) {
			continue
		}
		if l.Blend != string(composite.Normal) && l.Blend != string(composite.PassThrough) {
			return refuse("layer %q above it blends by %s; a render draws the layers above a smart object blending normally (hide that layer with hide)", l.Path, l.Blend)
		}
	}
	return nil
}

// visibility is whether each layer path is drawn, with hide and show
// applied and hidden groups hiding their children.
func visibility(m *Manifest, hide, show []string) map[string]bool {
	canon := func(ps []string) map[string]bool {
		out := map[string]bool{}
		for _, p := range ps {
			if l, ok := m.Layer(p); ok {
				out[l.Path] = true
			}
		}
		return out
	}
	h, s := canon(hide), canon(show)
	out := map[string]bool{}
	for _, l := range m.Layers {
		v := (l.Visible || s[l.Path]) && !(h[l.Path] && !s[l.Path])
		if i := strings.LastIndex(l.Path, "/"); i > 0 {
			if parent, ok := out[l.Path[:i]]; ok && !parent {
				v = false
			}
		}
		out[l.Path] = v
	}
	return out
}

// Split takes the template apart around smartObject (CheckSplit first)
// for designs of designW × designH pixels placed with opts.Fit; opts.Hide,
// opts.Show and opts.Colors apply as in Render, opts.Designs is unused.
func (t *Template) Split(smartObject string, designW, designH int, opts Options) (*Split, error) {
	return t.SplitContext(context.Background(), smartObject, designW, designH, opts)
}

// SplitContext is Split under ctx, as RenderContext is Render; Remap
// runs under it too.
func (t *Template) SplitContext(ctx context.Context, smartObject string, designW, designH int, opts Options) (*Split, error) {
	if err := CheckSplit(&t.Manifest, smartObject, opts.Hide, opts.Show); err != nil {
		return nil, err
	}
	info, _ := t.Manifest.Layer(smartObject)
	var flat []*psd.Layer
	var walk func([]*psd.Layer)
	walk = func(ls []*psd.Layer) {
		for _, l := range ls {
			flat = append(flat, l)
			walk(l.Children)
		}
	}
	walk(t.File.Layers)
	k := slices.IndexFunc(flat, func(l *psd.Layer) bool { return l.Path == info.Path })
	if k < 0 || flat[k].Placed == nil {
		return nil, &PathError{"smartObject", info.Path, "is not a placed smart object"}
	}
	so := flat[k]
	ancestor := func(l *psd.Layer) bool { return strings.HasPrefix(so.Path, l.Path+"/") }
	var below, above, others []string
	for j, l := range flat {
		switch {
		case j == k || ancestor(l):
		case j < k:
			below, others = append(below, l.Path), append(others, l.Path)
		default:
			above, others = append(above, l.Path), append(others, l.Path)
		}
	}
	s := &Split{Width: t.File.Width, Height: t.File.Height, ctx: ctx}
	draw := func(hide []string, designs map[string]image.Image) (*image.NRGBA, error) {
		o := opts
		o.Designs = designs
		o.Hide = append(slices.Clone(opts.Hide), hide...)
		o.Show = slices.DeleteFunc(slices.Clone(opts.Show), func(p string) bool {
			l, _ := t.Manifest.Layer(p)
			return slices.Contains(hide, l.Path)
		})
		img, _, err := t.RenderContext(ctx, o)
		return img, err
	}
	var err error
	if s.Under, err = draw(append([]string{so.Path}, above...), nil); err != nil {
		return nil, err
	}
	if s.Over, err = draw(append([]string{so.Path}, below...), nil); err != nil {
		return nil, err
	}
	// Over is cut to what it draws: a bezel or a hand over a screen is a
	// frame of the canvas, and the rest would be blended on every frame.
	if r := opaqueBounds(s.Over); r.Empty() {
		s.Over = nil
	} else {
		r.Min.X, r.Min.Y = r.Min.X&^1, r.Min.Y&^1 // even, as Box
		s.Over = s.Over.SubImage(r).(*image.NRGBA)
	}
	// An opaque white design of the frames' size: its alpha on the canvas
	// is what a frame covers.
	design := image.NewNRGBA(image.Rect(0, 0, max(designW, 1), max(designH, 1)))
	for i := range design.Pix {
		design.Pix[i] = 0xFF
	}
	shape, err := draw(others, map[string]image.Image{so.Path: design})
	if err != nil {
		return nil, err
	}
	s.corners(so.Placed, design, opts.Fit)
	if s.warp != nil {
		// A warp bulges past its corners: the box is what it covers.
		if r := opaqueBounds(shape); !r.Empty() {
			r.Min.X, r.Min.Y = r.Min.X&^1, r.Min.Y&^1
			s.Box = s.Box.Union(r).Intersect(image.Rect(0, 0, s.Width, s.Height))
		}
	}
	s.Mask = alphaOf(shape, s.Box)
	s.Shades, err = t.shades(ctx, so, s.Box, opts)
	return s, err
}

// corners sets Corners, Box and Crop for a design of design's size.
func (s *Split) corners(p *psd.Placed, design image.Image, fit string) {
	_, part := fitted(design, p.Width, p.Height, fit)
	if fit != Contain && fit != FitFill && p.Height > 0 {
		s.Crop = p.Width / p.Height
	}
	m := mapping(p, part)
	if w := p.Warp; w != nil && len(w.Points) == (3*w.Rows+1)*(3*w.Cols+1) && p.Width > 0 && p.Height > 0 {
		s.warp = m // as mapping draws it: a mesh it cannot use is no warp
	}
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for i, u := range [4]composite.Point{{X: 0, Y: 0}, {X: 1, Y: 0}, {X: 1, Y: 1}, {X: 0, Y: 1}} {
		c := m.Map(u)
		s.Corners[i] = c
		x0, y0, x1, y1 = math.Min(x0, c.X), math.Min(y0, c.Y), math.Max(x1, c.X), math.Max(y1, c.Y)
	}
	// On even pixels, where overlay places a YUV 4:2:0 picture.
	box := image.Rect(int(math.Floor(x0))&^1, int(math.Floor(y0))&^1, int(math.Ceil(x1)), int(math.Ceil(y1)))
	s.Box = box.Intersect(image.Rect(0, 0, s.Width, s.Height))
	if s.Box.Empty() {
		s.Box = image.Rect(0, 0, 2, 2) // off the canvas: nothing of the design shows
	}
}

// alphaOf is the alpha of img over r.
func alphaOf(img *image.NRGBA, r image.Rectangle) *image.Gray {
	g := image.NewGray(image.Rect(0, 0, r.Dx(), r.Dy()))
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			g.Pix[(y-r.Min.Y)*g.Stride+x-r.Min.X] = img.Pix[img.PixOffset(x, y)+3]
		}
	}
	return g
}

// opaqueBounds is the smallest rectangle holding every pixel of img that
// is not wholly transparent.
func opaqueBounds(img *image.NRGBA) image.Rectangle {
	b := img.Bounds()
	x0, y0, x1, y1 := b.Max.X, b.Max.Y, b.Min.X, b.Min.Y
	for y := b.Min.Y; y < b.Max.Y; y++ {
		row := img.Pix[img.PixOffset(b.Min.X, y):img.PixOffset(b.Max.X, y)]
		for x := 0; x < b.Dx(); x++ {
			if row[4*x+3] != 0 {
				x0, x1 = min(x0, b.Min.X+x), max(x1, b.Min.X+x+1)
				y0, y1 = min(y0, y), max(y1, y+1)
			}
		}
	}
	return image.Rect(x0, y0, x1, y1)
}

// shades draws the visible layers clipped to so, each over box.
func (t *Template) shades(ctx context.Context, so *psd.Layer, box image.Rectangle, opts Options) ([]Shade, error) {
	siblings := t.File.Layers
	if i := strings.LastIndex(so.Path, "/"); i > 0 {
		var find func([]*psd.Layer) []*psd.Layer
		find = func(ls []*psd.Layer) []*psd.Layer {
			for _, l := range ls {
				if slices.Contains(l.Children, so) {
					return l.Children
				}
				if c := find(l.Children); c != nil {
					return c
				}
			}
			return nil
		}
		siblings = find(t.File.Layers)
	}
	j := slices.Index(siblings, so)
	visible := visibility(&t.Manifest, opts.Hide, opts.Show)
	r := &renderer{ctx: ctx, t: t, opts: opts, hide: map[string]bool{}, show: map[string]bool{}}
	var out []Shade
	for _, l := range siblings[j+1:] {
		if !l.Clipped {
			break
		}
		if !visible[l.Path] {
			continue
		}
		r.show = map[string]bool{l.Path: true} // visible, as decided above
		cls, err := r.layers([]*psd.Layer{l})
		if err != nil {
			return nil, err
		}
		cl := cls[0]
		mode := composite.Mode(l.Blend)
		cl.Clipped, cl.Hidden, cl.Mode = false, false, composite.Normal
		layers := []*composite.Layer{cl}
		if mode != composite.Normal {
			n := RenderModes[mode]
			layers = append([]*composite.Layer{{Fill: &color.NRGBA{n, n, n, 255}, Opacity: 1, FillOpacity: 1}}, layers...)
		}
		img, err := composite.FlattenContext(ctx, t.File.Width, t.File.Height, layers)
		if err != nil {
			return nil, err
		}
		out = append(out, Shade{Mode: mode, Image: img.SubImage(box).(*image.NRGBA)})
	}
	return out, nil
}

// Scaled is s drawn at w × h pixels instead of the template's size, for a
// renderer that shows the template smaller than it is: each picture is
// resampled once, with one mapping of the canvas for all of them, so they
// stay registered to the pixel; Box is grown to whole pixels from even
// ones. s itself when w × h is its size.
func (s *Split) Scaled(w, h int) *Split {
	if w == s.Width && h == s.Height || w <= 0 || h <= 0 {
		return s
	}
	kx, ky := float64(w)/float64(s.Width), float64(h)/float64(s.Height)
	rect := func(r image.Rectangle) image.Rectangle {
		out := image.Rect(int(math.Floor(float64(r.Min.X)*kx))&^1, int(math.Floor(float64(r.Min.Y)*ky))&^1,
			int(math.Ceil(float64(r.Max.X)*kx)), int(math.Ceil(float64(r.Max.Y)*ky)))
		if out = out.Intersect(image.Rect(0, 0, w, h)); out.Empty() {
			return image.Rect(0, 0, 2, 2)
		}
		return out
	}
	// draw resamples src, whose first pixel lies at canvas point at, into
	// dst, a picture of the rectangle r of the scaled canvas.
	draw := func(dst xdraw.Image, r image.Rectangle, src image.Image, at image.Point) {
		b, d := src.Bounds(), dst.Bounds()
		m := f64.Aff3{kx, 0, kx*float64(at.X-b.Min.X) - float64(r.Min.X-d.Min.X),
			0, ky, ky*float64(at.Y-b.Min.Y) - float64(r.Min.Y-d.Min.Y)}
		xdraw.BiLinear.Transform(dst, m, src, b, xdraw.Src, nil)
	}
	out := &Split{Width: w, Height: h, Crop: s.Crop, Box: rect(s.Box), ctx: s.ctx}
	if s.warp != nil {
		out.warp = composite.Then(s.warp, composite.Perspective([4]composite.Point{{X: 0, Y: 0}, {X: kx, Y: 0}, {X: kx, Y: ky}, {X: 0, Y: ky}}))
	}
	out.Under = image.NewNRGBA(image.Rect(0, 0, w, h))
	draw(out.Under, out.Under.Rect, s.Under, image.Point{})
	if s.Over != nil {
		r := rect(s.Over.Rect)
		out.Over = image.NewNRGBA(r)
		draw(out.Over, r, s.Over, s.Over.Rect.Min)
	}
	for i, c := range s.Corners {
		out.Corners[i] = composite.Point{X: c.X * kx, Y: c.Y * ky}
	}
	bw, bh := out.Box.Dx(), out.Box.Dy()
	out.Mask = image.NewGray(image.Rect(0, 0, bw, bh))
	draw(out.Mask, out.Box, s.Mask, s.Box.Min)
	for _, sh := range s.Shades {
		img := image.NewNRGBA(image.Rect(0, 0, bw, bh))
		draw(img, out.Box, sh.Image, sh.Image.Rect.Min)
		out.Shades = append(out.Shades, Shade{Mode: sh.Mode, Image: img})
	}
	return out
}

// Warped reports whether the smart object's content is warped: its
// frames are drawn through Remap's maps, not into Corners.
func (s *Split) Warped() bool { return s.warp != nil }

// NoPixel marks a pixel of Remap's maps that the design does not cover:
// it lies outside any frame, where remap leaves its fill.
const NoPixel = 0xFFFF

// Remap is how a warped smart object's frames are drawn, for ffmpeg's
// remap filter: a frame (cut to Crop first) is scaled to src pixels, and
// each pixel of Box shows the pixel (xmap, ymap) of it, the one Render's
// warp samples there (NoPixel where the design does not reach; Mask is 0
// there). Made from the mapping Render draws, once per Split. Nil maps
// when the smart object has no warp.
func (s *Split) Remap() (src image.Point, xmap, ymap *image.Gray16) {
	if s.warp == nil {
		return image.Point{}, nil, nil
	}
	b := s.Box
	// The box's size, as a quad's frame is scaled to. remap takes the
	// nearest pixel; a frame scaled to two or three times the box (to
	// read nearer where Render's bilinear sampling reads) came within 1
	// dB of this, at 4 to 9 times the pixels to scale on every frame.
	src = image.Pt(min(b.Dx(), NoPixel-1), min(b.Dy(), NoPixel-1))
	xmap, ymap = image.NewGray16(image.Rect(0, 0, b.Dx(), b.Dy())), image.NewGray16(image.Rect(0, 0, b.Dx(), b.Dy()))
	for i := range xmap.Pix {
		xmap.Pix[i], ymap.Pix[i] = 0xFF, 0xFF
	}
	sw, sh := float64(src.X), float64(src.Y)
	put := func(img *image.Gray16, x, y int, v, n float64) {
		p := min(int(v*n), int(n)-1) // the pixel whose square holds v
		o := img.PixOffset(x-b.Min.X, y-b.Min.Y)
		img.Pix[o], img.Pix[o+1] = uint8(p>>8), uint8(p)
	}
	ctx := s.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	composite.UnmapContext(ctx, s.warp, b, func(x, y int, u, v float64) {
		put(xmap, x, y, u, sw)
		put(ymap, x, y, v, sh)
	})
	return src, xmap, ymap
}
