package engine

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/kinohq/kino/server/glyphs"
	"github.com/kinohq/kino/server/typeset"
)

// maxFontBytes bounds the downloaded fonts one render reads to lay text
// out, together: each is held in kino's own memory while the render is
// planned (a WOFF font as the font it unpacks to), and a download may be
// far larger (--max-asset-bytes).
const maxFontBytes = 128 << 20

// recoverFont, deferred by every planner step that reads a layer's font
// (parsing it, sizing it, shaping and drawing its glyphs, reading its
// names), turns a panic while it reads a downloaded font into a
// *MediaError naming the layer's font field: sfnt and go-text, which read
// fonts, are not hardened against hostile files, and a panic would end
// kino's process and every job it runs. A panic on the default font, the operator's, is kino's bug and goes
// on. what says what the font was read for.
func recoverFont(l Layer, what string, err *error) {
	v := recover()
	if v == nil {
		return
	}
	field := l.downloadedFont()
	if field == "" {
		panic(v) //nolint:forbidigo // re-raised: a panic that is not the font drawer's own goes on
	}
	*err = &MediaError{Field: field, Message: "the font cannot be measured to " + what + ": it is damaged"}
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

// shaper is the text engine's shaper of the font at path, then of the
// layer's fallback fonts (a font list's), then of the machine's fonts
// (glyphs.Default), made once a render.
func (p *planner) shaper(l Layer, path string) (*glyphs.Shaper, error) {
	cacheKey := path + "\x00" + l.Fallback
	if sh, ok := p.shapers[cacheKey]; ok {
		return sh, nil
	}
	fonts, err := p.fontChain(l, path)
	if err != nil {
		return nil, err
	}
	if p.shapers == nil {
		p.shapers = map[string]*glyphs.Shaper{}
	}
	fallback := p.fallback
	if fallback == nil {
		fallback = glyphs.NewMachine()
	}
	p.shapers[cacheKey] = glyphs.NewShaper(fonts, fallback)
	return p.shapers[cacheKey], nil
}

// fontChain is the font at path, then the layer's fallback fonts (a font
// list's), as the text engine reads them.
func (p *planner) fontChain(l Layer, path string) ([]*glyphs.Font, error) {
	first, err := p.glyphFont(l, path)
	if err != nil {
		return nil, err
	}
	fonts := []*glyphs.Font{first}
	if l.Fallback != "" {
		for i, key := range strings.Split(l.Fallback, ",") {
			// Each font of the list fails, and counts, as its own field.
			lf := l
			lf.Font, lf.FontField = key, fmt.Sprintf("%s[%d]", strings.TrimSuffix(l.FontField, "[0]"), i+1)
			m, ok := p.media[key]
			if !ok {
				return nil, fmt.Errorf("%s: font %s was not downloaded", lf.FontField, key)
			}
			if !m.Font {
				return nil, &MediaError{Field: lf.FontField, Message: "the file is not a TrueType, OpenType or WOFF font"}
			}
			f, err := p.glyphFont(lf, m.Path)
			if err != nil {
				return nil, err
			}
			fonts = append(fonts, f)
		}
	}
	return fonts, nil
}

// glyphFont is the font at path as the text engine reads it, once a
// render.
func (p *planner) glyphFont(l Layer, path string) (*glyphs.Font, error) {
	if f, ok := p.glyphFonts[path]; ok {
		return f, nil
	}
	data, err := p.fontFile(l, path)
	if err != nil {
		return nil, err
	}
	font, err := glyphs.Parse(data)
	if err != nil {
		if l.Font == "" {
			return nil, fmt.Errorf("%s: the default font %s cannot be read: %w", l.Field, path, err)
		}
		msg := "the font cannot be read to draw the text: it is not a readable TrueType, OpenType or WOFF font"
		if errors.Is(err, glyphs.ErrWOFF2) {
			msg = "the font is WOFF2, which kino cannot read to draw the text; use a TrueType, OpenType or WOFF font"
		}
		return nil, &MediaError{Field: l.FontField, Message: msg}
	}
	if p.glyphFonts == nil {
		p.glyphFonts = map[string]*glyphs.Font{}
	}
	p.glyphFonts[path] = font
	return font, nil
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

// readFont parses the font at path (read by fontFile), counting a
// downloaded one in p.fontBytes once parsed by the size it holds past its
// file's (a WOFF font unpacks).
func (p *planner) readFont(l Layer, path string) (*typeset.Font, []byte, error) {
	data, err := p.fontFile(l, path)
	if err != nil {
		return nil, nil, err
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
	if extra := int64(font.Size()) - int64(len(data)); extra > 0 && l.Font != "" {
		if err := p.countFont(l, extra); err != nil {
			return nil, nil, err
		}
		p.fontBytes += extra
	}
	return font, data, nil
}

// fontFile is the file at path, read once a render. A downloaded font is
// counted in p.fontBytes by its size on disk, before it is read.
func (p *planner) fontFile(l Layer, path string) ([]byte, error) {
	if data, ok := p.fontFiles[path]; ok {
		return data, nil
	}
	field := l.Field
	if l.Font != "" {
		field = l.FontField
	}
	file, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: read the font: %w", field, err)
	}
	defer file.Close()
	st, err := file.Stat()
	if err != nil {
		return nil, fmt.Errorf("%s: read the font: %w", field, err)
	}
	if err := p.countFont(l, st.Size()); err != nil {
		return nil, err
	}
	data := make([]byte, st.Size())
	if _, err := io.ReadFull(file, data); err != nil {
		return nil, fmt.Errorf("%s: read the font: %w", field, err)
	}
	if l.Font != "" {
		p.fontBytes += st.Size()
	}
	if p.fontFiles == nil {
		p.fontFiles = map[string][]byte{}
	}
	p.fontFiles[path] = data
	return data, nil
}

// countFont refuses a downloaded font that brings the fonts read past
// maxFontBytes.
func (p *planner) countFont(l Layer, size int64) error {
	if l.Font == "" || p.fontBytes+size <= maxFontBytes {
		return nil
	}
	return &MediaError{Field: l.FontField, Message: fmt.Sprintf(
		"brings the fonts this render lays text out with to %d MiB; kino reads at most %d MiB of fonts to measure text (use smaller fonts, or fewer)",
		(p.fontBytes+size+1<<20-1)>>20, maxFontBytes>>20)}
}
