// Package mockup turns a decoded PSD template and designs into a product
// picture: each smart object's contents replaced by a design, fitted to
// its content box, warped by its mesh and mapped into its perspective
// quad, then drawn under the template's other layers with their blend
// modes, masks and clipping. It joins the PSD reader (server/psd) and the
// compositor (server/composite), which know nothing of each other.
package mockup

import (
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"math"
	"slices"
	"sort"
	"sync"

	"github.com/kinohq/kino/server/composite"
	"github.com/kinohq/kino/server/psd"
)

// The ways a design fills a smart object's content box.
const (
	// Cover scales the design to cover the box and crops what overflows.
	Cover = "cover"
	// Contain scales it to fit inside, leaving the rest transparent.
	Contain = "contain"
	// FitFill stretches it to the box.
	FitFill = "fill"
)

// Options say what one render changes in the template.
type Options struct {
	// Designs are the pictures placed into smart objects, by layer path.
	Designs map[string]image.Image
	// Fit is Cover (the default), Contain or FitFill.
	Fit string
	// Hide and Show are layer paths to hide, or to show though hidden.
	Hide, Show []string
	// Colors are new colours of solid-colour fill layers, by path.
	Colors map[string]color.NRGBA
}

// PathError is a layer path of a request that the template cannot honour.
type PathError struct {
	// Param names the request's field: smartObject, hide, show, colors.
	Param   string
	Path    string
	Problem string
}

func (e *PathError) Error() string {
	if e.Path == "" {
		return e.Param + ": " + e.Problem
	}
	return fmt.Sprintf("%s: %q %s", e.Param, e.Path, e.Problem)
}

// Template is a decoded template, ready to be rendered many times (a
// batch), from several goroutines: the pixels of its layers are decoded
// once, when first needed.
type Template struct {
	File     *psd.File
	Manifest Manifest
	// Cost is what drawing it costs, estimated from its structure.
	Cost Cost

	mu     sync.Mutex
	pixels map[*psd.Layer]*cached
}

type cached struct {
	once sync.Once
	img  *image.NRGBA
	mask *image.Gray
	err  error
}

// ErrRefused wraps the reason a template cannot be rendered.
var ErrRefused = errors.New("the template cannot be rendered")

// Open reads a decoded file's manifest and refuses it, naming the reason,
// when kino cannot draw it credibly, or not within its budgets
// (MaxDrawBytes, MaxDrawWork: decided from the file's structure before
// anything is drawn).
func Open(f *psd.File) (*Template, error) {
	t := &Template{File: f, Manifest: manifest(f), Cost: Estimate(f), pixels: map[*psd.Layer]*cached{}}
	if r := t.Manifest.Refusal(); r != "" {
		return nil, fmt.Errorf("%w: %s", ErrRefused, r)
	}
	if r := t.Cost.Refusal(); r != "" {
		return nil, fmt.Errorf("%w: %s", ErrRefused, r)
	}
	return t, nil
}

// Check refuses options that name layers the template does not have, or
// that are not of the kind they must be; the error is a *PathError.
func Check(m *Manifest, smartObjects []string, hide, show []string, colors []string) error {
	for _, p := range smartObjects {
		l, ok := m.Layer(p)
		switch {
		case !ok:
			return &PathError{"smartObject", p, "is not a layer of the template" + smartObjectList(m)}
		case l.Kind != "smartObject":
			return &PathError{"smartObject", p, fmt.Sprintf("is a %s layer, not a smart object%s", l.Kind, smartObjectList(m))}
		}
	}
	for _, list := range []struct {
		param string
		paths []string
	}{{"hide", hide}, {"show", show}} {
		for _, p := range list.paths {
			if _, ok := m.Layer(p); !ok {
				return &PathError{list.param, p, "is not a layer of the template"}
			}
		}
	}
	for _, p := range colors {
		l, ok := m.Layer(p)
		switch {
		case !ok:
			return &PathError{"colors", p, "is not a layer of the template"}
		case !slices.ContainsFunc(m.Fills, func(f Fill) bool { return f.Path == l.Path }):
			return &PathError{"colors", p, fmt.Sprintf("is a %s layer, not a solid-colour fill", l.Kind)}
		}
	}
	return nil
}

// DefaultSmartObject is the template's only smart object, or an error
// saying why there is no default.
func DefaultSmartObject(m *Manifest) (string, error) {
	switch len(m.SmartObjects) {
	case 0:
		return "", &PathError{"smartObject", "", "cannot be chosen: the template has no smart object to place a design into"}
	case 1:
		return m.SmartObjects[0].Path, nil
	}
	return "", &PathError{"smartObject", "", "is required: the template has several smart objects" + smartObjectList(m)}
}

func smartObjectList(m *Manifest) string {
	if len(m.SmartObjects) == 0 {
		return " (it has no smart object)"
	}
	var names []string
	for _, s := range m.SmartObjects {
		names = append(names, fmt.Sprintf("%q", s.Path))
	}
	return " (its smart objects: " + joinComma(names) + ")"
}

func joinComma(s []string) string {
	out := ""
	for i, v := range s {
		if i > 0 {
			out += ", "
		}
		out += v
	}
	return out
}

// Render draws the template with opts, at canvas size, and returns what it
// did not draw (warnings for the job's outputMeta).
func (t *Template) Render(opts Options) (*image.NRGBA, []string, error) {
	return t.RenderContext(context.Background(), opts)
}

// RenderContext is Render under ctx: it stops between layers (and bands
// of their rows) once ctx is done, returning ctx's error, and the CPU of
// the goroutines it starts goes to ctx's meter. The caller's own
// goroutine is measured by the caller (meter.Thread).
func (t *Template) RenderContext(ctx context.Context, opts Options) (*image.NRGBA, []string, error) {
	var so, colors []string
	for p := range opts.Designs {
		so = append(so, p)
	}
	for p := range opts.Colors {
		colors = append(colors, p)
	}
	sort.Strings(so)
	if err := Check(&t.Manifest, so, opts.Hide, opts.Show, colors); err != nil {
		return nil, nil, err
	}
	if len(t.File.Layers) == 0 {
		// A flat file: its merged image is all there is.
		img, err := t.File.Composite()
		if err == nil {
			err = ctx.Err()
		}
		return img, nil, err
	}
	// Paths as the request gave them (a name alone, say) become the
	// layers' own.
	canon := func(p string) string {
		l, _ := t.Manifest.Layer(p)
		return l.Path
	}
	designs := map[string]image.Image{}
	for p, d := range opts.Designs {
		designs[canon(p)] = d
	}
	cols := map[string]color.NRGBA{}
	for p, c := range opts.Colors {
		cols[canon(p)] = c
	}
	opts.Designs, opts.Colors = designs, cols
	hide, show := map[string]bool{}, map[string]bool{}
	for _, p := range opts.Hide {
		hide[canon(p)] = true
	}
	for _, p := range opts.Show {
		show[canon(p)] = true
	}
	r := &renderer{ctx: ctx, t: t, opts: opts, hide: hide, show: show}
	layers, err := r.layers(t.File.Layers)
	if err != nil {
		return nil, nil, err
	}
	r.textures = nil // the designs' textures are done with: not held while flattening
	img, err := composite.FlattenContext(ctx, t.File.Width, t.File.Height, layers)
	if err != nil {
		return nil, nil, err
	}
	return img, r.warnings, nil
}

type renderer struct {
	ctx        context.Context
	t          *Template
	opts       Options
	hide, show map[string]bool
	warnings   []string
	// textures holds each design made ready to warp, by the part of it a
	// smart object takes: smart objects may share a path (a hostile file
	// can have 2,000 of one name), and each would convert the design anew.
	textures map[textureKey]*composite.Texture
	// patterns holds the file's patterns decoded, by ID (nil for one
	// that could not be).
	patterns map[string]*image.NRGBA
}

type textureKey struct {
	design image.Image
	part   image.Rectangle
}

// place is Place with the design's texture made once per render.
func (r *renderer) place(d image.Image, p *psd.Placed) *image.NRGBA {
	src, part := fitted(d, p.Width, p.Height, r.opts.Fit)
	k := textureKey{d, src.Bounds()}
	tex, ok := r.textures[k]
	if !ok {
		tex = composite.NewTextureContext(r.ctx, src)
		if r.textures == nil {
			r.textures = map[textureKey]*composite.Texture{}
		}
		r.textures[k] = tex
	}
	img := tex.Warp(mapping(p, part), r.t.File.Width, r.t.File.Height)
	smartFilters(r.ctx, img, p.Filters, p.FilterMask)
	// Cut to what it covers: its effects' shapes and its blending then
	// span the quad, not the canvas (a 3000×3000 canvas's drop shadow
	// was drawn over 9.4 million pixels for a quad of 2.9).
	if b := alphaBounds(img); !b.Empty() {
		return img.SubImage(b).(*image.NRGBA)
	}
	return img
}

// layers builds the compositor's layers of one level of the tree.
func (r *renderer) layers(ls []*psd.Layer) ([]*composite.Layer, error) {
	out := make([]*composite.Layer, 0, len(ls))
	fx := map[*composite.Layer]effectLayers{}
	for _, l := range ls {
		if err := r.ctx.Err(); err != nil {
			return nil, err
		}
		hidden := !l.Visible
		if r.hide[l.Path] {
			hidden = true
		}
		if r.show[l.Path] {
			hidden = false
		}
		cl := &composite.Layer{
			Mode: composite.Mode(l.Blend), Opacity: float64(l.Opacity) / 255, FillOpacity: float64(l.FillOpacity) / 255,
			Hidden: hidden, Clipped: l.Clipped, OffChannels: l.OffChannels, TextGamma: textGamma(l),
		}
		if passThroughFill(l) {
			cl.Mode = composite.Normal
		}
		out = append(out, cl)
		if hidden {
			continue // kept, so layers clipped to it are hidden with it
		}
		for _, f := range l.Unsupported {
			r.warnings = append(r.warnings, fmt.Sprintf("layer %q: %s not drawn", l.Path, f))
		}
		// A shape's pixels are already cut by its outline (older
		// Photoshops store the same rendering as its transparency and as
		// its mask): cutting them again would square its edges' coverage.
		if l.Mask != nil && !l.Mask.Disabled && (l.Kind != psd.KindShape || !l.Mask.OfPath()) {
			m, err := r.t.mask(l)
			if err != nil {
				return nil, err
			}
			cl.Mask, cl.MaskDefault = m, l.Mask.DefaultColor
		}
		switch l.Kind {
		case psd.KindGroup:
			children, err := r.layers(l.Children)
			if err != nil {
				return nil, err
			}
			cl.Children = children
			if effectsDrawable(l) {
				if err := r.flattenGroup(cl); err != nil {
					return nil, err
				}
			}
		case psd.KindAdjustment:
			// Those kino does not read are drawn as an empty layer (the
			// manifest refuses them where they would recolour a design).
			if a := l.Adjustment; a != nil {
				cl.Adjust = &composite.Adjustment{Tables: a.Tables, Threshold: a.Threshold, Color: a.Color}
			}
		case psd.KindFill:
			if c, ok := r.opts.Colors[l.Path]; ok {
				cl.Fill = &c
			} else if l.FillColor != nil {
				c := *l.FillColor
				cl.Fill = &c
			} else if p := l.FillPattern; p != nil && r.patternFill(l, *p, cl) {
				// Tiled over the canvas, as a colour covers it.
			} else if g := l.FillGradient; g != nil && l.Rect.Empty() {
				cl.Image = r.gradientFill(l, g)
			} else if err := r.own(l, cl); err != nil {
				return nil, err
			}
		case psd.KindSmartObject:
			if d, ok := r.opts.Designs[l.Path]; ok {
				cl.Image = r.place(d, l.Placed)
				cl.Origin = image.Point{}
			} else if err := r.own(l, cl); err != nil {
				return nil, err
			}
		default: // pixels, text and shapes: their own (cached) pixels
			if pr := l.PathRect(); !pr.Empty() {
				cl.Image = shape(l, pr, image.Rect(0, 0, r.t.File.Width, r.t.File.Height)) // a shape without pixels
			} else if err := r.own(l, cl); err != nil {
				return nil, err
			}
		}
		if l.PathMask {
			cl.Mask, cl.MaskDefault = pathMask(l, cl.Mask, cl.MaskDefault, r.t.File.Width, r.t.File.Height), 0
		}
		if effectsDrawable(l) {
			fx[cl] = r.effects(l, cl)
		}
	}
	if len(fx) == 0 {
		return out, nil
	}
	return withEffects(out, fx), nil
}

// withEffects puts each layer's effects around it: the effects under it
// before it, those on its pixels right after it (before the layers
// clipped to it), those over it after the layers clipped to it.
func withEffects(ls []*composite.Layer, fx map[*composite.Layer]effectLayers) []*composite.Layer {
	var out, after []*composite.Layer
	for i, l := range ls {
		if !l.Clipped {
			out = append(out, after...)
			after = nil
		}
		d := fx[l]
		out = append(out, d.before...)
		if u := opacityUnit(l, d, i+1 < len(ls) && ls[i+1].Clipped); u != nil {
			out = append(out, u)
			continue
		}
		out = append(out, l)
		out = append(out, d.interior...)
		if l.Clipped {
			out = append(out, d.after...)
		} else {
			after = d.after
		}
	}
	return append(out, after...)
}

// flattenGroup turns a group with layer effects into the picture of its
// children drawn in isolation, which its effects are drawn around as a
// layer's (ag-group-drop-shadows.psd: 18.5 dB against Photoshop's picture
// without its shadow, 44.9 dB with). A pass-through group with effects
// is drawn as one layer, so it blends as a normal one: its children's
// modes no longer reach below it (no test file tells what Photoshop does).
func (r *renderer) flattenGroup(cl *composite.Layer) error {
	img, err := composite.FlattenContext(r.ctx, r.t.File.Width, r.t.File.Height, cl.Children)
	if err != nil {
		return err
	}
	cl.Children = nil
	if cl.Mode == composite.PassThrough {
		cl.Mode = composite.Normal
	}
	if b := alphaBounds(img); !b.Empty() {
		cl.Image = img.SubImage(b).(*image.NRGBA)
	}
	return nil
}

// alphaBounds is the smallest rectangle holding every pixel of img that
// is not transparent.
func alphaBounds(img *image.NRGBA) image.Rectangle {
	var b image.Rectangle
	for y := img.Rect.Min.Y; y < img.Rect.Max.Y; y++ {
		row := img.Pix[img.PixOffset(img.Rect.Min.X, y):][:4*img.Rect.Dx()]
		x0, x1 := -1, -1
		for i := 3; i < len(row); i += 4 {
			if row[i] != 0 {
				if x0 < 0 {
					x0 = i / 4
				}
				x1 = i/4 + 1
			}
		}
		if x0 >= 0 {
			b = b.Union(image.Rect(img.Rect.Min.X+x0, y, img.Rect.Min.X+x1, y+1))
		}
	}
	return b
}

// own draws a layer from its own pixels.
func (r *renderer) own(l *psd.Layer, cl *composite.Layer) error {
	if l.Rect.Empty() {
		return nil
	}
	img, err := r.t.image(l)
	if err != nil {
		return err
	}
	cl.Image = img // its bounds are its canvas rectangle
	return nil
}

func (t *Template) entry(l *psd.Layer) *cached {
	t.mu.Lock()
	defer t.mu.Unlock()
	c, ok := t.pixels[l]
	if !ok {
		c = &cached{}
		t.pixels[l] = c
	}
	return c
}

// image is a layer's pixels, decoded once per template.
func (t *Template) image(l *psd.Layer) (*image.NRGBA, error) {
	c := t.entry(l)
	c.once.Do(func() {
		c.img, c.err = l.Image()
		if c.err == nil && l.Mask != nil && !l.Mask.Disabled {
			c.mask, c.err = l.Mask.Image()
		}
	})
	if c.err != nil {
		return nil, fmt.Errorf("layer %q: %w", l.Path, c.err)
	}
	return c.img, nil
}

// mask is a layer's user mask, decoded once per template.
func (t *Template) mask(l *psd.Layer) (*image.Gray, error) {
	c := t.entry(l)
	c.once.Do(func() {
		if !l.Rect.Empty() && l.Kind != psd.KindGroup {
			c.img, c.err = l.Image()
		}
		if c.err == nil {
			c.mask, c.err = l.Mask.Image()
		}
	})
	if c.err != nil {
		return nil, fmt.Errorf("layer %q: %w", l.Path, c.err)
	}
	return c.mask, nil
}

// Place draws a design into a smart object on a transparent canvas of
// width x height: fitted to the content box (fit), warped by the smart
// object's mesh in content space, mapped into its quad, then its smart
// filters drawn over it.
func Place(design image.Image, p *psd.Placed, fit string, width, height int) *image.NRGBA {
	src, part := fitted(design, p.Width, p.Height, fit)
	img := composite.Warp(src, mapping(p, part), width, height)
	smartFilters(context.Background(), img, p.Filters, p.FilterMask)
	return img
}

// mapping takes the fitted design's unit square to the canvas: into part
// of the content box (contain), through the warp, into the quad.
func mapping(p *psd.Placed, part *[4]composite.Point) composite.Mapping {
	q := quadOf(p)
	var quad [4]composite.Point
	for i, c := range q {
		quad[i] = composite.Point{X: c.X, Y: c.Y}
	}
	m := composite.Perspective(quad)
	if w := p.Warp; w != nil && len(w.Points) == (3*w.Rows+1)*(3*w.Cols+1) && p.Width > 0 && p.Height > 0 {
		// The mesh's control points are content pixels. Photoshop's
		// transform then maps the bounding box of those control points
		// (not the content box: a warp bulging out of it is squeezed
		// back into the quad) onto the quad, which takes it as the unit
		// square.
		x0, y0, x1, y1 := hull(w.Points)
		pts := toPoints(w.Points, x0, y0, x1-x0, y1-y0)
		m = composite.Then(composite.Mesh(w.Rows, w.Cols, pts), m)
	}
	if part != nil {
		m = composite.Then(composite.Perspective(*part), m)
	}
	return m
}

// toPoints moves and scales points: (p - (x, y)) / (w, h).
func toPoints(ps []psd.Point, x, y, w, h float64) []composite.Point {
	out := make([]composite.Point, len(ps))
	for i, c := range ps {
		out[i] = composite.Point{X: (c.X - x) / w, Y: (c.Y - y) / h}
	}
	return out
}

// hull is the bounding box of points.
func hull(ps []psd.Point) (x0, y0, x1, y1 float64) {
	x0, y0, x1, y1 = math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, p := range ps {
		x0, y0, x1, y1 = math.Min(x0, p.X), math.Min(y0, p.Y), math.Max(x1, p.X), math.Max(y1, p.Y)
	}
	if x1 <= x0 || y1 <= y0 { // a degenerate mesh: keep the content box
		return 0, 0, 1, 1
	}
	return x0, y0, x1, y1
}

// fitted is the part of the design that fills a w x h content box: a
// centred crop of it for cover, the whole of it for fill. For contain it
// is the whole design and part, the rectangle of the box's unit square
// it is centred in (the rest stays transparent): a picture padded to the
// box's shape would cost what the box's aspect says, 16 GB for a 20x20
// design in a 10,000,000x1 box.
func fitted(d image.Image, w, h float64, fit string) (image.Image, *[4]composite.Point) {
	b := d.Bounds()
	if w <= 0 || h <= 0 || b.Empty() {
		return d, nil
	}
	dw, dh := float64(b.Dx()), float64(b.Dy())
	box, pic := w/h, dw/dh
	switch fit {
	case FitFill:
		return d, nil
	case Contain:
		x0, y0, x1, y1 := 0.0, 0.0, 1.0, 1.0
		if pic > box { // wider: bands above and below
			f := box / pic
			y0, y1 = (1-f)/2, (1+f)/2
		} else {
			f := pic / box
			x0, x1 = (1-f)/2, (1+f)/2
		}
		return d, &[4]composite.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}
	}
	// cover
	type sub interface {
		SubImage(image.Rectangle) image.Image
	}
	s, ok := d.(sub)
	if !ok {
		return d, nil
	}
	if pic > box {
		cw := int(dh*box + 0.5)
		x := b.Min.X + (b.Dx()-cw)/2
		return s.SubImage(image.Rect(x, b.Min.Y, x+cw, b.Max.Y)), nil
	}
	ch := int(dw/box + 0.5)
	y := b.Min.Y + (b.Dy()-ch)/2
	return s.SubImage(image.Rect(b.Min.X, y, b.Max.X, y+ch)), nil
}

// passThroughFill reports a pass-through group whose fill opacity is
// under 100% and which holds an adjustment: Photoshop's merged image
// shows it drawn as a normal group, its adjustments changing only its
// own layers, the whole at its opacity times its fill
// (pt-passthrough-fill-adjustment: 29 dB drawn as pass through without
// the adjustment, exact this way).
func passThroughFill(l *psd.Layer) bool {
	return l.Kind == psd.KindGroup && composite.Mode(l.Blend) == composite.PassThrough && l.FillOpacity < 255 && holdsAdjustment(l.Children)
}

// holdsAdjustment reports whether layers, or their groups, hold an
// adjustment kino draws.
func holdsAdjustment(ls []*psd.Layer) bool {
	for _, l := range ls {
		if (l.Kind == psd.KindAdjustment && l.Adjustment != nil) || (l.Kind == psd.KindGroup && holdsAdjustment(l.Children)) {
			return true
		}
	}
	return false
}

// textGamma says whether a layer's pixels blend as Photoshop blends text
// (composite.Layer.TextGamma). Not a text layer with effects, left as it
// was: of the merged images with one, pt-layer-effects.psd fits a mix at
// 1.45 better by 0.9 dB, pt-stroke-gradient.psd worse by 0.2. Not one
// whose fonts were substituted: the merged image of uv-icons.psd
// (UniversalViewer/design) shows such text's stored pixels mixed plainly.
func textGamma(l *psd.Layer) bool {
	return l.Kind == psd.KindText && !l.Effects.Any() && (l.Text == nil || !l.Text.Substituted)
}

// opacityUnit is a layer at an opacity under 100 % with the effects drawn
// on and over it, put together before the opacity fades them, as
// Photoshop does: where a stroke covers the layer, the layer does not
// show through it (uv-download.psd: a shape at 25 % with an inside stroke
// over a black line, 48 where Photoshop has 0 when faded apart). Nil when
// it is not one: clipped, a base of clipped layers (which its effects
// over it must not widen), in a mode other than normal, or with an
// effect in another mode (an isolated unit would change how it blends).
func opacityUnit(l *composite.Layer, d effectLayers, base bool) *composite.Layer {
	if l.Clipped || base || l.Opacity <= 0 || l.Opacity >= 1 || l.Mode != composite.Normal || len(d.after)+len(d.interior) == 0 {
		return nil
	}
	kids := []*composite.Layer{l}
	for _, e := range append(append([]*composite.Layer(nil), d.interior...), d.after...) {
		if e.Mode != composite.Normal || e.Clipped {
			return nil
		}
		kids = append(kids, e)
	}
	op := l.Opacity
	for _, k := range kids {
		k.Opacity /= op
	}
	l.Opacity = 1
	return &composite.Layer{Children: kids, Mode: composite.Normal, Opacity: op, FillOpacity: 1}
}
