package engine

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/kinohq/kino/server/typeset"
)

// maxFontBytes bounds the downloaded fonts one render reads to lay text
// out, together: each is held in kino's own memory while the render is
// planned (a WOFF font as the font it unpacks to), and a download may be
// far larger (--max-asset-bytes).
const maxFontBytes = 128 << 20

// recoverFont, deferred by every planner step that reads a layer's font
// (parsing it, sizing it, measuring its glyphs, reading its names), turns a
// panic while it reads a downloaded font into a *MediaError naming the
// layer's font field: sfnt, which reads fonts, is not hardened against
// hostile files, and a panic would end kino's process and every job it
// runs. A panic on the default font, the operator's, is kino's bug and goes
// on. what says what the font was read for.
func recoverFont(l Layer, what string, err *error) {
	v := recover()
	if v == nil {
		return
	}
	if l.Font == "" {
		panic(v) //nolint:forbidigo // re-raised: a panic that is not the font drawer's own goes on
	}
	*err = &MediaError{Field: l.FontField, Message: "the font cannot be measured to " + what + ": it is damaged"}
}

// face is the font at path, at the layer's size, to measure a styled text
// layer. Reading it is the one thing Plan reads from disk: the glyphs'
// widths decide where lines break. Each font is read once a render. A
// downloaded font that cannot be measured, or that brings the fonts read
// past maxFontBytes, is a *MediaError naming the layer's font.
func (p *planner) face(l Layer, path string) (*typeset.Face, error) {
	font, err := p.font(l, path)
	if err != nil {
		return nil, err
	}
	face, err := font.Face(l.FontSize)
	if err != nil {
		return nil, fmt.Errorf("%s: measure the font: %w", l.Field, err)
	}
	return face, nil
}

// readFont is the font at path, read and parsed once a render, and the
// bytes of its file (which a captions layer hands to libass as they are).
type readFont struct {
	*typeset.Font
	file []byte
}

// font is the font at path, read on first use.
func (p *planner) font(l Layer, path string) (readFont, error) {
	if font, ok := p.fonts[path]; ok {
		return font, nil
	}
	font, data, err := p.readFont(l, path)
	if err != nil {
		return readFont{}, err
	}
	if p.fonts == nil {
		p.fonts = map[string]readFont{}
	}
	p.fonts[path] = readFont{font, data}
	return p.fonts[path], nil
}

// readFont reads and parses the font at path, counting a downloaded one
// in p.fontBytes: before reading, by its size on disk, and once parsed,
// by the size it holds.
func (p *planner) readFont(l Layer, path string) (*typeset.Font, []byte, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: read the font: %w", l.Field, err)
	}
	defer file.Close()
	st, err := file.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: read the font: %w", l.Field, err)
	}
	count := func(size int64) error {
		if l.Font == "" || p.fontBytes+size <= maxFontBytes {
			return nil
		}
		return &MediaError{Field: l.FontField, Message: fmt.Sprintf(
			"brings the fonts this render lays text out with to %d MiB; kino reads at most %d MiB of fonts to measure text (use smaller fonts, or fewer)",
			(p.fontBytes+size+1<<20-1)>>20, maxFontBytes>>20)}
	}
	if err := count(st.Size()); err != nil {
		return nil, nil, err
	}
	data := make([]byte, st.Size())
	if _, err := io.ReadFull(file, data); err != nil {
		return nil, nil, fmt.Errorf("%s: read the font: %w", l.Field, err)
	}
	font, err := typeset.Parse(data)
	if err != nil {
		if l.Font == "" {
			return nil, nil, fmt.Errorf("%s: the default font %s cannot be measured: %w", l.Field, path, err)
		}
		msg := "the font cannot be measured to lay the text out: it is not a readable TrueType, OpenType or WOFF font"
		if errors.Is(err, typeset.ErrWOFF2) {
			msg = "the font is WOFF2, which kino cannot measure to lay the text out; use a TrueType, OpenType or WOFF font"
		}
		return nil, nil, &MediaError{Field: l.FontField, Message: msg}
	}
	size := max(st.Size(), int64(font.Size()))
	if err := count(size); err != nil {
		return nil, nil, err
	}
	if l.Font != "" {
		p.fontBytes += size
	}
	return font, data, nil
}
