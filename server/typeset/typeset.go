// Package typeset measures and breaks text into lines the way ffmpeg's
// drawtext will draw it, so that kino can wrap, align and box text that
// drawtext only draws. drawtext (FreeType, hinted) advances the pen by each
// glyph's advance rounded to a whole pixel and, with the fonts kino sees,
// applies no kerning; Face measures the same way, so a line kino measures
// is the line drawtext draws, to the pixel.
package typeset

import (
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/image/font"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
)

// ErrWOFF2 is a WOFF2 font: FreeType draws it, but it is compressed with
// Brotli and kino does not read it to measure.
var ErrWOFF2 = errors.New("WOFF2 fonts cannot be measured; use a TrueType, OpenType or WOFF font")

// Font is a parsed font file.
type Font struct {
	f    *sfnt.Font
	size int
}

// Size is how many bytes the font holds in memory: the file's, or for a
// WOFF font those of the font it unpacks to.
func (f *Font) Size() int { return f.size }

// Parse reads a TrueType or OpenType font, the first font of a collection
// (FreeType's default face), or a WOFF font.
func Parse(data []byte) (*Font, error) {
	if len(data) >= 4 {
		switch string(data[:4]) {
		case "wOF2":
			return nil, ErrWOFF2
		case "wOFF":
			var err error
			if data, err = unwrapWOFF(data); err != nil {
				return nil, err
			}
		}
	}
	c, err := sfnt.ParseCollection(data)
	if err != nil {
		return nil, err
	}
	f, err := c.Font(0)
	if err != nil {
		return nil, err
	}
	return &Font{f: f, size: len(data)}, nil
}

// Face is a font at one size in pixels, as drawtext's fontsize sets it.
type Face struct {
	f    *sfnt.Font
	ppem fixed.Int26_6
	buf  sfnt.Buffer
	adv  map[rune]int
	// ascent and descent are the font's own (hhea), in pixels, unrounded.
	ascent, descent, height float64
}

// Face is the font at size pixels per em.
func (f *Font) Face(size int) (*Face, error) {
	face := &Face{f: f.f, ppem: fixed.I(size), adv: map[rune]int{}}
	m, err := f.f.Metrics(&face.buf, face.ppem, font.HintingNone)
	if err != nil {
		return nil, err
	}
	face.ascent, face.descent, face.height = toFloat(m.Ascent), toFloat(m.Descent), toFloat(m.Height)
	return face, nil
}

func toFloat(v fixed.Int26_6) float64 { return float64(v) / 64 }

// Ascent is how far the font's glyphs rise above the baseline, in pixels.
func (f *Face) Ascent() float64 { return f.ascent }

// Descent is how far they fall below it.
func (f *Face) Descent() float64 { return f.descent }

// LineHeight is the font's own distance between baselines: ascent,
// descent and line gap.
func (f *Face) LineHeight() float64 { return f.height }

// advance is the pen's move over r: the advance of the glyph FreeType
// would load (the .notdef glyph for a character the font lacks), rounded
// to the pixel as hinting does.
func (f *Face) advance(r rune) int {
	if a, ok := f.adv[r]; ok {
		return a
	}
	a := 0
	if g, err := f.f.GlyphIndex(&f.buf, r); err == nil {
		if v, err := f.f.GlyphAdvance(&f.buf, g, f.ppem, font.HintingFull); err == nil {
			a = v.Round()
		}
	}
	f.adv[r] = a
	return a
}

// tabStops is drawtext's tab size, in spaces.
const tabStops = 4

// Width is how far drawtext moves the pen over one line, in pixels: its
// text_w for that line.
func (f *Face) Width(line string) int { return f.pen(0, line) }

// pen is where the pen is after s, from x: tab stops are counted from the
// start of the line, so a line's width is the sum of its parts measured
// one after the other.
func (f *Face) pen(x int, s string) int {
	tab := tabStops * f.advance(' ')
	for _, r := range s {
		x = f.step(x, r, tab)
	}
	return x
}

// step moves the pen at x over r.
func (f *Face) step(x int, r rune, tab int) int {
	if r == '\t' && tab > 0 {
		return (x/tab + 1) * tab
	}
	return x + f.advance(r)
}

// Lines breaks text into the lines drawtext will draw: at each newline,
// and, when width is above 0, wherever the next word would pass width
// pixels. Lines break at spaces, which the break swallows; a word wider
// than width alone is broken between characters. White space written at
// the start of a paragraph, or between words on one line, is kept.
func (f *Face) Lines(text string, width int) []string {
	paragraphs := strings.Split(text, "\n")
	if width <= 0 {
		return paragraphs
	}
	var lines []string
	for _, p := range paragraphs {
		lines = append(lines, f.wrap(p, width)...)
	}
	return lines
}

// wrap breaks one paragraph greedily: each line takes as many words as
// fit. Each word is measured once, from where the line so far ends, so
// the work grows with the paragraph, not with its lines' length times
// their words.
func (f *Face) wrap(p string, width int) []string {
	if f.Width(p) <= width {
		return []string{p}
	}
	var lines []string
	// The line so far is p[start:end], x pixels wide; empty when start
	// is end.
	start, end, x := 0, 0, 0
	for i := 0; i < len(p); {
		// The next run of spaces, p[i:sp], and the word after it, p[sp:next].
		sp := len(p) - len(strings.TrimLeftFunc(p[i:], isBreakSpace))
		next := strings.IndexFunc(p[sp:], isBreakSpace)
		if next < 0 {
			next = len(p)
		} else {
			next += sp
		}
		gap, word := i, sp
		if i == 0 {
			// The paragraph's own indent stays.
			word = 0
		}
		i = next
		if start == end {
			start, end = gap, gap
		}
		if nx := f.pen(x, p[gap:next]); nx <= width {
			end, x = next, nx
			continue
		}
		// The break swallows the gap.
		if start != end {
			lines = append(lines, p[start:end])
		}
		// A word wider than a line alone is broken between characters;
		// its last piece starts the next line.
		start, end, x = next, next, 0
		for word < next {
			n, w := f.fit(p[word:next], width)
			if word+n == next && w <= width {
				start, end, x = word, next, w
				break
			}
			lines = append(lines, p[word:word+n])
			word += n
		}
	}
	if start != end {
		lines = append(lines, p[start:end])
	}
	return lines
}

// fit is how many bytes of s fit in width, at least one character so
// that breaking always moves on, and how wide they are.
func (f *Face) fit(s string, width int) (n, w int) {
	x := 0
	tab := tabStops * f.advance(' ')
	for i, r := range s {
		x = f.step(x, r, tab)
		if i > 0 && x > width {
			break
		}
		n, w = i+utf8.RuneLen(r), x
	}
	return n, w
}

// isBreakSpace is a space a line may break at: not a no-break space.
func isBreakSpace(r rune) bool {
	return unicode.IsSpace(r) && r != '\u00a0' && r != '\u202f' && r != '\u2007'
}

// FullName is the font's full name ("DejaVu Serif Bold"), or its family
// name when it has none, or "". libass selects a font by this name
// exactly, where by the family name it picks the family's regular face
// from the system's fonts over a bold one given to it.
func (f *Font) FullName() string {
	var buf sfnt.Buffer
	for _, id := range []sfnt.NameID{sfnt.NameIDFull, sfnt.NameIDFamily} {
		if s, err := f.f.Name(&buf, id); err == nil && s != "" {
			return s
		}
	}
	return ""
}

// Names are the names libass selects the font by, those it has: its
// family, full and PostScript names.
func (f *Font) Names() []string {
	var buf sfnt.Buffer
	var out []string
	for _, id := range []sfnt.NameID{sfnt.NameIDFamily, sfnt.NameIDFull, sfnt.NameIDPostScript} {
		if s, err := f.f.Name(&buf, id); err == nil && s != "" {
			out = append(out, s)
		}
	}
	return out
}
