package engine

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestParseCuesTimestampTags reads word times from WebVTT's timestamp
// tags, and from the same tags in SRT.
func TestParseCuesTimestampTags(t *testing.T) {
	t.Parallel()
	for _, text := range []string{
		"WEBVTT\n\n00:01.000 --> 00:03.000\n<00:01.000>Never <00:01.500><c>drink</c>\n<00:02.200>liquid <00:09.000>nitrogen\n",
		"1\n00:00:01,000 --> 00:00:03,000\n<00:00:01.000>Never <00:00:01.500>drink\n<00:00:02.200>liquid <00:00:09.000>nitrogen\n",
	} {
		cues, err := ParseCues([]byte(text))
		require.NoError(t, err)
		require.Len(t, cues, 1)
		assert.Equal(t, "Never drink\nliquid nitrogen", cues[0].Text)
		// A tag past the cue's end is kept at its end.
		assert.Equal(t, []Word{{1, 1.5, "Never"}, {1.5, 2.2, "drink"}, {2.2, 3, "liquid"}, {3, 3, "nitrogen"}}, cues[0].Words)
	}
	// Text that already holds the runes that mark tags keeps no times.
	cues, err := ParseCues([]byte("1\n00:00:01,000 --> 00:00:03,000\n\U000F0001 <00:00:02.000>b\n"))
	require.NoError(t, err)
	assert.Nil(t, cues[0].Words)
	assert.Equal(t, "\U000F0001 b", cues[0].Text)
}

// TestParseCuesKaraokeTags reads word times from the karaoke tags of
// ASS that subtitle editors write into SRT: each syllable lasts its
// tag's hundredths of a second from the cue's start, a word starts with
// its first syllable, and other tags in the block are stripped with them.
func TestParseCuesKaraokeTags(t *testing.T) {
	t.Parallel()
	cues, err := ParseCues([]byte("1\n00:00:01,000 --> 00:00:04,000\n{\\an8\\k50}Ne{\\kf30}ver {\\K70}drink\n{\\k20}{\\ko40}li{\\k10}quid\n\n" +
		"2\n00:00:05,000 --> 00:00:06,000\n{\\k}odd {\\k-5}tags {\\b1}only\n"))
	require.NoError(t, err)
	require.Len(t, cues, 2)
	assert.Equal(t, "Never drink\nliquid", cues[0].Text)
	assert.Equal(t, []Word{{1, 1.8, "Never"}, {1.8, 2.7, "drink"}, {2.7, 4, "liquid"}}, cues[0].Words)
	// Blocks with no karaoke tag that reads time no word.
	assert.Equal(t, "odd tags only", cues[1].Text)
	assert.Nil(t, cues[1].Words)
}

// TestParseCuesKaraokeNaN: a karaoke tag of NaN hundredths ({\kNaN},
// which strconv reads) times no word, as a negative one does: it passed
// the range check, and every word after it was timed NaN.
func TestParseCuesKaraokeNaN(t *testing.T) {
	t.Parallel()
	cues, err := ParseCues([]byte("1\n00:00:01,000 --> 00:00:04,000\n{\\kNaN}Never {\\k50}drink {\\kinf}liquid\n"))
	require.NoError(t, err)
	require.Len(t, cues, 1)
	assert.Equal(t, "Never drink liquid", cues[0].Text)
	require.Len(t, cues[0].Words, 3)
	for _, w := range cues[0].Words {
		assert.False(t, math.IsNaN(w.Start) || math.IsNaN(w.End), "word %+v", w)
	}
}

// TestParseTranscript reads the JSON of words of each shape it accepts.
func TestParseTranscript(t *testing.T) {
	t.Parallel()
	hello := []Word{{0.5, 0.8, "Hello"}, {0.9, 1.2, "world."}}
	for _, tc := range []struct {
		name, json string
		want       []Cue
	}{
		{"list", `[{"text":"Hello","start":0.5,"end":0.8},{"word":" world.","start":0.9,"end":1.2}]`,
			[]Cue{{Start: 0.5, End: 1.2, Text: "Hello world.", Words: hello}}},
		{"kino", `{"words":[{"text":"Hello","start":0.5,"end":0.8},{"text":"world.","start":0.9,"end":1.2}]}`,
			[]Cue{{Start: 0.5, End: 1.2, Text: "Hello world.", Words: hello}}},
		{"assemblyai", `{"id":"x","audio_duration":2,"words":[{"text":"Hello","start":500,"end":800,"confidence":0.9},{"text":"world.","start":900,"end":1200}]}`,
			[]Cue{{Start: 0.5, End: 1.2, Text: "Hello world.", Words: hello}}},
		{"deepgram", `{"results":{"channels":[{"alternatives":[{"transcript":"hello world","words":[{"word":"hello","punctuated_word":"Hello","start":0.5,"end":0.8},{"word":"world","punctuated_word":"world.","start":0.9,"end":1.2}]}]}]}}`,
			[]Cue{{Start: 0.5, End: 1.2, Text: "Hello world.", Words: hello}}},
		{"openai", `{"text":"Hello world. Bye.","segments":[{"start":0.4,"end":1.3,"text":" Hello world."},{"start":1.3,"end":2,"text":" Bye."}],
			"words":[{"word":"Hello","start":0.5,"end":0.8},{"word":"world","start":0.9,"end":1.2},{"word":"Bye","start":1.4,"end":1.8}]}`,
			[]Cue{{Start: 0.4, End: 1.3, Text: "Hello world.", Words: []Word{{0.5, 0.8, "Hello"}, {0.9, 1.2, "world"}}},
				{Start: 1.3, End: 2, Text: "Bye.", Words: []Word{{1.4, 1.8, "Bye"}}}}},
		{"whisperx, a number untimed", `{"segments":[{"start":0.4,"end":2,"text":"Take 2 now","words":[{"word":"Take","start":0.5,"end":0.8},{"word":"2"},{"word":"now","start":1.4,"end":1.8}]}],"words":[{"word":"Take","start":0.5,"end":0.8}]}`,
			[]Cue{{Start: 0.4, End: 2, Text: "Take 2 now", Words: []Word{{0.5, 0.8, "Take"}, {0.8, 1.4, "2"}, {1.4, 1.8, "now"}}}}},
	} {
		cues, err := ParseCues([]byte(tc.json))
		require.NoError(t, err, tc.name)
		assert.Equal(t, tc.want, cues, tc.name)
	}

	// Words with no segments make cues at a sentence's end, at a pause of
	// a second, and at 42 characters; Chinese is joined without spaces.
	cues, err := ParseTranscript([]byte(`[{"text":"One.","start":0,"end":0.3},{"text":"two","start":0.4,"end":0.6},{"text":"three","start":2,"end":2.2},
		{"text":"aaaaaaaaaaaaaaaaaaaa","start":2.3,"end":2.4},{"text":"bbbbbbbbbbbbbbbbbbbb","start":2.5,"end":2.6},{"text":"你好","start":3,"end":3.2},{"text":"世界","start":3.2,"end":3.4}]`))
	require.NoError(t, err)
	var texts []string
	for _, c := range cues {
		texts = append(texts, c.Text)
	}
	assert.Equal(t, []string{"One.", "two", "three aaaaaaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbbbbbb 你好世界"}, texts)

	for _, tc := range []struct{ json, want string }{
		{`{"a":1}`, `holds no "words" nor "segments"`},
		{`{"words":3}`, `"words" must be a list of words`},
		{`[{"text":"a","start":1}]`, "words[0] must have both a start and an end"},
		{`[{"text":"a","start":2,"end":1}]`, "words[0] ends before it starts"},
		{`[{"text":"a","start":-1,"end":1}]`, "words[0] must have both"},
		{`[{"text":"a"}]`, "no word has a start and an end"},
		{`[1]`, "words[0] must be an object"},
		{`{"segments":[{"text":"a"}]}`, "segments[0] must have a start and an end"},
		{`[{"text":"a",`, "is not JSON"},
	} {
		_, err := ParseCues([]byte(tc.json))
		require.Error(t, err, tc.json)
		assert.Contains(t, err.Error(), tc.want, tc.json)
	}
}

// TestAlignWords matches a cue's shown words with a transcriber's:
// punctuation and case aside, words split or joined, words the text lacks,
// and, when nothing matches, one for one.
func TestAlignWords(t *testing.T) {
	t.Parallel()
	ws := func(texts ...string) []Word {
		out := make([]Word, len(texts))
		for i, s := range texts {
			out[i] = Word{Start: float64(i), End: float64(i) + 0.5, Text: s}
		}
		return out
	}
	for _, tc := range []struct {
		tokens, words []string
		match         []int
	}{
		{[]string{"Welcome", "to", "kino."}, []string{"welcome", "to", "kino"}, []int{0, 1, 2}},
		{[]string{"I", "don't", "know"}, []string{"I", "don", "'t", "know"}, []int{0, 1, 3}},
		{[]string{"so", "we", "go"}, []string{"so", "um", "we", "go"}, []int{0, 2, 3}},
		{[]string{"—", "yes"}, []string{"yes"}, []int{-1, 0}},
		{[]string{"ten", "cats"}, []string{"10", "kats"}, []int{0, 1}},
		{[]string{"New", "York"}, []string{"newyork", "city"}, []int{0, 0}},
	} {
		match, _ := alignWords(tc.tokens, ws(tc.words...))
		assert.Equal(t, tc.match, match, "%v", tc.tokens)
	}
}

// TestPlaceCuesWordTimes: with word times, the highlight moves at each
// word's start (nothing is highlighted before the first), a part of
// maxLines lines shows from its first word, and a token no word matches
// shares the time around it.
func TestPlaceCuesWordTimes(t *testing.T) {
	t.Parallel()
	words := []Word{{0.5, 0.9, "one"}, {1.1, 1.3, "two"}, {2, 2.4, "three"}, {2.6, 3, "four"}}
	l := Layer{Start: 1, Duration: 10, Captions: &Captions{Highlight: "0xFF0000FF", MaxLines: 1,
		Cues: []Cue{{Start: 0, End: 4, Text: "One, two — three four!", Words: words}}}}
	lines := func(string) []string { return []string{"One, two —", "three four!"} }
	got := placeCues(l, lines)
	type span struct {
		start, end float64
		word       int
	}
	var spans []span
	for _, c := range got {
		spans = append(spans, span{c.start, c.end, c.word})
	}
	assert.Equal(t, []span{
		{1, 1.5, -1}, {1.5, 2.1, 0}, {2.1, 2.3, 1}, {2.3, 3, 2},
		{3, 3.6, 0}, {3.6, 5, 1},
	}, spans)
	assert.Equal(t, []string{"One, two —"}, got[0].lines)
	assert.Equal(t, []string{"three four!"}, got[4].lines)

	// Without words, each word's time is its share by characters.
	l.Captions.Cues[0].Words = nil
	got = placeCues(l, lines)
	require.Len(t, got, 5)
	assert.InDelta(t, 1, got[0].start, 1e-9)
	assert.InDelta(t, 1+4*5.0/23, got[1].start, 1e-9, "\"One,\" is 5 of 23 weighted characters")
}

// TestPlanCaptionsHighlightStyles: a box behind the spoken word is an
// event of its own under the text, boxing that word's glyphs alone, and
// a scaled word is scaled in every event so that the boxes stay on it.
func TestPlanCaptionsHighlightStyles(t *testing.T) {
	t.Parallel()
	s, err := Compile("provider_a", mustJSON(t, map[string]any{"width": 320, "height": 180, "fps": 10, "duration": 2,
		"layers": []any{map[string]any{"type": "captions", "words": []any{
			map[string]any{"text": "big", "start": 0.2, "end": 0.5}, map[string]any{"text": "word", "start": 0.6, "end": 1}},
			"highlightBackground": "#0000ff80", "highlightScale": 1.25, "backgroundColor": "black"}}}), nil, DefaultLimits())
	require.NoError(t, err)
	cp := s.Layers[0].Captions
	assert.Equal(t, "0x0000FF80", cp.HighlightBackground)
	assert.InDelta(t, 1.25, cp.HighlightScale, 1e-9)
	assert.Equal(t, []Cue{{Start: 0.2, End: 1, Text: "big word", Words: []Word{{0.2, 0.5, "big"}, {0.6, 1, "word"}}}}, cp.Cues)
	cmd, err := Plan(context.Background(), s, inputs(nil, testFont), "/work", "/work/out.mp4")
	require.NoError(t, err)
	script := string(cmd.Files["captions-0.ass"])
	assert.Contains(t, script, "Style: Word,DejaVu Sans,")
	var events []string
	for _, ln := range strings.Split(script, "\n") {
		if strings.HasPrefix(ln, "Dialogue:") {
			events = append(events, ln)
		}
	}
	require.Len(t, events, 6, "%s", script)
	assert.Contains(t, events[0], `,Box,,0,0,0,,{\an2\pos(160,171)\xbord0\ybord0}{\fscx125\fscy125}big{\fscx100\fscy100} word`)
	assert.Contains(t, events[1], `,Word,,0,0,0,,{\an2\pos(160,171)\xbord2\ybord0}{\3c&HFF0000&\3a&H7F&\fscx125\fscy125}big{\3a&HFF&\fscx100\fscy100} word`)
	assert.True(t, strings.HasPrefix(events[2], "Dialogue: 1,0:00:00.20,0:00:00.60,Text,"), events[2])
	assert.Contains(t, events[2], `{\fscx125\fscy125}big{\fscx100\fscy100} word`)
	assert.Contains(t, events[4], `{\3c&HFF0000&\3a&H7F&\fscx125\fscy125}word{\3a&HFF&\fscx100\fscy100}`)

	for _, tc := range []struct {
		layer      map[string]any
		field, msg string
	}{
		{map[string]any{"words": []any{map[string]any{"text": "a", "start": 1}}}, "words", "words[0] must have both a start and an end"},
		{map[string]any{"words": []any{}}, "words", "holds no words"},
		{map[string]any{"words": []any{}, "text": "x"}, "src", "exactly one of"},
		{map[string]any{"text": "1\n00:00:00,000 --> 00:00:01,000\nx\n", "highlightScale": 4}, "highlightScale", "between 0.5 and 3"},
		{map[string]any{"text": "1\n00:00:00,000 --> 00:00:01,000\nx\n", "highlightBackground": "nope"}, "highlightBackground", "must be a colour"},
	} {
		tc.layer["type"] = "captions"
		_, err := Compile("provider_a", mustJSON(t, map[string]any{"width": 320, "height": 180, "fps": 10, "duration": 2, "layers": []any{tc.layer}}), nil, DefaultLimits())
		var ve *ValidationError
		require.ErrorAs(t, err, &ve, "%v", tc.layer)
		assert.Equal(t, "composition.layers[0]."+tc.field, ve.Field)
		assert.Contains(t, ve.Message, tc.msg)
	}
}
