package glyphs

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"

	"github.com/go-text/typesetting/di"
	"github.com/go-text/typesetting/font"
	ot "github.com/go-text/typesetting/font/opentype"
	"github.com/go-text/typesetting/language"
	"github.com/go-text/typesetting/shaping"
	"golang.org/x/image/math/fixed"
)

// Feature sets an OpenType feature over the whole text: Value 0 turns it
// off, 1 on (some features take other values, an alternate's number).
// Kerning, standard ligatures and the features a script needs are on
// unless turned off.
type Feature struct {
	Tag   string
	Value uint32
}

// ParseFeature reads a feature as CSS's font-feature-settings and
// HarfBuzz write it: "smcp" or "+smcp" (on), "-liga" (off), "ss01=2".
func ParseFeature(s string) (Feature, error) {
	s = strings.TrimSpace(s)
	ft := Feature{Value: 1}
	switch {
	case strings.HasPrefix(s, "-"):
		ft.Value, s = 0, s[1:]
	case strings.HasPrefix(s, "+"):
		s = s[1:]
	}
	if tag, v, ok := strings.Cut(s, "="); ok {
		n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 16)
		if err != nil {
			return Feature{}, fmt.Errorf("%q: the value after = is a whole number from 0 to 65535", s)
		}
		s, ft.Value = strings.TrimSpace(tag), uint32(n)
	}
	if len(s) != 4 {
		return Feature{}, fmt.Errorf("%q: a feature's tag is 4 characters (kern, liga, smcp, ss01…)", s)
	}
	for _, r := range s {
		if r < 0x20 || r > 0x7e {
			return Feature{}, fmt.Errorf("%q: a feature's tag is 4 printable ASCII characters", s)
		}
	}
	ft.Tag = s
	return ft, nil
}

// Shaper lays text out in a chain of fonts: each character in the first
// font that has it, then in the machine's fonts (Machine). A Shaper is not
// safe for concurrent use.
type Shaper struct {
	fonts   []*Font
	machine *Machine
	hb      shaping.HarfbuzzShaper
	seg     shaping.Segmenter
	wrap    shaping.LineWrapper
	byFace  map[*font.Face]*Font
	faces   map[*Font]*font.Face
}

// NewShaper is a shaper of the fonts, in order, then of machine's (none
// when nil). fonts must not be empty.
func NewShaper(fonts []*Font, machine *Machine) *Shaper {
	return &Shaper{fonts: fonts, machine: machine, byFace: map[*font.Face]*Font{}, faces: map[*Font]*font.Face{}}
}

// face is the shaper's face of f.
func (s *Shaper) face(f *Font) *font.Face {
	if face, ok := s.faces[f]; ok {
		return face
	}
	face := font.NewFace(f.ft)
	s.faces[f], s.byFace[face] = face, f
	return face
}

// Options say how text is laid out.
type Options struct {
	// Size is the font size, pixels per em.
	Size float64
	// Width breaks lines that would be wider, in pixels, where UAX #14
	// allows (between words; between CJK characters), and a word wider
	// than a line alone between its characters. 0 breaks lines only at
	// newlines.
	Width float64
	// Features are the OpenType features set on the text.
	Features []Feature
	// MaxLines keeps the first MaxLines lines, the last ending in an
	// ellipsis (…) when text was cut; 0 keeps them all.
	MaxLines int
	// WholeWords never breaks a word between its characters: a word
	// wider than Width overflows it (to tell whether text fits).
	WholeWords bool
}

// Layout is text shaped and broken into lines.
type Layout struct {
	// Ascent, Descent (positive) and Gap are the first font's, at the
	// layout's size: what spaces the lines.
	Ascent, Descent, Gap float64
	Lines                []Line
	// Missing are the characters no font has, each once, in the order
	// they come: they are not drawn.
	Missing []rune
	// Truncated is whether MaxLines cut text off.
	Truncated bool
}

// Widest is the width of the layout's widest line.
func (l *Layout) Widest() float64 {
	w := 0.0
	for _, ln := range l.Lines {
		w = max(w, ln.Width)
	}
	return w
}

// LineHeight is the first font's distance between baselines.
func (l *Layout) LineHeight() float64 { return l.Ascent + l.Descent + l.Gap }

// Line is one line of a layout, its glyphs in visual order (left to
// right) from the line's origin, the left end of its baseline.
type Line struct {
	// Width is how far the glyphs advance the pen, less white space at
	// the line's end.
	Width  float64
	glyphs []placed
}

// Empty reports a line with nothing to draw.
func (l Line) Empty() bool {
	for _, g := range l.glyphs {
		if g.ink {
			return false
		}
	}
	return true
}

// Ink is how far the line's glyphs reach above its baseline (top, up
// positive) and below it (bottom, down positive); ok is false for a line
// with nothing to draw.
func (l Line) Ink() (top, bottom float64, ok bool) {
	for _, g := range l.glyphs {
		if !g.ink {
			continue
		}
		t, b := -(g.y + g.by), g.y+g.by+g.bh
		if !ok {
			top, bottom, ok = t, b, true
			continue
		}
		top, bottom = max(top, t), max(bottom, b)
	}
	return top, bottom, ok
}

// placed is a glyph at its place: its origin x pixels right of the line's
// origin and y below it.
type placed struct {
	font *Font
	face *font.Face
	gid  font.GID
	// cluster is the index in the paragraph's characters of the first
	// character the glyph draws.
	cluster int
	// word and letter are the numbers of the word and the letter (Unit)
	// the glyph draws, -1 for white space.
	word, letter int
	x, y         float64
	// size is the font size the glyph is drawn at.
	size float64
	// ink is whether the glyph draws anything.
	ink bool
	// box is the glyph's extents from its origin (x right, y down), for
	// bitmaps, which are scaled into it.
	bx, by, bw, bh float64
}

// Layout shapes text, in lines: at each newline, and where Options.Width
// breaks them.
func (s *Shaper) Layout(text string, o Options) *Layout {
	lay := &Layout{}
	lay.Ascent, lay.Descent, lay.Gap = s.fonts[0].Metrics(o.Size)
	feats := make([]shaping.FontFeature, 0, len(o.Features))
	for _, f := range o.Features {
		feats = append(feats, shaping.FontFeature{Tag: ot.MustNewTag(f.Tag), Value: f.Value})
	}
	missing := map[rune]bool{}
	paras := paragraphs(text)
	var words, letters int
	policy := shaping.WhenNecessary
	if o.WholeWords {
		policy = shaping.Never
	}
	var ellipsis shaping.Output
	if o.MaxLines > 0 {
		ellipsis = s.ellipsis(o.Size, feats)
	}
	for p, para := range paras {
		if o.MaxLines > 0 && len(lay.Lines) >= o.MaxLines {
			lay.Truncated = true
			break
		}
		// A tab is four spaces: the font's tab glyph, where it has one,
		// is no advance to a stop.
		para = strings.ReplaceAll(para, "\t", "    ")
		runes := []rune(para)
		var num units
		num.words, words = numberUnits(runes, Words, words)
		num.letters, letters = numberUnits(runes, Letters, letters)
		if len(runes) == 0 {
			lay.Lines = append(lay.Lines, Line{})
			if o.MaxLines > 0 && len(lay.Lines) == o.MaxLines && p < len(paras)-1 {
				// The text goes on past the last line kept.
				lay.Lines[len(lay.Lines)-1] = s.place(shaping.Line{ellipsis}, o.Size, units{ellipsis: ellipsis.Glyphs})
				lay.Truncated = true
				break
			}
			continue
		}
		dir := paragraphDirection(runes)
		fm := &fontmap{s: s}
		in := shaping.Input{
			Text: runes, RunEnd: len(runes), Direction: dir,
			Size: fixed.Int26_6(math.Round(o.Size * 64)), FontFeatures: feats,
			Language: language.NewLanguage("und"), Script: language.Common,
		}
		var outs []shaping.Output
		for _, run := range s.spaces(s.seg.Split(in, fm)) {
			out := s.hb.Shape(run)
			for _, g := range out.Glyphs {
				if g.GlyphID != 0 {
					continue
				}
				for _, r := range runes[g.TextIndex() : g.TextIndex()+max(g.RunesCount(), 1)] {
					if !missing[r] && visible(r) {
						missing[r] = true
						lay.Missing = append(lay.Missing, r)
					}
				}
			}
			outs = append(outs, out)
		}
		width := fixed.Int26_6(math.MaxInt32)
		if o.Width > 0 {
			width = fixed.Int26_6(math.Floor(o.Width * 64))
		}
		cfg := shaping.WrapConfig{Direction: dir, BreakPolicy: policy}
		if o.MaxLines > 0 {
			cfg.TruncateAfterLines = o.MaxLines - len(lay.Lines)
			cfg.Truncator = ellipsis
			cfg.TextContinues = p < len(paras)-1
		}
		lines, cut := s.wrap.WrapParagraphF(cfg, width, runes, shaping.NewSliceIterator(outs))
		num.ellipsis = ellipsis.Glyphs
		for _, ln := range lines {
			lay.Lines = append(lay.Lines, s.place(ln, o.Size, num))
		}
		if cut > 0 || (o.MaxLines > 0 && len(lay.Lines) >= o.MaxLines && p < len(paras)-1) {
			lay.Truncated = true
			break
		}
	}
	return lay
}

// ellipsis is "…" shaped in the shaper's first font (or the machine's).
func (s *Shaper) ellipsis(size float64, feats []shaping.FontFeature) shaping.Output {
	runes := []rune{'…'}
	in := shaping.Input{Text: runes, RunEnd: 1, Direction: di.DirectionLTR, Size: fixed.Int26_6(math.Round(size * 64)),
		FontFeatures: feats, Language: language.NewLanguage("und"), Script: language.Common}
	in.Face = (&fontmap{s: s}).ResolveFace('…')
	return s.hb.Shape(in)
}

// spaces moves the spaces of runs in a colour font (emoji) to the first
// of the shaper's fonts: the segmenter keeps a space in the run before it,
// as Pango does, but an emoji font's space is an emoji wide.
func (s *Shaper) spaces(runs []shaping.Input) []shaping.Input {
	var out []shaping.Input
	for _, run := range runs {
		if f := s.byFace[run.Face]; f == nil || !f.colour {
			out = append(out, run)
			continue
		}
		text := s.face(s.fonts[0])
		start := run.RunStart
		for i := run.RunStart; i <= run.RunEnd; i++ {
			if i < run.RunEnd && (i == start || unicode.Is(unicode.Zs, run.Text[i]) == unicode.Is(unicode.Zs, run.Text[start])) {
				continue
			}
			part := run
			part.RunStart, part.RunEnd = start, i
			if unicode.Is(unicode.Zs, run.Text[start]) {
				part.Face = text
			}
			out = append(out, part)
			start = i
		}
	}
	return out
}

// units are the numbers of a paragraph's words and letters by character
// (numberUnits), and the glyphs of the ellipsis that ends a line cut
// short, which belong to the last unit before them.
type units struct {
	words, letters []int
	ellipsis       []shaping.Glyph
}

// of is the word and the letter the glyph at cluster of a paragraph
// draws.
func (u units) of(cluster int) (word, letter int) {
	if cluster < 0 || cluster >= len(u.words) {
		return -1, -1
	}
	return u.words[cluster], u.letters[cluster]
}

// place puts a wrapped line's glyphs in visual order.
func (s *Shaper) place(ln shaping.Line, size float64, num units) Line {
	runs := make([]shaping.Output, len(ln))
	for _, r := range ln {
		runs[r.VisualIndex] = r
	}
	var out Line
	pen := fixed.Int26_6(0)
	lastWord, lastLetter := -1, -1
	var dots []int
	for _, run := range runs {
		f := s.byFace[run.Face]
		isEllipsis := len(run.Glyphs) > 0 && len(num.ellipsis) > 0 && &run.Glyphs[0] == &num.ellipsis[0]
		for _, g := range run.Glyphs {
			word, letter := num.of(g.TextIndex())
			if isEllipsis {
				word, letter = -1, -1
				dots = append(dots, len(out.glyphs))
			}
			lastWord, lastLetter = max(lastWord, word), max(lastLetter, letter)
			p := placed{
				word: word, letter: letter,
				font: f, face: run.Face, gid: g.GlyphID, size: size, cluster: g.TextIndex(),
				x: float64(pen+g.XOffset) / 64, y: -float64(g.YOffset) / 64,
				ink: g.GlyphID != 0 && g.Width != 0 && g.Height != 0,
				bx:  float64(g.XBearing) / 64, by: -float64(g.YBearing) / 64,
				bw: float64(g.Width) / 64, bh: -float64(g.Height) / 64,
			}
			out.glyphs = append(out.glyphs, p)
			pen += g.Advance
		}
	}
	for _, k := range dots {
		out.glyphs[k].word, out.glyphs[k].letter = lastWord, lastLetter
	}
	out.Width = float64(pen) / 64
	return out
}

// visible reports a character that draws something, which no font having
// is worth a warning.
func visible(r rune) bool {
	return !unicode.IsSpace(r) && !unicode.IsControl(r) && !unicode.In(r, unicode.Cf, unicode.Mn, unicode.Me) &&
		!(r >= 0xFE00 && r <= 0xFE0F) && !(r >= 0xE0100 && r <= 0xE01EF)
}

// paragraphDirection is a paragraph's direction by its first strong
// character (UAX #9, P2 and P3): right to left for Hebrew, Arabic and the
// other right-to-left scripts, left to right otherwise.
func paragraphDirection(runes []rune) di.Direction {
	for _, r := range runes {
		switch {
		case rtl(r):
			return di.DirectionRTL
		case unicode.IsLetter(r):
			return di.DirectionLTR
		}
	}
	return di.DirectionLTR
}

// rtl reports a strong right-to-left character: the blocks of Hebrew,
// Arabic, Syriac, Thaana, N'Ko, Samaritan, Mandaic and their
// presentation forms, and the right-to-left historic scripts.
func rtl(r rune) bool {
	return unicode.IsLetter(r) && (r >= 0x0590 && r <= 0x08FF || r >= 0xFB1D && r <= 0xFDFF ||
		r >= 0xFE70 && r <= 0xFEFF || r >= 0x10800 && r <= 0x10FFF || r >= 0x1E800 && r <= 0x1EFFF)
}

// fontmap picks each character's font: the first of the shaper's that
// has it, then the machine's for its script; a character none has takes
// the first font (and is reported missing once shaped).
type fontmap struct {
	s      *Shaper
	script language.Script
}

func (m *fontmap) SetScript(s language.Script) { m.script = s }

func (m *fontmap) ResolveFace(r rune) *font.Face {
	for _, f := range m.s.fonts {
		if f.Has(r) {
			return m.s.face(f)
		}
	}
	if f := m.s.machine.find(r, m.script); f != nil {
		return m.s.face(f)
	}
	return m.s.face(m.s.fonts[0])
}
