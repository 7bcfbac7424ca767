package engine

import (
	"context"
	"fmt"
	"image"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/ffmpeg"
)

// TestCompileSpans: a text layer's spans take the layer's colour, font,
// size and features unless they set their own, in both formats; their
// texts together are the layer's text.
func TestCompileSpans(t *testing.T) {
	t.Parallel()
	text := map[string]any{"type": "text", "color": "white", "fontSize": 30, "font": "https://a.test/a.ttf", "fontFeatures": []any{"smcp"}, "lang": "ko",
		"spans": []any{
			map[string]any{"text": "Hello "},
			map[string]any{"text": "big", "color": "#ff0000", "fontSize": 60, "backgroundColor": "#0000ff80",
				"font": []any{"https://a.test/b.ttf", "https://a.test/c.ttf"}, "fontFeatures": []any{"-liga"}, "lang": "ja"},
			map[string]any{"text": " world", "fontFeatures": []any{}},
		}}
	a, err := Compile("provider_a", mustJSON(t, map[string]any{"width": 320, "height": 180, "fps": 10, "duration": 1,
		"layers": []any{text}}), nil, DefaultLimits())
	require.NoError(t, err)
	u, err := Compile("unified", mustJSON(t, map[string]any{"output": map[string]any{"width": 320, "height": 180, "fps": 10},
		"tracks": []any{map[string]any{"clips": []any{map[string]any{"asset": text, "length": 1}}}}}), nil, DefaultLimits())
	require.NoError(t, err)
	for _, s := range []*Scene{a, u} {
		l := s.Layers[0]
		require.NotNil(t, l.Spans)
		assert.Equal(t, "Hello big world", l.Text)
		f := strings.TrimSuffix(l.FontField, ".font")
		assert.Equal(t, []TextSpan{
			{Field: f + ".spans[0]", Text: "Hello ", Color: "0xFFFFFFFF", FontSize: 30, Font: "s0", FontField: f + ".font", Features: "smcp=1", Lang: "ko"},
			{Field: f + ".spans[1]", Text: "big", Color: "0xFF0000FF", Background: "0x0000FF80", FontSize: 60,
				Font: "s1", FontField: f + ".spans[1].font[0]", Fallback: "s2", Features: "liga=0", Lang: "ja"},
			{Field: f + ".spans[2]", Text: " world", Color: "0xFFFFFFFF", FontSize: 30, Font: "s0", FontField: f + ".font", Lang: "ko"},
		}, l.Spans.List)
		assert.Len(t, s.Sources(), 3, "each font downloads once")
	}
}

// TestCompileSpansRejects: text and spans together, spans without text,
// and spans past their limits are refused, naming the field.
func TestCompileSpansRejects(t *testing.T) {
	t.Parallel()
	layer := func(fields string) []byte {
		return []byte(`{"width":160,"height":90,"fps":10,"duration":1,"layers":[{"type":"text",` + fields + `}]}`)
	}
	many := strings.Repeat(`{"text":"a"},`, maxSpans) + `{"text":"a"}`
	long := fmt.Sprintf(`{"text":%q},{"text":"b"}`, strings.Repeat("a", 5000))
	cases := []struct {
		name         string
		body         []byte
		field, inMsg string
	}{
		{"text and spans", layer(`"text":"a","spans":[{"text":"b"}]`), "composition.layers[0].spans", "not both"},
		{"neither", layer(`"color":"red"`), "composition.layers[0].text", "or spans"},
		{"spans not a list", layer(`"spans":"a"`), "composition.layers[0].spans", "array"},
		{"no spans", layer(`"spans":[]`), "composition.layers[0].spans", "empty list"},
		{"too many spans", layer(`"spans":[` + many + `]`), "composition.layers[0].spans", "at most 100"},
		{"span not an object", layer(`"spans":["a"]`), "composition.layers[0].spans[0]", "object"},
		{"span without text", layer(`"spans":[{"color":"red"}]`), "composition.layers[0].spans[0].text", "required"},
		{"span text not a string", layer(`"spans":[{"text":3}]`), "composition.layers[0].spans[0].text", "string"},
		{"empty span", layer(`"spans":[{"text":"a"},{"text":""}]`), "composition.layers[0].spans[1].text", "not be empty"},
		{"NUL in a span", layer(`"spans":[{"text":"a\u0000"}]`), "composition.layers[0].spans[0].text", "NUL"},
		{"white space only", layer(`"spans":[{"text":" "},{"text":"\n"}]`), "composition.layers[0].spans", "white space"},
		{"too long together", layer(`"spans":[` + long + `]`), "composition.layers[0].spans", "5001 characters together; at most 5000"},
		{"bad colour", layer(`"spans":[{"text":"a","color":"nope"}]`), "composition.layers[0].spans[0].color", "colour"},
		{"bad background", layer(`"spans":[{"text":"a","backgroundColor":"nope"}]`), "composition.layers[0].spans[0].backgroundColor", "colour"},
		{"size zero", layer(`"spans":[{"text":"a","fontSize":0}]`), "composition.layers[0].spans[0].fontSize", "between 1 and 2000"},
		{"bad feature", layer(`"spans":[{"text":"a","fontFeatures":["kerning"]}]`), "composition.layers[0].spans[0].fontFeatures[0]", "4 characters"},
		// Features are kept joined by commas: a tag holding one was taken
		// apart when the text was laid out, the render failing late.
		{"comma in a feature", layer(`"spans":[{"text":"a","fontFeatures":["a,bc"]}]`), "composition.layers[0].spans[0].fontFeatures[0]", "comma"},
		{"bad language", layer(`"spans":[{"text":"a","lang":"japanese"}]`), "composition.layers[0].spans[0].lang", "BCP 47"},
		{"empty font list", layer(`"spans":[{"text":"a","font":[]}]`), "composition.layers[0].spans[0].font", "empty list"},
		{"unknown font", layer(`"spans":[{"text":"a","font":"nope"}]`), "composition.layers[0].spans[0].font", "no such asset key"},
		{"unknown field", layer(`"spans":[{"text":"a","colour":"red"}]`), "composition.layers[0].spans[0].colour", "unknown field"},
		{"unified path", []byte(`{"output":{"width":16,"height":16,"fps":1},"tracks":[{"clips":[{"asset":{"type":"text","spans":[{"text":"a","fontSize":-1}]},"length":1}]}]}`),
			"composition.tracks[0].clips[0].asset.spans[0].fontSize", "between 1 and 2000"},
	}
	for _, tc := range cases {
		provider := "provider_a"
		if strings.HasPrefix(tc.name, "unified") {
			provider = "unified"
		}
		_, err := Compile(provider, tc.body, nil, DefaultLimits())
		var ve *ValidationError
		require.ErrorAs(t, err, &ve, tc.name)
		assert.Equal(t, tc.field, ve.Field, tc.name)
		assert.Contains(t, ve.Message, tc.inMsg, tc.name)
	}
}

// colourBox is the smallest rectangle of img holding every pixel of at
// least half alpha that is.
func colourBox(img *image.NRGBA, is func(c [3]int) bool) rect {
	var b bounds
	r := img.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			c := img.NRGBAAt(x, y)
			if c.A >= 128 && is([3]int{int(c.R), int(c.G), int(c.B)}) {
				b.add(rect{x: x, y: y, w: 1, h: 1})
			}
		}
	}
	if !b.set {
		return rect{}
	}
	return rect{x: b.x0, y: b.y0, w: b.x1 - b.x0, h: b.y1 - b.y0}
}

func blue(c [3]int) bool { return c[2] > 180 && c[0] < 80 && c[1] < 80 }

// TestPlanSpans: the text's picture holds each span in its colour, the
// background behind its span, and the larger span raises its line; fit
// "shrink" scales every span by the same factor.
func TestPlanSpans(t *testing.T) {
	t.Parallel()
	// No descenders: the glyphs' bottoms are the baseline.
	spans := `"spans":[{"text":"white "},{"text":"RED","color":"red","fontSize":40,"backgroundColor":"blue"},{"text":" bold","color":"lime"}]`
	s, cmd := planStyled(t, `{"type":"text","color":"white","fontSize":20,"x":10,"y":10,`+spans+`}`, nil)
	img := filePNG(t, cmd, "text-0.png")
	whiteBox, redBox, blueBox, greenBox := colourBox(img, white), colourBox(img, red), colourBox(img, blue), colourBox(img, green)
	for name, r := range map[string]rect{"white": whiteBox, "red": redBox, "blue": blueBox, "green": greenBox} {
		require.NotEqual(t, rect{}, r, "no %s pixels", name)
	}
	assert.Less(t, whiteBox.x+whiteBox.w, blueBox.x+2, "plain, then the red span's background")
	assert.Less(t, blueBox.x+blueBox.w, greenBox.x+2, "then green")
	assert.True(t, blueBox.x <= redBox.x && blueBox.x+blueBox.w >= redBox.x+redBox.w, "the background %v is behind the red glyphs %v", blueBox, redBox)
	assert.InDelta(t, 29, redBox.h, 2, "capitals at 40 px: %v", redBox)
	assert.InDelta(t, 15, whiteBox.h, 2, "an ascender at 20 px: %v", whiteBox)
	assert.InDelta(t, whiteBox.y+whiteBox.h, redBox.y+redBox.h, 1, "on one baseline")
	assert.InDelta(t, greenBox.y+greenBox.h, redBox.y+redBox.h, 1, "on one baseline")

	lay, err := (&planner{s: s}).measure(s.Layers[0], testFont)
	require.NoError(t, err)
	require.Len(t, lay.glyphs.Lines, 1)
	assert.Equal(t, 40.0, lay.glyphs.Lines[0].Size)

	// Shrunk to half its width, every span is about half its size.
	wide := lay.glyphs.Lines[0].Width
	s, _ = planStyled(t, fmt.Sprintf(`{"type":"text","color":"white","fontSize":20,"width":%d,"maxLines":1,"fit":"shrink",%s}`, int(wide/2), spans), nil)
	lay, err = (&planner{s: s}).measure(s.Layers[0], testFont)
	require.NoError(t, err)
	require.Len(t, lay.glyphs.Lines, 1)
	assert.InDelta(t, wide/2, lay.glyphs.Lines[0].Width, wide/10, "shrunk to about half")
	assert.InDelta(t, 20, lay.glyphs.Lines[0].Size, 3, "the 40 px span about halved")

	// A blurred shadow lies over the spans' backgrounds: they are a
	// picture of their own under it.
	_, cmd = planStyled(t, `{"type":"text","color":"white","fontSize":20,"shadowColor":"black","shadowBlur":4,`+spans+`}`, nil)
	assert.Equal(t, 3, strings.Count(filterGraph(cmd), "[t0p")/2, "backgrounds, shadow, glyphs")
	under := filePNG(t, cmd, "box-0.png")
	assert.NotEqual(t, rect{}, colourBox(under, blue))
	assert.Equal(t, rect{}, colourBox(filePNG(t, cmd, "text-0.png"), blue))
}

// TestPlanSpansByWord: words that come in one by one keep their spans'
// colours and bring their backgrounds. The words' pictures are read from
// the plan that has ffmpeg's filters move them (each a picture file);
// kino's own drawing of the frames lays the same pictures
// (TestDrawnWordsAsFilters).
func TestPlanSpansByWord(t *testing.T) {
	t.Parallel()
	s, err := Compile("provider_a", []byte(`{"width":320,"height":180,"fps":10,"duration":1,"layers":[`+
		`{"type":"text","color":"white","fontSize":20,"x":10,"y":10,"enter":{"type":"fade","by":"word"},`+
		`"spans":[{"text":"one "},{"text":"two ","color":"red","backgroundColor":"blue"},{"text":"three"}]}]}`), nil, DefaultLimits())
	require.NoError(t, err)
	in := inputs(nil, testFont)
	in.drawBudget = -1
	cmd, err := Plan(context.Background(), s, in, "/w", "/w/out.mp4")
	require.NoError(t, err)
	one, two := filePNG(t, cmd, "text-0u0.png"), filePNG(t, cmd, "text-0u1.png")
	assert.NotEqual(t, rect{}, colourBox(one, white))
	assert.Equal(t, rect{}, colourBox(one, red))
	assert.NotEqual(t, rect{}, colourBox(two, red), "word 1 in its span's colour")
	assert.NotEqual(t, rect{}, colourBox(two, blue), "on its background")
	assert.Equal(t, rect{}, colourBox(filePNG(t, cmd, "text-0u2.png"), red))
}

// TestRenderSpans renders spans through ffmpeg: each span's colour where
// it belongs, the background behind its span, and a preview of the frame
// the render's own frame.
func TestRenderSpans(t *testing.T) {
	if testing.Short() {
		t.Skip("renders with ffmpeg")
	}
	t.Parallel()
	comp := map[string]any{"width": 320, "height": 120, "fps": 5, "duration": 0.4, "layers": []any{
		map[string]any{"type": "text", "color": "white", "fontSize": 24, "x": 20, "y": 20, "width": 280, "strokeWidth": 1,
			"spans": []any{
				map[string]any{"text": "Plain and "},
				map[string]any{"text": "RED", "color": "#ff0000", "fontSize": 40, "backgroundColor": "#0000ff"},
				map[string]any{"text": " then green words on the next line", "color": "#00ff00"},
			}},
	}}
	r, f := firstFrame(t, "provider_a", comp)
	checkOutput(t, r, "mp4")
	reds, blues, greens := f.box(f.all(), red), f.box(f.all(), blue), f.box(f.all(), green)
	require.NotEqual(t, rect{}, reds)
	require.NotEqual(t, rect{}, blues)
	require.NotEqual(t, rect{}, greens)
	assert.True(t, blues.x <= reds.x && blues.x+blues.w >= reds.x+reds.w && blues.y < reds.y && blues.y+blues.h > reds.y+reds.h,
		"the blue background %v behind the red span %v", blues, reds)
	// The background is the font's ascent and descent at 40 px
	// (DejaVu Sans: 37.1 and 9.4 px).
	assert.InDelta(t, 47, blues.h, 2, "the background's height: %v", blues)
	assert.InDelta(t, 29, reds.h, 2, "capitals at 40 px: %v", reds)
	assert.Greater(t, greens.y+greens.h, reds.y+reds.h+10, "green wraps to the next line: %v, %v", greens, reds)

	// A preview at 0.2 s is the render's frame 1.
	s, err := Compile("provider_a", mustJSON(t, comp), nil, DefaultLimits())
	require.NoError(t, err)
	p, err := s.Preview(0.2, 0, "png", "time", "width")
	require.NoError(t, err)
	work := t.TempDir()
	out := filepath.Join(work, "preview.png")
	cmd, err := Plan(context.Background(), p, inputs(map[string]Media{}, testFont), work, out)
	require.NoError(t, err)
	require.NoError(t, cmd.WriteFiles(work))
	require.NoError(t, ffmpeg.Run(context.Background(), cmd.Args, ffmpeg.RunOptions{Dir: work, Duration: 1}))
	frames := decodeRGB(t, r.out, 320, 120)
	require.Len(t, frames, 2)
	preview := decodeRGB(t, out, 320, 120)
	require.Len(t, preview, 1)
	diff := 0.0
	for i := range preview[0] {
		d := float64(preview[0][i]) - float64(frames[1][i])
		diff += d * d
	}
	psnr := 10 * math.Log10(255*255*float64(len(preview[0]))/diff)
	t.Logf("preview against the render's frame: PSNR %.1f dB", psnr)
	assert.Greater(t, psnr, 35.0, "the preview is the render's frame (but for the encoding)")
}

// TestDrawnWordKeepsItsSpanBackground: a word kino draws itself (its
// frames, not ffmpeg's filters) under a blurred shadow keeps its span's
// background under the shadow, as the filters lay the box picture under
// the blurred one.
func TestDrawnWordKeepsItsSpanBackground(t *testing.T) {
	t.Parallel()
	s, err := Compile("provider_a", []byte(`{"width":320,"height":180,"fps":10,"duration":1,"layers":[`+
		`{"type":"text","color":"white","fontSize":20,"x":10,"y":10,"shadowColor":"black","shadowBlur":4,"enter":{"type":"fade","by":"word"},`+
		`"spans":[{"text":"one "},{"text":"two ","color":"red","backgroundColor":"blue"},{"text":"three"}]}]}`), nil, DefaultLimits())
	require.NoError(t, err)
	p := &planner{s: s}
	l := s.Layers[0]
	lay, err := p.measure(l, testFont)
	require.NoError(t, err)
	units, err := p.layerUnits(l, lay)
	require.NoError(t, err)
	require.Len(t, units, 3)
	two, err := p.unitPicture(l, units[1].lay)
	require.NoError(t, err)
	assert.NotEqual(t, rect{}, colourBox(two, blue), "word 1 on its span's background")
	assert.NotEqual(t, rect{}, colourBox(two, red), "in its span's colour")
	one, err := p.unitPicture(l, units[0].lay)
	require.NoError(t, err)
	assert.Equal(t, rect{}, colourBox(one, blue))
}
