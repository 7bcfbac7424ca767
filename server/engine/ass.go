package engine

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxCaptionEvents bounds the subtitle events the captions layers of one
// render write together: a highlighted cue is one event a word.
const maxCaptionEvents = 50000

// maxCaptionScript bounds the subtitle scripts of the captions layers of
// one render together, held in kino's memory, written to its working
// folder and read by libass in ffmpeg: cues on screen together are
// written into every event while they show, so overlapping cues multiply
// a script's size. A bound a layer let one render of 99 layers with the
// same captions hold 4.56 GB in kino and 2.4 GB of files.
const maxCaptionScript = 32 << 20

// captionSpend is what the captions layers planned so far wrote: the
// budget of maxCaptionEvents and maxCaptionScript is the render's.
type captionSpend struct{ layers, events, bytes int }

// captionsLayer draws a captions layer with libass (ffmpeg's ass filter),
// from a subtitle script kino writes to a file. One filter draws every cue
// and costs nothing on frames without one, where a drawtext a cue (or a
// picture a cue) would put hundreds of filters in the graph; libass draws
// outlines, shadows, per-line boxes and a colour change inside a line
// (the highlighted word) natively. The cue text is escaped for the
// script (see assText), and only the script's path reaches the filter
// graph.
func (p *planner) captionsLayer(i int, l Layer, video, defaultFont string, alpha, hidden bool) (_ string, err error) {
	// The font is parsed, sized, measured to break lines and named for
	// libass: each may panic on a hostile font, as laid-out text's may.
	defer recoverFont(l, "place the captions", &err)
	font := defaultFont
	if l.Font != "" {
		m, ok := p.media[l.Font]
		if !ok {
			return "", fmt.Errorf("%s: font %s was not downloaded", l.FontField, l.Font)
		}
		if !m.Font {
			return "", &MediaError{Field: l.FontField, Message: "the file is not a TrueType, OpenType or WOFF font"}
		}
		font = m.Path
	}
	face, err := p.face(l, font)
	if err != nil {
		return "", err
	}
	if hidden {
		// Never seen: its cues need not be read (nor heard).
		return video, nil
	}
	if err := p.captionsReady(l); err != nil {
		return "", err
	}
	// The font p.face read, not read again.
	read := p.fonts[font]
	family, data := read.FullName(), read.file
	// libass finds the font by its full name in fontsdir: a folder of
	// this layer's font alone, so no other file (a downloaded video) is
	// read as a font.
	dir := fmt.Sprintf("fonts-%d", i)
	p.files[dir+"/font"+filepath.Ext(font)] = data

	box := captionBox(l, p.s.Width, p.s.Height)
	area := box.w - 2*l.Style.PaddingX
	lines := func(text string) []string {
		width := area
		if g := l.Captions.HighlightScale; g > 1 {
			// A line holds its widest word grown.
			widest := 0
			for _, w := range strings.Fields(text) {
				widest = max(widest, face.Width(w))
			}
			width -= int(math.Ceil(float64(widest) * (g - 1)))
		}
		return face.Lines(text, max(width, 1))
	}
	cues := placeCues(l, lines)
	script, err := writeASS(l, p.s, family, face.Ascent()+face.Descent(), box, cues, &p.captions)
	if err != nil {
		return "", err
	}
	name := fmt.Sprintf("captions-%d.ass", i)
	p.files[name] = []byte(script)
	out := fmt.Sprintf("v%d", i)
	opt := ""
	if alpha {
		opt = ":alpha=1"
	}
	p.graph = append(p.graph, fmt.Sprintf("[%s]ass=filename=%s:fontsdir=%s%s[%s]", video,
		filterValue(filepath.Join(p.workDir, name)), filterValue(filepath.Join(p.workDir, dir)), opt, out))
	return out, nil
}

// captionBox is the area captions are placed in: the layer's box, or by
// default the frame less a twentieth of its size on every side.
func captionBox(l Layer, w, h int) rect {
	b := rect{w: l.Width, h: l.Height}
	if b.w == 0 {
		b.w = w - 2*(w/20)
	}
	if b.h == 0 {
		b.h = h - 2*(h/20)
	}
	b.x, b.y = corner(l.X, w, b.w), corner(l.Y, h, b.h)
	return b
}

// shownCue is a cue as drawn: its lines, and the word highlighted (-1 for
// none), counted across the lines.
type shownCue struct {
	start, end float64
	lines      []string
	word       int
}

// placeCues turns the layer's cues (in layer time) into what is shown in
// scene time: cut to the layer, broken into lines at the box's width,
// split into parts of maxLines lines, and with a highlight, one part a
// word. Each word of a line is given the time it is spoken (wordStarts):
// a part shows from its first word (the first part from the cue's
// start) to the next part's first word (the last to the cue's end), and
// a highlighted word from its start to the next word's.
func placeCues(l Layer, lines func(string) []string) []shownCue {
	cp := l.Captions
	var out []shownCue
	for _, q := range cp.Cues {
		start, end := max(l.Start+q.Start, l.Start), min(l.Start+q.End, l.End())
		if end <= start {
			continue
		}
		ls := lines(q.Text)
		// first[k] is the first word of line k, counted across lines.
		var tokens []string
		first := make([]int, len(ls)+1)
		for k, ln := range ls {
			first[k] = len(tokens)
			tokens = append(tokens, strings.Fields(ln)...)
		}
		first[len(ls)] = len(tokens)
		at := wordStarts(tokens, q.Words, l.Start, start, end)
		per := len(ls)
		if cp.MaxLines > 0 {
			per = cp.MaxLines
		}
		for k := 0; k < len(ls); k += per {
			part := ls[k:min(k+per, len(ls))]
			a, b := first[k], first[min(k+per, len(ls))]
			from, to := start, end
			if k > 0 && a < len(at) {
				from = at[a]
			}
			if k+per < len(ls) && b < len(at) {
				to = at[b]
			}
			if to <= from {
				continue
			}
			if !cp.highlights() || a == b {
				out = append(out, shownCue{start: from, end: to, lines: part, word: -1})
				continue
			}
			if at[a] > from {
				// Before its first word is spoken, no word is.
				out = append(out, shownCue{start: from, end: at[a], lines: part, word: -1})
			}
			for n := a; n < b; n++ {
				ws, we := max(at[n], from), to
				if n+1 < b {
					we = at[n+1]
				}
				if we > ws {
					out = append(out, shownCue{start: ws, end: we, lines: part, word: n - a})
				}
			}
		}
	}
	return out
}

// wordStarts is when each of a cue's words (tokens, as shown) starts, in
// scene time within [start, end], never before the word before it. With
// words (the cue's timed words, in layer time: offset is the layer's
// start) a token takes the start of the word it is (alignWords); tokens
// no word matches share the time between their neighbours by their
// characters. Without words every token does: a word's time is its share
// of the cue's by characters, the documented estimate.
func wordStarts(tokens []string, words []Word, offset, start, end float64) []float64 {
	at := make([]float64, len(tokens))
	clamp := func(t float64) float64 { return min(max(offset+t, start), end) }
	match, last := alignWords(tokens, words)
	// lo is where the run of unmatched tokens being filled may start: the
	// end of the last word a matched token took, or before any the first
	// word's start (the cue's without words).
	lo := start
	if len(words) > 0 {
		lo = clamp(words[0].Start)
	}
	for i := 0; i < len(tokens); {
		if match[i] >= 0 {
			at[i] = clamp(words[match[i]].Start)
			lo = clamp(words[last[i]].End)
			i++
			continue
		}
		j := i
		for j < len(tokens) && match[j] < 0 {
			j++
		}
		hi := end
		switch {
		case j < len(tokens):
			hi = clamp(words[match[j]].Start)
		case len(words) > 0:
			hi = clamp(words[len(words)-1].End)
		}
		weights := make([]float64, j-i)
		for k := range weights {
			weights[k] = float64(utf8.RuneCountInString(tokens[i+k]) + 1)
		}
		for k, t := range share(min(lo, hi), hi, weights) {
			at[i+k] = t[0]
		}
		i = j
	}
	for i := 1; i < len(at); i++ {
		at[i] = max(at[i], at[i-1])
	}
	return at
}

// alignLookahead is how many words a token is looked for among, from the
// word after the last matched: a transcriber's words may hold a few the
// cue's text lacks (a false start, a repeated word).
const alignLookahead = 4

// alignWords matches the tokens of a cue's text, as shown, with its timed
// words, in order: a token matches the word or run of words that spell
// it, letters and digits compared without case, so "kino." matches the
// transcriber's "kino" and "don't" its "don" "'t". match[i] is the first
// word of token i (-1 for none), last[i] its last. A token whose word
// spells more (a word shown over two tokens) takes that word and leaves
// the rest for the next token. When nothing matches and there are as many
// words as tokens, they are taken one for one (a transcriber that spells
// numbers as digits, its text in words).
func alignWords(tokens []string, words []Word) (match, last []int) {
	match, last = make([]int, len(tokens)), make([]int, len(tokens))
	for i := range match {
		match[i], last[i] = -1, -1
	}
	if len(words) == 0 {
		return match, last
	}
	norms := make([]string, len(words))
	for k, w := range words {
		norms[k] = spelling(w.Text)
	}
	found := 0
	j, rest := 0, ""
	for i, tok := range tokens {
		nt := spelling(tok)
		if nt == "" {
			continue
		}
		for k := j; k < min(j+alignLookahead, len(words)); k++ {
			acc := norms[k]
			if k == j && rest != "" {
				acc = rest
			}
			m := k
			for len(acc) < len(nt) && strings.HasPrefix(nt, acc) && m+1 < len(words) {
				m++
				acc += norms[m]
			}
			if acc == nt {
				match[i], last[i] = k, m
				j, rest = m+1, ""
				found++
				break
			}
			if m == k && len(acc) > len(nt) && strings.HasPrefix(acc, nt) {
				match[i], last[i] = k, k
				j, rest = k, acc[len(nt):]
				found++
				break
			}
		}
	}
	if found == 0 && len(words) == len(tokens) {
		for i := range match {
			match[i], last[i] = i, i
		}
	}
	return match, last
}

// spelling is a word's letters and digits, in lower case: what a
// transcriber's word and the text shown of it share.
func spelling(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// share cuts [start, end) into consecutive spans in proportion to
// weights.
func share(start, end float64, weights []float64) [][2]float64 {
	total := 0.0
	for _, w := range weights {
		total += w
	}
	out := make([][2]float64, len(weights))
	at, sum := start, 0.0
	for k, w := range weights {
		sum += w
		next := start + (end-start)*sum/total
		if k == len(weights)-1 {
			next = end
		}
		out[k] = [2]float64{at, next}
		at = next
	}
	return out
}

// writeASS writes the subtitle script: one style for the text and one for
// the box, and for each span of time in which the set of cues on screen
// does not change, one event of their lines together (overlapping cues
// are stacked, the earlier on top, instead of drawn over each other) and,
// with a background, one event of the same lines drawing the boxes only.
// Sizes are pixels: the script's resolution is the frame's.
//
// spent is what the render's captions layers before this one wrote; the
// script's events and bytes are added to it.
func writeASS(l Layer, s *Scene, family string, emHeight float64, box rect, cues []shownCue, spent *captionSpend) (string, error) {
	st := l.Style
	// others names the layers before this one in messages, when they
	// spent part of the render's budget.
	others := ""
	if spent.layers > 0 {
		others = "with the captions layers before it, "
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[Script Info]\nScriptType: v4.00+\nPlayResX: %d\nPlayResY: %d\nWrapStyle: 2\nScaledBorderAndShadow: yes\nYCbCr Matrix: None\n\n", s.Width, s.Height)
	b.WriteString("[V4+ Styles]\nFormat: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding\n")
	// libass sizes a font by its ascent and descent together, drawtext
	// (and the text layers) by its em: the same fontSize draws the same
	// glyphs.
	size := f(math.Round(emHeight*100) / 100)
	// A comma would end the style's font field, and a line break (libass
	// ends a line at \r as at \n) or NUL the style: the name is the font
	// file's, whoever made it.
	family = strings.NewReplacer(",", " ", "\n", " ", "\r", " ", "\x00", " ").Replace(family)
	shadowColour, shadow := "&HFF000000", 0
	if st.Shadow.Color != "" {
		shadowColour, shadow = assColour(st.Shadow.Color, l.Opacity), 1
	}
	outline, outlineColour := 0, "&HFF000000"
	if l.Stroke.Width > 0 {
		outline, outlineColour = l.Stroke.Width, assColour(l.Stroke.Color, l.Opacity)
	}
	text := assColour(l.Color, l.Opacity)
	fmt.Fprintf(&b, "Style: Text,%s,%s,%s,%s,%s,%s,0,0,0,0,100,100,0,0,1,%d,%d,7,0,0,0,1\n", family, size, text, text, outlineColour, shadowColour, outline, shadow)
	if st.Background != "" {
		bg := assColour(st.Background, l.Opacity)
		fmt.Fprintf(&b, "Style: Box,%s,%s,&HFF000000,&HFF000000,%s,&HFF000000,0,0,0,0,100,100,0,0,3,0,0,7,0,0,0,1\n", family, size, bg)
	}
	cp := l.Captions
	if cp.HighlightBackground != "" {
		// The spoken word's box: libass's opaque box (border style 3) is
		// drawn glyph by glyph, so a box colour seen on the word's glyphs
		// alone is a box behind that word. Every other glyph, and every
		// glyph's fill, is transparent.
		fmt.Fprintf(&b, "Style: Word,%s,%s,&HFF000000,&HFF000000,&HFF000000,&HFF000000,0,0,0,0,100,100,0,0,3,0,0,7,0,0,0,1\n", family, size)
	}
	b.WriteString("\n[Events]\nFormat: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text\n")

	// Where the lines are anchored: ASS's numpad alignment, at the box's
	// edge less its padding.
	col := map[string]int{"left": 0, "center": 1, "right": 2}[st.Align]
	row := map[string]int{"bottom": 0, "middle": 1, "top": 2}[st.VerticalAlign]
	an := 1 + col + 3*row
	x := [3]int{box.x + st.PaddingX, box.x + box.w/2, box.x + box.w - st.PaddingX}[col]
	y := [3]int{box.y + box.h - st.PaddingY, box.y + box.h/2, box.y + st.PaddingY}[row]
	place := fmt.Sprintf(`\an%d\pos(%d,%d)`, an, x, y)
	if st.Shadow.Color != "" {
		place += fmt.Sprintf(`\xshad%d\yshad%d`, st.Shadow.X, st.Shadow.Y)
	}
	// The tags around the spoken word in each event: its colour in the
	// text's, its box in the word box's, and its size in all three, so
	// that the boxes are laid out as the text is.
	var grow, shrink string
	if cp.HighlightScale != 0 && cp.HighlightScale != 1 {
		pct := f(math.Round(cp.HighlightScale * 100))
		grow, shrink = `\fscx`+pct+`\fscy`+pct, `\fscx100\fscy100`
	}
	textTags, boxTags := wordTags{grow, shrink}, wordTags{grow, shrink}
	if cp.Highlight != "" {
		textTags = wordTags{colourTags(assColour(cp.Highlight, l.Opacity)) + grow, colourTags(text) + shrink}
	}
	var wordBox wordTags
	if cp.HighlightBackground != "" {
		c := assColour(cp.HighlightBackground, l.Opacity)
		wordBox = wordTags{fmt.Sprintf(`\3c&H%s&\3a&H%s&`, c[4:], c[2:4]) + grow, `\3a&HFF&` + shrink}
	}
	// The word's box reaches an eighth of the font's size past it on
	// either side, and is as tall as the line.
	wordPad := max(1, int(math.Round(emHeight/8)))

	// The spans in which the cues on screen do not change, swept in time
	// order: a cue joins the cues on screen at the span it starts and
	// leaves after the last it covers, so each span costs what it shows
	// (a layer may hold millions of word-long cues).
	var cuts []float64
	for _, c := range cues {
		cuts = append(cuts, c.start, c.end)
	}
	sort.Float64s(cuts)
	byStart := make([]int, len(cues))
	for k := range byStart {
		byStart[k] = k
	}
	sort.SliceStable(byStart, func(a, z int) bool { return cues[byStart[a]].start < cues[byStart[z]].start })
	// showing are the cues that may be on screen, in their order in cues (the
	// earlier on top).
	var showing []int
	next := 0
	events := 0
	for k := 0; k+1 < len(cuts); k++ {
		from, to := cuts[k], cuts[k+1]
		if to-from < 1e-9 {
			continue
		}
		for ; next < len(byStart) && cues[byStart[next]].start <= from+1e-9; next++ {
			at := sort.SearchInts(showing, byStart[next])
			showing = slices.Insert(showing, at, byStart[next])
		}
		var shown, plain, boxed []string
		spoken := false
		kept := showing[:0]
		for _, n := range showing {
			c := cues[n]
			if c.end < to-1e-9 {
				continue // ended before this span, as every later one starts
			}
			kept = append(kept, n)
			shown = append(shown, cueLines(c, textTags))
			plain = append(plain, cueLines(c, boxTags))
			if wordBox.on != "" {
				boxed = append(boxed, cueLines(c, wordBox))
				spoken = spoken || c.word >= 0
			}
		}
		showing = kept
		if len(shown) == 0 {
			continue
		}
		events++
		if spent.events+events > maxCaptionEvents {
			return "", &ValidationError{Field: l.Field, Message: fmt.Sprintf(
				"%smakes more than %d caption events in the render (one a word with highlightColor); use fewer cues or no highlight", others, maxCaptionEvents)}
		}
		when := assTime(from) + "," + assTime(to)
		if st.Background != "" {
			fmt.Fprintf(&b, "Dialogue: 0,%s,Box,,0,0,0,,{%s\\xbord%d\\ybord%d}%s\n", when, place, st.PaddingX, st.PaddingY, strings.Join(plain, `\N`))
		}
		if spoken {
			// After the lines' box, before the text: the same layer draws
			// its events in the order they are written.
			fmt.Fprintf(&b, "Dialogue: 0,%s,Word,,0,0,0,,{%s\\xbord%d\\ybord0}%s\n", when, place, wordPad, strings.Join(boxed, `\N`))
		}
		fmt.Fprintf(&b, "Dialogue: 1,%s,Text,,0,0,0,,{%s}%s\n", when, place, strings.Join(shown, `\N`))
		// Cues on screen together repeat their text in every event until
		// the last of them ends.
		if spent.bytes+b.Len() > maxCaptionScript {
			return "", &ValidationError{Field: l.Field, Message: fmt.Sprintf(
				"%smakes subtitle scripts of more than %d MiB in the render (many cues on screen at once, each repeated in every event while it shows); use fewer overlapping cues or no highlight", others, maxCaptionScript>>20)}
		}
	}
	spent.layers++
	spent.events += events
	spent.bytes += b.Len()
	return b.String(), nil
}

// colourTags are the override tags that set the glyphs' colour (an
// &HAABBGGRR colour) and alpha.
func colourTags(c string) string { return fmt.Sprintf(`\1c&H%s&\1a&H%s&`, c[4:], c[2:4]) }

// wordTags are the override tags before (on) and after (off) the word
// being spoken in one event.
type wordTags struct{ on, off string }

// cueLines is a cue's lines as script text, its highlighted word (if any)
// between the tags of tags.
func cueLines(c shownCue, tags wordTags) string {
	out := make([]string, len(c.lines))
	n := 0
	for k, ln := range c.lines {
		words := strings.Fields(ln)
		for j, w := range words {
			w = assText(w)
			if n == c.word && tags.on != "" {
				w = "{" + tags.on + "}" + w + "{" + tags.off + "}"
			}
			words[j] = w
			n++
		}
		out[k] = strings.Join(words, " ")
	}
	return strings.Join(out, `\N`)
}

// assText escapes text for a subtitle event, so that it is drawn as
// written: { and } would open and close override tags (\{ and \} are
// libass's literal braces), and a backslash before N, n, h, { or } would
// be a line break, a space or a brace: a word joiner (U+2060, invisible
// and of no width) after it keeps it a backslash.
func assText(s string) string {
	var b strings.Builder
	for i, r := range s {
		switch r {
		case '{', '}':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\\':
			b.WriteByte('\\')
			if i+1 < len(s) && strings.IndexByte(`Nnh{}`, s[i+1]) >= 0 {
				b.WriteString("\u2060")
			}
		case '\n', '\r':
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// assTime is H:MM:SS.cc, the script's time, to the hundredth of a second.
func assTime(t float64) string {
	cs := int(math.Round(t * 100))
	return fmt.Sprintf("%d:%02d:%02d.%02d", cs/360000, cs/6000%60, cs/100%60, cs%100)
}

// assColour is a colour (0xRRGGBBAA) at an opacity as ASS writes it:
// &HAABBGGRR, where AA is the transparency (00 opaque).
func assColour(c string, opacity float64) string {
	n := nrgba(c)
	a := 255 - int(math.Round(float64(n.A)*opacity))
	return fmt.Sprintf("&H%02X%02X%02X%02X", a, n.B, n.G, n.R)
}
