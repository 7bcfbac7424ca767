package psd

import (
	"compress/zlib"
	"encoding/binary"
	"image"
	"io"
	"math"
)

// Channel compressions.
const (
	compRaw        = 0
	compRLE        = 1
	compZIP        = 2
	compZIPPredict = 3
)

// Image decodes the layer's pixels: Rect-sized (Bounds() is Rect),
// non-premultiplied, opaque where the layer has no transparency channel.
// A group or an empty layer gives an empty image. A CMYK layer's colour
// is converted to RGB (cmykToRGB).
func (l *Layer) Image() (*image.NRGBA, error) {
	w, h := l.Rect.Dx(), l.Rect.Dy()
	if w == 0 || h == 0 || l.Kind == KindGroup {
		return image.NewNRGBA(l.Rect), nil
	}
	grey, cmyk := l.f.oneChannel(), l.f.Mode == CMYK
	alpha := false
	dsts := make([]int, len(l.channels)) // byte offset in each pixel, -1 to skip
	for i := range l.channels {
		ch := &l.channels[i]
		switch {
		case ch.id == -1:
			dsts[i] = 3
			alpha = true
		case ch.id >= 0 && ch.id < 3 && !grey:
			dsts[i] = int(ch.id)
		case ch.id == 3 && cmyk:
			dsts[i] = blackPlane
		case ch.id == 0 && grey:
			dsts[i] = 0
		default:
			dsts[i] = -1 // masks and extra channels
			continue
		}
		if err := l.f.checkChannel(ch, w, h); err != nil {
			return nil, l.errorf("channel %d: %v", ch.id, err)
		}
	}
	img := image.NewNRGBA(l.Rect)
	var black []byte
	if cmyk {
		// K apart, one byte a pixel; no ink (255 stored) where absent.
		black = make([]byte, w*h)
		for i := range black {
			black[i] = 255
		}
	}
	for i := range l.channels {
		if dsts[i] < 0 {
			continue
		}
		ch := &l.channels[i]
		var err error
		if dsts[i] == blackPlane {
			err = l.f.channel(ch, w, h, black, 0, 1, true)
		} else {
			err = l.f.channel(ch, w, h, img.Pix, dsts[i], 4, dsts[i] < 3)
		}
		if err != nil {
			return nil, l.errorf("channel %d: %v", ch.id, err)
		}
	}
	toRGB := l.f.cmykConverter()
	lab := l.f.Mode == Lab
	if grey || !alpha || cmyk || lab {
		for i := 0; i+4 <= len(img.Pix); i += 4 {
			p := img.Pix[i : i+4 : i+4]
			if grey {
				l.f.spread(p)
			}
			if cmyk {
				toRGB(p, black[i/4])
			}
			if lab {
				labPixelToRGB(p)
			}
			if !alpha {
				p[3] = 255
			}
		}
	}
	return img, nil
}

// cmykConverter is how this file's CMYK pixels become RGB: through its
// ICC profile when it has one kino reads (cmykProfile), else naively
// (cmykToRGB).
func (f *File) cmykConverter() func(p []byte, k byte) {
	if f.profile == nil {
		return cmykToRGB
	}
	return func(p []byte, k byte) {
		v := f.profile.rgb(p[0], p[1], p[2], k)
		p[0], p[1], p[2] = v[0], v[1], v[2]
	}
}

// oneChannel says whether the file's colour is one channel: grey, a
// palette index, or bits.
func (f *File) oneChannel() bool {
	return f.Mode == Grayscale || f.Mode == Indexed || f.Mode == Bitmap
}

// spread makes RGB of the one channel decoded into p[0]: grey (a bitmap's
// bits decode to grey 0 or 255) or a palette index, whose transparent
// colour clears the alpha.
func (f *File) spread(p []byte) {
	if f.Mode != Indexed {
		p[1], p[2] = p[0], p[0]
		return
	}
	i := int(p[0])
	p[0], p[1], p[2] = f.palette[i], f.palette[256+i], f.palette[512+i]
	if i == f.transparentIndex {
		p[3] = 0
	}
}

// labPixelToRGB turns p's first three bytes, L, a and b as a Lab file stores
// them (L 0..255 for 0..100, a and b offset by 128), into sRGB: Lab is
// under D50, adapted to sRGB's D65 by the Bradford matrix (xyzToSRGB).
func labPixelToRGB(p []byte) {
	v := xyzToSRGB(labToXYZ([3]float64{float64(p[0]) * 100 / 255, float64(p[1]) - 128, float64(p[2]) - 128}))
	p[0], p[1], p[2] = toneMap(float32(v[0])), toneMap(float32(v[1])), toneMap(float32(v[2]))
}

// blackPlane marks, among a pixel's byte offsets, a CMYK file's K
// channel, decoded to a plane of its own.
const blackPlane = 4

// cmykToRGB turns p's first three bytes, C, M and Y as a CMYK file stores
// them (inverted: 255 is no ink), and k, K stored so, into RGB: each
// colour is its ink's absence times black's, (1-c)(1-k). It is the
// conversion psd-tools (through Pillow) and ag-psd make; kino makes it
// only for a file without an ICC profile it reads (cmykProfile), and for
// the CMYK colours of descriptors and lrFX blocks, which are read apart
// from the file's pixels. It is brighter and more saturated than
// Photoshop shows (20 to 25 dB against Photoshop's exports).
func cmykToRGB(p []byte, k byte) {
	for c := 0; c < 3; c++ {
		p[c] = uint8((int(p[c])*int(k) + 127) / 255)
	}
}

// OfPath says the mask is the rendering of the layer's vector mask that
// Photoshop keeps in the mask channel when the layer has no user mask
// beside it, not a mask the user painted.
func (m *Mask) OfPath() bool { return !m.real && m.l != nil && m.l.Vector != nil }

// Image decodes the mask: Rect-sized; outside Rect its value is
// DefaultColor.
func (m *Mask) Image() (*image.Gray, error) {
	if m.Rect.Empty() {
		return image.NewGray(m.Rect), nil
	}
	ch := &m.l.channels[m.ch]
	if err := m.l.f.checkChannel(ch, m.Rect.Dx(), m.Rect.Dy()); err != nil {
		return nil, m.l.errorf("mask channel %d: %v", ch.id, err)
	}
	img := image.NewGray(m.Rect)
	if err := m.l.f.channel(ch, m.Rect.Dx(), m.Rect.Dy(), img.Pix, 0, 1, false); err != nil {
		return nil, m.l.errorf("mask channel %d: %v", ch.id, err)
	}
	if m.density < 255 {
		for i, v := range img.Pix {
			img.Pix[i] = applyDensity(v, m.density)
		}
	}
	return img, nil
}

// channel decodes one layer channel of w x h into dst, one byte every
// stride bytes from offset at; colour says whether its samples are colour
// (tone-mapped from 32 bits) or coverage (transparency, masks: linear).
func (f *File) channel(ch *channelInfo, w, h int, dst []byte, at, stride int, colour bool) error {
	c := newCursor(f.r.r, ch.off, ch.off+ch.length, "channel data")
	comp := c.u16()
	if c.err != nil {
		return c.err
	}
	return f.plane(c, comp, nil, w, h, dst, at, stride, colour)
}

// plane decodes one w x h plane compressed as comp from c, into dst. For
// RLE, counts holds the rows' byte counts when they were read already (the
// merged image keeps them all in front); otherwise they are read from c.
func (f *File) plane(c *cursor, comp uint16, counts []uint32, w, h int, dst []byte, at, stride int, colour bool) error {
	return f.planeDepth(c, comp, counts, w, h, dst, at, stride, f.Depth/8, colour)
}

// planeDepth is plane for samples of bpc bytes, whatever the document's
// depth (a pattern keeps its own). colour says the plane holds a colour,
// not an alpha (a 32-bit colour is tone-mapped, its alpha is not).
func (f *File) planeDepth(c *cursor, comp uint16, counts []uint32, w, h int, dst []byte, at, stride, bpc int, colour bool) error {
	put := func(row []byte, bpc int, dst []byte, stride int) { putRow(row, bpc, dst, stride, colour) }
	rowBytes := f.rowBytes(w)
	if f.Depth == 1 {
		// A bitmap's bits: 1 is black.
		put = func(row []byte, _ int, dst []byte, stride int) {
			for x := 0; x < w; x++ {
				dst[x*stride] = 255 * (1 - row[x>>3]>>(7-x&7)&1)
			}
		}
	}
	switch comp {
	case compRaw:
		if int64(rowBytes)*int64(h) > c.left() {
			return errorf("raw data of %d bytes needs %d", c.left(), int64(rowBytes)*int64(h))
		}
		row := make([]byte, rowBytes)
		for y := 0; y < h; y++ {
			if _, err := f.r.r.ReadAt(row, c.pos); err != nil {
				return errorf("raw data: %v", err)
			}
			c.pos += int64(rowBytes)
			put(row, bpc, dst[(y*w)*stride+at:], stride)
		}
		return nil
	case compRLE:
		if counts == nil {
			var err error
			if counts, err = f.rowCounts(c, h); err != nil {
				return err
			}
		}
		var total int64
		for _, n := range counts {
			total += int64(n)
		}
		if total > c.left() {
			return errorf("RLE data runs past the layer's data (%d bytes counted, %d there)", total, c.left())
		}
		// PackBits never takes more than a byte in 128 over the raw size
		// (plus one a row): more is a lie, refused before reading it.
		if most := int64(h) * (int64(rowBytes) + int64(rowBytes)/128 + 2); total > most {
			return errorf("RLE rows count %d bytes, more than %d rows of %d bytes can take", total, h, rowBytes)
		}
		packed := make([]byte, total)
		if _, err := f.r.r.ReadAt(packed, c.pos); err != nil {
			return errorf("RLE data: %v", err)
		}
		c.pos += total
		if bpc == 1 && f.Depth == 8 {
			// Unpacked straight into the picture: no row in between.
			for y, n := range counts {
				if err := unpackBitsTo(packed[:n], dst[(y*w)*stride+at:], w, stride); err != nil {
					return errorf("row %d: %v", y, err)
				}
				packed = packed[n:]
			}
			return nil
		}
		row := make([]byte, rowBytes)
		for y, n := range counts {
			src := packed[:n]
			packed = packed[n:]
			if err := unpackBits(src, row); err != nil {
				return errorf("row %d: %v", y, err)
			}
			put(row, bpc, dst[(y*w)*stride+at:], stride)
		}
		return nil
	case compZIP, compZIPPredict:
		zr, err := zlib.NewReader(io.NewSectionReader(f.r.r, c.pos, c.left()))
		if err != nil {
			return errorf("ZIP data: %v", err)
		}
		defer zr.Close()
		// Read exactly the plane's size and no more: a stream that would
		// inflate further is never asked for it.
		row := make([]byte, rowBytes)
		var scratch []byte
		if bpc == 4 && comp == compZIPPredict {
			scratch = make([]byte, rowBytes)
		}
		for y := 0; y < h; y++ {
			if _, err := io.ReadFull(zr, row); err != nil {
				return errorf("ZIP data ends at row %d of %d: %v", y, h, err)
			}
			if comp == compZIPPredict {
				unpredict(row, bpc, scratch)
			}
			put(row, bpc, dst[(y*w)*stride+at:], stride)
		}
		// One byte more tells a stream that inflates past its plane (a
		// ZIP bomb) from an honest one, without inflating the rest.
		var one [1]byte
		if n, _ := zr.Read(one[:]); n > 0 {
			return errorf("ZIP data inflates past the %dx%d plane it encodes (a ZIP bomb or a damaged file)", w, h)
		}
		return nil
	}
	return errorf("unknown compression %d", comp)
}

func (f *File) rowCounts(c *cursor, h int) ([]uint32, error) {
	size := int64(2)
	if f.PSB {
		size = 4
	}
	if int64(h)*size > c.left() {
		return nil, errorf("RLE row counts run past the data (%d rows, %d bytes)", h, c.left())
	}
	raw := c.bytes(int64(h) * size)
	if c.err != nil {
		return nil, c.err
	}
	counts := make([]uint32, h)
	for i := range counts {
		if f.PSB {
			counts[i] = binary.BigEndian.Uint32(raw[4*i:])
		} else {
			counts[i] = uint32(binary.BigEndian.Uint16(raw[2*i:]))
		}
	}
	return counts, nil
}

// putRow writes a row of samples at 8 bits: 16-bit ones rounded, 32-bit
// floats tone-mapped when they are colour (toneMap), clamped to 0..1 and
// scaled when they are coverage.
func putRow(row []byte, bpc int, dst []byte, stride int, colour bool) {
	if bpc == 1 && stride == 4 {
		// The common case, written so the compiler checks bounds once a
		// pixel.
		for len(row) >= 4 && len(dst) >= 16 {
			d := dst[:13:13]
			d[0], d[4], d[8], d[12] = row[0], row[1], row[2], row[3]
			row, dst = row[4:], dst[16:]
		}
		for i, v := range row {
			dst[i*4] = v
		}
		return
	}
	if bpc == 1 {
		for i, v := range row {
			dst[i*stride] = v
		}
		return
	}
	if bpc == 4 {
		for i := 0; i < len(row)/4; i++ {
			v := math.Float32frombits(binary.BigEndian.Uint32(row[4*i:]))
			if colour {
				dst[i*stride] = toneMap(v)
			} else {
				dst[i*stride] = unit8(float64(v))
			}
		}
		return
	}
	for i := 0; i < len(row)/2; i++ {
		v := uint32(row[2*i])<<8 | uint32(row[2*i+1])
		dst[i*stride] = uint8((v*255 + 32767) / 65535)
	}
}

// toneMap shows a 32-bit sample, linear light with 1 for white, at 8 bits
// as Photoshop's default 32-bit preview does (exposure 0, gamma 1): through
// the sRGB curve, what is brighter than white clipped. ag-psd uses a 2.2
// power instead; they part by at most 3 levels, in the darks. It looks the
// curve up in srgbCurve: math.Pow for each sample made a 32-bit file 120
// times as slow to read as an 8-bit one.
func toneMap(v float32) uint8 {
	if !(v > 0) { // NaN too
		return 0
	}
	if v >= 1 {
		return 255
	}
	return srgbCurve[int(v*(srgbSteps-1)+0.5)]
}

// srgbSteps is the resolution of srgbCurve: a fifth of a level where the
// curve is steepest.
const srgbSteps = 1 << 14

// srgbCurve is the sRGB curve from linear light, 0..1 in srgbSteps.
//
//nolint:gochecknoglobals // read-only table, built once: 16 KB
var srgbCurve = func() (t [srgbSteps]uint8) {
	for i := range t {
		x := float64(i) / (srgbSteps - 1)
		if x <= 0.0031308 {
			x *= 12.92
		} else {
			x = 1.055*math.Pow(x, 1/2.4) - 0.055
		}
		t[i] = unit8(x)
	}
	return t
}()

// unit8 scales 0..1 to 0..255, rounding and clamping (NaN gives 0).
func unit8(x float64) uint8 {
	switch {
	case !(x > 0):
		return 0
	case x >= 1:
		return 255
	}
	return uint8(x*255 + 0.5)
}

// unpredict undoes ZIP prediction: each sample is stored as its difference
// from the one before it on the row (16-bit samples as 16-bit differences).
// A 32-bit row is stored as four planes, the samples' first bytes, then
// their second, and so on, each byte the difference from the one before
// it through all four: scratch, as long as the row, puts the samples back
// together.
func unpredict(row []byte, bpc int, scratch []byte) {
	if bpc == 4 {
		for i := 1; i < len(row); i++ {
			row[i] += row[i-1]
		}
		n := len(row) / 4
		for i := 0; i < n; i++ {
			scratch[4*i], scratch[4*i+1], scratch[4*i+2], scratch[4*i+3] = row[i], row[n+i], row[2*n+i], row[3*n+i]
		}
		copy(row, scratch)
		return
	}
	if bpc == 1 {
		for i := 1; i < len(row); i++ {
			row[i] += row[i-1]
		}
		return
	}
	for i := 2; i+1 < len(row); i += 2 {
		prev := binary.BigEndian.Uint16(row[i-2:])
		cur := binary.BigEndian.Uint16(row[i:])
		binary.BigEndian.PutUint16(row[i:], prev+cur)
	}
}

// unpackBits decodes one PackBits row into row, which it must fill
// exactly.
func unpackBits(src, row []byte) error {
	o := 0
	for i := 0; i < len(src); {
		n := int(int8(src[i]))
		i++
		switch {
		case n >= 0:
			cnt := n + 1
			if i+cnt > len(src) || o+cnt > len(row) {
				return errRLE
			}
			copy(row[o:], src[i:i+cnt])
			i += cnt
			o += cnt
		case n > -128:
			cnt := 1 - n
			if i >= len(src) || o+cnt > len(row) {
				return errRLE
			}
			b := src[i]
			i++
			for k := 0; k < cnt; k++ {
				row[o+k] = b
			}
			o += cnt
		}
	}
	if o != len(row) {
		return errorf("RLE row decodes to %d bytes, %d expected", o, len(row))
	}
	return nil
}

var errRLE = errorf("RLE row runs past its length")

// unpackBitsTo decodes one PackBits row of n 8-bit samples into dst, a
// sample every stride bytes; the row must come out exactly n long.
func unpackBitsTo(src, dst []byte, n, stride int) error {
	if n == 0 {
		if len(src) == 0 {
			return nil
		}
		return errRLE
	}
	dst = dst[:(n-1)*stride+1]
	o := 0
	for i := 0; i < len(src); {
		c := int(int8(src[i]))
		i++
		switch {
		case c >= 0:
			cnt := c + 1
			if i+cnt > len(src) || o+cnt > n {
				return errRLE
			}
			for _, v := range src[i : i+cnt] {
				dst[o*stride] = v
				o++
			}
			i += cnt
		case c > -128:
			cnt := 1 - c
			if i >= len(src) || o+cnt > n {
				return errRLE
			}
			v := src[i]
			i++
			for end := o + cnt; o < end; o++ {
				dst[o*stride] = v
			}
		}
	}
	if o != n {
		return errorf("RLE row decodes to %d bytes, %d expected", o, n)
	}
	return nil
}

// skipPlane moves c past one plane of the merged image.
func (f *File) skipPlane(c *cursor, comp uint16, counts []uint32, w, h int) error {
	var n int64
	if comp == compRaw {
		n = int64(f.rowBytes(w)) * int64(h)
	}
	for _, k := range counts {
		n += int64(k)
	}
	if n > c.left() {
		return errorf("data runs past the file (%d bytes, %d left)", n, c.left())
	}
	c.pos += n
	return nil
}

// rowBytes is the bytes of a row of w samples: a bitmap's are bits,
// rounded up to a byte.
func (f *File) rowBytes(w int) int {
	if f.Depth == 1 {
		return (w + 7) / 8
	}
	return w * (f.Depth / 8)
}

// checkChannel refuses a channel whose data is too short for its w x h
// samples, before anything is allocated for them.
func (f *File) checkChannel(ch *channelInfo, w, h int) error {
	c := newCursor(f.r.r, ch.off, ch.off+ch.length, "channel data")
	comp := c.u16()
	if c.err != nil {
		return c.err
	}
	if comp > compZIPPredict {
		return errorf("unknown compression %d", comp)
	}
	countSize := 2
	if f.PSB {
		countSize = 4
	}
	if need := minBytes(comp, f.rowBytes(w), h, countSize); need > c.left() {
		return errorf("%d bytes of data cannot hold %dx%d samples (%d needed at least)", c.left(), w, h, need)
	}
	return nil
}

// minBytes is the least data a channel of w x h samples can be stored in
// with compression comp (row counts excluded, countSize bytes a row
// included): raw needs every byte, PackBits 2 bytes per 128 of a row, and
// deflate cannot shrink more than 1032 to 1. Checking it first refuses a
// large declared size with little data behind it before any allocation.
func minBytes(comp uint16, rowBytes, h, countSize int) int64 {
	row := int64(rowBytes)
	switch comp {
	case compRaw:
		return row * int64(h)
	case compRLE:
		return int64(h) * (int64(countSize) + 2*((row+127)/128))
	case compZIP, compZIPPredict:
		return row * int64(h) / 1032
	}
	return 0
}

// Composite decodes the merged image Photoshop saved with the file
// ("maximize compatibility"); it is canvas-sized, not premultiplied. Where
// it is partly transparent, the white Photoshop flattened it on is taken
// out, as psd-tools and ag-psd do.
func (f *File) Composite() (*image.NRGBA, error) {
	w, h := f.Width, f.Height
	c := newCursor(f.r.r, f.merged, f.r.size, "merged image")
	comp := c.u16()
	if c.err != nil {
		return nil, c.err
	}
	if comp == compZIP || comp == compZIPPredict {
		// Photoshop writes the merged image raw or RLE only.
		return nil, &UnsupportedError{Feature: "ZIP-compressed merged image"}
	}
	base := f.baseChannels()
	alpha := f.mergedAlpha()
	last := base - 1
	if alpha > last {
		last = alpha
	}
	var counts []uint32
	if comp == compRLE {
		// The row counts of every channel come first.
		all, err := f.rowCounts(c, h*f.channels)
		if err != nil {
			return nil, errorf("merged image: %v", err)
		}
		counts = all
	}
	// Refuse data too short for the picture before allocating it.
	if need := minBytes(comp, f.rowBytes(w), h*(last+1), 0); need > c.left() {
		return nil, errorf("merged image: %d bytes of data cannot hold %d channels of %dx%d", c.left(), last+1, w, h)
	}
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	cmyk := f.Mode == CMYK
	var black []byte
	if cmyk {
		black = make([]byte, w*h)
	}
	for i := 0; i <= last; i++ {
		dst := -1
		switch {
		case cmyk && i == 3:
			dst = blackPlane
		case i < base:
			dst = i
		case i == alpha:
			dst = 3
		}
		var rows []uint32
		if counts != nil {
			rows = counts[i*h : (i+1)*h]
		}
		var err error
		switch dst {
		case -1:
			// A saved selection between colour and transparency: skip it.
			err = f.skipPlane(c, comp, rows, w, h)
		case blackPlane:
			err = f.plane(c, comp, rows, w, h, black, 0, 1, true)
		default:
			err = f.plane(c, comp, rows, w, h, img.Pix, dst, 4, dst < 3)
		}
		if err != nil {
			return nil, errorf("merged image: channel %d: %v", i, err)
		}
	}
	f.finishComposite(img, black, alpha >= 0)
	return img, nil
}

// finishComposite makes the merged image's pixels RGBA: grey spread to
// RGB, CMYK converted (black holds K), and the white that Photoshop
// flattened partly transparent pixels on taken out.
func (f *File) finishComposite(img *image.NRGBA, black []byte, hasAlpha bool) {
	toRGB := f.cmykConverter()
	for i := 0; i < len(img.Pix); i += 4 {
		p := img.Pix[i : i+4 : i+4]
		switch f.Mode {
		case Grayscale, Indexed, Bitmap:
			f.spread(p)
		case Lab:
			labPixelToRGB(p)
		case CMYK:
			toRGB(p, black[i/4])
			// The merged image's transparency is stored inverted as
			// its inks are (ag-psd reads it so; no fixture has one).
			p[3] = 255 - p[3]
		}
		switch {
		case !hasAlpha:
			p[3] = 255
		case p[3] != 0 && p[3] != 255:
			// Photoshop stores the merged image flattened on white:
			// c = a*colour + (1-a)*255. Take the white back out.
			a := int(p[3])
			for c := 0; c < 3; c++ {
				v := ((int(p[c])-255+a)*255 + a/2) / a
				p[c] = uint8(max(0, min(255, v)))
			}
		}
	}
}

// applyDensity is a mask value v seen at a density d (255 full): what it
// hides, it hides only d/255 as much.
func applyDensity(v, d uint8) uint8 {
	return 255 - uint8((int(255-v)*int(d)+127)/255)
}
