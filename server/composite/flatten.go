package composite

import (
	"context"
	"image"
	"image/color"
	"runtime"

	"github.com/kinohq/kino/server/meter"
	"github.com/kinohq/kino/server/rescue"
)

// Layer is one layer of a tree Flatten draws: pixels, a solid fill or a
// group, with how it blends onto what lies below it.
type Layer struct {
	// Image is a pixel layer's picture, placed on the canvas at its
	// Bounds() moved by Origin (so a picture whose bounds are already in
	// canvas coordinates needs no Origin). Nil for a group or a fill.
	Image  *image.NRGBA
	Origin image.Point
	// Fill is a solid colour covering the whole canvas (cut by Mask): a
	// fill layer. Its alpha counts like a pixel's.
	Fill *color.NRGBA
	// Adjust makes the layer an adjustment layer: what it paints is the
	// backdrop under it (the base's pixels when it is clipped) changed
	// by Adjust, then blended like any layer's pixels.
	Adjust *Adjustment
	// Mask is a user mask in canvas coordinates (its Bounds()); outside
	// them the mask is MaskDefault. 255 shows, 0 hides.
	Mask        *image.Gray
	MaskDefault uint8
	// Mode blends the layer onto the backdrop; a group's may be
	// PassThrough.
	Mode Mode
	// Opacity and FillOpacity, 0 to 1, both multiply the layer's alpha
	// (they differ in Photoshop only for layer effects, which are not
	// drawn). Zero draws nothing.
	Opacity     float64
	FillOpacity float64
	Hidden      bool
	// Clipped layers are drawn only where the nearest non-clipped layer
	// below them in the same list (the base) is.
	Clipped bool
	// Children make the layer a group, bottom to top.
	Children []*Layer
	// OffChannels has bit i set when the layer leaves channel i (0 red,
	// 1 green, 2 blue) of the backdrop as it is.
	OffChannels uint8
	// TextGamma blends the layer's edges with the backdrop at gamma
	// 1.45, as Photoshop blends a text layer ("Blend Text Colors Using
	// Gamma: 1.45", on by default): its anti-aliased edges come out
	// lighter on a light backdrop and bolder on a dark one than a plain
	// mix of its own pixels would.
	TextGamma bool
}

func (l *Layer) group() bool { return l.Children != nil }

// Flatten draws layers, bottom to top, onto a transparent canvas of
// width × height pixels and returns it.
func Flatten(width, height int, layers []*Layer) *image.NRGBA {
	img, _ := FlattenContext(context.Background(), width, height, layers)
	return img
}

// FlattenContext is Flatten under ctx: it stops between layers and bands
// of rows once ctx is done, and returns ctx's error then, and the CPU
// time of the goroutines it starts goes to ctx's meter (meter.Thread).
func FlattenContext(ctx context.Context, width, height int, layers []*Layer) (*image.NRGBA, error) {
	dst := image.NewNRGBA(image.Rect(0, 0, width, height))
	drawList(ctx, dst, layers, true)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return dst, nil
}

// drawList draws a list of layers onto dst, each base with the layers
// clipped to it as one unit. Empty says dst is all transparent, so that
// the first layer drawn can be copied instead of blended.
func drawList(ctx context.Context, dst *image.NRGBA, layers []*Layer, empty bool) {
	for i := 0; i < len(layers); {
		if ctx.Err() != nil {
			return
		}
		j := i + 1
		for j < len(layers) && layers[j].Clipped {
			j++
		}
		if empty && copyOnto(ctx, dst, layers[i], layers[i+1:j]) {
			empty = false
		} else {
			drawUnit(ctx, dst, layers[i], layers[i+1:j])
			if !layers[i].Hidden {
				empty = false
			}
		}
		i = j
	}
}

// copyOnto draws l onto a transparent dst by copying, when that is what
// blending would give: a pixel layer at full opacity without a mask or
// clipped layers shows as it is on nothing, whatever its mode (but
// dissolve's).
func copyOnto(ctx context.Context, dst *image.NRGBA, l *Layer, clipped []*Layer) bool {
	for _, c := range clipped {
		if !c.Hidden {
			return false
		}
	}
	if l.Hidden || l.Image == nil || l.group() || l.Mask != nil || l.alphaScale() != 255 || l.Mode == Dissolve {
		return false
	}
	area := l.extent(dst.Rect)
	if area.Empty() {
		return true
	}
	rows(ctx, area, func(y0, y1 int) {
		for y := y0; y < y1; y++ {
			copy(dst.Pix[dst.PixOffset(area.Min.X, y):][:4*area.Dx()], l.Image.Pix[l.Image.PixOffset(area.Min.X-l.Origin.X, y-l.Origin.Y):])
		}
	})
	return true
}

// drawUnit draws base and the layers clipped to it. As in Photoshop (with
// "blend clipped layers as group", its default) and psd-tools, the clipped
// layers blend, each with its own mode, opacity and mask, onto the base's
// own pixels and never change its alpha; the unit then blends onto the
// backdrop with the base's mode, opacity, fill opacity and mask. A hidden
// base hides its clipped layers too.
func drawUnit(ctx context.Context, dst *image.NRGBA, base *Layer, clipped []*Layer) {
	if base.Hidden {
		return
	}
	area := base.extent(dst.Rect)
	if area.Empty() {
		return
	}
	// A clipped layer that can paint nothing (hidden, transparent, empty)
	// leaves the unit as it is: a pass-through base stays pass-through.
	var shown []*Layer
	for _, c := range clipped {
		if c.visible() && !c.extent(area).Empty() {
			shown = append(shown, c)
		}
	}
	if base.group() && base.Mode == PassThrough && len(shown) == 0 {
		drawPassThrough(ctx, dst, base, area)
		return
	}
	var src source
	if base.group() && base.Mode == PassThrough {
		src = source{img: passThroughUnit(ctx, dst, base, area)}
	} else {
		src = base.source(ctx, area, dst)
	}
	if len(shown) > 0 {
		// A group's source is a picture of its own, drawn onto in place;
		// another's is copied first.
		unit := src.img
		if !base.group() {
			unit = src.copy(area)
		}
		for _, c := range shown {
			a := c.extent(unit.Rect)
			if a.Empty() {
				continue
			}
			composite(ctx, unit, c.source(ctx, a, unit), a, c.Mode, c.alphaScale(), c.Mask, c.MaskDefault, true, c.TextGamma)
		}
		src = source{img: unit}
	}
	// An adjustment changes colours, never coverage: the backdrop's alpha
	// stays, as Photoshop's does under any number of them.
	restore := keepChannels(dst, area, base.OffChannels)
	composite(ctx, dst, src, area, base.Mode, base.alphaScale(), base.Mask, base.MaskDefault, base.Adjust != nil, base.TextGamma)
	restore()
}

// keepChannels saves the channels of dst over area that off names (bit
// i for channel i), and returns what puts them back.
func keepChannels(dst *image.NRGBA, area image.Rectangle, off uint8) func() {
	area = area.Intersect(dst.Rect)
	if off&7 == 0 || area.Empty() {
		return func() {}
	}
	saved := image.NewNRGBA(area)
	for y := area.Min.Y; y < area.Max.Y; y++ {
		copy(saved.Pix[saved.PixOffset(area.Min.X, y):][:4*area.Dx()], dst.Pix[dst.PixOffset(area.Min.X, y):][:4*area.Dx()])
	}
	return func() {
		for y := area.Min.Y; y < area.Max.Y; y++ {
			s, d := saved.Pix[saved.PixOffset(area.Min.X, y):][:4*area.Dx()], dst.Pix[dst.PixOffset(area.Min.X, y):][:4*area.Dx()]
			for i := 0; i < len(d); i += 4 {
				for c := 0; c < 3; c++ {
					if off&(1<<c) != 0 {
						d[i+c] = s[i+c]
					}
				}
			}
		}
	}
}

// drawPassThrough draws a pass-through group's children straight onto the
// backdrop, so their modes reach the layers below the group. With an
// opacity under 1 or a mask, the children are drawn onto a copy of the
// backdrop, and the result is the backdrop mixed with that copy by the
// group's opacity × mask (premultiplied), which is what Photoshop shows.
func drawPassThrough(ctx context.Context, dst *image.NRGBA, g *Layer, area image.Rectangle) {
	k := g.alphaScale()
	if k == 255 && g.Mask == nil {
		drawList(ctx, dst, g.Children, false)
		return
	}
	if k == 0 {
		return
	}
	tmp := image.NewNRGBA(area)
	for y := area.Min.Y; y < area.Max.Y; y++ {
		copy(tmp.Pix[tmp.PixOffset(area.Min.X, y):][:4*area.Dx()], dst.Pix[dst.PixOffset(area.Min.X, y):])
	}
	drawList(ctx, tmp, g.Children, false)
	mix(ctx, dst, tmp, area, k, g.Mask, g.MaskDefault)
}

// passThroughUnit is what a pass-through group that is a clipping base
// paints over area, as psd-tools draws it (the PDF's non-isolated group):
// its children drawn onto the backdrop, so their modes reach it (Cn), with
// the backdrop taken out again, C = Cn + (Cn − C0)·(α0/αg − α0), under
// the alpha the children cover (αg). Drawn normally over the backdrop it
// gives back Cn; the layers clipped to the group are drawn onto it first.
func passThroughUnit(ctx context.Context, dst *image.NRGBA, g *Layer, area image.Rectangle) *image.NRGBA {
	over := image.NewNRGBA(area)
	for y := area.Min.Y; y < area.Max.Y; y++ {
		copy(over.Pix[over.PixOffset(area.Min.X, y):][:4*area.Dx()], dst.Pix[dst.PixOffset(area.Min.X, y):])
	}
	drawList(ctx, over, g.Children, false)
	own := image.NewNRGBA(area)
	drawList(ctx, own, g.Children, true)
	rows(ctx, area, func(y0, y1 int) {
		for y := y0; y < y1; y++ {
			b := dst.Pix[dst.PixOffset(area.Min.X, y):][:4*area.Dx()]
			n := over.Pix[over.PixOffset(area.Min.X, y):][:4*area.Dx()]
			o := own.Pix[own.PixOffset(area.Min.X, y):][:4*area.Dx()]
			for i := 0; i < len(o); i += 4 {
				ag, a0 := float64(o[i+3])/255, float64(b[i+3])/255
				if ag == 0 {
					continue
				}
				f := a0/ag - a0
				for c := 0; c < 3; c++ {
					cn := float64(n[i+c])
					o[i+c] = uint8(min(255, max(0, cn+(cn-float64(b[i+c]))*f)) + 0.5)
				}
			}
		}
	})
	return own
}

// visible reports whether the layer could show at all.
func (l *Layer) visible() bool { return !l.Hidden && l.alphaScale() > 0 }

// alphaScale is Opacity × FillOpacity on 0..255.
func (l *Layer) alphaScale() int {
	o := clamp01(l.Opacity) * clamp01(l.FillOpacity)
	return int(o*255 + 0.5)
}

// extent is the part of r the layer can change.
func (l *Layer) extent(r image.Rectangle) image.Rectangle {
	if l.Hidden {
		return image.Rectangle{}
	}
	switch {
	case l.group():
		var u image.Rectangle
		for _, c := range l.Children {
			if !c.Clipped {
				u = u.Union(c.extent(r))
			}
		}
		r = r.Intersect(u)
	case l.Image != nil:
		r = r.Intersect(l.Image.Rect.Add(l.Origin))
	case l.Fill != nil, l.Adjust != nil:
	default:
		return image.Rectangle{}
	}
	if l.Mask != nil && l.MaskDefault == 0 {
		r = r.Intersect(l.Mask.Rect)
	}
	return r
}

// source is what a layer paints before its mode, opacity and mask: a
// picture on the canvas (shifted by off) or one colour everywhere.
type source struct {
	img  *image.NRGBA
	off  image.Point
	fill color.NRGBA
}

// source gives the layer's pixels over area; a group is drawn in
// isolation first, onto a transparent picture of area, and an
// adjustment changes a copy of the backdrop.
func (l *Layer) source(ctx context.Context, area image.Rectangle, backdrop *image.NRGBA) source {
	switch {
	case l.Adjust != nil:
		return source{img: l.Adjust.apply(ctx, backdrop, area)}
	case l.group():
		buf := image.NewNRGBA(area)
		drawList(ctx, buf, l.Children, true)
		return source{img: buf}
	case l.Image != nil:
		return source{img: l.Image, off: l.Origin}
	case l.Fill != nil:
		return source{fill: *l.Fill}
	}
	return source{}
}

// copy makes a picture of area holding the source, for clipped layers to
// be drawn onto.
func (s source) copy(area image.Rectangle) *image.NRGBA {
	out := image.NewNRGBA(area)
	if s.img == nil {
		c := s.fill
		for i := 0; i < len(out.Pix); i += 4 {
			out.Pix[i], out.Pix[i+1], out.Pix[i+2], out.Pix[i+3] = c.R, c.G, c.B, c.A
		}
		return out
	}
	for y := area.Min.Y; y < area.Max.Y; y++ {
		copy(out.Pix[out.PixOffset(area.Min.X, y):][:4*area.Dx()], s.img.Pix[s.img.PixOffset(area.Min.X-s.off.X, y-s.off.Y):])
	}
	return out
}

// rows runs fn over bands of r's rows, on every core when r is large
// enough to be worth it. Once ctx is done no band starts (fn's callers
// check ctx when it returns), and each goroutine it starts adds its CPU
// time to ctx's meter: the caller's own goroutine is measured by whoever
// asked for the drawing.
func rows(ctx context.Context, r image.Rectangle, fn func(y0, y1 int)) {
	if ctx.Err() != nil {
		return
	}
	n := runtime.GOMAXPROCS(0)
	if r.Dx()*r.Dy() < 1<<15 {
		fn(r.Min.Y, r.Max.Y)
		return
	}
	// More bands than cores, so that a band of empty rows does not leave
	// a core idle, and small enough that a cancel is seen soon.
	bands := min(max(4*n, r.Dx()*r.Dy()>>20), r.Dy())
	if n == 1 {
		for b := 0; b < bands && ctx.Err() == nil; b++ {
			fn(r.Min.Y+r.Dy()*b/bands, r.Min.Y+r.Dy()*(b+1)/bands)
		}
		return
	}
	// A panic in a band is raised again here, in the caller's goroutine,
	// where the job's or the request's recovery catches it.
	var g rescue.Group
	next := make(chan int, bands)
	for b := 0; b < bands; b++ {
		next <- b
	}
	close(next)
	for w := 0; w < n; w++ {
		g.Go(func() {
			defer meter.Thread(ctx)()
			for b := range next {
				if ctx.Err() != nil {
					return
				}
				fn(r.Min.Y+r.Dy()*b/bands, r.Min.Y+r.Dy()*(b+1)/bands)
			}
		})
	}
	g.Wait()
}

// maskAt is the mask's value at x, y.
func maskAt(m *image.Gray, def uint8, x, y int) uint8 {
	if !(image.Point{x, y}).In(m.Rect) {
		return def
	}
	return m.Pix[m.PixOffset(x, y)]
}

// composite blends src over area of dst with mode m, the source alpha
// scaled by k (0..255) and the mask. This is the W3C source-over with
// blending, on non-premultiplied 8-bit sRGB as Photoshop blends:
//
//	αo = αs + αb·(1 − αs)
//	Co = (αs·(1 − αb)·Cs + αs·αb·B(Cb, Cs) + (1 − αs)·αb·Cb) / αo
//
// With keepAlpha (a clipped layer onto its base) the colour is the same
// and the alpha stays the backdrop's.
func composite(ctx context.Context, dst *image.NRGBA, src source, area image.Rectangle, m Mode, k int, mask *image.Gray, maskDef uint8, keepAlpha, textGamma bool) {
	area = area.Intersect(dst.Rect)
	if k == 0 || area.Empty() {
		return
	}
	if !m.Known() || m == PassThrough {
		m = Normal
	}
	tbl := tableOf(m)
	var gm *gammaMix
	if textGamma {
		gm = newGammaMix(textBlendGamma)
	}
	n := area.Dx()
	normal := m == Normal
	rows(ctx, area, func(y0, y1 int) {
		// A fill is a row of its colour, no mask a row of 255: one
		// loop for every kind of layer.
		var fillRow, maskRow []uint8
		if src.img == nil {
			fillRow = make([]uint8, 4*n)
			for i := 0; i < len(fillRow); i += 4 {
				fillRow[i], fillRow[i+1], fillRow[i+2], fillRow[i+3] = src.fill.R, src.fill.G, src.fill.B, src.fill.A
			}
		}
		maskRow = make([]uint8, n)
		for y := y0; y < y1; y++ {
			drow := dst.Pix[dst.PixOffset(area.Min.X, y):][:4*n]
			srow := fillRow
			if src.img != nil {
				srow = src.img.Pix[src.img.PixOffset(area.Min.X-src.off.X, y-src.off.Y):][:4*n]
			}
			maskLine(maskRow, mask, maskDef, area.Min.X, y)
			for x, i := area.Min.X, 0; i < len(drow); x, i = x+1, i+4 {
				sp := srow[i : i+4 : i+4]
				sa := int(sp[3])
				if sa == 0 {
					continue
				}
				sr, sg, sb := int(sp[0]), int(sp[1]), int(sp[2])
				as := sa
				if mv := int(maskRow[i>>2]); k != 255 || mv != 255 {
					as = (sa*k*mv + 65025/2) / 65025
				}
				if m == Dissolve {
					// Dissolve shows a pixel whole or not at all, with
					// the probability of its alpha.
					if int(noise(x, y)) < as {
						as = 255
					} else {
						as = 0
					}
				}
				if as == 0 {
					continue
				}
				d := drow[i : i+4 : i+4]
				ab := int(d[3])
				if normal && as == 255 && !keepAlpha {
					d[0], d[1], d[2], d[3] = sp[0], sp[1], sp[2], 255
					continue
				}
				if ab == 0 {
					if !keepAlpha {
						d[0], d[1], d[2], d[3] = uint8(sr), uint8(sg), uint8(sb), uint8(as)
					}
					continue
				}
				br, bg, bb := int(d[0]), int(d[1]), int(d[2])
				var cr, cg, cb int
				if tbl != nil {
					cr, cg, cb = int(tbl[br<<8|sr]), int(tbl[bg<<8|sg]), int(tbl[bb<<8|sb])
				} else {
					cr, cg, cb = blendPixel(m, br, bg, bb, sr, sg, sb)
				}
				if ab == 255 {
					if as == 255 {
						d[0], d[1], d[2] = uint8(cr), uint8(cg), uint8(cb)
						continue
					}
					ns := 255 - as
					if gm != nil {
						d[0], d[1], d[2] = gm.mix(as*255, 0, ns*255, cr, cr, br), gm.mix(as*255, 0, ns*255, cg, cg, bg), gm.mix(as*255, 0, ns*255, cb, cb, bb)
						continue
					}
					d[0] = uint8((as*cr + ns*br + 127) / 255)
					d[1] = uint8((as*cg + ns*bg + 127) / 255)
					d[2] = uint8((as*cb + ns*bb + 127) / 255)
					continue
				}
				// Everything in units of 255²: the colour terms weigh
				// αs·(255−αb)·Cs + αs·αb·B + (255−αs)·αb·Cb.
				denom := as*255 + ab*255 - as*ab
				ws, wbl, wb := as*(255-ab), as*ab, (255-as)*ab
				if gm != nil {
					d[0], d[1], d[2] = gm.mix(ws, wbl, wb, sr, cr, br), gm.mix(ws, wbl, wb, sg, cg, bg), gm.mix(ws, wbl, wb, sb, cb, bb)
				} else {
					d[0] = uint8((ws*sr + wbl*cr + wb*br + denom/2) / denom)
					d[1] = uint8((ws*sg + wbl*cg + wb*bg + denom/2) / denom)
					d[2] = uint8((ws*sb + wbl*cb + wb*bb + denom/2) / denom)
				}
				if !keepAlpha {
					d[3] = uint8((denom + 127) / 255)
				}
			}
		}
	})
}

// maskLine fills row with the mask's values from x0 on row y (255 with
// no mask).
func maskLine(row []uint8, m *image.Gray, def uint8, x0, y int) {
	if m == nil {
		if row[0] != 255 || row[len(row)-1] != 255 {
			for i := range row {
				row[i] = 255
			}
		}
		return
	}
	if y < m.Rect.Min.Y || y >= m.Rect.Max.Y {
		for i := range row {
			row[i] = def
		}
		return
	}
	line := m.Pix[m.PixOffset(m.Rect.Min.X, y):][:m.Rect.Dx()]
	for i := range row {
		x := x0 + i
		if x >= m.Rect.Min.X && x < m.Rect.Max.X {
			row[i] = line[x-m.Rect.Min.X]
		} else {
			row[i] = def
		}
	}
}

// blendPixel is a non-separable mode on 8-bit colours.
func blendPixel(m Mode, br, bg, bb, sr, sg, sb int) (int, int, int) {
	b := [3]float64{float64(br) / 255, float64(bg) / 255, float64(bb) / 255}
	s := [3]float64{float64(sr) / 255, float64(sg) / 255, float64(sb) / 255}
	c := Blend(m, b, s)
	return int(c[0]*255 + 0.5), int(c[1]*255 + 0.5), int(c[2]*255 + 0.5)
}

// noise is a fixed pseudo-random value 0..254 per pixel, for Dissolve:
// the same picture every time.
func noise(x, y int) uint8 {
	h := uint32(x)*0x9E3779B1 ^ uint32(y)*0x85EBCA77
	h ^= h >> 15
	h *= 0x2C1B3C6D
	h ^= h >> 12
	return uint8(h % 255)
}

// mix sets area of dst to dst + (over − dst)·t, t = k × mask, in
// premultiplied colour: a pass-through group's opacity.
func mix(ctx context.Context, dst, over *image.NRGBA, area image.Rectangle, k int, mask *image.Gray, maskDef uint8) {
	rows(ctx, area, func(y0, y1 int) {
		for y := y0; y < y1; y++ {
			for x := area.Min.X; x < area.Max.X; x++ {
				t := k
				if mask != nil {
					t = (k*int(maskAt(mask, maskDef, x, y)) + 127) / 255
				}
				if t == 0 {
					continue
				}
				d := dst.Pix[dst.PixOffset(x, y):][:4:4]
				o := over.Pix[over.PixOffset(x, y):][:4:4]
				ab, ao := int(d[3]), int(o[3])
				// Alpha and premultiplied colour, in units of 255².
				a := ab*(255-t) + ao*t
				if a == 0 {
					d[3] = 0
					continue
				}
				for c := 0; c < 3; c++ {
					d[c] = uint8((int(d[c])*ab*(255-t) + int(o[c])*ao*t + a/2) / a)
				}
				d[3] = uint8((a + 127) / 255)
			}
		}
	})
}
