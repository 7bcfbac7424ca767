package mockup

import (
	"fmt"
	"image"
	"math"

	"github.com/kinohq/kino/server/composite"
	"github.com/kinohq/kino/server/psd"
)

// The budgets of one template, checked from its structure before anything
// is drawn (Estimate), so that the same file is accepted or refused the
// same way whatever the machine's load (docs/limits.md).
const (
	// MaxDrawBytes bounds what drawing a template allocates: its layers'
	// decoded pixels and masks, the canvas, a picture for each isolated
	// group and clipping unit, and a design's picture for each smart
	// object.
	MaxDrawBytes = 512 << 20
	// MaxDrawWork bounds the pixels one drawing decodes and blends,
	// weighted by what each costs (see Cost.Work): a unit is about 5 ns
	// of one core, so the budget is about 5 s of CPU (docs/benchmarks.md).
	MaxDrawWork = 1_000_000_000
)

// The weights of Cost.Work: a pixel blended with a separable mode (a
// table) costs 1, decoding one costs 1; one blended with a non-separable
// mode (hue, saturation, colour, luminosity, darker or lighter colour:
// floating point on the whole pixel, measured at about 150 ns against
// 5) or warped into a smart object (sampled from the design's mip
// levels) costs more.
const (
	workNonSeparable = 30
	workWarp         = 4
)

// decodeWork is the weight of a pixel decoded from f: a 32-bit one is
// tone-mapped, three samples looked up in the sRGB curve (about 4 times
// an 8-bit pixel's work), and a CMYK one converted through the file's ICC
// profile, 8 nodes of its table interpolated (about 20 times); psd's
// BenchmarkConvert.
func decodeWork(f *psd.File) int64 {
	w := int64(1)
	if f.Depth == 32 {
		w += 3
	}
	switch f.Mode {
	case psd.CMYK:
		w += 19
	case psd.Lab:
		w += 3 // like a 32-bit pixel: three samples through the sRGB curve
	}
	return w
}

// Cost is what drawing a template costs, estimated from its structure:
// an upper bound that holds whatever a render's options hide or show.
type Cost struct {
	// Held is the bytes of the layers' decoded pixels and masks: a
	// template decodes each once and keeps it for every drawing of a
	// batch.
	Held int64
	// PerDrawing is the bytes one drawing allocates besides Held: the
	// canvas and the picture encoded from it, a picture for each
	// isolated group and clipping unit, and for each smart object the
	// picture of the design drawn into it.
	PerDrawing int64
	// Split is the bytes taking the template apart for a video design
	// allocates besides Held (mockup layers, Template.Split): three
	// drawings (what lies under the smart object, over it, and its
	// shape), a picture of each layer clipped to a smart object, and the
	// mask.
	Split int64
	// Work is the pixels one drawing decodes and blends, weighted.
	Work int64

	canvas, buffers, placed int64
	// filters is what a smart filter holds while it runs: a drawing's
	// alone, since a smart object with filters is never taken apart.
	filters               int64
	groups, depth, layers int
	smartObjects, shades  int
	units                 int
	width, height         int
}

// Bytes is what one drawing, or taking the template apart, allocates in
// all, whichever is more.
func (c Cost) Bytes() int64 { return c.Held + max(c.PerDrawing, c.Split) }

// Estimate reads a decoded file's cost from its structure: canvas,
// layers, groups and their nesting, modes, masks and smart objects.
// Nothing is decoded.
func Estimate(f *psd.File) Cost {
	canvas := image.Rect(0, 0, f.Width, f.Height)
	e := &estimator{f: f, canvas: canvas, patterns: map[string]bool{}, decode: decodeWork(f)}
	e.c.width, e.c.height = f.Width, f.Height
	area := area(canvas)
	e.c.Work += area
	if len(f.Layers) == 0 {
		// A flat file: its merged image is decoded.
		e.c.Held += 4 * area
		e.c.Work += area * e.decode
		e.most = area
	}
	e.list(f.Layers, 1)
	// While a layer is decoded, one channel's compressed bytes are held
	// too: up to 2 bytes a pixel at 16 bits (the psd package's Memory).
	e.c.Held += 2 * e.most
	e.c.canvas = 4 * area
	drawing := e.c.canvas + e.c.buffers + e.c.placed
	e.c.PerDrawing = drawing + e.c.filters + 4*area
	e.c.Split = 3*drawing + 4*area*int64(e.c.shades) + area
	return e.c
}

type estimator struct {
	f      *psd.File
	canvas image.Rectangle
	// patterns are those counted already: a drawing decodes each once.
	patterns map[string]bool
	// most is the most pixels of one layer or mask decoded.
	most int64
	// decode is the work of decoding one pixel (decodeWork).
	decode int64
	// base is the extent of the layer the next clipped layer is clipped
	// to: what an adjustment clipped to it changes.
	base image.Rectangle
	c    Cost
}

func area(r image.Rectangle) int64 {
	if r.Empty() {
		return 0
	}
	return int64(r.Dx()) * int64(r.Dy())
}

// list adds up one level of the tree, depth deep, and returns the part of
// the canvas it can change.
func (e *estimator) list(ls []*psd.Layer, depth int) image.Rectangle {
	var out, base image.Rectangle
	for i, l := range ls {
		e.base = base
		ext := e.layer(l, depth)
		if !l.Clipped {
			out = out.Union(ext)
			base = ext
		}
		// A base that is no group takes a copy of itself for the layers
		// clipped to it; those clipped to a smart object are its shades.
		if !l.Clipped && l.Kind != psd.KindGroup && i+1 < len(ls) && ls[i+1].Clipped {
			e.c.buffers += 4 * area(ext)
			e.c.units++
			for j := i + 1; l.Kind == psd.KindSmartObject && j < len(ls) && ls[j].Clipped; j++ {
				e.c.shades++
			}
		}
	}
	return out
}

// layer adds up one layer (a group with its children) and returns its
// extent on the canvas.
func (e *estimator) layer(l *psd.Layer, depth int) image.Rectangle {
	e.c.layers++
	if m := l.Mask; m != nil && !m.Disabled {
		e.c.Held += area(m.Rect)
		e.c.Work += area(m.Rect)
		e.most = max(e.most, area(m.Rect))
	}
	var ext image.Rectangle
	switch l.Kind {
	case psd.KindGroup:
		e.c.depth = max(e.c.depth, depth)
		ext = e.list(l.Children, depth+1).Intersect(e.canvas)
		mode := composite.Mode(l.Blend)
		if mode != composite.PassThrough || l.Opacity < 255 || l.FillOpacity < 255 || (l.Mask != nil && !l.Mask.Disabled) {
			// Drawn in isolation, onto a picture of its own.
			e.c.groups++
			e.c.buffers += 4 * area(ext)
		} else {
			return ext // its children are drawn straight onto the backdrop
		}
	case psd.KindAdjustment:
		if l.Adjustment == nil {
			return image.Rectangle{} // not drawn
		}
		ext = e.canvas
		if l.Clipped {
			// It changes its base's pixels alone (composite's clipping
			// unit), on a picture of their extent.
			ext = e.base
		}
	case psd.KindFill:
		// A colour covers the canvas, a pattern is tiled over it, a
		// gradient stored without pixels is drawn from its settings;
		// otherwise the fill is drawn from its own pixels.
		ext = e.canvas
		if p := l.FillPattern; p != nil {
			// Tiled over the canvas: a picture of it, each pixel
			// sampled from the pattern.
			e.pattern(p.Pattern)
			e.c.buffers += 4 * area(e.canvas)
			e.c.Work += workWarp * area(e.canvas)
		}
		if l.FillGradient != nil && l.Rect.Empty() {
			// Drawn from its settings: a picture of the canvas.
			e.c.buffers += 4 * area(e.canvas)
			e.c.Work += workWarp * area(e.canvas)
			e.gradient(l.FillGradient.Gradient)
		} else if l.FillColor == nil {
			// Its own pixels: drawn from when there is no pattern, or
			// when the pattern cannot be decoded.
			e.own(l)
			if l.FillPattern == nil {
				ext = l.Rect.Intersect(e.canvas)
			}
		}
	case psd.KindSmartObject:
		e.own(l)
		ext = l.Rect.Intersect(e.canvas)
		if p := l.Placed; p != nil {
			q := quadBox(p).Intersect(e.canvas)
			e.c.smartObjects++
			e.c.placed += 4 * area(q)
			e.c.Work += workWarp * area(q)
			grown := q
			for _, f := range p.Filters {
				// Blurred over the quad grown by the blur's reach.
				sigma := blurSigma(f.Radius)
				grown = blurBox(grown, sigma)
				b := area(blurBox(q, sigma).Intersect(e.canvas))
				e.c.Work += composite.BlurWork * b
				e.c.filters = max(e.c.filters, composite.BlurBytes*b)
			}
			if m := p.FilterMask; m != nil && len(p.Filters) > 0 {
				// The mask, decoded with the file, and the unfiltered
				// design kept over the reach of every filter, mixed
				// back once.
				b := area(grown.Intersect(e.canvas))
				e.c.Held += area(m.Image.Rect)
				e.c.filters += 4 * b
				e.c.Work += b
			}
			ext = ext.Union(q)
		}
	default:
		e.own(l)
		ext = l.Rect.Intersect(e.canvas)
		if pr := l.PathRect(); !pr.Empty() {
			// A shape drawn from its path: its picture, and its
			// coverage as float32 with the rasteriser's plane and
			// accumulator while it is drawn.
			e.c.Held += 4 * area(pr)
			e.c.buffers += 9 * area(pr)
			e.c.Work += 4 * area(pr)
			if l.FillGradient != nil {
				// Its gradient: a picture of its own, cut to the path.
				e.c.buffers += 4 * area(pr)
				e.c.Work += workWarp * area(pr)
				e.gradient(l.FillGradient.Gradient)
			}
			// Each segment is up to some 40 lines across its height.
			for _, p := range l.Vector.Subpaths {
				e.c.Work += 40 * int64(len(p.Knots)) * int64(pr.Dy())
			}
			if s := l.Stroke; s != nil && s.Enabled && s.Width > 0 {
				// Its stroke: the stroke's coverage, rasterised, the
				// shape's again to cut it, and the paint it is drawn in.
				e.c.buffers += 22 * area(pr)
				e.c.Work += 8 * area(pr)
			}
			ext = pr
		}
	}
	if m := l.Mask; m != nil && !m.Disabled && m.DefaultColor == 0 {
		ext = ext.Intersect(m.Rect)
	}
	if a := l.Adjustment; a != nil {
		// The backdrop under it, adjusted, is a picture of its own: a
		// table per pixel, or a colour function (hue/saturation, gradient
		// map, …) costing about what a non-separable mode does.
		e.c.buffers += 4 * area(ext)
		w := int64(1)
		if a.Color != nil {
			w = workNonSeparable * int64(max(1, a.ColorWork))
		}
		e.c.Work += w * area(ext)
	}
	if l.PathMask {
		// A vector mask drawn from its path: a mask of the canvas, held,
		// and its coverage with the rasteriser's buffers while drawn.
		a := area(e.canvas)
		e.c.Held += a
		e.c.buffers += 9 * a
		e.c.Work += 2 * a
		for _, p := range l.Vector.Subpaths {
			e.c.Work += 40 * int64(len(p.Knots)) * int64(e.canvas.Dy())
		}
	}
	if l.OffChannels != 0 {
		// The backdrop's channels it leaves alone, saved and put back.
		e.c.buffers += 4 * area(ext)
		e.c.Work += area(ext)
	}
	e.effects(l)
	e.c.Work += modeWork(composite.Mode(l.Blend)) * area(ext)
	return ext
}

// effects adds what drawing a layer's effects allocates (composite's
// shapes): the layer's alpha as float32 over its box grown by the
// effects' reach, and for each effect about three more pictures of that
// size (its shape, a blur's pass, its painted colour), all at 4 bytes a
// pixel, held while the layer is drawn; a blur's passes are work.
func (e *estimator) effects(l *psd.Layer) {
	fx := l.Effects
	if !fx.Any() {
		return
	}
	reach, n := 0.0, 0
	for _, s := range append(append([]psd.Shadow(nil), fx.DropShadows...), fx.InnerShadows...) {
		reach, n = max(reach, s.Distance+s.Size), n+1
	}
	for _, g := range append(append([]psd.Glow(nil), fx.OuterGlows...), fx.InnerGlows...) {
		reach, n = max(reach, g.Size), n+1
		if g.Gradient != nil {
			n += 2 // a distance transform at 8 bytes a pixel
			e.gradient(*g.Gradient)
		}
	}
	for _, s := range fx.Strokes {
		reach, n = max(reach, s.Size), n+1
		if s.Gradient != nil {
			e.gradient(s.Gradient.Gradient)
		}
		if s.Position != "outside" {
			n += 4 // its distances with the nearest pixels' places, 16 bytes a pixel more
		}
	}
	for _, s := range fx.Satins {
		// Its blur, two moved copies and the difference.
		reach, n = max(reach, s.Distance+s.Size), n+3
	}
	for _, b := range fx.Bevels {
		// Two distance transforms at 8 bytes a pixel or a blur, the
		// height, the highlight and the shadow.
		reach, n = max(reach, 1.5*b.Size+b.Soften), n+6
	}
	for _, g := range fx.GradientOverlays {
		e.gradient(g.Gradient)
	}
	n += len(fx.ColorOverlays) + len(fx.GradientOverlays) + len(fx.PatternOverlays)
	pad := int(math.Ceil(reach)) + 1
	r := l.Rect
	if r.Empty() {
		r = l.PathRect() // a shape drawn from its path
	}
	box := area(r.Inset(-pad).Intersect(e.canvas.Inset(-pad)))
	e.c.buffers += box * (4 + 12*int64(n))
	e.c.Work += box * 4 * int64(n)
	if l.Opacity < 255 && !l.Clipped {
		// A faded layer is put together with its effects on a picture
		// of their own, then faded once (opacityUnit): an isolated
		// group the file does not hold.
		e.c.groups++
		e.c.buffers += 4 * box
		e.c.Work += box
	}
	for _, p := range fx.PatternOverlays {
		// Each pixel sampled from the pattern, as a warp samples.
		e.pattern(p.Fill.Pattern)
		e.c.Work += box * workWarp
	}
	for _, s := range fx.Strokes {
		if s.Pattern != nil {
			e.pattern(s.Pattern.Pattern)
			e.c.Work += box * workWarp
		}
	}
}

// gradient adds a gradient's table, drawn wherever it is used: its
// gradientSteps colours, each found by a search through the stops, half
// of them on average. It is no pixel's work but grows with the stops: a
// gradient of 1,000 colour and 1,000 opacity stops, some 300 KB of a
// file, takes about 15 ms, so a 200 MB file of them some 10 s.
func (e *estimator) gradient(g psd.Gradient) {
	e.c.Work += gradientSteps * int64(len(g.Colors)+len(g.Alphas)) / 2
}

// pattern adds a pattern decoded for a drawing, once whatever uses it.
func (e *estimator) pattern(id string) {
	p := e.f.Pattern(id)
	if p == nil || e.patterns[id] {
		return
	}
	e.patterns[id] = true
	a := int64(p.Width) * int64(p.Height)
	e.c.buffers += 4 * a
	e.c.Work += a
}

// own adds a layer's own pixels, decoded once.
func (e *estimator) own(l *psd.Layer) {
	a := area(l.Rect)
	e.c.Held += 4 * a
	e.c.Work += a * e.decode
	e.most = max(e.most, a)
}

// modeWork is the weight of a pixel blended with m.
func modeWork(m composite.Mode) int64 {
	switch m {
	case composite.Hue, composite.Saturation, composite.Color, composite.Luminosity, composite.DarkerColor, composite.LighterColor:
		return workNonSeparable
	}
	return 1
}

// quadBox is the canvas box of a smart object's quad.
func quadBox(p *psd.Placed) image.Rectangle {
	q := quadOf(p)
	x0, y0, x1, y1 := q[0].X, q[0].Y, q[0].X, q[0].Y
	for _, c := range q[1:] {
		x0, y0, x1, y1 = min(x0, c.X), min(y0, c.Y), max(x1, c.X), max(y1, c.Y)
	}
	// Corners are checked finite and within ±1e7 pixels by the reader.
	return image.Rect(int(x0)-1, int(y0)-1, int(x1)+2, int(y1)+2)
}

// Refusal says why a template over a budget is refused, naming what
// costs most; "" when it is within them.
func (c Cost) Refusal() string {
	if b := c.Bytes(); b > MaxDrawBytes {
		// The parts of whichever costs more: a drawing, or the three of
		// taking the template apart.
		k, canvas := int64(1), c.PerDrawing-c.buffers-c.placed
		if c.Split > c.PerDrawing {
			k, canvas = 3, c.Split-3*(c.buffers+c.placed)
		}
		var why string
		switch max(canvas, k*c.buffers, k*c.placed, c.Held) {
		case k * c.buffers:
			why = fmt.Sprintf("%d groups drawn in isolation, nested %d deep", c.groups, c.depth)
			if c.units > 0 {
				why += fmt.Sprintf(", and %d layers with layers clipped to them", c.units)
			}
			why = fmt.Sprintf("%s, each on a picture of its own (%s)", why, size(k*c.buffers))
		case k * c.placed:
			why = fmt.Sprintf("its %d smart objects, each a picture of the part of the canvas it covers (%s)", c.smartObjects, size(k*c.placed))
		case c.Held:
			why = fmt.Sprintf("the decoded pixels of its %d layers and masks (%s)", c.layers, size(c.Held))
		default:
			why = fmt.Sprintf("its %d×%d canvas, drawn whole and in parts (%s)", c.width, c.height, size(canvas))
		}
		return fmt.Sprintf("drawing it would take about %s of memory, most of it %s, over kino's budget of %s a template; flatten groups, merge layers or make the canvas smaller",
			size(b), why, size(MaxDrawBytes))
	}
	if c.Work > MaxDrawWork {
		return fmt.Sprintf("drawing it would decode and blend about %.1f billion pixels (its %d layers over a %d×%d canvas, those in hue, saturation, colour, luminosity, darker or lighter colour counting %d times), over kino's budget of %.1f billion a template; merge layers or make the canvas smaller",
			float64(c.Work)/1e9, c.layers, c.width, c.height, workNonSeparable, float64(MaxDrawWork)/1e9)
	}
	return ""
}

// Drawings is how many drawings of the template, each with designs of
// designBytes more, fit the memory budget at once, from 1 to n.
func (c Cost) Drawings(n int, designBytes int64) int {
	per := max(c.PerDrawing+designBytes, 1)
	fit := (MaxDrawBytes - c.Held) / per
	return int(max(1, min(int64(n), fit)))
}

// DesignBytes is what a design of w × h pixels costs a drawing: its
// texture, mip levels and one shrunk copy.
func DesignBytes(w, h int) int64 { return 8 * int64(w) * int64(h) }

// size writes a byte count as people read it.
func size(b int64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%d MB", b>>20)
	}
	return fmt.Sprintf("%d KB", b>>10)
}
