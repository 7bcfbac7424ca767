package psd

import (
	"fmt"
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
	if fx := desc.desc("filterFX"); fx != nil && len(fx.list("filterFXList")) > 0 {
		d.note(l, "smart filters")
	}
	d.notePreset(l, p.Warp)
	l.Kind = KindSmartObject
	l.Placed = p
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
		p.Width = p.Warp.Bounds[3] - p.Warp.Bounds[1]
		p.Height = p.Warp.Bounds[2] - p.Warp.Bounds[0]
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
