package psd

import (
	"fmt"
	"image"
	"strings"
)

// maxFilterEffects bounds the entries of a filter effects block: one per
// smart object with filters; a hostile file's thousands are not looked at.
const maxFilterEffects = 1024

// filterMaskData is where a smart object's filter mask lies in the file:
// the last part of its entry in the file's filter effects block.
type filterMaskData struct {
	rect  image.Rectangle
	depth int
	comp  uint16
	data  *cursor // the compressed samples, after the compression
}

// FilterMask is a smart object's filter mask painted (not uniformly white):
// where it is black the smart filters are not applied, where it is grey
// they are mixed over the unfiltered picture in that proportion.
type FilterMask struct {
	// Image is the mask in canvas coordinates (its Rect).
	Image *image.Gray
	// Outside is the mask's value outside Image's Rect.
	Outside uint8
}

// filterEffects reads a filter effects block (FXid, FEid: global). Photoshop
// keeps there, for each smart object with filters (by the instance id of
// its placed-layer descriptor, "placed"), its filtered pixels as channels
// (kino does not need them: the layer's own pixels hold the same) and, at
// the end, the filter mask: a rectangle and its samples. Only where the
// mask lies is noted here; it is decoded later, for the smart objects
// whose filters kino draws.
func (d *decoder) filterEffects(c *cursor) {
	if v := c.u32(); v < 1 || v > 3 {
		return
	}
	for i := 0; c.left() >= 8 && c.err == nil; i++ {
		n := int64(c.u64())
		if n < 0 || n > c.left() {
			return
		}
		e := c.sub(n, "filter effects")
		if n%4 != 0 {
			c.skip(min(4-n%4, c.left()))
		}
		if i >= maxFilterEffects {
			continue
		}
		id := strings.TrimRight(e.pascal(1), "\x00")
		e.u32() // version
		body := e.sub(int64(min(e.u64(), uint64(e.left()))), "filter effects")
		body.skip(16) // the channels' rectangle
		depth := int(body.u32())
		if e.u8() == 0 || e.err != nil || body.err != nil {
			continue // no mask written
		}
		t, l, b, r := e.i32(), e.i32(), e.i32(), e.i32()
		m := e.sub(int64(min(e.u64(), uint64(e.left()))), "filter mask")
		fm := &filterMaskData{rect: image.Rect(int(l), int(t), int(r), int(b)), depth: depth, comp: m.u16(), data: m}
		if e.err != nil || m.err != nil || t > b || l > r {
			continue
		}
		if d.filterMasks == nil {
			d.filterMasks = map[string]*filterMaskData{}
		}
		d.filterMasks[id] = fm
	}
}

// attachFilterMasks gives each smart object whose filters kino draws its
// filter mask when the mask is switched on and painted. One kino cannot
// read is named in the layer's Unsupported: its filters are drawn over
// the whole design. Smart objects naming one mask share one decoding of
// it, and the masks decoded count with the layers and masks against
// maxTotalPixels: 2,000 smart objects naming one large mask, a few hundred
// KB of records, would otherwise hold it 2,000 times.
func (d *decoder) attachFilterMasks() error {
	type use struct {
		fm           *filterMaskData
		outsideWhite bool
	}
	decoded := map[use]*FilterMask{}
	failed := map[use]bool{}
	for _, l := range d.records {
		p := l.Placed
		if p == nil || len(p.Filters) == 0 || !p.maskOn {
			continue
		}
		u := use{d.filterMasks[p.instance], p.maskOutsideWhite}
		if u.fm == nil {
			continue
		}
		m, seen := decoded[u]
		if !seen && !failed[u] {
			d.pixels += int64(u.fm.rect.Dx()) * int64(u.fm.rect.Dy())
			if d.pixels > maxTotalPixels*d.lim.MaxPixels {
				return l.errorf("layers, masks and filter masks hold %d pixels, over the limit of %d (%d times the pixel limit)", d.pixels, maxTotalPixels*d.lim.MaxPixels, maxTotalPixels)
			}
			var err error
			if m, err = d.filterMask(u.fm, u.outsideWhite); err != nil {
				failed[u] = true
			} else {
				decoded[u] = m
			}
		}
		if failed[u] {
			d.note(l, "smart filter: mask (the filters drawn over the whole design)")
			continue
		}
		p.FilterMask = m
	}
	d.f.pixels = d.pixels // the masks are held with the file
	return nil
}

// filterMask decodes a filter mask; nil when it is uniformly white (the
// filters apply everywhere, as without a mask). Photoshop stores its RLE
// row counts in 4 bytes, PSD or PSB.
func (d *decoder) filterMask(fm *filterMaskData, outsideWhite bool) (*FilterMask, error) {
	w, h := fm.rect.Dx(), fm.rect.Dy()
	if fm.depth != 8 && fm.depth != 16 && fm.depth != 32 {
		return nil, fmt.Errorf("filter mask: depth %d", fm.depth)
	}
	if err := d.checkPixels("filter mask", int64(w), int64(h)); err != nil {
		return nil, err
	}
	out := &FilterMask{Image: image.NewGray(fm.rect)}
	if outsideWhite {
		out.Outside = 255
	}
	if w > 0 && h > 0 {
		f := &File{r: d.f.r, Depth: fm.depth, PSB: true}
		if need := minBytes(fm.comp, f.rowBytes(w), h, 4); fm.comp > compZIPPredict || need > fm.data.left() {
			return nil, fmt.Errorf("filter mask: %d bytes cannot hold %dx%d samples", fm.data.left(), w, h)
		}
		c := *fm.data // a copy: decoding moves it, and it may be decoded again
		if err := f.planeDepth(&c, fm.comp, nil, w, h, out.Image.Pix, 0, 1, fm.depth/8, false); err != nil {
			return nil, fmt.Errorf("filter mask: %w", err)
		}
	}
	covers := fm.rect.Intersect(image.Rect(0, 0, d.f.Width, d.f.Height)) == image.Rect(0, 0, d.f.Width, d.f.Height)
	if out.Outside != 255 && !covers {
		return out, nil
	}
	for _, v := range out.Image.Pix {
		if v != 255 {
			return out, nil
		}
	}
	return nil, nil
}
