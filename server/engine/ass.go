package engine

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"
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
	lines := func(text string) []string { return face.Lines(text, max(area, 1)) }
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
// split into parts of maxLines lines (sharing the cue's time by their
// characters), and with a highlight, one part a word, timed by the
// word's characters.
func placeCues(l Layer, lines func(string) []string) []shownCue {
	cp := l.Captions
	var out []shownCue
	for _, q := range cp.Cues {
		start, end := max(l.Start+q.Start, l.Start), min(l.Start+q.End, l.End())
		if end <= start {
			continue
		}
		ls := lines(q.Text)
		parts := [][]string{ls}
		if cp.MaxLines > 0 && len(ls) > cp.MaxLines {
			parts = nil
			for k := 0; k < len(ls); k += cp.MaxLines {
				parts = append(parts, ls[k:min(k+cp.MaxLines, len(ls))])
			}
		}
		weights := make([]float64, len(parts))
		for k, part := range parts {
			weights[k] = float64(utf8.RuneCountInString(strings.Join(part, " ")) + 1)
		}
		for k, t := range share(start, end, weights) {
			part := parts[k]
			if cp.Highlight == "" {
				out = append(out, shownCue{start: t[0], end: t[1], lines: part, word: -1})
				continue
			}
			words := strings.Fields(strings.Join(part, "\n"))
			ww := make([]float64, len(words))
			for n, w := range words {
				ww[n] = float64(utf8.RuneCountInString(w) + 1)
			}
			for n, wt := range share(t[0], t[1], ww) {
				out = append(out, shownCue{start: wt[0], end: wt[1], lines: part, word: n})
			}
		}
	}
	return out
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
	var on, off string
	if l.Captions.Highlight != "" {
		on, off = colourTags(assColour(l.Captions.Highlight, l.Opacity)), colourTags(text)
	}

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
		var shown, plain []string
		kept := showing[:0]
		for _, n := range showing {
			c := cues[n]
			if c.end < to-1e-9 {
				continue // ended before this span, as every later one starts
			}
			kept = append(kept, n)
			shown = append(shown, cueLines(c, on, off))
			plain = append(plain, cueLines(shownCue{lines: c.lines, word: -1}, "", ""))
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

// cueLines is a cue's lines as script text, its highlighted word (if any)
// coloured by the override tags on, and the rest by off.
func cueLines(c shownCue, on, off string) string {
	out := make([]string, len(c.lines))
	n := 0
	for k, ln := range c.lines {
		words := strings.Fields(ln)
		for j, w := range words {
			w = assText(w)
			if n == c.word {
				w = "{" + on + "}" + w + "{" + off + "}"
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
