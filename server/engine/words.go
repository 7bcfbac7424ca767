package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Cues made of a JSON of words that has no segments of its own: a cue
// ends at a sentence's end, before a pause of wordsPause seconds or more,
// or before the word that would make it longer than wordsCueChars
// characters (a subtitle line's usual length).
const (
	wordsPause    = 1.0
	wordsCueChars = 42
)

// ParseTranscript reads a JSON of timed words, in the shapes that speech
// services answer and their clients save:
//
//   - a list of words, [{"text": "Hello", "start": 0.5, "end": 0.8}, …]
//     ("word" or "punctuated_word" may name the text);
//   - an object holding that list as "words" (kino's own shape; with
//     "audio_duration" or "audio_url" beside it, AssemblyAI's transcript,
//     whose times are milliseconds);
//   - a Whisper verbose_json answer: "segments" (each a cue, with its own
//     "words" in whisper.cpp's and WhisperX's answers) and the words
//     of the whole text under "words" (OpenAI's, with
//     timestamp_granularities[]=word);
//   - a Deepgram answer: results.channels[0].alternatives[0].words.
//
// Times are seconds but for AssemblyAI's. Segments are cues as they are,
// each holding the words that start within it; words with no segments
// are grouped into cues (a sentence, a pause of a second, 42 characters).
// A word with no times (WhisperX leaves numbers untimed) takes them from
// its neighbours. The size of data is the caller's to bound.
func ParseTranscript(data []byte) ([]Cue, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, &CueError{Message: fmt.Sprintf("is not JSON: %v", err)}
	}
	scale := 1.0
	var words, segments []any
	switch t := v.(type) {
	case []any:
		words = t
	case map[string]any:
		if r, ok := t["results"].(map[string]any); ok {
			words = deepgramWords(r)
			break
		}
		if _, ok := t["audio_duration"]; ok {
			scale = 0.001
		} else if _, ok := t["audio_url"]; ok {
			scale = 0.001
		}
		var ok bool
		if words, ok = t["words"].([]any); !ok && t["words"] != nil {
			return nil, &CueError{Message: `"words" must be a list of words`}
		}
		if segments, ok = t["segments"].([]any); !ok && t["segments"] != nil {
			return nil, &CueError{Message: `"segments" must be a list of segments`}
		}
		if words == nil && segments == nil {
			return nil, &CueError{Message: `holds no "words" nor "segments": expected a list of words such as [{"text": "Hello", "start": 0.5, "end": 0.8}]`}
		}
	default:
		return nil, &CueError{Message: `expected a list of words such as [{"text": "Hello", "start": 0.5, "end": 0.8}], or an object holding one as "words"`}
	}
	all, err := readWords(words, "words", scale)
	if err != nil {
		return nil, err
	}
	if segments == nil {
		return groupWords(all), nil
	}
	var cues []Cue
	nested := false
	for i, sv := range segments {
		s, ok := sv.(map[string]any)
		if !ok {
			return nil, &CueError{Message: fmt.Sprintf("segments[%d] must be an object", i)}
		}
		start, okS := jsonTime(s["start"], scale)
		end, okE := jsonTime(s["end"], scale)
		if !okS || !okE {
			return nil, &CueError{Message: fmt.Sprintf("segments[%d] must have a start and an end, numbers of seconds", i)}
		}
		text, _ := s["text"].(string)
		own, _ := s["words"].([]any)
		ws, err := readWords(own, fmt.Sprintf("segments[%d].words", i), scale)
		if err != nil {
			return nil, err
		}
		nested = nested || len(ws) > 0
		if strings.TrimSpace(text) == "" {
			text = joinWords(ws)
		}
		if strings.TrimSpace(text) == "" || end <= start {
			continue
		}
		cues = append(cues, Cue{Start: start, End: end, Text: strings.TrimSpace(text), Words: ws})
	}
	if nested {
		// The segments' own words; words of the whole text beside them
		// (faster-whisper's answer) are the same words again.
		return cues, nil
	}
	// The words of the whole text (OpenAI's answer) go to the segment they
	// start in, or the last that starts before them.
	k := 0
	for _, w := range all {
		for k+1 < len(cues) && cues[k+1].Start <= w.Start {
			k++
		}
		if len(cues) > 0 {
			cues[k].Words = append(cues[k].Words, w)
		}
	}
	return cues, nil
}

// deepgramWords are the words of a Deepgram answer's first channel and
// alternative.
func deepgramWords(r map[string]any) []any {
	ch, _ := r["channels"].([]any)
	if len(ch) == 0 {
		return nil
	}
	c, _ := ch[0].(map[string]any)
	alts, _ := c["alternatives"].([]any)
	if len(alts) == 0 {
		return nil
	}
	a, _ := alts[0].(map[string]any)
	ws, _ := a["words"].([]any)
	return ws
}

// readWords reads a list of words; a word without times takes them from
// the words around it.
func readWords(list []any, field string, scale float64) ([]Word, error) {
	out := make([]Word, 0, len(list))
	var timed []bool
	for i, v := range list {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, &CueError{Message: fmt.Sprintf("%s[%d] must be an object such as {\"text\": \"Hello\", \"start\": 0.5, \"end\": 0.8}", field, i)}
		}
		text := ""
		for _, k := range []string{"punctuated_word", "text", "word"} {
			if s, isStr := m[k].(string); isStr {
				text = strings.TrimSpace(s)
				break
			}
		}
		if !utf8.ValidString(text) || strings.ContainsRune(text, 0) {
			return nil, &CueError{Message: fmt.Sprintf("%s[%d]: the text must be UTF-8 with no NUL", field, i)}
		}
		start, okS := jsonTime(m["start"], scale)
		end, okE := jsonTime(m["end"], scale)
		if (okS != okE) || (m["start"] != nil && !okS) || (m["end"] != nil && !okE) {
			return nil, &CueError{Message: fmt.Sprintf("%s[%d] must have both a start and an end, numbers of seconds at or after 0", field, i)}
		}
		if okS && end < start {
			return nil, &CueError{Message: fmt.Sprintf("%s[%d] ends before it starts", field, i)}
		}
		if text == "" {
			continue
		}
		out = append(out, Word{Start: start, End: end, Text: text})
		timed = append(timed, okS)
	}
	// An untimed word spans from the end of the timed word before it to
	// the start of the one after.
	for i := range out {
		if timed[i] {
			continue
		}
		from, to := -1.0, -1.0
		for k := i - 1; k >= 0; k-- {
			if timed[k] {
				from = out[k].End
				break
			}
		}
		for k := i + 1; k < len(out); k++ {
			if timed[k] {
				to = out[k].Start
				break
			}
		}
		switch {
		case from < 0 && to < 0:
			return nil, &CueError{Message: fmt.Sprintf("%s: no word has a start and an end", field)}
		case from < 0:
			from = to
		case to < 0:
			to = from
		}
		out[i].Start, out[i].End = from, max(from, to)
	}
	for i := 1; i < len(out); i++ {
		// Words in the order they are spoken.
		out[i].Start = max(out[i].Start, out[i-1].Start)
		out[i].End = max(out[i].End, out[i].Start)
	}
	return out, nil
}

// jsonTime reads a time of a word or segment: a number, at or after 0.
func jsonTime(v any, scale float64) (float64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	if err != nil || f < 0 || math.IsInf(f, 0) {
		return 0, false
	}
	return f * scale, true
}

// groupWords makes cues of words that no segment holds.
func groupWords(words []Word) []Cue {
	var cues []Cue
	var cur []Word
	flush := func() {
		if len(cur) == 0 {
			return
		}
		start, end := cur[0].Start, cur[len(cur)-1].End
		if end <= start {
			end = start + 0.1
		}
		cues = append(cues, Cue{Start: start, End: end, Text: joinWords(cur), Words: cur})
		cur = nil
	}
	chars := 0
	for _, w := range words {
		if len(cur) > 0 {
			pause := w.Start - cur[len(cur)-1].End
			if pause >= wordsPause || chars+1+utf8.RuneCountInString(w.Text) > wordsCueChars {
				flush()
			}
		}
		if len(cur) == 0 {
			chars = 0
		} else {
			chars++
		}
		cur = append(cur, w)
		chars += utf8.RuneCountInString(w.Text)
		if endsSentence(w.Text) {
			flush()
		}
	}
	flush()
	return cues
}

// endsSentence reports whether a word ends a sentence.
func endsSentence(w string) bool {
	w = strings.TrimRightFunc(w, func(r rune) bool { return strings.ContainsRune(`"'”’)]»`, r) })
	r, _ := utf8.DecodeLastRuneInString(w)
	return strings.ContainsRune(".?!…。？！", r)
}

// joinWords is the text of words, spaced as the script writes: no space
// between words of scripts written without them (Chinese, Japanese, Thai).
func joinWords(ws []Word) string {
	var b strings.Builder
	for i, w := range ws {
		if i > 0 && !(unspaced(lastRune(ws[i-1].Text)) && unspaced(firstRune(w.Text))) {
			b.WriteByte(' ')
		}
		b.WriteString(w.Text)
	}
	return b.String()
}

func firstRune(s string) rune { r, _ := utf8.DecodeRuneInString(s); return r }
func lastRune(s string) rune  { r, _ := utf8.DecodeLastRuneInString(s); return r }

// unspaced reports whether r belongs to a script written without spaces
// between words.
func unspaced(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar) ||
		strings.ContainsRune("、。，！？：；", r)
}
