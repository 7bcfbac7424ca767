package psd

// An action descriptor (Photoshop's "descriptor structure") is a typed
// key/value tree. The parser keeps every value it reads in Go form and is
// bounded: nesting by Limits.MaxDescriptorDepth, the items of one
// structure by maxDescriptorItems and of a whole tree by
// maxDescriptorTotal, every string and blob by its section.

// descriptor is an Objc/GlbO structure.
type descriptor struct {
	Class string
	Keys  []string
	Vals  []any
}

// get returns the value under key, or nil.
func (d *descriptor) get(key string) any {
	if d == nil {
		return nil
	}
	for i, k := range d.Keys {
		if k == key {
			return d.Vals[i]
		}
	}
	return nil
}

func (d *descriptor) desc(key string) *descriptor {
	v, _ := d.get(key).(*descriptor)
	return v
}

func (d *descriptor) str(key string) string {
	v, _ := d.get(key).(string)
	return v
}

// num returns a number under key whatever its type (doub, UntF, long).
func (d *descriptor) num(key string) (float64, bool) {
	return number(d.get(key))
}

func number(v any) (float64, bool) {
	switch v := v.(type) {
	case float64:
		return v, true
	case int32:
		return float64(v), true
	case int64:
		return float64(v), true
	case unitFloat:
		return v.Value, true
	}
	return 0, false
}

func (d *descriptor) list(key string) []any {
	v, _ := d.get(key).([]any)
	return v
}

// unitFloat is an UntF value.
type unitFloat struct {
	Unit  string
	Value float64
}

// unitFloats is an UnFl value.
type unitFloats struct {
	Unit   string
	Values []float64
}

// enumValue is an enum value.
type enumValue struct{ Type, Value string }

// objectArray is an ObAr value: a class and its items, each a descriptor
// whose values are lists (as for meshPoints: Hrzn and Vrtc, UnFl each).
type objectArray struct {
	Class string
	Items *descriptor
}

type descParser struct {
	c        *cursor
	maxDepth int
	total    int
}

// readDescriptor reads a version-16 descriptor.
func readDescriptor(c *cursor, maxDepth int) (*descriptor, error) {
	if v := c.u32(); v != 16 && c.err == nil {
		return nil, errorf("%s: descriptor version %d (16 expected)", c.what, v)
	}
	p := &descParser{c: c, maxDepth: maxDepth}
	d := p.structure(1)
	if c.err != nil {
		return nil, c.err
	}
	return d, nil
}

func (p *descParser) id() string {
	n := int64(p.c.u32())
	if n == 0 {
		return p.c.sig()
	}
	if n > 1024 {
		p.c.fail("%s: descriptor key of %d bytes", p.c.what, n)
		return ""
	}
	return p.c.fixed8(int(n))
}

func (p *descParser) count() int {
	n := int64(p.c.u32())
	if p.c.err != nil {
		return 0
	}
	// Every item takes at least 4 bytes: a count the section cannot hold
	// is a lie, refused before anything is allocated.
	if n*4 > p.c.left() {
		p.c.fail("%s: descriptor declares %d items, more than its %d bytes can hold", p.c.what, n, p.c.left())
		return 0
	}
	p.total += int(n)
	if p.total > maxDescriptorItems {
		p.c.fail("%s: descriptor holds more than %d items", p.c.what, maxDescriptorItems)
		return 0
	}
	return int(n)
}

func (p *descParser) deeper(depth int) bool {
	if depth > p.maxDepth {
		p.c.fail("%s: descriptor nested deeper than %d", p.c.what, p.maxDepth)
		return false
	}
	return true
}

func (p *descParser) structure(depth int) *descriptor {
	if !p.deeper(depth) {
		return nil
	}
	p.c.unicode() // the class's display name
	d := &descriptor{Class: p.id()}
	n := p.count()
	for i := 0; i < n && p.c.err == nil; i++ {
		k := p.id()
		v := p.value(p.c.sig(), depth)
		d.Keys = append(d.Keys, k)
		d.Vals = append(d.Vals, v)
	}
	return d
}

func (p *descParser) value(typ string, depth int) any {
	c := p.c
	if c.err != nil {
		return nil
	}
	switch typ {
	case "obj ":
		return p.reference()
	case "Objc", "GlbO":
		return p.structure(depth + 1)
	case "VlLs":
		if !p.deeper(depth + 1) {
			return nil
		}
		n := p.count()
		var vs []any
		for i := 0; i < n && c.err == nil; i++ {
			vs = append(vs, p.value(c.sig(), depth+1))
		}
		return vs
	case "doub":
		return c.f64()
	case "UntF":
		u := c.sig()
		return unitFloat{Unit: u, Value: c.f64()}
	case "UnFl":
		u := c.sig()
		n := int64(c.u32())
		if !c.need(8 * n) {
			return nil
		}
		vs := make([]float64, n)
		for i := range vs {
			vs[i] = c.f64()
		}
		return unitFloats{Unit: u, Values: vs}
	case "TEXT":
		return c.unicode()
	case "enum":
		t := p.id()
		return enumValue{Type: t, Value: p.id()}
	case "long":
		return c.i32()
	case "comp":
		return int64(c.u64())
	case "bool":
		return c.u8() != 0
	case "type", "GlbC":
		c.unicode()
		return p.id()
	case "alis", "tdta", "Pth ":
		return c.bytes(int64(c.u32()))
	case "ObAr":
		if !p.deeper(depth + 1) {
			return nil
		}
		c.u32() // version
		return objectArray{Class: "", Items: p.structure(depth + 1)}
	}
	c.fail("%s: unknown descriptor value type %q", c.what, typ)
	return nil
}

// reference reads an obj value; its items name other objects and are not
// kept.
func (p *descParser) reference() any {
	c := p.c
	n := p.count()
	for i := 0; i < n && c.err == nil; i++ {
		switch t := c.sig(); t {
		case "prop":
			c.unicode()
			p.id()
			p.id()
		case "Clss":
			c.unicode()
			p.id()
		case "Enmr":
			c.unicode()
			p.id()
			p.id()
			p.id()
		case "rele":
			c.unicode()
			p.id()
			c.u32()
		case "Idnt", "indx":
			c.u32()
		case "name":
			c.unicode()
			p.id()
			c.unicode()
		default:
			c.fail("%s: unknown descriptor reference type %q", c.what, t)
		}
	}
	return nil
}
