package psd

import (
	"fmt"
	"image"
	"io"
	"math"
)

// Decode reads a PSD or PSB's header, layer records and the records of
// its smart objects; pixels are decoded later, on demand, from r, which
// must stay readable while the File is used. Zero fields of lim take
// DefaultLimits'.
func Decode(r io.ReaderAt, size int64, lim Limits) (*File, error) {
	lim = lim.withDefaults()
	d := &decoder{lim: lim, f: &File{Linked: map[string]*LinkedFile{}, globalAngle: 120, transparentIndex: -1}}
	d.f.r = readerAt{r: r, size: size}
	d.f.lim = lim
	if err := d.decode(r, size); err != nil {
		return nil, err
	}
	return d.f, nil
}

func (l Limits) withDefaults() Limits {
	if l.MaxPixels <= 0 {
		l.MaxPixels = DefaultLimits.MaxPixels
	}
	if l.MaxLayers <= 0 {
		l.MaxLayers = DefaultLimits.MaxLayers
	}
	if l.MaxDescriptorDepth <= 0 {
		l.MaxDescriptorDepth = DefaultLimits.MaxDescriptorDepth
	}
	if l.MaxEmbeddedBytes <= 0 {
		l.MaxEmbeddedBytes = DefaultLimits.MaxEmbeddedBytes
	}
	return l
}

// maxGroupDepth bounds the nesting of groups. Photoshop itself nests
// them 10 deep at most; drawing holds a canvas-sized picture for each
// level of isolated groups (36 MB at 3000x3000), so 64 cost 2.3 GB.
const maxGroupDepth = 16

// maxTotalPixels bounds the pixels of all layers and masks together, in
// multiples of Limits.MaxPixels.
const maxTotalPixels = 8

type decoder struct {
	lim Limits
	// patternsRead counts the pattern records read, kept or not, against
	// maxPatterns.
	patternsRead int
	f            *File
	embedded     int64 // bytes of embedded files kept so far
	records      []*Layer
	// filterMasks are where the smart objects' filter masks lie, by
	// instance id (filterEffects).
	filterMasks map[string]*filterMaskData
	// pixels counts the pixels of the layers, masks and filter masks
	// against maxTotalPixels.
	pixels int64
}

// checkPixels refuses a w x h picture over the limit before anything is
// allocated for it.
func (d *decoder) checkPixels(what string, w, h int64) error {
	if w < 0 || h < 0 {
		return errorf("%s: negative size %dx%d", what, w, h)
	}
	if w > 0 && h > d.lim.MaxPixels/w {
		return errorf("%s: %dx%d pixels is over the limit of %d", what, w, h, d.lim.MaxPixels)
	}
	return nil
}

func (d *decoder) decode(r io.ReaderAt, size int64) error {
	c := newCursor(r, 0, size, "header")
	if c.sig() != "8BPS" {
		if c.err != nil {
			return c.err
		}
		return errorf("not a Photoshop document (no 8BPS signature)")
	}
	f := d.f
	switch v := c.u16(); v {
	case 1:
	case 2:
		f.PSB = true
	default:
		if c.err == nil {
			return errorf("header: unknown version %d (1 is PSD, 2 is PSB)", v)
		}
	}
	c.skip(6)
	f.channels = int(c.u16())
	h, w := int64(c.u32()), int64(c.u32())
	f.Depth = int(c.u16())
	f.Mode = ColorMode(c.u16())
	if c.err != nil {
		return c.err
	}
	if f.channels < 1 || f.channels > 56 {
		return errorf("header: %d channels (1 to 56 allowed)", f.channels)
	}
	maxSide := int64(30000)
	if f.PSB {
		maxSide = 300000
	}
	if w < 1 || h < 1 || w > maxSide || h > maxSide {
		return errorf("header: canvas %dx%d is outside 1..%d", w, h, maxSide)
	}
	if err := d.checkPixels("canvas", w, h); err != nil {
		return err
	}
	f.Width, f.Height = int(w), int(h)
	switch f.Mode {
	case RGB, Grayscale, CMYK, Lab, Indexed, Bitmap:
	default:
		return &UnsupportedError{Feature: f.Mode.String() + " colour mode"}
	}
	if (f.Mode == Bitmap) != (f.Depth == 1) || (f.Mode == Indexed && f.Depth != 8) {
		return errorf("header: depth %d for %s", f.Depth, f.Mode)
	}
	if (f.Mode == Lab || f.Mode == CMYK) && f.Depth == 32 {
		// Photoshop has neither; the floats would be taken for light.
		return &UnsupportedError{Feature: "32-bit " + f.Mode.String()}
	}
	switch f.Depth {
	case 1, 8, 16, 32:
	default:
		return errorf("header: depth %d (1, 8, 16 or 32 expected)", f.Depth)
	}
	if f.channels < f.baseChannels() {
		return errorf("header: %d channels for %s (at least %d needed)", f.channels, f.Mode, f.baseChannels())
	}

	// Colour mode data: only indexed and duotone files have any; an
	// indexed file's is its palette, 256 reds, then greens, then blues.
	c.what = "colour mode data"
	if n := int64(c.u32()); f.Mode == Indexed && c.err == nil {
		if n != 768 {
			return errorf("colour mode data: an indexed file's palette of %d bytes (768 expected)", n)
		}
		f.palette = c.bytes(n)
	} else {
		c.skip(n)
	}
	// Image resources: only the alpha channels' identifiers matter, to
	// tell the merged image's transparency from saved selections.
	c.what = "image resources"
	d.resources(c.sub(int64(c.u32()), "image resources"))
	c.what = "layer and mask information"
	n := c.length(f.PSB)
	lm := c.sub(n, "layer and mask information")
	f.merged = c.pos
	if c.err != nil {
		return c.err
	}
	if err := d.layerAndMask(lm); err != nil {
		return err
	}
	if err := d.buildTree(); err != nil {
		return err
	}
	d.checkPatterns()
	return d.attachFilterMasks()
}

// checkPatterns names, on each layer, the pattern overlays and pattern
// fills whose pattern the file does not hold (or kino cannot read): the
// patterns come after the layers, so this waits for them.
func (d *decoder) checkPatterns() {
	for _, l := range d.records {
		if p := l.FillPattern; p != nil && d.f.Pattern(p.Pattern) == nil {
			l.FillPattern = nil
			d.note(l, "pattern fill")
		}
		if e := l.Effects; e != nil {
			kept := e.PatternOverlays[:0]
			for _, o := range e.PatternOverlays {
				if d.f.Pattern(o.Fill.Pattern) != nil {
					kept = append(kept, o)
				} else {
					d.note(l, "layer effect: pattern overlay (its pattern is not in the file, or not readable)")
				}
			}
			e.PatternOverlays = kept
			for i, s := range e.Strokes {
				if s.Pattern != nil && d.f.Pattern(s.Pattern.Pattern) == nil {
					e.Strokes[i].Pattern = nil
					d.note(l, "layer effect: stroke in a pattern (its pattern is not in the file, or not readable; drawn in its colour)")
				}
			}
		}
	}
}

// resources reads the image resource blocks, keeping the alpha
// identifiers (1053).
func (d *decoder) resources(c *cursor) {
	for c.left() >= 12 && c.err == nil {
		if c.sig() != "8BIM" {
			return // unknown signature: the rest is not needed to draw
		}
		id := c.u16()
		c.pascal(2)
		n := int64(c.u32())
		rc := c.sub(n, "image resource")
		if n%2 != 0 && c.left() > 0 {
			c.skip(1)
		}
		if id == 1037 && rc.err == nil && rc.left() >= 4 {
			if a := int32(rc.u32()); rc.err == nil && a >= -360 && a <= 360 {
				d.f.globalAngle = float64(a)
			}
		}
		if id == 1039 && d.f.Mode == CMYK && rc.err == nil && rc.left() <= maxProfileBytes {
			// The ICC profile; a larger one is not read (the naive
			// conversion is used).
			d.f.profile = parseCMYKProfile(rc.bytes(rc.left()))
		}
		if id == 1047 && rc.err == nil && rc.left() >= 2 {
			// An indexed file's transparent colour.
			d.f.transparentIndex = int(rc.u16())
		}
		if id == 1053 && rc.err == nil && rc.left()/4 <= 56 {
			d.f.alphaIDs = make([]uint32, rc.left()/4)
			for i := range d.f.alphaIDs {
				d.f.alphaIDs[i] = rc.u32()
			}
		}
	}
}

// mergedAlpha returns the merged image's transparency channel, or -1.
// Photoshop names each extra channel by an identifier; 0 is transparency
// and saved selections have others. Without identifiers, or with a
// "merged transparency" block, the first extra channel is transparency.
func (f *File) mergedAlpha() int {
	base := f.baseChannels()
	if f.channels <= base {
		return -1
	}
	if f.mergedTransparency {
		return base
	}
	if len(f.alphaIDs) == 0 {
		if f.Mode == CMYK {
			// A CMYK file's extra channels are more often spot inks
			// (psd-tools' cmyk-spot.psd: three, no identifiers) than
			// transparency, which an Mtrn block would have marked.
			return -1
		}
		return base
	}
	for i, id := range f.alphaIDs {
		if id == 0 {
			if at := f.channels - len(f.alphaIDs) + i; at >= base && at < f.channels {
				return at
			}
		}
	}
	return -1
}

func (f *File) baseChannels() int {
	switch f.Mode {
	case Grayscale, Indexed, Bitmap:
		return 1
	case CMYK:
		return 4
	}
	return 3
}

func (d *decoder) layerAndMask(c *cursor) error {
	if c.left() == 0 {
		return c.err
	}
	n := c.length(d.f.PSB)
	li := c.sub(n, "layer info")
	if n%2 != 0 && c.left() > 0 {
		c.skip(1)
	}
	if c.err != nil {
		return c.err
	}
	if n > 0 {
		if err := d.layerInfo(li); err != nil {
			return err
		}
	}
	if c.left() >= 4 {
		c.what = "global layer mask info"
		c.skip(int64(c.u32()))
	}
	if c.err != nil {
		return c.err
	}
	// Additional layer information: 16- and 32-bit files keep their layers
	// here (Lr16, Lr32), and linked smart-object files are here too.
	return d.taggedBlocks(c, nil, "global additional layer information")
}

// layerInfo reads a layer count, the layer records and the place of each
// channel's data.
func (d *decoder) layerInfo(c *cursor) error {
	if len(d.records) > 0 {
		// Layers appear once; a second layer info (Lr16 besides Layr) is
		// ignored rather than merged.
		return nil
	}
	count := int(c.i16())
	if count < 0 {
		count = -count
	}
	if c.err != nil {
		return c.err
	}
	if count > d.lim.MaxLayers {
		return errorf("layer info: %d layers is over the limit of %d", count, d.lim.MaxLayers)
	}
	// A record takes at least 34 bytes; refuse a count the section cannot
	// hold before allocating for it.
	if int64(count)*34 > c.left() {
		return errorf("layer info: %d layers cannot fit in its %d bytes", count, c.left())
	}
	layers := make([]*Layer, count)
	for i := range layers {
		l, err := d.layerRecord(c, i)
		if err != nil {
			return err
		}
		layers[i] = l
	}
	// Every layer and mask is decoded whole when drawn, and a render holds
	// them all: their pixels together are bounded too, or 2,000 layers of
	// a deflated nothing each would cost MaxPixels apiece. A fill covers
	// the canvas: it is blended over every pixel of it, so it counts the
	// canvas (2,000 fills of a 50-megapixel canvas, a few KB of records,
	// would take minutes to draw).
	for _, l := range layers {
		d.pixels += l.pixels()
		if d.pixels > maxTotalPixels*d.lim.MaxPixels {
			return l.errorf("layers, masks and fills up to this one hold %d pixels, over the limit of %d (%d times the pixel limit)", d.pixels, maxTotalPixels*d.lim.MaxPixels, maxTotalPixels)
		}
	}
	// Channel image data follows the records, layer after layer.
	pos := c.pos
	for _, l := range layers {
		for j := range l.channels {
			ch := &l.channels[j]
			if ch.length < 2 || ch.length > c.end-pos {
				return l.errorf("channel %d: its %d bytes run past the layer info section", ch.id, ch.length)
			}
			ch.off = pos
			pos += ch.length
		}
	}
	d.records = layers
	d.f.pixels = d.pixels
	return nil
}

// pixels is what the layer's record declares: its rectangle's pixels,
// its mask's, the canvas for a fill, and for a smart object the part of
// the canvas its quad's box covers (a design drawn into it is a picture
// that large, however small its own pixels: 2,000 smart objects of one
// name, each a pixel of its own, would take a design each, a canvas each).
func (l *Layer) pixels() int64 {
	n := int64(l.Rect.Dx()) * int64(l.Rect.Dy())
	canvas := image.Rect(0, 0, l.f.Width, l.f.Height)
	if l.Kind == KindFill {
		n += int64(canvas.Dx()) * int64(canvas.Dy())
	}
	if p := l.Placed; p != nil {
		lo, hi := p.NonAffine[0], p.NonAffine[0]
		for _, q := range p.NonAffine[1:] {
			lo.X, lo.Y = math.Min(lo.X, q.X), math.Min(lo.Y, q.Y)
			hi.X, hi.Y = math.Max(hi.X, q.X), math.Max(hi.Y, q.Y)
		}
		// Within ±1e7 (Placed.check): the conversions are exact.
		box := image.Rect(int(math.Floor(lo.X)), int(math.Floor(lo.Y)), int(math.Ceil(hi.X)), int(math.Ceil(hi.Y))).Intersect(canvas)
		n += int64(box.Dx()) * int64(box.Dy())
	}
	if l.Mask != nil {
		n += int64(l.Mask.Rect.Dx()) * int64(l.Mask.Rect.Dy())
	}
	// A shape without pixels is drawn from its path over this box.
	pr := l.PathRect()
	return n + int64(pr.Dx())*int64(pr.Dy())
}

// errorf names the layer in an error: `layer 3 "Shadow": ...`.
func (l *Layer) errorf(format string, args ...any) error {
	return errorf("layer %d %q: %s", l.Index, l.Name, errorf(format, args...))
}

type channelInfo struct {
	id     int16
	length int64 // compression tag included
	off    int64 // file offset of the compression tag
	rect   image.Rectangle
}

func (d *decoder) layerRecord(c *cursor, index int) (*Layer, error) {
	f := d.f
	l := &Layer{f: f, Index: index, Visible: true, FillOpacity: 255}
	c.what = fmt.Sprintf("layer %d record", index)
	top, left, bottom, right := c.i32(), c.i32(), c.i32(), c.i32()
	nch := int(c.u16())
	if c.err != nil {
		return nil, c.err
	}
	if nch > 56 {
		return nil, l.errorf("%d channels (56 at most)", nch)
	}
	l.channels = make([]channelInfo, nch)
	for i := range l.channels {
		l.channels[i].id = c.i16()
		l.channels[i].length = c.length(f.PSB)
	}
	if s := c.sig(); s != "8BIM" && c.err == nil {
		return nil, l.errorf("blend mode signature %q (8BIM expected)", s)
	}
	l.Blend = blendMode(c.sig())
	l.Opacity = c.u8()
	l.Clipped = c.u8() == 1
	flags := c.u8()
	l.Visible = flags&2 == 0
	c.skip(1)
	extra := c.sub(int64(c.u32()), fmt.Sprintf("layer %d extra data", index))
	if c.err != nil {
		return nil, c.err
	}
	if err := d.layerExtra(l, extra); err != nil {
		return nil, err
	}
	// Rectangles are checked once the name is known, for the message.
	rect, err := d.rect(l, "bounds", top, left, bottom, right)
	if err != nil {
		return nil, err
	}
	l.Rect = rect
	for i := range l.channels {
		l.channels[i].rect = rect
	}
	if m := l.Mask; m != nil {
		if m.Rect, err = d.rect(l, "mask bounds", m.raw[0], m.raw[1], m.raw[2], m.raw[3]); err != nil {
			return nil, err
		}
	}
	d.vectorNotes(l)
	return l, nil
}

func (d *decoder) rect(l *Layer, what string, top, left, bottom, right int32) (image.Rectangle, error) {
	const far = 1 << 30
	if top < -far || left < -far || bottom > far || right > far || top > far || left > far || bottom < -far || right < -far {
		return image.Rectangle{}, l.errorf("%s (%d,%d)-(%d,%d) lies too far off the canvas", what, left, top, right, bottom)
	}
	if bottom < top || right < left {
		// Photoshop writes an empty layer's bounds so at times
		// (psd-tools' vector-mask2.psd: (0,0)-(0,-1)): no pixels.
		return image.Rectangle{Min: image.Pt(int(left), int(top)), Max: image.Pt(int(left), int(top))}, nil
	}
	if err := d.checkPixels(fmt.Sprintf("layer %d %q: %s", l.Index, l.Name, what), int64(right)-int64(left), int64(bottom)-int64(top)); err != nil {
		return image.Rectangle{}, err
	}
	return image.Rect(int(left), int(top), int(right), int(bottom)), nil
}

func (d *decoder) layerExtra(l *Layer, c *cursor) error {
	// Layer mask data.
	mc := c.sub(int64(c.u32()), c.what+": mask data")
	if c.err != nil {
		return c.err
	}
	if mc.left() >= 18 {
		var m Mask
		t, lf, b, r := mc.i32(), mc.i32(), mc.i32(), mc.i32()
		m.DefaultColor = mc.u8()
		flags := mc.u8()
		m.Relative, m.Disabled = flags&1 != 0, flags&2 != 0
		if mc.left() >= 18 {
			// A real user mask: the pixel mask when a vector mask
			// (described above) is there too; its data is channel -3.
			rflags := mc.u8()
			m.DefaultColor = mc.u8()
			t, lf, b, r = mc.i32(), mc.i32(), mc.i32(), mc.i32()
			m.Relative, m.Disabled = rflags&1 != 0, rflags&2 != 0
			m.real = true
		}
		m.userDensity, m.vectorDensity = 255, 255
		if flags&16 != 0 && mc.left() >= 1 {
			// Mask parameters: the densities and feathers of the masks
			// panel, user mask then vector mask.
			p := mc.u8()
			if p&1 != 0 {
				m.userDensity = mc.u8()
			}
			if p&2 != 0 && mc.f64() > 0 {
				m.feather = true
			}
			if p&4 != 0 {
				m.vectorDensity = mc.u8()
			}
			if p&8 != 0 && mc.f64() > 0 {
				m.feather = true
			}
			mc.err = nil // parameters cut short keep what was read
		}
		if mc.err != nil {
			return mc.err
		}
		m.raw = [4]int32{t, lf, b, r}
		l.Mask = &m
	}
	// Blending ranges ("Blend If"): 0-0-255-255 everywhere is off.
	br := c.sub(int64(c.u32()), c.what+": blending ranges")
	for br.left() >= 4 {
		if v := br.u32(); v != 0x0000ffff {
			l.blendIf = true
		}
	}
	l.Name = c.pascal(4)
	if c.err != nil {
		return c.err
	}
	return d.taggedBlocks(c, l, c.what)
}

// attachMask ties the mask to its channel, or drops it when the layer has
// no channel for it (a vector mask alone).
func (l *Layer) attachMask() {
	m := l.Mask
	if m == nil {
		return
	}
	want := int16(-2)
	if m.real {
		want = -3
	}
	m.ch = -1
	for i := range l.channels {
		if l.channels[i].id == want {
			m.ch = i
		}
	}
	if m.ch < 0 && m.real {
		// Some writers store the real mask's pixels as -2.
		for i := range l.channels {
			if l.channels[i].id == -2 {
				m.ch = i
			}
		}
	}
	if m.ch < 0 {
		l.Mask = nil
		return
	}
	l.channels[m.ch].rect = m.Rect
	m.l = l
}

// buildTree nests the records between their section dividers: Photoshop
// stores a group as an end marker (type 3) below its children and the
// group's own record (type 1 or 2) above them.
func (d *decoder) buildTree() error {
	type frame struct {
		layers []*Layer
	}
	stack := []*frame{{}}
	for _, l := range d.records {
		l.attachMask()
		d.pathMask(l)
		switch l.divider {
		case 3:
			stack = append(stack, &frame{})
			if len(stack) > maxGroupDepth+1 {
				return l.errorf("groups nested more than %d deep", maxGroupDepth)
			}
		case 1, 2:
			if len(stack) == 1 {
				return l.errorf("a group with no end marker below it")
			}
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			l.Kind = KindGroup
			l.Children = top.layers
			l.Rect = image.Rectangle{}
			parent := stack[len(stack)-1]
			parent.layers = append(parent.layers, l)
		default:
			parent := stack[len(stack)-1]
			parent.layers = append(parent.layers, l)
		}
	}
	if len(stack) != 1 {
		// An end marker without its group: keep its layers at top level
		// rather than refuse a file Photoshop opens.
		for len(stack) > 1 {
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			stack[len(stack)-1].layers = append(stack[len(stack)-1].layers, top.layers...)
		}
	}
	d.f.Layers = stack[0].layers
	// A path repeats its groups' names: 16 groups of 1 MB names over
	// 2,000 layers would be 32 GB of paths from a 16 MB file. Their
	// lengths are summed before any is made.
	if n := pathBytes(d.f.Layers, 0); n > maxPathBytes {
		return errorf("layer paths (group names repeated in each layer's path) would take %d bytes, over the limit of %d", n, maxPathBytes)
	}
	setPaths(d.f.Layers, "")
	return nil
}

// maxPathBytes bounds the layer paths of a file, in all.
const maxPathBytes = 16 << 20

// pathBytes is the length of the paths of ls and their descendants, under
// a prefix of n bytes; it stops counting past maxPathBytes.
func pathBytes(ls []*Layer, n int64) int64 {
	var total int64
	for _, l := range ls {
		p := n + int64(len(l.Name))
		total += p
		if len(l.Children) > 0 {
			total += pathBytes(l.Children, p+1)
		}
		if total > maxPathBytes {
			return total
		}
	}
	return total
}

func setPaths(ls []*Layer, prefix string) {
	for _, l := range ls {
		l.Path = prefix + l.Name
		setPaths(l.Children, l.Path+"/")
	}
}

//nolint:gochecknoglobals // read-only table: PSD blend mode keys
var blendModes = map[string]BlendMode{
	"pass": "pass through", "norm": "normal", "diss": "dissolve", "dark": "darken",
	"mul ": "multiply", "idiv": "color burn", "lbrn": "linear burn", "dkCl": "darker color",
	"lite": "lighten", "scrn": "screen", "div ": "color dodge", "lddg": "linear dodge",
	"lgCl": "lighter color", "over": "overlay", "sLit": "soft light", "hLit": "hard light",
	"vLit": "vivid light", "lLit": "linear light", "pLit": "pin light", "hMix": "hard mix",
	"diff": "difference", "smud": "exclusion", "fsub": "subtract", "fdiv": "divide",
	"hue ": "hue", "sat ": "saturation", "colr": "color", "lum ": "luminosity",
}

func blendMode(key string) BlendMode {
	if m, ok := blendModes[key]; ok {
		return m
	}
	return BlendMode("key:" + key)
}
