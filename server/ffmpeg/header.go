package ffmpeg

import (
	"bytes"
	"encoding/binary"
	"image"
	_ "image/gif" // registers GIF for image.DecodeConfig
	"io"
	"os"
)

// pictureHeader reads the pixel size a picture file declares in its
// header (every picture format kino opens: PNG, JPEG, GIF, WebP, BMP, PSD,
// TIFF, QOI), without decoding it: ffprobe decodes
// a picture's first frame to describe it, so a small file declaring a huge
// picture must be refused before ffprobe sees it. ok is false for anything
// else.
func pictureHeader(path string) (w, h int, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, false
	}
	defer f.Close()
	var head [30]byte
	n, _ := io.ReadFull(f, head[:])
	b := head[:n]
	switch {
	case n >= 30 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		return webpSize(b)
	case n >= 22 && string(b[:4]) == "8BPS" && (b[5] == 1 || b[5] == 2) && b[4] == 0:
		// Photoshop (version 1) and large-document (2) files: channels at
		// 12, then height and width, big-endian. A layered template's
		// composite is w×h×channels, however small its RLE data.
		h, w := binary.BigEndian.Uint32(b[14:]), binary.BigEndian.Uint32(b[18:])
		return int(w), int(h), w > 0 && h > 0
	case n >= 12 && string(b[:4]) == "qoif":
		w, h := binary.BigEndian.Uint32(b[4:]), binary.BigEndian.Uint32(b[8:])
		return int(w), int(h), w > 0 && h > 0
	case n >= 8 && (string(b[:4]) == "II*\x00" || string(b[:4]) == "MM\x00*"):
		return tiffSize(f, b)
	case n >= 26 && string(b[:2]) == "BM":
		w, h := int32(binary.LittleEndian.Uint32(b[18:])), int32(binary.LittleEndian.Uint32(b[22:]))
		if h < 0 { // top-down rows
			h = -h
		}
		return int(w), int(h), w > 0
	case bytes.HasPrefix(b, []byte("\x89PNG")), bytes.HasPrefix(b, []byte{0xff, 0xd8}), bytes.HasPrefix(b, []byte("GIF8")):
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return 0, 0, false
		}
		cfg, _, err := image.DecodeConfig(f)
		if err != nil {
			return 0, 0, false
		}
		return cfg.Width, cfg.Height, true
	}
	return 0, 0, false
}

// webpSize reads the canvas of a WebP file from its first chunk: VP8X (an
// extended file), VP8L (lossless) or "VP8 " (lossy).
func webpSize(b []byte) (w, h int, ok bool) {
	c := b[12:]
	switch string(c[:4]) {
	case "VP8X":
		w = 1 + (int(c[12]) | int(c[13])<<8 | int(c[14])<<16)
		h = 1 + (int(c[15]) | int(c[16])<<8 | int(c[17])<<16)
		return w, h, true
	case "VP8L":
		if c[8] != 0x2f {
			return 0, 0, false
		}
		v := binary.LittleEndian.Uint32(c[9:13])
		return 1 + int(v&0x3fff), 1 + int(v>>14&0x3fff), true
	case "VP8 ":
		// A key frame's start code, then 14-bit sizes (2 bits of scale).
		if !bytes.Equal(c[11:14], []byte{0x9d, 0x01, 0x2a}) {
			return 0, 0, false
		}
		return int(binary.LittleEndian.Uint16(c[14:]) & 0x3fff), int(binary.LittleEndian.Uint16(c[16:]) & 0x3fff), true
	}
	return 0, 0, false
}

// tiffSize reads the width and height tags of a TIFF's first image.
func tiffSize(f *os.File, head []byte) (w, h int, ok bool) {
	var order binary.ByteOrder = binary.LittleEndian
	if head[0] == 'M' {
		order = binary.BigEndian
	}
	ifd := int64(order.Uint32(head[4:]))
	var count [2]byte
	if _, err := f.ReadAt(count[:], ifd); err != nil {
		return 0, 0, false
	}
	n := int(order.Uint16(count[:]))
	entries := make([]byte, 12*min(n, 4096))
	if _, err := f.ReadAt(entries, ifd+2); err != nil {
		return 0, 0, false
	}
	for e := entries; len(e) >= 12; e = e[12:] {
		var v int
		switch order.Uint16(e[2:]) { // the value's type
		case 3: // SHORT
			v = int(order.Uint16(e[8:]))
		case 4: // LONG
			v = int(order.Uint32(e[8:]))
		default:
			continue
		}
		switch order.Uint16(e[:2]) {
		case 256: // ImageWidth
			w = v
		case 257: // ImageLength
			h = v
		}
	}
	return w, h, w > 0 && h > 0
}
