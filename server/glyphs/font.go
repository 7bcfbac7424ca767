// Package glyphs is kino's text engine: it shapes text with the fonts'
// own rules (GSUB and GPOS, through go-text's port of HarfBuzz), orders
// mixed right-to-left and left-to-right text (UAX #9), breaks lines where
// UAX #14 allows, falls back to other fonts for characters a font lacks,
// and draws the glyphs itself: outlines antialiased at their exact
// subpixel positions, colour emoji from their bitmaps. What it measures
// is what it draws.
package glyphs

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/go-text/typesetting/font"
	ot "github.com/go-text/typesetting/font/opentype"
)

// ErrWOFF2 is a WOFF2 font, compressed with Brotli, which kino does not
// read.
var ErrWOFF2 = errors.New("WOFF2 fonts cannot be read; use a TrueType, OpenType or WOFF font")

// Font is a parsed font file: a TrueType or OpenType font, the first font
// of a collection, or a WOFF font.
type Font struct {
	// ft is safe for concurrent use; each Shaper makes its own faces of
	// it (a face caches, and is not).
	ft   *font.Font
	size int
	// ascent, descent and gap are the font's line metrics in font units
	// (descent positive, below the baseline); upem its units per em.
	ascent, descent, gap, upem float64
	// colour is whether the font draws glyphs as pictures (colour
	// emoji): its glyphs are drawn as they are, never in the text's
	// colour.
	colour bool
}

// Parse reads a font file.
func Parse(data []byte) (*Font, error) {
	if len(data) >= 4 && string(data[:4]) == "wOF2" {
		return nil, ErrWOFF2
	}
	lds, err := ot.NewLoaders(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	if len(lds) == 0 {
		return nil, errors.New("the file holds no font")
	}
	return parseLoader(lds[0], len(data))
}

// ParseIndex reads the font at index of a collection (or index 0 of a
// single font).
func ParseIndex(data []byte, index int) (*Font, error) {
	lds, err := ot.NewLoaders(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	if index < 0 || index >= len(lds) {
		return nil, fmt.Errorf("the file holds %d fonts, not %d", len(lds), index+1)
	}
	return parseLoader(lds[index], len(data))
}

func parseLoader(ld *ot.Loader, size int) (*Font, error) {
	ft, err := font.NewFont(ld)
	if err != nil {
		return nil, err
	}
	f := &Font{ft: ft, size: size, upem: float64(ft.Upem())}
	if ext, ok := font.NewFace(ft).FontHExtents(); ok {
		f.ascent, f.descent, f.gap = float64(ext.Ascender), -float64(ext.Descender), float64(ext.LineGap)
	} else {
		f.ascent, f.descent = 0.8*f.upem, 0.2*f.upem
	}
	f.colour = ld.HasTable(ot.MustNewTag("CBDT")) || ld.HasTable(ot.MustNewTag("sbix"))
	return f, nil
}

// Size is how many bytes the font's file holds.
func (f *Font) Size() int { return f.size }

// Has reports whether the font has a glyph for r.
func (f *Font) Has(r rune) bool {
	_, ok := f.ft.NominalGlyph(r)
	return ok
}

// Metrics are the font's ascent, descent (positive, below the baseline)
// and line gap at size pixels per em.
func (f *Font) Metrics(size float64) (ascent, descent, gap float64) {
	k := size / f.upem
	return f.ascent * k, f.descent * k, f.gap * k
}
