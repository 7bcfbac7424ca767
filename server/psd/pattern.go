package psd

import (
	"encoding/binary"
	"image"
	"strings"
)

// Pattern is a pattern the file embeds (the Patt, Pat2 and Pat3 blocks),
// as pattern overlays and pattern fills name it by ID. Its pixels are
// decoded on demand by Image.
type Pattern struct {
	ID, Name string
	// Width and Height are its size in pixels.
	Width, Height int

	f       *File
	mode    uint32
	palette []byte // an indexed pattern's 256 RGB entries
	planes  []patternPlane
}

// patternPlane is one channel of a pattern as its virtual memory array
// stores it: where its data lies in the file, compressed how.
type patternPlane struct {
	index    int // channel index in the array list; colour channels first
	off, end int64
	comp     uint8
	bpc      int // bytes a sample: 1 or 2
}

// maxPatterns bounds the patterns a file may embed: Photoshop writes
// those its layers use, a few dozen when a whole library is attached.
const maxPatterns = 1000

// maxPatternSide bounds a pattern's width and height: Photoshop's own
// limit on a pattern (patterns are defined from a selection of at most
// 30000 pixels a side, like a PSD's canvas).
const maxPatternSide = 30000

// Pattern is the embedded pattern of that ID, nil when the file has
// none of it (or it could not be read).
func (f *File) Pattern(id string) *Pattern {
	return f.patterns[strings.TrimRight(id, "\x00")]
}

// patterns reads a Patt, Pat2 or Pat3 block: patterns one after another,
// each a length-prefixed record padded to 4 bytes. A pattern kino cannot
// read (a colour mode it does not draw, a damaged record) is skipped: an
// effect naming it is then reported as not drawn.
func (d *decoder) patterns(c *cursor) {
	for c.left() >= 4 && d.patternsRead < maxPatterns {
		d.patternsRead++
		n := int64(c.u32())
		rc := c.sub(n, "pattern")
		if pad := (4 - n%4) % 4; pad > 0 {
			c.skip(min(pad, c.left()))
		}
		if c.err != nil {
			return
		}
		if p := d.pattern(rc); p != nil && d.f.patterns[p.ID] == nil {
			if d.f.patterns == nil {
				d.f.patterns = map[string]*Pattern{}
			}
			d.f.patterns[p.ID] = p // the first of an ID, as Photoshop would find it
		}
	}
}

// pattern reads one pattern record; nil when it is not one kino draws.
func (d *decoder) pattern(c *cursor) *Pattern {
	if c.u32() != 1 { // version
		return nil
	}
	p := &Pattern{f: d.f, mode: c.u32()}
	c.skip(4) // its size again, as two 16-bit numbers
	p.Name = strings.TrimRight(c.unicode(), "\x00")
	p.ID = strings.TrimRight(c.pascal(1), "\x00")
	if p.mode == uint32(Indexed) {
		p.palette = c.bytes(3 * 256)
		c.skip(4)
	}
	if c.err != nil || (p.mode != uint32(RGB) && p.mode != uint32(Grayscale) && p.mode != uint32(Indexed)) {
		return nil
	}
	// The virtual memory array list: version 3, then one length-prefixed
	// body holding the rectangle and the channels.
	if c.u32() != 3 {
		return nil
	}
	body := c.sub(int64(c.u32()), "pattern data")
	top, left, bottom, right := body.i32(), body.i32(), body.i32(), body.i32()
	count := body.u32()
	w, h := int64(right)-int64(left), int64(bottom)-int64(top)
	if body.err != nil || w <= 0 || h <= 0 || w > maxPatternSide || h > maxPatternSide || d.checkPixels("pattern", w, h) != nil || count > 56 {
		return nil
	}
	p.Width, p.Height = int(w), int(h)
	// The colour channels, then a user mask and a sheet mask (the
	// pattern's transparency, when it has one).
	for i := 0; i < int(count)+2 && body.left() >= 4; i++ {
		if body.u32() == 0 { // not written
			continue
		}
		n := int64(body.u32())
		if n == 0 {
			continue
		}
		vc := body.sub(n, "pattern channel")
		depth := vc.u32()
		ct, cl, cb, cr := vc.i32(), vc.i32(), vc.i32(), vc.i32()
		vc.u16() // the depth again
		comp := vc.u8()
		if vc.err != nil || body.err != nil {
			return nil
		}
		if ct != top || cl != left || cb != bottom || cr != right || (depth != 8 && depth != 16) || comp > compZIPPredict {
			return nil // a channel that does not cover the pattern: not drawn
		}
		pl := patternPlane{index: i, off: vc.pos, end: vc.end, comp: comp, bpc: int(depth / 8)}
		if minBytes(uint16(comp), p.Width*pl.bpc, p.Height, 2) > pl.end-pl.off {
			return nil
		}
		p.planes = append(p.planes, pl)
	}
	if len(p.planes) < p.colours() {
		return nil
	}
	return p
}

// colours is how many colour channels the pattern's mode has.
func (p *Pattern) colours() int {
	if p.mode == uint32(RGB) {
		return 3
	}
	return 1
}

// Image decodes the pattern: Width x Height from (0, 0), opaque unless
// the pattern stores a transparency.
func (p *Pattern) Image() (*image.NRGBA, error) {
	img := image.NewNRGBA(image.Rect(0, 0, p.Width, p.Height))
	k := p.colours()
	alpha := false
	for i, pl := range p.planes {
		at := i
		switch {
		case i < k:
		case i == len(p.planes)-1:
			// The last written channel past the colours: the sheet mask,
			// the pattern's transparency.
			at, alpha = 3, true
		default:
			continue
		}
		if err := p.plane(pl, img.Pix, at); err != nil {
			return nil, errorf("pattern %q: %v", p.Name, err)
		}
	}
	for i := 0; i+4 <= len(img.Pix); i += 4 {
		px := img.Pix[i : i+4 : i+4]
		switch p.mode {
		case uint32(Grayscale):
			px[1], px[2] = px[0], px[0]
		case uint32(Indexed):
			e := int(px[0]) * 3
			if e+3 <= len(p.palette) {
				px[0], px[1], px[2] = p.palette[e], p.palette[e+1], p.palette[e+2]
			}
		}
		if !alpha {
			px[3] = 255
		}
	}
	return img, nil
}

// plane decodes one channel into dst, a sample every 4 bytes from at.
func (p *Pattern) plane(pl patternPlane, dst []byte, at int) error {
	c := newCursor(p.f.r.r, pl.off, pl.end, "pattern channel")
	var counts []uint32
	if pl.comp == compRLE {
		// Row counts are 2 bytes here, in a PSB too.
		if int64(p.Height)*2 > c.left() {
			return errorf("RLE row counts run past the data")
		}
		raw := c.bytes(int64(p.Height) * 2)
		counts = make([]uint32, p.Height)
		for i := range counts {
			counts[i] = uint32(binary.BigEndian.Uint16(raw[2*i:]))
		}
	}
	// Rows at the pattern's depth, not the file's: an 8-bit pattern's rows
	// read at 16 bits ran past the picture.
	f := &File{r: p.f.r, Depth: 8 * pl.bpc, PSB: p.f.PSB}
	return f.planeDepth(c, uint16(pl.comp), counts, p.Width, p.Height, dst, at, 4, pl.bpc, at < 3)
}
