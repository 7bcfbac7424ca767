package psd

import (
	"fmt"
	"math"
	"strings"
)

// placed reads SoLd / SoLE: "soLD", a version, then a descriptor.
func (d *decoder) placed(l *Layer, c *cursor) error {
	if s := c.sig(); s != "soLD" && c.err == nil {
		return l.errorf("placed layer: signature %q (soLD expected)", s)
	}
	c.u32() // version 4 or 5
	desc, err := readDescriptor(c, d.lim.MaxDescriptorDepth)
	if err != nil {
		return l.errorf("placed layer: %v", err)
	}
	p := &Placed{ID: desc.str("Idnt")}
	if p.ID == "" {
		p.ID = desc.str("placed")
	}
	var ok bool
	if p.Transform, ok = quad(desc.list("Trnf")); !ok {
		return l.errorf("placed layer: transform (Trnf) is not 8 numbers")
	}
	p.NonAffine = p.Transform
	if q, ok := quad(desc.list("nonAffineTransform")); ok {
		p.NonAffine = q
	}
	if sz := desc.desc("Sz  "); sz != nil {
		p.Width, _ = sz.num("Wdth")
		p.Height, _ = sz.num("Hght")
	}
	w := desc.desc("quiltWarp")
	if w == nil {
		w = desc.desc("warp")
	}
	if p.Warp, err = parseWarp(w); err != nil {
		return l.errorf("placed layer: %v", err)
	}
	fx := desc.desc("filterFX")
	p.Filters = d.smartFilters(l, fx)
	// The filter mask is switched on unless the file says otherwise; it
	// is found by the instance id in the filter effects block.
	p.instance = strings.TrimRight(desc.str("placed"), "\x00")
	p.maskOn, p.maskOutsideWhite = true, true
	if on, ok := fx.get("filterMaskEnable").(bool); ok {
		p.maskOn = on
	}
	if w, ok := fx.get("filterMaskExtendWithWhite").(bool); ok {
		p.maskOutsideWhite = w
	}
	d.notePreset(l, p.Warp)
	if err := p.check(); err != nil {
		return l.errorf("placed layer: %v", err)
	}
	l.Kind = KindSmartObject
	l.Placed = p
	return nil
}

// maxSmartFilters bounds a smart object's filters: Photoshop's panel holds
// a few; a hostile file's thousands would each cost a pass over the layer.
const maxSmartFilters = 16

// maxBlurRadius is Photoshop's largest Gaussian blur radius, in pixels.
const maxBlurRadius = 1000

// smartFilters reads filterFX: the smart filters switched on, in the
// order Photoshop applies them (the list's first is the bottom of the
// panel, applied first). kino draws a Gaussian blur in normal mode, and a
// curves filter left at its default (the identity); every other filter,
// blend mode and a painted filter mask is named in the layer's
// Unsupported as "smart filter: <name>".
func (d *decoder) smartFilters(l *Layer, fx *descriptor) []SmartFilter {
	list := fx.list("filterFXList")
	if on, ok := fx.get("enab").(bool); (ok && !on) || len(list) == 0 {
		return nil
	}
	if len(list) > maxSmartFilters {
		d.note(l, fmt.Sprintf("smart filters: %d (at most %d are drawn)", len(list), maxSmartFilters))
		list = list[:maxSmartFilters]
	}
	var out []SmartFilter
	for _, v := range list {
		f, _ := v.(*descriptor)
		if on, ok := f.get("enab").(bool); f == nil || (ok && !on) {
			continue
		}
		sf := SmartFilter{Name: strings.TrimRight(f.str("Nm  "), "\x00."), Opacity: 1, Blend: "normal"}
		if id, ok := f.get("filterID").(int32); ok {
			sf.ID = string([]byte{byte(id >> 24), byte(id >> 16), byte(id >> 8), byte(id)})
		}
		if b := f.desc("blendOptions"); b != nil {
			if o, ok := b.num("Opct"); ok {
				sf.Opacity = min(max(o/100, 0), 1)
			}
			if e, ok := b.get("Md  ").(enumValue); ok {
				sf.Blend = effectBlends[e.Value]
			}
		}
		fl := f.desc("Fltr")
		switch {
		case sf.Blend != "normal":
			d.note(l, fmt.Sprintf("smart filter: %s in %s mode", sf.Name, orUnknown(string(sf.Blend))))
			continue
		case sf.ID == "GsnB":
			r, ok := fl.num("Rds ")
			if !ok || !(r >= 0 && r <= maxBlurRadius) {
				d.note(l, fmt.Sprintf("smart filter: %s of radius %v", sf.Name, r))
				continue
			}
			sf.Radius = r
		case sf.ID == "Crvs" && fl.get("Adjs") == nil:
			continue // at its default: the identity
		default:
			d.note(l, "smart filter: "+sf.Name)
			continue
		}
		out = append(out, sf)
	}
	return out
}

func orUnknown(s string) string {
	if s == "" {
		return "an unknown"
	}
	return s
}

// maxCoordinate bounds every number of a placed layer's geometry (canvas
// and content pixels): 33 times the largest PSB side. Beyond it, or not a
// number at all, a quad or mesh can only be a hostile file's, and would
// send the drawing's arithmetic past what an int or a float holds exactly.
const maxCoordinate = 1e7

// check refuses geometry no drawing can use: a coordinate, content size,
// warp bound or slice that is not finite or lies beyond maxCoordinate,
// or a negative content size.
func (p *Placed) check() error {
	bad := func(v float64) bool { return math.IsNaN(v) || math.Abs(v) > maxCoordinate }
	for i, q := range p.NonAffine {
		if bad(q.X) || bad(q.Y) || bad(p.Transform[i].X) || bad(p.Transform[i].Y) {
			return fmt.Errorf("corner %d of its transform (%v, %v) is not a number within ±%g", i, q.X, q.Y, float64(maxCoordinate))
		}
	}
	if bad(p.Width) || bad(p.Height) || p.Width < 0 || p.Height < 0 {
		return fmt.Errorf("content size %vx%v is not within 0 to %g", p.Width, p.Height, float64(maxCoordinate))
	}
	if w := p.Warp; w != nil {
		for _, v := range w.Bounds {
			if bad(v) {
				return fmt.Errorf("warp bounds %v are not numbers within ±%g", w.Bounds, float64(maxCoordinate))
			}
		}
		for i, q := range w.Points {
			if bad(q.X) || bad(q.Y) {
				return fmt.Errorf("warp point %d (%v, %v) is not a number within ±%g", i, q.X, q.Y, float64(maxCoordinate))
			}
		}
		for _, v := range append(append([]float64(nil), w.SlicesX...), w.SlicesY...) {
			if bad(v) {
				return fmt.Errorf("quilt slice %v is not a number within ±%g", v, float64(maxCoordinate))
			}
		}
	}
	return nil
}

// placedLegacy reads PlLd: Photoshop CS3's placed-layer record, kept next
// to SoLd by later versions.
func (d *decoder) placedLegacy(l *Layer, c *cursor) error {
	if s := c.sig(); s != "plcL" && c.err == nil {
		return l.errorf("placed layer: signature %q (plcL expected)", s)
	}
	c.u32() // version 3
	p := &Placed{ID: c.pascal(1)}
	c.skip(4 * 4) // page, pages, anti-alias, type
	var t [8]float64
	for i := range t {
		t[i] = c.f64()
	}
	c.u32() // warp version
	if c.err != nil {
		return l.errorf("placed layer: %v", c.err)
	}
	for i := range p.Transform {
		p.Transform[i] = Point{t[2*i], t[2*i+1]}
	}
	p.NonAffine = p.Transform
	desc, err := readDescriptor(c, d.lim.MaxDescriptorDepth)
	if err != nil {
		return l.errorf("placed layer warp: %v", err)
	}
	if p.Warp, err = parseWarp(desc); err != nil {
		return l.errorf("placed layer: %v", err)
	}
	d.notePreset(l, p.Warp)
	if p.Warp != nil {
		// Without Sz the content size is the warp's bounds.
		p.Width = max(0, p.Warp.Bounds[3]-p.Warp.Bounds[1])
		p.Height = max(0, p.Warp.Bounds[2]-p.Warp.Bounds[0])
	}
	if err := p.check(); err != nil {
		return l.errorf("placed layer: %v", err)
	}
	l.Kind = KindSmartObject
	l.Placed = p
	return nil
}

// notePreset names a preset warp (arc, flag, cylinder, ...): Photoshop
// stores its parameters, not its mesh, so it cannot be redrawn from the
// file.
func (d *decoder) notePreset(l *Layer, w *Warp) {
	if w != nil && len(w.Points) == 0 {
		d.note(l, "warp preset: "+w.Style)
	}
}

func quad(vs []any) ([4]Point, bool) {
	var q [4]Point
	if len(vs) != 8 {
		return q, false
	}
	var f [8]float64
	for i, v := range vs {
		n, ok := number(v)
		if !ok {
			return q, false
		}
		f[i] = n
	}
	for i := range q {
		q[i] = Point{f[2*i], f[2*i+1]}
	}
	return q, true
}

// maxWarpPatches bounds a quilt's grid.
const maxWarpPatches = 64

// parseWarp turns a warp (or quiltWarp) descriptor into a Warp; nil when
// there is none or it leaves the content as it is.
func parseWarp(w *descriptor) (*Warp, error) {
	if w == nil {
		return nil, nil
	}
	style := ""
	if e, ok := w.get("warpStyle").(enumValue); ok {
		style = e.Value
	}
	wp := &Warp{Style: style, Rows: 1, Cols: 1}
	if b := w.desc("bounds"); b != nil {
		wp.Bounds[0], _ = b.num("Top ")
		wp.Bounds[1], _ = b.num("Left")
		wp.Bounds[2], _ = b.num("Btom")
		wp.Bounds[3], _ = b.num("Rght")
	}
	if env := w.desc("customEnvelopeWarp"); env != nil {
		if oa, ok := env.get("meshPoints").(objectArray); ok {
			xs := floats(oa.Items.get("Hrzn"))
			ys := floats(oa.Items.get("Vrtc"))
			if len(xs) != len(ys) {
				return nil, fmt.Errorf("warp mesh has %d x and %d y values", len(xs), len(ys))
			}
			wp.Points = make([]Point, len(xs))
			for i := range xs {
				wp.Points[i] = Point{xs[i], ys[i]}
			}
		}
		wp.SlicesX = firstFloats(env.get("quiltSliceX"))
		wp.SlicesY = firstFloats(env.get("quiltSliceY"))
	}
	_, hasRows := w.get("deformNumRows").(int32)
	if hasRows || wp.SlicesX != nil || wp.SlicesY != nil {
		// A quilt has n+1 slice positions for n patches a way, and
		// deformNumRows/Cols count control points: 3n+1 (Photoshop writes
		// 13 for a 4x4 grid).
		wp.Quilt = true
		rows, cols := len(wp.SlicesY)-1, len(wp.SlicesX)-1
		if r, ok := w.get("deformNumRows").(int32); ok && rows < 1 {
			rows = (int(r) - 1) / 3
		}
		if c, ok := w.get("deformNumCols").(int32); ok && cols < 1 {
			cols = (int(c) - 1) / 3
		}
		if rows < 1 || cols < 1 || rows > maxWarpPatches || cols > maxWarpPatches {
			return nil, fmt.Errorf("quilt warp of %dx%d patches (1 to %d each way)", rows, cols, maxWarpPatches)
		}
		wp.Rows, wp.Cols = rows, cols
	}
	if len(wp.Points) > 0 && len(wp.Points) != (3*wp.Rows+1)*(3*wp.Cols+1) {
		return nil, fmt.Errorf("warp mesh of %d points for %dx%d patches (%d expected)", len(wp.Points), wp.Rows, wp.Cols, (3*wp.Rows+1)*(3*wp.Cols+1))
	}
	switch {
	case style == "warpNone" || style == "":
		if !wp.Quilt {
			return nil, nil
		}
	case style == "warpCustom" && !wp.Quilt && wp.identity():
		return nil, nil
	}
	if !wp.Quilt && style != "warpCustom" {
		// A preset (arc, flag, ...): Photoshop stores its parameters, not
		// its mesh.
		wp.Points = nil
	}
	return wp, nil
}

// identity reports whether a 1x1 mesh is the plain grid over Bounds.
func (w *Warp) identity() bool {
	if len(w.Points) != 16 {
		return len(w.Points) == 0
	}
	top, left, bottom, right := w.Bounds[0], w.Bounds[1], w.Bounds[2], w.Bounds[3]
	const eps = 1e-6
	for i, p := range w.Points {
		x := left + (right-left)*float64(i%4)/3
		y := top + (bottom-top)*float64(i/4)/3
		if abs(p.X-x) > eps*(1+abs(x)) || abs(p.Y-y) > eps*(1+abs(y)) {
			return false
		}
	}
	return true
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}

func floats(v any) []float64 {
	if u, ok := v.(unitFloats); ok {
		return u.Values
	}
	return nil
}

// firstFloats reads a quilt slice array: an ObAr whose first item holds
// the values.
func firstFloats(v any) []float64 {
	oa, ok := v.(objectArray)
	if !ok || oa.Items == nil {
		return nil
	}
	for _, it := range oa.Items.Vals {
		if f := floats(it); f != nil {
			return f
		}
	}
	return nil
}

// linkedFiles reads lnk2 / lnk3 / lnkD / lnkE: the files behind smart
// objects, each a length-prefixed record padded to 4 bytes.
func (d *decoder) linkedFiles(c *cursor) error {
	for c.left() > 8 && c.err == nil {
		n := c.length(true)
		rc := c.sub(n, c.what+": linked file")
		if pad := (4 - n%4) % 4; pad > 0 && c.left() >= pad {
			c.skip(pad)
		}
		if c.err != nil {
			return c.err
		}
		kind := rc.sig() // liFD data, liFE external, liFA alias
		version := rc.u32()
		lf := &LinkedFile{ID: rc.pascal(1), Name: rc.unicode()}
		lf.Type = strings.TrimRight(rc.sig(), " \x00")
		rc.sig() // creator
		size := rc.length(true)
		if rc.u8() != 0 {
			if _, err := readDescriptor(rc, d.lim.MaxDescriptorDepth); err != nil {
				return fmt.Errorf("linked file %q: open parameters: %w", lf.Name, err)
			}
		}
		if rc.err != nil {
			return rc.err
		}
		if kind == "liFE" {
			if _, err := readDescriptor(rc, d.lim.MaxDescriptorDepth); err != nil {
				return fmt.Errorf("linked file %q: link: %w", lf.Name, err)
			}
			if version > 3 {
				rc.skip(4 + 4 + 8) // date and time
			}
			size = rc.length(true)
			if version != 2 {
				size = 0 // the file lives outside the document
			}
		}
		if kind == "liFD" || (kind == "liFE" && size > 0) {
			if size > rc.left() {
				return errorf("linked file %q: %d bytes declared, %d in its record", lf.Name, size, rc.left())
			}
			if d.embedded+size > d.lim.MaxEmbeddedBytes {
				return errorf("linked files: more than %d bytes embedded", d.lim.MaxEmbeddedBytes)
			}
			d.embedded += size
			lf.Data = rc.bytes(size)
		}
		if rc.err != nil {
			return rc.err
		}
		d.f.Linked[lf.ID] = lf
	}
	return c.err
}
