package glyphs

import (
	"fmt"
	"image/color"
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
		if r == ',' {
			// Features are kept joined by commas: no font's tag has one.
			return Feature{}, fmt.Errorf("%q: a feature's tag holds no comma", s)
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
	// LineHeight is each line's height as a multiple of the font size of
	// its largest text (CSS's unitless line-height); 0 is the fonts' own
	// (their ascent, descent and line gap).
	LineHeight float64
	// Lang is the text's language, a BCP 47 tag ("ja", "zh-Hant", "ko"),
	// or "" for none: the shaper applies the fonts' forms of it (their
	// locl features), and the machine's Chinese, Japanese and Korean
	// fonts are its face of the Noto CJK collection (cjkFace). Without
	// it, the face follows the paragraph's script (guessCJK).
	Lang string
}

// Span is a run of a paragraph's text in a style of its own. Spans are
// laid out as one text (LayoutSpans): shaped apart, as their styles
// differ, but broken into lines where the whole text allows, never at a
// span's edge inside a word.
type Span struct {
	Text string
	// Size is the span's font size, pixels per em; 0 is Options.Size.
	Size float64
	// Fonts are the span's chain of fonts, before the machine's; nil are
	// the shaper's.
	Fonts []*Font
	// Features are the OpenType features set on the span; nil are
	// Options.Features.
	Features []Feature
	// Fill colours the span's glyphs; nil is the Paint's Fill.
	Fill *color.NRGBA
	// Background is painted behind the span's glyphs (DrawBackgrounds),
	// on each line as far as they advance, from its first font's ascent
	// above the baseline to its descent below (CSS's content area); nil
	// paints none.
	Background *color.NRGBA
	// Lang is the span's language, as Options.Lang; "" is Options.Lang.
	Lang string
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
	// styles are the spans' styles, by span, then the layout's own (its
	// first font at Options.Size), which an empty line takes.
	styles []style
}

// style is how a span's glyphs are drawn and the metrics of its first
// font at its size, which size the lines it lies on.
type style struct {
	fill, background     *color.NRGBA
	size                 float64
	ascent, descent, gap float64
	// lang is the span's language, "" for none; face its face of the CJK
	// collection, -1 to guess from the paragraph.
	lang language.Language
	face int
}

// Height is how far the layout's lines reach from the top of the first
// to the bottom of the last.
func (l *Layout) Height() float64 {
	h := 0.0
	for _, ln := range l.Lines {
		h += ln.Above + ln.Below
	}
	return h
}

// Widest is the width of the layout's widest line.
func (l *Layout) Widest() float64 {
	w := 0.0
	for _, ln := range l.Lines {
		w = max(w, ln.Width)
	}
	return w
}

// LineHeight is the first font's distance between baselines, at the
// layout's size.
func (l *Layout) LineHeight() float64 { return l.Ascent + l.Descent + l.Gap }

// Line is one line of a layout, its glyphs in visual order (left to
// right) from the line's origin, the left end of its baseline.
type Line struct {
	// Width is how far the glyphs advance the pen, less white space at
	// the line's end.
	Width float64
	// Above and Below are how far the line reaches above its baseline
	// and below it, as CSS's line boxes do: each span on it its first
	// font's ascent above, its descent below, and half the leading on
	// each side (the font's line gap, or what LineHeight adds); the
	// largest of them. Lines are stacked Above+Below apart.
	Above, Below float64
	// Ascent and Descent (positive) are the largest of the line's spans'
	// first fonts' at their sizes; Size is the largest font size.
	Ascent, Descent, Size float64
	glyphs                []placed
	// styles are the layout's (Layout.styles).
	styles []style
}

// Empty reports a line with nothing to draw: no glyph with ink, no
// background.
func (l Line) Empty() bool {
	for _, g := range l.glyphs {
		if g.ink {
			return false
		}
	}
	return len(l.boxes()) == 0
}

// box is a rectangle a background paints, from a line's origin: x0 to
// x1 across, top to bottom (y down).
type box struct {
	x0, x1, top, bottom float64
	c                   color.NRGBA
}

// boxes are the rectangles the spans' backgrounds paint on the line: one
// for each stretch of glyphs of one background and height, left to
// right, as far as they advance.
func (l Line) boxes() []box {
	var out []box
	for _, g := range l.glyphs {
		if g.adv == 0 || len(l.styles) == 0 {
			continue
		}
		st := l.styles[g.span]
		if st.background == nil {
			continue
		}
		b := box{x0: min(g.pen, g.pen+g.adv), x1: max(g.pen, g.pen+g.adv), top: -st.ascent, bottom: st.descent, c: *st.background}
		if n := len(out); n > 0 {
			if last := &out[n-1]; last.c == b.c && last.top == b.top && last.bottom == b.bottom && math.Abs(last.x1-b.x0) < 1e-6 {
				last.x1 = b.x1
				continue
			}
		}
		out = append(out, b)
	}
	return out
}

// Reach is how far the line draws: Span and Ink's extents (left and
// right of its origin, top above its baseline and bottom below it, both
// positive) with its backgrounds'; ok is false for an empty line.
func (l Line) Reach() (left, right, top, bottom float64, ok bool) {
	left, right, ok = l.Span()
	top, bottom, _ = l.Ink()
	for _, b := range l.boxes() {
		if !ok {
			left, right, top, bottom, ok = b.x0, b.x1, -b.top, b.bottom, true
			continue
		}
		left, right = min(left, b.x0), max(right, b.x1)
		top, bottom = max(top, -b.top), max(bottom, b.bottom)
	}
	return left, right, top, bottom, ok
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
	// ownWord and ownLetter are the unit whose picture paints the
	// glyph's background: its own, or white space's neighbour's
	// (units.owners).
	ownWord, ownLetter int
	// span is the index of the glyph's style in its layout's styles.
	span int
	// pen is where the pen stood before the glyph, adv how far it moves.
	pen, adv float64
	x, y     float64
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
	return s.LayoutSpans([]Span{{Text: text}}, o)
}

// LayoutSpans shapes the spans' texts as one text, in lines: at each
// newline, and where Options.Width breaks them. The text is ordered (UAX
// #9) and broken (UAX #14) as a whole, and shaped in runs that end where
// a span, a direction, a script or a font does; a line is as high as its
// largest span (Line.Above, Line.Below), and its spans share its
// baseline. spans must not be empty.
func (s *Shaper) LayoutSpans(spans []Span, o Options) *Layout {
	lay := &Layout{}
	lay.Ascent, lay.Descent, lay.Gap = s.fonts[0].Metrics(o.Size)
	feats := features(o.Features)
	// Each span's style, its fonts and features; then the layout's own.
	fonts := make([][]*Font, len(spans))
	spanFeats := make([][]shaping.FontFeature, len(spans))
	lay.styles = make([]style, 0, len(spans)+1)
	for i, sp := range spans {
		size := sp.Size
		if size <= 0 {
			size = o.Size
		}
		fonts[i] = sp.Fonts
		if len(fonts[i]) == 0 {
			fonts[i] = s.fonts
		}
		spanFeats[i] = feats
		if sp.Features != nil {
			spanFeats[i] = features(sp.Features)
		}
		st := style{fill: sp.Fill, background: sp.Background, size: size}
		st.ascent, st.descent, st.gap = fonts[i][0].Metrics(size)
		lang := sp.Lang
		if lang == "" {
			lang = o.Lang
		}
		st.face = -1
		if lang != "" {
			st.lang, st.face = language.NewLanguage(lang), cjkFace(lang)
		}
		lay.styles = append(lay.styles, st)
	}
	own := len(spans)
	lay.styles = append(lay.styles, style{size: o.Size, ascent: lay.Ascent, descent: lay.Descent, gap: lay.Gap})

	// The text, and the span of each of its characters. A tab is four
	// spaces: the font's tab glyph, where it has one, is no advance to a
	// stop.
	var text []rune
	var spanOf []int
	for i, sp := range spans {
		t := strings.ReplaceAll(strings.ReplaceAll(sp.Text, "\r\n", "\n"), "\t", "    ")
		for _, r := range t {
			text, spanOf = append(text, r), append(spanOf, i)
		}
	}
	type para struct{ start, end int }
	var paras []para
	start := 0
	for i, r := range text {
		if r == '\n' {
			paras = append(paras, para{start, i})
			start = i + 1
		}
	}
	paras = append(paras, para{start, len(text)})

	missing := map[rune]bool{}
	var words, letters int
	policy := shaping.WhenNecessary
	if o.WholeWords {
		policy = shaping.Never
	}
	var ellipsis shaping.Output
	if o.MaxLines > 0 {
		ellipsis = s.ellipsis(o.Size, feats)
	}
	for p, pa := range paras {
		if o.MaxLines > 0 && len(lay.Lines) >= o.MaxLines {
			lay.Truncated = true
			break
		}
		runes, spanAt := text[pa.start:pa.end], spanOf[pa.start:pa.end]
		var num units
		num.words, words = numberUnits(runes, Words, words)
		num.letters, letters = numberUnits(runes, Letters, letters)
		num.ownWords, num.ownLetters = owners(num.words), owners(num.letters)
		num.spans, num.own = spanAt, own
		if len(runes) == 0 {
			lay.Lines = append(lay.Lines, lay.metrics(Line{}, o.LineHeight))
			if o.MaxLines > 0 && len(lay.Lines) == o.MaxLines && p < len(paras)-1 {
				// The text goes on past the last line kept.
				lay.Lines[len(lay.Lines)-1] = lay.metrics(s.place(shaping.Line{ellipsis}, units{ellipsis: ellipsis.Glyphs, own: own}, lay.styles), o.LineHeight)
				lay.Truncated = true
				break
			}
			continue
		}
		dir := paragraphDirection(runes)
		in := shaping.Input{
			Text: runes, RunEnd: len(runes), Direction: dir,
			Size: fixed.Int26_6(math.Round(o.Size * 64)), FontFeatures: feats,
			Language: language.NewLanguage("und"), Script: language.Common,
		}
		var outs []shaping.Output
		for _, run := range s.split(in, spanAt, fonts, spanFeats, lay.styles, guessCJK(runes)) {
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
			lay.Lines = append(lay.Lines, lay.metrics(s.place(ln, num, lay.styles), o.LineHeight))
		}
		if cut > 0 || (o.MaxLines > 0 && len(lay.Lines) >= o.MaxLines && p < len(paras)-1) {
			lay.Truncated = true
			break
		}
	}
	return lay
}

// features are the features as the shaper takes them.
func features(fs []Feature) []shaping.FontFeature {
	out := make([]shaping.FontFeature, 0, len(fs))
	for _, f := range fs {
		out = append(out, shaping.FontFeature{Tag: ot.MustNewTag(f.Tag), Value: f.Value})
	}
	return out
}

// split cuts a paragraph into the runs that are shaped apart: first by
// direction and script over the whole paragraph (so that the spans are
// ordered as one text), then at the spans' edges, then by the font that
// draws each character, in the span's chain of fonts. Each run is sized
// and featured as its span, in its language; guess is the face of the
// CJK collection for spans of no CJK language.
func (s *Shaper) split(in shaping.Input, spanAt []int, fonts [][]*Font, feats [][]shaping.FontFeature, styles []style, guess int) []shaping.Input {
	first := s.face(s.fonts[0])
	var runs []shaping.Input
	for _, run := range s.seg.Split(in, constantFace{first}) {
		for a := run.RunStart; a < run.RunEnd; {
			b := a + 1
			for b < run.RunEnd && spanAt[b] == spanAt[a] {
				b++
			}
			sp := spanAt[a]
			piece := run
			piece.RunStart, piece.RunEnd = a, b
			piece.Size = fixed.Int26_6(math.Round(styles[sp].size * 64))
			piece.FontFeatures = feats[sp]
			if styles[sp].lang != "" {
				piece.Language = styles[sp].lang
			}
			fm := &fontmap{s: s, fonts: fonts[sp], face: styles[sp].face, guess: guess}
			fm.SetScript(run.Script)
			runs = append(runs, s.spaces(shaping.SplitByFace(piece, fm), fonts[sp][0])...)
			a = b
		}
	}
	return runs
}

// constantFace maps every character to one face: the paragraph is split
// by direction and script alone, before the spans choose their fonts.
type constantFace struct{ face *font.Face }

func (c constantFace) ResolveFace(rune) *font.Face { return c.face }

// ellipsis is "…" shaped in the shaper's first font (or the machine's).
func (s *Shaper) ellipsis(size float64, feats []shaping.FontFeature) shaping.Output {
	runes := []rune{'…'}
	in := shaping.Input{Text: runes, RunEnd: 1, Direction: di.DirectionLTR, Size: fixed.Int26_6(math.Round(size * 64)),
		FontFeatures: feats, Language: language.NewLanguage("und"), Script: language.Common}
	in.Face = (&fontmap{s: s, fonts: s.fonts, face: -1, guess: cjkSC}).ResolveFace('…')
	return s.hb.Shape(in)
}

// spaces moves the spaces of runs in a colour font (emoji) to text, the
// first font of their span: the segmenter keeps a space in the run
// before it, as Pango does, but an emoji font's space is an emoji wide.
func (s *Shaper) spaces(runs []shaping.Input, text *Font) []shaping.Input {
	var out []shaping.Input
	for _, run := range runs {
		if f := s.byFace[run.Face]; f == nil || !f.colour {
			out = append(out, run)
			continue
		}
		face := s.face(text)
		start := run.RunStart
		for i := run.RunStart; i <= run.RunEnd; i++ {
			if i < run.RunEnd && (i == start || unicode.Is(unicode.Zs, run.Text[i]) == unicode.Is(unicode.Zs, run.Text[start])) {
				continue
			}
			part := run
			part.RunStart, part.RunEnd = start, i
			if unicode.Is(unicode.Zs, run.Text[start]) {
				part.Face = face
			}
			out = append(out, part)
			start = i
		}
	}
	return out
}

// units are the numbers of a paragraph's words and letters by character
// (numberUnits) and of the units that paint their backgrounds (owners),
// the span of each character, and the glyphs of the ellipsis that ends a
// line cut short, which belong to the last unit and span before them.
type units struct {
	words, letters       []int
	ownWords, ownLetters []int
	spans                []int
	// own is the index of the layout's own style.
	own      int
	ellipsis []shaping.Glyph
}

// of is the word and the letter the glyph at cluster of a paragraph
// draws, the units that paint its background, and its span.
func (u units) of(cluster int) (word, letter, ownWord, ownLetter, span int) {
	if cluster < 0 || cluster >= len(u.words) {
		return -1, -1, -1, -1, u.own
	}
	return u.words[cluster], u.letters[cluster], u.ownWords[cluster], u.ownLetters[cluster], u.spans[cluster]
}

// place puts a wrapped line's glyphs in visual order.
func (s *Shaper) place(ln shaping.Line, num units, styles []style) Line {
	runs := make([]shaping.Output, len(ln))
	for _, r := range ln {
		runs[r.VisualIndex] = r
	}
	var out Line
	pen := fixed.Int26_6(0)
	lastWord, lastLetter, lastCluster, lastSpan := -1, -1, -1, num.own
	var dots []int
	for _, run := range runs {
		f := s.byFace[run.Face]
		isEllipsis := len(run.Glyphs) > 0 && len(num.ellipsis) > 0 && &run.Glyphs[0] == &num.ellipsis[0]
		size := float64(run.Size) / 64
		for _, g := range run.Glyphs {
			word, letter, ownWord, ownLetter, span := num.of(g.TextIndex())
			if isEllipsis {
				word, letter = -1, -1
				dots = append(dots, len(out.glyphs))
			} else {
				size = styles[span].size
				if g.TextIndex() > lastCluster {
					lastCluster, lastSpan = g.TextIndex(), span
				}
			}
			lastWord, lastLetter = max(lastWord, word), max(lastLetter, letter)
			p := placed{
				word: word, letter: letter, ownWord: ownWord, ownLetter: ownLetter, span: span,
				font: f, face: run.Face, gid: g.GlyphID, size: size, cluster: g.TextIndex(),
				pen: float64(pen) / 64, adv: float64(g.Advance) / 64,
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
		g := &out.glyphs[k]
		g.word, g.letter, g.ownWord, g.ownLetter, g.span = lastWord, lastLetter, lastWord, lastLetter, lastSpan
	}
	out.Width = float64(pen) / 64
	return out
}

// metrics sets the line's height from its spans' (the layout's own for a
// line with no glyphs), as CSS sets a line box's from its inline boxes:
// each span's first font's ascent and descent, and half the leading on
// each side, lineHeight times the span's size less them (the font's line
// gap when lineHeight is 0).
func (l *Layout) metrics(ln Line, lineHeight float64) Line {
	ln.styles = l.styles
	seen := map[int]bool{}
	add := func(st style) {
		lead := st.gap
		if lineHeight > 0 {
			lead = lineHeight*st.size - st.ascent - st.descent
		}
		above, below := st.ascent+lead/2, st.descent+lead/2
		if len(seen) == 1 {
			ln.Above, ln.Below, ln.Ascent, ln.Descent, ln.Size = above, below, st.ascent, st.descent, st.size
			return
		}
		ln.Above, ln.Below = max(ln.Above, above), max(ln.Below, below)
		ln.Ascent, ln.Descent, ln.Size = max(ln.Ascent, st.ascent), max(ln.Descent, st.descent), max(ln.Size, st.size)
	}
	for _, g := range ln.glyphs {
		if !seen[g.span] {
			seen[g.span] = true
			add(l.styles[g.span])
		}
	}
	if len(seen) == 0 {
		seen[-1] = true
		add(l.styles[len(l.styles)-1])
	}
	return ln
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

// fontmap picks each character's font: the first of fonts (the
// shaper's, or a span's) that has it, then the machine's for its script;
// a character none has takes the first font (and is reported missing
// once shaped).
type fontmap struct {
	s      *Shaper
	fonts  []*Font
	script language.Script
	// face is the face of the machine's CJK collection for the text's
	// language, -1 for none; guess is the paragraph's (guessCJK).
	face, guess int
}

func (m *fontmap) SetScript(s language.Script) { m.script = s }

func (m *fontmap) ResolveFace(r rune) *font.Face {
	for _, f := range m.fonts {
		if f.Has(r) {
			return m.s.face(f)
		}
	}
	if f := m.s.machine.find(r, m.script, m.face, m.guess); f != nil {
		return m.s.face(f)
	}
	return m.s.face(m.fonts[0])
}
