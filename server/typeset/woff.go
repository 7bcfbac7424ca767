package typeset

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"io"
)

// maxFontBytes bounds a font unpacked from WOFF: its table directory
// states the size of each table, and a liar must not make kino allocate
// gigabytes.
const maxFontBytes = 64 << 20

var errBadWOFF = errors.New("the WOFF font is damaged")

// unwrapWOFF turns a WOFF 1.0 font back into the TrueType or OpenType
// font it wraps: the same tables, each inflated if it was compressed,
// behind an sfnt table directory.
func unwrapWOFF(w []byte) ([]byte, error) {
	be := binary.BigEndian
	if len(w) < 44 {
		return nil, errBadWOFF
	}
	flavor, numTables, total := be.Uint32(w[4:]), int(be.Uint16(w[12:])), be.Uint32(w[16:])
	if numTables == 0 || len(w) < 44+20*numTables || total > maxFontBytes {
		return nil, errBadWOFF
	}
	type table struct {
		tag, checksum uint32
		data          []byte
	}
	// The font unpacked: its table directory, then each table on a
	// four-byte boundary. Its size is known from the directory, and is
	// checked before anything is inflated: tables may all point at the
	// same small compressed block.
	size := uint64(12 + 16*numTables)
	for i := range numTables {
		size += (uint64(be.Uint32(w[44+20*i+12:])) + 3) &^ 3
	}
	if size > maxFontBytes {
		return nil, errBadWOFF
	}
	tables := make([]table, numTables)
	for i := range tables {
		e := w[44+20*i:]
		offset, compLen, origLen := be.Uint32(e[4:]), be.Uint32(e[8:]), be.Uint32(e[12:])
		if uint64(offset)+uint64(compLen) > uint64(len(w)) || compLen > origLen {
			return nil, errBadWOFF
		}
		data := w[offset : offset+compLen]
		if compLen < origLen {
			z, err := zlib.NewReader(bytes.NewReader(data))
			if err != nil {
				return nil, errBadWOFF
			}
			out := make([]byte, origLen)
			if _, err := io.ReadFull(z, out); err != nil {
				return nil, errBadWOFF
			}
			data = out
		}
		tables[i] = table{tag: be.Uint32(e), checksum: be.Uint32(e[16:]), data: data}
	}
	// The sfnt header: its search fields are derived from the number of
	// tables, as the format defines them.
	entrySelector := 0
	for 1<<(entrySelector+1) <= numTables {
		entrySelector++
	}
	searchRange := 16 << entrySelector
	out := make([]byte, 12+16*numTables, size)
	be.PutUint32(out, flavor)
	be.PutUint16(out[4:], uint16(numTables))
	be.PutUint16(out[6:], uint16(searchRange))
	be.PutUint16(out[8:], uint16(entrySelector))
	be.PutUint16(out[10:], uint16(16*numTables-searchRange))
	for i, t := range tables {
		for len(out)%4 != 0 {
			out = append(out, 0)
		}
		e := out[12+16*i:]
		be.PutUint32(e, t.tag)
		be.PutUint32(e[4:], t.checksum)
		be.PutUint32(e[8:], uint32(len(out)))
		be.PutUint32(e[12:], uint32(len(t.data)))
		out = append(out, t.data...)
	}
	return out, nil
}
