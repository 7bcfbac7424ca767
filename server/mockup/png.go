package mockup

import (
	"bytes"
	"compress/flate"
	"context"
	"encoding/binary"
	"github.com/kinohq/kino/server/meter"
	"github.com/kinohq/kino/server/rescue"
	"hash/adler32"
	"hash/crc32"
	"image"
	"io"
	"runtime"
)

// encodePNGParallel writes an 8-bit RGB (opaque) or RGBA PNG with every
// core: the rows are cut into bands, each filtered (Paeth... no: "up",
// cheap and good on photos and flat areas alike) and deflated on its own
// at zlib's fastest level, ending on a byte boundary (a sync flush), so
// the bands concatenate into one zlib stream, as pigz does. The Adler-32
// checksums of the bands are combined. Any PNG decoder reads the result.
func encodePNGParallel(ctx context.Context, w io.Writer, img *image.NRGBA, alpha bool) error {
	b := img.Bounds()
	width, height := b.Dx(), b.Dy()
	bpp := 3
	if alpha {
		bpp = 4
	}
	rowLen := 1 + width*bpp
	bands := min(height, 4*runtime.NumCPU())
	type band struct {
		data  bytes.Buffer
		adler uint32
		n     int64
		err   error
	}
	out := make([]band, bands)
	// A panic in a band is raised again in the caller's goroutine.
	var wg rescue.Group
	for i := range bands {
		y0, y1 := b.Min.Y+height*i/bands, b.Min.Y+height*(i+1)/bands
		wg.Go(func() {
			defer meter.Thread(ctx)()
			bd := &out[i]
			fw, _ := flate.NewWriter(&bd.data, flate.BestSpeed)
			cur := make([]byte, rowLen)
			prev := make([]byte, rowLen) // the row above, unfiltered
			if y0 > b.Min.Y {
				raw(prev[1:], img, y0-1, bpp)
			}
			row := make([]byte, rowLen)
			h := adler32.New()
			for y := y0; y < y1; y++ {
				raw(cur[1:], img, y, bpp)
				row[0] = 2 // up
				for x := 1; x < rowLen; x++ {
					row[x] = cur[x] - prev[x]
				}
				if y == b.Min.Y {
					copy(row[1:], cur[1:])
				}
				h.Write(row)
				if _, err := fw.Write(row); err != nil {
					bd.err = err
					return
				}
				cur, prev = prev, cur
			}
			bd.n = int64(y1-y0) * int64(rowLen)
			bd.adler = h.Sum32()
			if i == bands-1 {
				bd.err = fw.Close()
			} else {
				bd.err = fw.Flush()
			}
		})
	}
	wg.Wait()
	var sum uint32 = 1
	for i := range out {
		if out[i].err != nil {
			return out[i].err
		}
		sum = adler32Combine(sum, out[i].adler, out[i].n)
	}

	var hdr [13]byte
	binary.BigEndian.PutUint32(hdr[0:], uint32(width))
	binary.BigEndian.PutUint32(hdr[4:], uint32(height))
	hdr[8] = 8
	hdr[9] = 2 // RGB
	if alpha {
		hdr[9] = 6
	}
	if _, err := w.Write([]byte("\x89PNG\r\n\x1a\n")); err != nil {
		return err
	}
	if err := chunk(w, "IHDR", hdr[:]); err != nil {
		return err
	}
	if err := chunk(w, "IDAT", []byte{0x78, 0x01}); err != nil {
		return err
	}
	for i := range out {
		if err := chunk(w, "IDAT", out[i].data.Bytes()); err != nil {
			return err
		}
	}
	var tail [4]byte
	binary.BigEndian.PutUint32(tail[:], sum)
	if err := chunk(w, "IDAT", tail[:]); err != nil {
		return err
	}
	return chunk(w, "IEND", nil)
}

// raw copies row y of img into dst as RGB or RGBA bytes.
func raw(dst []byte, img *image.NRGBA, y, bpp int) {
	b := img.Bounds()
	src := img.Pix[img.PixOffset(b.Min.X, y):img.PixOffset(b.Max.X, y)]
	if bpp == 4 {
		copy(dst, src)
		return
	}
	for i, j := 0, 0; i < len(src); i, j = i+4, j+3 {
		dst[j], dst[j+1], dst[j+2] = src[i], src[i+1], src[i+2]
	}
}

func chunk(w io.Writer, kind string, data []byte) error {
	var head [8]byte
	binary.BigEndian.PutUint32(head[:], uint32(len(data)))
	copy(head[4:], kind)
	crc := crc32.NewIEEE()
	crc.Write(head[4:])
	crc.Write(data)
	var tail [4]byte
	binary.BigEndian.PutUint32(tail[:], crc.Sum32())
	for _, p := range [][]byte{head[:], data, tail[:]} {
		if _, err := w.Write(p); err != nil {
			return err
		}
	}
	return nil
}

// adler32Combine is the Adler-32 of two byte strings one after the other,
// from the checksum of each and the length of the second (zlib's
// adler32_combine).
func adler32Combine(a1, a2 uint32, len2 int64) uint32 {
	const base = 65521
	rem := uint64(len2 % base)
	s1 := uint64(a1 & 0xffff)
	s2 := (rem * s1) % base
	s1 += uint64(a2&0xffff) + base - 1
	s2 += uint64(a1>>16) + uint64(a2>>16) + base - rem
	if s1 >= base {
		s1 -= base
	}
	if s1 >= base {
		s1 -= base
	}
	if s2 >= 2*base {
		s2 -= 2 * base
	}
	if s2 >= base {
		s2 -= base
	}
	return uint32(s2<<16 | s1)
}
