package engine

import (
	"bytes"
	"fmt"
	"html"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits of a captions layer's cues, whatever their origin: they keep one
// layer's subtitle script, and the ffmpeg that reads it, small.
const (
	// MaxCaptionBytes bounds an SRT or WebVTT file or inline text.
	MaxCaptionBytes = 1 << 20
	// MaxCues bounds the cues of one layer.
	MaxCues = 5000
	// MaxCueText bounds the text of one cue, in characters.
	MaxCueText = 1000
)

// Cue is one caption: Text from Start to End, in seconds.
type Cue struct {
	Start, End float64
	Text       string
	// Words are the times its words are spoken, when the source gives
	// them (a transcriber's word timestamps, WebVTT's timestamp tags, a
	// JSON of words), in the cue's time; nil when only the cue is timed.
	// They need not match the words of Text one for one: Plan aligns
	// them (placeCues).
	Words []Word
}

// Word is one spoken word and when: from Start to End, in seconds.
type Word struct {
	Start, End float64
	Text       string
}

// CueError is a problem in an SRT or WebVTT text, at a line counted from 1
// (0 for the text as a whole).
type CueError struct {
	Line    int
	Message string
}

func (e *CueError) Error() string {
	if e.Line == 0 {
		return e.Message
	}
	return fmt.Sprintf("line %d: %s", e.Line, e.Message)
}

// ParseCues reads SRT or WebVTT (WebVTT when the text starts with WEBVTT),
// or a JSON of timed words (when it starts with [ or {; see
// ParseTranscript),
// as players do: a byte-order mark and CR or CRLF line ends are accepted,
// the cue numbers of SRT and identifiers of WebVTT are skipped, as are
// WebVTT's NOTE, STYLE and REGION blocks and cue settings; styling tags
// (<b>, <i>, <c.x>, <v Name>, <00:00:01.000>, SRT's {\an8} and
// {\k50}) are stripped, timestamp and karaoke tags timing the words,
// and WebVTT's entities (&amp;) decoded. A cue without a blank line
// before it is still a cue. Cues may overlap; they are returned by
// start time, and cues whose text is empty once stripped are dropped.
func ParseCues(data []byte) ([]Cue, error) {
	if len(data) > MaxCaptionBytes {
		return nil, &CueError{Message: fmt.Sprintf("is %d bytes; at most %d are allowed", len(data), MaxCaptionBytes)}
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if !utf8.Valid(data) {
		return nil, &CueError{Message: "is not UTF-8 text"}
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return nil, &CueError{Message: "must not contain NUL characters"}
	}
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) > 0 && (t[0] == '[' || t[0] == '{') {
		return parseWordsFile(data)
	}
	text := strings.ReplaceAll(strings.ReplaceAll(string(data), "\r\n", "\n"), "\r", "\n")
	lines := strings.Split(text, "\n")
	vtt := strings.HasPrefix(lines[0], "WEBVTT") && (len(lines[0]) == 6 || lines[0][6] == ' ' || lines[0][6] == '\t')
	p := cueParser{vtt: vtt}
	start := 0
	if vtt {
		// The header block ends at the first blank line.
		for start < len(lines) && strings.TrimSpace(lines[start]) != "" {
			start++
		}
	}
	for n := start; n < len(lines); n++ {
		if err := p.line(n+1, lines[n]); err != nil {
			return nil, err
		}
	}
	if err := p.flush(); err != nil {
		return nil, err
	}
	if p.pendingID > 0 {
		return nil, &CueError{Line: p.pendingID + 1, Message: "expected a cue timing such as 00:00:01,000 --> 00:00:02,500"}
	}
	sort.SliceStable(p.cues, func(i, j int) bool { return p.cues[i].Start < p.cues[j].Start })
	return p.cues, nil
}

// parseWordsFile reads a JSON of words (ParseTranscript) within the
// limits of a captions file.
func parseWordsFile(data []byte) ([]Cue, error) {
	cues, err := ParseTranscript(data)
	if err != nil {
		return nil, err
	}
	if len(cues) > MaxCues {
		return nil, &CueError{Message: fmt.Sprintf("makes %d cues; at most %d are allowed", len(cues), MaxCues)}
	}
	for i, c := range cues {
		if n := utf8.RuneCountInString(c.Text); n > MaxCueText || len(c.Words) > MaxCueText {
			return nil, &CueError{Message: fmt.Sprintf("cue %d (at %s) has %d characters and %d words; at most %d of each are allowed", i+1, assTime(c.Start), n, len(c.Words), MaxCueText)}
		}
	}
	sort.SliceStable(cues, func(i, j int) bool { return cues[i].Start < cues[j].Start })
	return cues, nil
}

// cueParser reads SRT and WebVTT a line at a time.
type cueParser struct {
	vtt  bool
	cues []Cue
	// in is whether a cue's text is being read; cur is that cue, curLine
	// the line of its timing.
	in      bool
	cur     Cue
	curLine int
	text    []string
	// skip is set in a WebVTT block that holds no cue (NOTE, STYLE,
	// REGION).
	skip bool
	// pendingID is the line of an identifier (or SRT number) waiting for
	// its timing line, 0 when none is.
	pendingID int
}

func (p *cueParser) line(n int, s string) error {
	if strings.TrimSpace(s) == "" {
		p.skip = false
		if p.pendingID > 0 {
			return &CueError{Line: n, Message: "expected a cue timing such as 00:00:01,000 --> 00:00:02,500"}
		}
		return p.flush()
	}
	if p.skip {
		return nil
	}
	if strings.Contains(s, "-->") {
		start, end, err := parseTiming(s, p.vtt)
		if err != nil {
			if p.in {
				// An arrow in a cue's text, not a timing.
				p.text = append(p.text, s)
				return nil
			}
			return &CueError{Line: n, Message: err.Error()}
		}
		if p.in {
			// A cue with no blank line before it; the line before its
			// timing was its number.
			if k := len(p.text) - 1; k >= 0 && isCueNumber(p.text[k]) {
				p.text = p.text[:k]
			}
			if err := p.flush(); err != nil {
				return err
			}
		}
		if end <= start {
			return &CueError{Line: n, Message: "the cue ends at or before it starts"}
		}
		p.in, p.pendingID = true, 0
		p.cur, p.curLine = Cue{Start: start, End: end}, n
		return nil
	}
	if p.in {
		p.text = append(p.text, s)
		return nil
	}
	if p.pendingID > 0 {
		return &CueError{Line: n, Message: "expected a cue timing such as 00:00:01,000 --> 00:00:02,500"}
	}
	if p.vtt {
		for _, kw := range []string{"NOTE", "STYLE", "REGION"} {
			if s == kw || strings.HasPrefix(s, kw+" ") || strings.HasPrefix(s, kw+"\t") {
				p.skip = true
				return nil
			}
		}
	}
	// A cue number (SRT) or identifier (WebVTT): its timing follows.
	p.pendingID = n
	return nil
}

// flush ends the cue being read.
func (p *cueParser) flush() error {
	if !p.in {
		return nil
	}
	p.in = false
	text, words := timedCueText(strings.Join(p.text, "\n"), p.vtt, p.cur.Start, p.cur.End)
	p.text = p.text[:0]
	if strings.TrimSpace(text) == "" {
		return nil
	}
	p.cur.Words = words
	if n := utf8.RuneCountInString(text); n > MaxCueText {
		return &CueError{Line: p.curLine, Message: fmt.Sprintf("the cue's text has %d characters; at most %d are allowed", n, MaxCueText)}
	}
	if len(p.cues) == MaxCues {
		return &CueError{Line: p.curLine, Message: fmt.Sprintf("more than %d cues; at most %d are allowed", MaxCues, MaxCues)}
	}
	p.cur.Text = text
	p.cues = append(p.cues, p.cur)
	return nil
}

func isCueNumber(s string) bool {
	_, err := strconv.ParseUint(strings.TrimSpace(s), 10, 32)
	return err == nil
}

// parseTiming reads "START --> END [settings]"; WebVTT's cue settings are
// ignored, as SRT's coordinates are.
func parseTiming(s string, vtt bool) (float64, float64, error) {
	a, b, _ := strings.Cut(s, "-->")
	fields := strings.Fields(b)
	if len(fields) == 0 {
		return 0, 0, fmt.Errorf("the cue timing has no end time")
	}
	start, ok := parseStamp(strings.TrimSpace(a))
	if !ok {
		return 0, 0, fmt.Errorf("%q is not a time such as 00:01:02,500 or 01:02.500", strings.TrimSpace(a))
	}
	end, ok := parseStamp(fields[0])
	if !ok {
		return 0, 0, fmt.Errorf("%q is not a time such as 00:01:02,500 or 01:02.500", fields[0])
	}
	return start, end, nil
}

// parseStamp reads [HH:]MM:SS[,.]mmm; SRT's comma and WebVTT's dot are
// both accepted, whichever the file is.
func parseStamp(s string) (float64, bool) {
	parts := strings.Split(s, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return 0, false
	}
	sec, frac, ok := strings.Cut(strings.Replace(parts[len(parts)-1], ",", ".", 1), ".")
	if !ok || len(sec) != 2 || len(frac) == 0 || len(frac) > 3 {
		return 0, false
	}
	total := 0.0
	for i, part := range append(parts[:len(parts)-1], sec) {
		v, err := strconv.ParseUint(part, 10, 32)
		if err != nil || part == "" || (i > 0 && (len(part) != 2 || v > 59)) || len(part) > 6 {
			return 0, false
		}
		total = total*60 + float64(v)
	}
	ms, err := strconv.ParseUint(frac, 10, 32)
	if err != nil {
		return 0, false
	}
	for range 3 - len(frac) {
		ms *= 10
	}
	return total + float64(ms)/1000, true
}

// cleanCueText strips styling: HTML-like tags (<b>, </i>, <c.yellow>,
// <v Joe>, <00:00:01.000>), SRT's {\…} override blocks, and in WebVTT
// decodes entities. Line breaks are kept.
func cleanCueText(s string, vtt bool) string {
	out, _ := stripCueText(s, vtt, false, 0)
	return out
}

// stripCueText is cleanCueText; with mark, each timestamp tag is left in
// the text as one rune of stampMark+n, n counting the tags, whose times
// are returned. In SRT, an override block holding karaoke tags ({\k50})
// is a timestamp tag too: ASS's karaoke times each syllable by how long
// it lasts, in hundredths of a second, from the cue's start (start).
func stripCueText(s string, vtt, mark bool, start float64) (string, []float64) {
	var b strings.Builder
	var stamps []float64
	karaoke := start
	// Where the next '>', '\n' and '}' are, from i on: found again only
	// once i passes them, so a text of a million '<' (or "{\") with no
	// end is read once, not once for each of them.
	next := func(at *int, i int, c byte) int {
		if *at < i {
			*at = len(s)
			if k := strings.IndexByte(s[i:], c); k >= 0 {
				*at = i + k
			}
		}
		return *at
	}
	closeAt, lineEnd, braceAt := -1, -1, -1
	for i := 0; i < len(s); {
		switch {
		case s[i] == '<':
			// A tag ends on its own line, and is short: its inside is
			// read only when it could be one.
			if j := next(&closeAt, i, '>'); j < len(s) && j < next(&lineEnd, i, '\n') && j-i-1 <= maxTagLen && isTag(s[i+1:j]) {
				if t, ok := parseStamp(s[i+1 : j]); ok && mark && len(stamps) < maxStamps {
					b.WriteRune(stampMark + rune(len(stamps)))
					stamps = append(stamps, t)
				}
				i = j + 1
				continue
			}
		case s[i] == '{' && !vtt && i+1 < len(s) && s[i+1] == '\\':
			if j := next(&braceAt, i, '}'); j < len(s) {
				if at, ok := karaokeTags(s[i+1:j], &karaoke); ok && mark && len(stamps) < maxStamps {
					b.WriteRune(stampMark + rune(len(stamps)))
					stamps = append(stamps, at)
				}
				i = j + 1
				continue
			}
		}
		b.WriteByte(s[i])
		i++
	}
	out := b.String()
	if vtt {
		out = html.UnescapeString(out)
	}
	lines := strings.Split(out, "\n")
	for i, ln := range lines {
		lines[i] = strings.TrimSpace(ln)
	}
	return strings.TrimSpace(strings.Join(lines, "\n")), stamps
}

// karaokeTags reads the karaoke tags of an ASS override block (its inside,
// "\an8\k50"): \k, \K, \kf and \ko, each the length of the syllable
// after it in hundredths of a second. at is where the syllables read so
// far end; ok is false for a block with none. The block's last tag's
// syllable is the text after the block, and starts at the returned time
// (the syllables of the tags before it hold no text).
func karaokeTags(block string, at *float64) (start float64, ok bool) {
	for _, tag := range strings.Split(block, `\`) {
		var num string
		switch {
		case strings.HasPrefix(tag, "kf"), strings.HasPrefix(tag, "ko"):
			num = tag[2:]
		case strings.HasPrefix(tag, "k"), strings.HasPrefix(tag, "K"):
			num = tag[1:]
		default:
			continue
		}
		cs, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
		if err != nil || !(cs >= 0 && cs <= 1e7) { // NaN too
			continue
		}
		start, ok = *at, true
		*at += cs / 100
	}
	return start, ok
}

// maxTagLen bounds the inside of a styling tag: a voice's name, classes,
// a font's attributes fit in far less.
const maxTagLen = 256

// isTag reports whether the inside of <…> is a caption styling tag, not
// text such as "a < b > c".
func isTag(s string) bool {
	s = strings.TrimPrefix(s, "/")
	if s == "" {
		return false
	}
	if c := s[0]; c >= '0' && c <= '9' {
		_, ok := parseStamp(s)
		return ok
	}
	name := s
	if i := strings.IndexAny(s, ". \t"); i >= 0 {
		name = s[:i]
	}
	switch strings.ToLower(name) {
	case "b", "i", "u", "c", "v", "lang", "ruby", "rt", "font", "s":
		return true
	}
	return false
}

// stampMark is the first rune of Unicode's supplementary private use area
// A: stripCueText leaves a timestamp tag in the text as stampMark+n, so
// that the word each tag comes before is found once the text is clean.
// A cue whose text holds such runes of its own keeps no word times.
const stampMark = 0xF0000

// maxStamps bounds the timestamp tags read in one cue: the runes of area
// A left after stampMark. A cue holds at most MaxCueText characters, so
// more tags than that time no word.
const maxStamps = 0xFFFD

func isStampMark(r rune) bool { return r >= stampMark && r < stampMark+maxStamps }

// timedCueText is cleanCueText, and the times of the cue's words when its
// text holds timestamp tags: WebVTT's karaoke ("Never <00:00:01.200>drink
// <00:00:01.700>liquid"), which some tools write into SRT too, or the
// karaoke tags of ASS that subtitle editors write into SRT ("{\k50}Never
// {\k50}drink"). A tag
// times the word it comes before; the words from one tag to the next (from
// the cue's start to the first tag) share the time between them by their
// characters. A tag inside a word (a syllable's time) times the words
// after it. Tags are kept within the cue and in order.
func timedCueText(s string, vtt bool, start, end float64) (string, []Word) {
	if strings.ContainsFunc(s, isStampMark) {
		return cleanCueText(s, vtt), nil
	}
	text, stamps := stripCueText(s, vtt, true, start)
	if len(stamps) == 0 {
		return text, nil
	}
	var words []Word
	// tagged[i] is set when a tag comes right before word i.
	var tagged []bool
	var clean, word strings.Builder
	at := start
	inWord, sawTag := false, false
	endWord := func() {
		if inWord {
			words[len(words)-1].Text = word.String()
			word.Reset()
			inWord = false
		}
	}
	for _, r := range text {
		switch {
		case isStampMark(r):
			at = min(max(stamps[r-stampMark], at, start), end)
			sawTag = true
			continue
		case unicode.IsSpace(r):
			endWord()
		default:
			if !inWord {
				words = append(words, Word{Start: at})
				tagged = append(tagged, sawTag)
				inWord, sawTag = true, false
			}
			word.WriteRune(r)
		}
		clean.WriteRune(r)
	}
	endWord()
	// The words from one tag to the next share its time by their
	// characters, as untimed words do.
	for i := 0; i < len(words); {
		j := i + 1
		for j < len(words) && !tagged[j] {
			j++
		}
		to := end
		if j < len(words) {
			to = words[j].Start
		}
		weights := make([]float64, j-i)
		for k := range weights {
			weights[k] = float64(utf8.RuneCountInString(words[i+k].Text) + 1)
		}
		for k, t := range share(words[i].Start, to, weights) {
			words[i+k].Start, words[i+k].End = t[0], t[1]
		}
		i = j
	}
	lines := strings.Split(clean.String(), "\n")
	for i, ln := range lines {
		lines[i] = strings.TrimSpace(ln)
	}
	return strings.TrimSpace(strings.Join(lines, "\n")), words
}
