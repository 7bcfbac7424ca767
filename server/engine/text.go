package engine

import (
	"fmt"
)

// text draws a text layer: kino's text engine (package glyphs) shapes,
// lays out and draws it once, as a picture, which is then repeated,
// faded and moved like an image layer (see textBox). A hidden layer is
// only checked.
func (p *planner) text(i int, l Layer, video, defaultFont string, hidden bool) (string, error) {
	font, err := p.fontPath(l, defaultFont)
	if err != nil {
		return "", err
	}
	return p.textBox(i, l, video, font, hidden)
}

// fontPath is the file of the layer's font: its downloaded font's, or
// defaultFont when it names none.
func (p *planner) fontPath(l Layer, defaultFont string) (string, error) {
	if l.Font == "" {
		return defaultFont, nil
	}
	m, ok := p.media[l.Font]
	if !ok {
		return "", fmt.Errorf("%s: font %s was not downloaded", l.FontField, l.Font)
	}
	if !m.Font {
		return "", &MediaError{Field: l.FontField, Message: "the file is not a TrueType, OpenType or WOFF font"}
	}
	return m.Path, nil
}
