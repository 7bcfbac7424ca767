package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/typeset"
)

func TestParseCuesSRT(t *testing.T) {
	t.Parallel()
	srt := "\xef\xbb\xbf1\r\n00:00:01,000 --> 00:00:02,500 X1:10 X2:20\r\n<i>Hello</i>, {\\an8}world\r\nsecond line\r\n\r\n" +
		"2\r00:00:03,000 --> 00:00:04,000\r&amp; stays\r\r" +
		"3\n00:00:02,000 --> 00:00:03,500\noverlaps 1 < 2 > 0\n" +
		"4\n00:00:05,000 --> 00:00:06,000\nno blank line before\n\n" +
		"5\n00:00:07,000 --> 00:00:08,000\n<b></b>\n"
	cues, err := ParseCues([]byte(srt))
	require.NoError(t, err)
	assert.Equal(t, []Cue{
		{Start: 1, End: 2.5, Text: "Hello, world\nsecond line"},
		{Start: 2, End: 3.5, Text: "overlaps 1 < 2 > 0"},
		{Start: 3, End: 4, Text: "&amp; stays"},
		{Start: 5, End: 6, Text: "no blank line before"},
	}, cues, "sorted by start; tags stripped; the cue left empty dropped")
}

func TestParseCuesWebVTT(t *testing.T) {
	t.Parallel()
	vtt := "WEBVTT - a title\nKind: captions\n\nNOTE a comment\nspanning lines --> not a cue\n\nSTYLE\n::cue { color: red }\n\n" +
		"intro\n00:01.000 --> 00:02.000 align:start line:0%\n<v Ann>Hi</v> &amp; <c.loud>bye</c> <00:00:01.500>now\n\n" +
		"01:00:00.250 --> 01:00:01.000\nan hour in\n"
	cues, err := ParseCues([]byte(vtt))
	require.NoError(t, err)
	require.Len(t, cues, 2)
	// The timestamp tag times the word after it; the words before it
	// share the time from the cue's start by their characters.
	hi := cues[0]
	assert.Equal(t, "Hi & bye now", hi.Text)
	require.Len(t, hi.Words, 4)
	for i, want := range []Word{{1, 1 + 0.5*3/9, "Hi"}, {1 + 0.5*3/9, 1 + 0.5*5/9, "&"}, {1 + 0.5*5/9, 1.5, "bye"}, {1.5, 2, "now"}} {
		assert.Equal(t, want.Text, hi.Words[i].Text)
		assert.InDelta(t, want.Start, hi.Words[i].Start, 1e-9, want.Text)
		assert.InDelta(t, want.End, hi.Words[i].End, 1e-9, want.Text)
	}
	assert.Equal(t, Cue{Start: 3600.25, End: 3601, Text: "an hour in"}, cues[1])
}

func TestParseCuesErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, text, want string
	}{
		{"bad time", "1\n00:00:01,000 --> 00:00:2,500\nx\n", `line 2: "00:00:2,500" is not a time`},
		{"minutes over 59", "1\n00:61:01,000 --> 01:00:02,000\nx\n", `line 2: "00:61:01,000" is not a time`},
		{"no end", "1\n00:00:01,000 -->\nx\n", "line 2: the cue timing has no end time"},
		{"backwards", "WEBVTT\n\n00:02.000 --> 00:01.000\nx\n", "line 3: the cue ends at or before it starts"},
		{"no timing", "1\nhello\n", "line 2: expected a cue timing"},
		{"number alone", "1\n00:00:01,000 --> 00:00:02,000\nx\n\n2\n", "line 6: expected a cue timing"},
		{"not utf-8", "1\n00:00:01,000 --> 00:00:02,000\n\xff\n", "is not UTF-8 text"},
		{"nul", "1\n00:00:01,000 --> 00:00:02,000\na\x00\n", "NUL"},
		{"long cue", "1\n00:00:01,000 --> 00:00:02,000\n" + strings.Repeat("a", MaxCueText+1) + "\n", "line 2: the cue's text has 1001 characters"},
		{"too large", strings.Repeat(" ", MaxCaptionBytes+1), "at most 1048576"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseCues([]byte(tc.text))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	var b strings.Builder
	for i := 0; i <= MaxCues; i++ {
		b.WriteString("00:00:01,000 --> 00:00:02,000\nx\n\n")
	}
	_, err := ParseCues([]byte(b.String()))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "line 15001: more than 5000 cues")
}

func TestAssText(t *testing.T) {
	t.Parallel()
	assert.Equal(t, `a\{b\} \`+"\u2060"+`N \x \`+"\u2060"+`\{`, assText(`a{b} \N \x \{`))
	assert.Equal(t, "0:00:01.23", assTime(1.234))
	assert.Equal(t, "1:02:03.00", assTime(3723))
	assert.Equal(t, "&H00332211", assColour("0x112233FF", 1))
	assert.Equal(t, "&HFF332211", assColour("0x11223380", 0))
	assert.Equal(t, "&H7F332211", assColour("0x112233FF", 0.5))
}

// TestCompileCaptions reads a captions layer in both formats and refuses
// what it does not do, naming the field.
func TestCompileCaptions(t *testing.T) {
	t.Parallel()
	srt := "1\n00:00:00,500 --> 00:00:01,000\nhi\n"
	layer := func(extra map[string]any) map[string]any {
		out := map[string]any{"type": "captions", "text": srt}
		for k, v := range extra {
			out[k] = v
		}
		return out
	}
	compileA := func(layers ...any) (*Scene, error) {
		return Compile("provider_a", mustJSON(t, map[string]any{"width": 320, "height": 180, "fps": 10, "duration": 2, "layers": layers}), map[string]string{"subs": "https://x.test/a.srt"}, DefaultLimits())
	}
	s, err := compileA(layer(map[string]any{"highlightColor": "red", "maxLines": 2, "backgroundColor": "#000000", "paddingX": 4, "align": "left", "x": 10, "width": 200}))
	require.NoError(t, err)
	l := s.Layers[0]
	assert.Equal(t, KindCaptions, l.Kind)
	assert.Equal(t, []Cue{{Start: 0.5, End: 1, Text: "hi"}}, l.Captions.Cues)
	assert.Equal(t, "0xFF0000FF", l.Captions.Highlight)
	assert.Equal(t, 2, l.Captions.MaxLines)
	assert.Equal(t, 12, l.FontSize, "a fifteenth of the height")
	assert.Equal(t, "left", l.Style.Align)
	assert.Equal(t, "bottom", l.Style.VerticalAlign)

	u, err := Compile("unified", mustJSON(t, map[string]any{"output": map[string]any{"width": 320, "height": 180, "fps": 10, "duration": 2},
		"tracks": []any{map[string]any{"clips": []any{map[string]any{"asset": map[string]any{"type": "captions", "src": "subs"}}}}}}),
		map[string]string{"subs": "https://x.test/a.srt"}, DefaultLimits())
	require.NoError(t, err)
	require.Len(t, u.Sources(), 1)
	assert.True(t, u.Sources()[0].Captions)
	assert.Equal(t, u.Sources()[0].Key, u.Layers[0].Captions.Source)

	// An uploaded asset's id is a captions source like a URL; the render
	// service checks the asset is captions.
	s, err = compileA(map[string]any{"type": "captions", "src": "ast_0123"})
	require.NoError(t, err)
	require.Len(t, s.Sources(), 1)
	assert.Equal(t, Source{Key: "s0", URL: "ast_0123", Captions: true, Field: "composition.layers[0].src"}, s.Sources()[0])
	assert.Equal(t, "s0", s.Layers[0].Captions.Source)

	s, err = compileA(map[string]any{"type": "audio", "id": "v", "src": "https://x.test/a.mp3"}, map[string]any{"type": "captions", "transcribe": map[string]any{"layer": "v"}})
	require.NoError(t, err)
	assert.Equal(t, 0, s.Layers[1].Captions.Transcribe)
	assert.Nil(t, s.Layers[1].Captions.Cues)
	s, err = compileA(map[string]any{"type": "captions", "transcribe": map[string]any{}})
	require.NoError(t, err)
	assert.True(t, s.Layers[0].Captions.TranscribeMix, "the composition's sound")
	assert.Equal(t, -1, s.Layers[0].Captions.Transcribe)

	for _, tc := range []struct {
		layers []any
		field  string
		msg    string
	}{
		{[]any{map[string]any{"type": "captions"}}, "composition.layers[0].src", "exactly one of src"},
		{[]any{layer(map[string]any{"src": "subs"})}, "composition.layers[0].src", "exactly one of src"},
		{[]any{layer(map[string]any{"text": "1\n00:00:01,000 --> 00:00:00,500\nx\n"})}, "composition.layers[0].text", "line 2: the cue ends at or before it starts"},
		{[]any{map[string]any{"type": "captions", "src": "ast_XYZ"}}, "composition.layers[0].src", "not an http or https URL or an asset id"},
		{[]any{map[string]any{"type": "captions", "src": "nope"}}, "composition.layers[0].src", "no such asset key"},
		{[]any{map[string]any{"type": "captions", "transcribe": map[string]any{"layer": "zz"}}}, "composition.layers[0].transcribe.layer", `no layer has the id "zz"`},
		{[]any{map[string]any{"type": "color", "color": "red", "id": "c"}, map[string]any{"type": "captions", "transcribe": map[string]any{"layer": "c"}}}, "composition.layers[1].transcribe.layer", "has no sound"},
		{[]any{map[string]any{"type": "captions", "transcribe": map[string]any{"layer": 3}}}, "composition.layers[0].transcribe.layer", "must be a string"},
		{[]any{layer(map[string]any{"maxLines": 11})}, "composition.layers[0].maxLines", "between 1 and 10"},
		{[]any{layer(map[string]any{"highlightColor": "nope"})}, "composition.layers[0].highlightColor", "must be a colour"},
		{[]any{layer(map[string]any{"fadeIn": 0.5})}, "composition.layers[0].fadeIn", "do not fade"},
		{[]any{layer(map[string]any{"x": []any{map[string]any{"time": 0, "value": 0}, map[string]any{"time": 1, "value": 9}}})}, "composition.layers[0].x", "do not move"},
		{[]any{layer(map[string]any{"scale": 2})}, "composition.layers[0].scale", "unknown field"},
		{[]any{layer(map[string]any{"borderRadius": 2})}, "composition.layers[0].borderRadius", "unknown field"},
		{[]any{layer(map[string]any{"paddingX": 2})}, "composition.layers[0].paddingX", "set backgroundColor too"},
		{[]any{layer(map[string]any{"shadowX": 2})}, "composition.layers[0].shadowX", "set shadowColor too"},
	} {
		_, err := compileA(tc.layers...)
		var ve *ValidationError
		require.ErrorAs(t, err, &ve, "%v", tc.layers)
		assert.Equal(t, tc.field, ve.Field, "%v: %s", tc.layers, ve.Message)
		assert.Contains(t, ve.Message, tc.msg)
	}
}

// TestPlanCaptions plans a captions layer: one ass filter reading a script
// and a folder holding the font alone; the cue text is in the script,
// escaped, never in the graph; a highlighted cue is one event a word, and
// overlapping cues are stacked in one event.
func TestPlanCaptions(t *testing.T) {
	t.Parallel()
	srt := "1\n00:00:00,000 --> 00:00:01,000\nsay {b1} \\N [out];\n\n2\n00:00:00,500 --> 00:00:01,500\ntwo\n"
	s, err := Compile("provider_a", mustJSON(t, map[string]any{"width": 320, "height": 180, "fps": 10, "duration": 2,
		"layers": []any{map[string]any{"type": "captions", "text": srt, "highlightColor": "yellow", "backgroundColor": "black", "paddingX": 3, "start": 0.5}}}), nil, DefaultLimits())
	require.NoError(t, err)
	cmd, err := Plan(context.Background(), s, inputs(nil, testFont), "/work", "/work/out.mp4")
	require.NoError(t, err)
	graph := strings.Join(cmd.Args, " ")
	assert.Contains(t, graph, "ass=filename=/work/captions-0.ass:fontsdir=/work/fonts-0")
	assert.NotContains(t, graph, "say")
	assert.Contains(t, cmd.Files, "fonts-0/font.ttf")
	script := string(cmd.Files["captions-0.ass"])
	assert.Contains(t, script, "PlayResX: 320\nPlayResY: 180\nWrapStyle: 2")
	assert.Contains(t, script, "Style: Text,DejaVu Sans,")
	assert.Contains(t, script, `\{b1\} \`+"\u2060"+`N [out];`)
	var text, box []string
	for _, ln := range strings.Split(script, "\n") {
		switch {
		case strings.HasPrefix(ln, "Dialogue: 1,"):
			text = append(text, ln)
		case strings.HasPrefix(ln, "Dialogue: 0,"):
			box = append(box, ln)
		}
	}
	// Cue 1 (0.5 to 1.5 s in the scene) has 3 words, cue 2 (1 to 2 s) one;
	// from 1 s both show, stacked.
	require.NotEmpty(t, text)
	assert.Equal(t, len(text), len(box))
	assert.True(t, strings.HasPrefix(text[0], "Dialogue: 1,0:00:00.50,"), text[0])
	assert.Contains(t, text[0], `{\1c&H00FFFF&\1a&H00&}say{\1c&HFFFFFF&\1a&H00&}`)
	last := text[len(text)-1]
	assert.Contains(t, last, ",0:00:02.00,Text,")
	stacked := 0
	for _, ln := range text {
		if strings.Contains(ln, `\N`) {
			stacked++
			assert.Contains(t, ln, "two")
		}
	}
	assert.Positive(t, stacked, "overlapping cues share events")
	assert.Contains(t, box[0], `\xbord3\ybord0}say`)
}

// TestWriteASSFontName: the family is the font file's own name, which its
// maker chose; no byte of it ends the style line or starts another.
func TestWriteASSFontName(t *testing.T) {
	t.Parallel()
	l := Layer{Color: "0xFFFFFFFF", Opacity: 1, Captions: &Captions{}}
	script, err := writeASS(l, &Scene{Width: 32, Height: 18}, "Evil,1\r[Events]\rDialogue: 0\n\x00x", 10, rect{w: 32, h: 18}, nil, &captionSpend{})
	require.NoError(t, err)
	assert.NotContains(t, script, "\r")
	assert.NotContains(t, script, "\x00")
	assert.Contains(t, script, "Style: Text,Evil 1 [Events] Dialogue: 0  x,")
	assert.Equal(t, 1, strings.Count(script, "[Events]\n"))
}

// TestCleanCueTextUnclosed: a '<' or "{\" whose end is missing, far away
// or on another line is text, and the tags around it still go.
func TestCleanCueTextUnclosed(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "a < b bold", cleanCueText("a < b <b>bold</b>", true))
	assert.Equal(t, "<b\nx> y", cleanCueText("<b\nx> y<i>", true))
	long := "<v " + strings.Repeat("n", maxTagLen) + ">hi"
	assert.Equal(t, long, cleanCueText(long, true), "longer than any tag: text")
	assert.Equal(t, "hi", cleanCueText("<v "+strings.Repeat("n", maxTagLen-2)+">hi", true))
	assert.Equal(t, `x {\b1 y`, cleanCueText(`x {\b1 y`, false))
	assert.Equal(t, "x y z", cleanCueText(`x {\b1}y{\b0} z`, false))
}

// BenchmarkParseCuesUnclosed is a captions file of one long cue of '<'
// and "{\" that never close: read once (linear), not once for each.
func BenchmarkParseCuesUnclosed(b *testing.B) {
	for _, body := range []string{"<", "<a", `{\`} {
		data := []byte("1\n00:00:00,000 --> 00:00:01,000\n" + strings.Repeat(body, (MaxCaptionBytes-64)/len(body)) + "\n")
		b.Run(body, func(b *testing.B) {
			for b.Loop() {
				_, _ = ParseCues(data)
			}
		})
	}
}

// BenchmarkWriteASSWords is the script of a highlighted captions layer
// of 20,000 words (a shown cue each, one after another): each span looks
// at the cues it shows, not at all 20,000.
func BenchmarkWriteASSWords(b *testing.B) {
	l := Layer{Color: "0xFFFFFFFF", Opacity: 1, Captions: &Captions{Highlight: "0xFFFF00FF"}}
	line := []string{"one two three four five six seven eight nine ten"}
	cues := make([]shownCue, 20000)
	for i := range cues {
		cues[i] = shownCue{start: float64(i) * 0.1, end: float64(i+1) * 0.1, lines: line, word: i % 10}
	}
	for b.Loop() {
		if _, err := writeASS(l, &Scene{Width: 320, Height: 180}, "DejaVu Sans", 10, rect{w: 320, h: 180}, cues, &captionSpend{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestPlanCaptionsOverlapBounded: cues on screen together are written into
// every event while they show, so a hundred long highlighted cues that
// overlap would make a script of gigabytes (and planning took minutes);
// the script is bounded, and the layer refused naming it.
func TestPlanCaptionsOverlapBounded(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := range 100 {
		fmt.Fprintf(&b, "%d\n00:00:00,%03d --> 00:00:50,000\n%s\n\n", i+1, i, strings.Repeat("a ", 450))
	}
	s, err := Compile("provider_a", mustJSON(t, map[string]any{"width": 320, "height": 180, "fps": 10, "duration": 60,
		"layers": []any{map[string]any{"type": "captions", "text": b.String(), "highlightColor": "yellow", "backgroundColor": "black"}}}), nil, DefaultLimits())
	require.NoError(t, err)
	_, err = Plan(context.Background(), s, inputs(nil, testFont), "/work", "/work/out.mp4")
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "composition.layers[0]", ve.Field)
	assert.Contains(t, ve.Message, "subtitle scripts of more than 32 MiB")
}

// TestPlanCaptionsFontPanics: a captions layer's font goes through the
// same reader as laid-out text's, and a panic while it reads a downloaded
// font fails the render naming the font, as it does for text, instead of
// ending kino's process. (A font with no parsed data stands in for a font
// that makes sfnt panic.)
func TestPlanCaptionsFontPanics(t *testing.T) {
	t.Parallel()
	s, err := Compile("provider_a", []byte(`{"width":64,"height":36,"fps":1,"layers":[{"type":"captions","text":"1\n00:00:00,000 --> 00:00:01,000\nhi\n","font":"f","duration":1}]}`),
		map[string]string{"f": "https://a.test/f"}, DefaultLimits())
	require.NoError(t, err)
	require.Panics(t, func() { _, _ = (&typeset.Font{}).Face(10) })
	for _, hidden := range []bool{false, true} {
		p := &planner{s: s, files: map[string][]byte{}, media: map[string]Media{s.Layers[0].Font: {Path: "/m/f", Font: true}},
			fonts: map[string]readFont{"/m/f": {Font: &typeset.Font{}}}}
		var err error
		require.NotPanics(t, func() { _, err = p.captionsLayer(0, s.Layers[0], "base", "", false, hidden) })
		var me *MediaError
		require.ErrorAs(t, err, &me)
		assert.Equal(t, "composition.layers[0].font", me.Field)
		assert.Contains(t, me.Message, "cannot be measured to place the captions")
	}
}
