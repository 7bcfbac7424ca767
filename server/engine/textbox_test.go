package engine

import (
	"bytes"
	"context"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/typeset"
)

// planStyled compiles a provider_a composition of 320×180 at 10 fps and
// plans it with DejaVu Sans as the default font.
func planStyled(t *testing.T, layers string, media map[string]Media) (*Scene, *Command) {
	t.Helper()
	urls := map[string]string{}
	for key := range media {
		urls[key] = "https://a.test/" + key
	}
	s, err := Compile("provider_a", []byte(`{"width":320,"height":180,"fps":10,"duration":1,"layers":[`+layers+`]}`), urls, DefaultLimits())
	require.NoError(t, err)
	bySource := map[string]Media{}
	for _, src := range s.Sources() {
		bySource[src.Key] = media[strings.TrimPrefix(src.URL, "https://a.test/")]
	}
	cmd, err := Plan(context.Background(), s, inputs(bySource, testFont), "/w", "/w/out.mp4")
	require.NoError(t, err)
	return s, cmd
}

func dejaVu(t *testing.T, size int) *typeset.Face {
	t.Helper()
	data, err := os.ReadFile(testFont)
	require.NoError(t, err)
	f, err := typeset.Parse(data)
	require.NoError(t, err)
	face, err := f.Face(size)
	require.NoError(t, err)
	return face
}

// TestPlanTextBox pins the graph of a styled text layer: its box as a
// picture, its shadow and glyphs each drawn once on a frame of their own,
// one drawtext per line reading its own file, composed, then repeated and
// overlaid like a picture.
func TestPlanTextBox(t *testing.T) {
	t.Parallel()
	_, cmd := planStyled(t, `{"type":"text","text":"qqq zzz","fontSize":20,"width":60,"x":100,"y":40,"align":"center",
		"backgroundColor":"#123456","paddingX":5,"paddingY":4,"borderRadius":6,"strokeWidth":2,"strokeColor":"red",
		"shadowColor":"#00000080","shadowX":3,"shadowY":4,"shadowBlur":2,"fadeIn":0.5}`, nil)
	face := dejaVu(t, 20)
	// 60 wide less 2×5 of padding: 50, narrower than "qqq zzz".
	require.Greater(t, face.Width("qqq zzz"), 50)
	assert.Equal(t, []byte("qqq"), cmd.Files["text-0-0.txt"])
	assert.Equal(t, []byte("zzz"), cmd.Files["text-0-1.txt"])
	assert.Contains(t, cmd.Files, "box-0.png")
	assert.Contains(t, strings.Join(cmd.Args, " "), "-f png_pipe -max_pixels 50000000 -threads 1 -i file:/w/box-0.png")

	graph := filterGraph(cmd)
	// Two lines of 23.28 px (DejaVu's own line height at 20 px): the box is
	// 60 × 47+8 at 100, 40, the first baseline at 40+4+18.56 (the ascent),
	// the second 23.28 lower. Glyphs may reach half an em past their line
	// and the stroke 2 more: 12 px around the area of the lines, from
	// 105-12 = 93 to 93+50+24; the shadow 3 further for its blur, and 3, 4
	// more for its offset. The canvas is that, from an even corner (92,
	// 32), with even sides.
	for _, part := range []string{
		"[0:v]format=rgba[t0p0]",
		"color=c=0x00000000:s=82x78:r=10:d=0.1,format=gbrap,drawtext=fontfile=" + testFont + ":textfile=/w/text-0-0.txt:expansion=none:fontsize=20:fontcolor=0x00000080:borderw=2:bordercolor=0x00000080:x=16+(50-text_w)/2:y=35-ascent,",
		"gblur=sigma=1[t0p1]",
		"color=c=0xFF000000:s=82x78:r=10:d=0.1,format=rgba,drawtext=fontfile=" + testFont + ":textfile=/w/text-0-0.txt:expansion=none:fontsize=20:fontcolor=0xFFFFFFFF:borderw=2:bordercolor=0xFF0000FF:x=13+(50-text_w)/2:y=31-ascent,",
		":textfile=/w/text-0-1.txt:expansion=none:fontsize=20:fontcolor=0xFFFFFFFF:borderw=2:bordercolor=0xFF0000FF:x=13+(50-text_w)/2:y=54-ascent[t0p2]",
		"[t0p0][t0p1]overlay=x=0:y=0:format=rgb[t0c1]",
		"[t0c1][t0p2]overlay=x=0:y=0:format=rgb,format=yuva420p,loop=loop=9:size=1:start=0,settb=expr=1/10,setpts=N+0,fade=t=in:st=0:d=0.5:alpha=1[l0]",
		"[base][l0]overlay=x=92:y=32:eof_action=pass:enable='between(t,-0.05,0.95)'[v0]",
	} {
		assert.Contains(t, graph, part)
	}
	assert.NotContains(t, graph, "qqq", "no text in the graph")
	assert.NotContains(t, graph, "zzz")
	_, err := checkGraph(graph, "/w", testFont)
	require.NoError(t, err)

	img, err := png.Decode(bytes.NewReader(cmd.Files["box-0.png"]))
	require.NoError(t, err)
	assert.Equal(t, 82, img.Bounds().Dx(), "the box's picture is the canvas")
	_, _, _, a := img.At(100-92, 40-32).RGBA()
	assert.Zero(t, a, "the box's rounded corner")
	_, _, _, a = img.At(100-92+30, 40-32).RGBA()
	assert.Equal(t, uint32(0xFFFF), a, "the box's top edge")
	_, _, _, a = img.At(100-92+59, 40-32+54-6).RGBA()
	assert.Equal(t, uint32(0xFFFF), a, "the box's right edge")
	_, _, _, a = img.At(100-92-1, 40-32+20).RGBA()
	assert.Zero(t, a, "left of the box")
	_, _, _, a = img.At(100-92+20, 40-32+55).RGBA()
	assert.Zero(t, a, "under the box")
}

// TestPlanTextBoxParts: each decoration adds its part, and text alone is
// one chain.
func TestPlanTextBoxParts(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		layer   string
		parts   int
		inGraph []string
	}{
		"aligned only": {`{"type":"text","text":"a\nbb","align":"right","x":10,"y":10}`, 1, []string{":x=10+", "-text_w:y="}},
		"stroke":       {`{"type":"text","text":"a","strokeWidth":3,"color":"#ffffff80"}`, 1, []string{"color=c=0x00000000:", "fontcolor=0xFFFFFF80:borderw=3:bordercolor=0x000000FF"}},
		"box":          {`{"type":"text","text":"a","backgroundColor":"white"}`, 2, []string{"format=rgba[t0p0]"}},
		"sharp shadow": {`{"type":"text","text":"a","shadowColor":"red","shadowX":2}`, 2, []string{"color=c=0xFF000000:", "format=rgba,drawtext"}},
		"all":          {`{"type":"text","text":"a","backgroundColor":"white","shadowColor":"red","shadowBlur":4}`, 3, []string{"gblur=sigma=2["}},
	}
	for name, tc := range cases {
		_, cmd := planStyled(t, tc.layer, nil)
		graph := filterGraph(cmd)
		if tc.parts == 1 {
			assert.NotContains(t, graph, "[t0p", name)
		} else {
			assert.Equal(t, tc.parts, strings.Count(graph, "[t0p")/2, name)
		}
		for _, part := range tc.inGraph {
			assert.Contains(t, graph, part, name)
		}
		assert.Equal(t, 2, strings.Count(graph, "[l0]"), name)
		_, err := checkGraph(graph, "/w", testFont)
		assert.NoError(t, err, name)
	}
}

// TestLayout checks where lines and boxes fall.
func TestLayout(t *testing.T) {
	t.Parallel()
	face := dejaVu(t, 20)
	p := &planner{s: &Scene{Width: 320, Height: 180, FPS: 10}}
	lay := func(layer string) textLayout {
		s, err := Compile("provider_a", []byte(`{"width":320,"height":180,"fps":10,"duration":1,"layers":[`+layer+`]}`), nil, DefaultLimits())
		require.NoError(t, err)
		return p.layout(s.Layers[0], face)
	}
	lines := func(l textLayout) []string {
		var out []string
		for _, ln := range l.lines {
			out = append(out, ln.text)
		}
		return out
	}

	wrapped := lay(`{"type":"text","text":"the quick brown fox jumps","fontSize":20,"width":100,"x":10,"y":20,"paddingX":5}`)
	assert.Greater(t, len(wrapped.lines), 1)
	high := int(math.Ceil(float64(len(wrapped.lines)) * face.LineHeight()))
	assert.Equal(t, rect{x: 10, y: 20, w: 100, h: high}, wrapped.box, "lines of 23.28 each")
	assert.Equal(t, 90, wrapped.areaWidth)
	for _, ln := range wrapped.lines {
		assert.LessOrEqual(t, face.Width(ln.text), 90, ln.text)
		assert.Equal(t, 15, ln.x)
	}
	assert.Equal(t, "the quick brown fox jumps", strings.Join(lines(wrapped), " "))

	// Without a width, the box fits the widest line and its padding;
	// centred, it is centred in the frame.
	fit := lay(`{"type":"text","text":"ab\nabcd","fontSize":20,"paddingX":7,"paddingY":3}`)
	w := face.Width("abcd") + 14
	assert.Equal(t, rect{x: (320 - w) / 2, y: (180 - 53) / 2, w: w, h: 47 + 6}, fit.box)

	// Baselines are lineHeight × fontSize apart; the glyphs sit in the
	// middle of each line.
	tall := lay(`{"type":"text","text":"a\nb\nc","fontSize":20,"lineHeight":2,"x":0,"y":0}`)
	require.Len(t, tall.lines, 3)
	lead := (40 - face.Ascent() - face.Descent()) / 2
	assert.Equal(t, int(lead+face.Ascent()+0.5), tall.lines[0].baseline)
	assert.Equal(t, 40, tall.lines[1].baseline-tall.lines[0].baseline)
	assert.Equal(t, 40, tall.lines[2].baseline-tall.lines[1].baseline)
	assert.Equal(t, 120, tall.box.h)

	// In a taller box, verticalAlign moves the block.
	top := lay(`{"type":"text","text":"a","fontSize":20,"lineHeight":1,"x":0,"y":0,"height":100}`)
	mid := lay(`{"type":"text","text":"a","fontSize":20,"lineHeight":1,"x":0,"y":0,"height":100,"verticalAlign":"middle"}`)
	bottom := lay(`{"type":"text","text":"a","fontSize":20,"lineHeight":1,"x":0,"y":0,"height":100,"verticalAlign":"bottom"}`)
	assert.Equal(t, 40, mid.lines[0].baseline-top.lines[0].baseline)
	assert.Equal(t, 80, bottom.lines[0].baseline-top.lines[0].baseline)

	// The canvas is on the frame, its corner and sides even.
	off := lay(`{"type":"text","text":"a b c d e f g h i j k l","fontSize":20,"width":40,"x":301,"y":-100,"shadowColor":"red","shadowY":5}`)
	c := off.canvas
	assert.Zero(t, c.x%2+c.y%2+c.w%2+c.h%2, "even: %+v", c)
	assert.True(t, c.x >= 0 && c.y == 0 && c.x+c.w == 320 && c.y+c.h <= 180, "%+v", c)
	shown := 0
	for _, ln := range off.lines {
		if ln.shows {
			shown++
		}
	}
	assert.Less(t, shown, len(off.lines), "lines above the frame are not drawn")
	assert.Positive(t, shown)

	gone := lay(`{"type":"text","text":"a","x":-1000,"y":0,"fontSize":20,"align":"center"}`)
	assert.Equal(t, rect{}, gone.canvas, "off screen: nothing to draw")
}

func TestPlanTextBoxOffScreenOrHidden(t *testing.T) {
	t.Parallel()
	_, cmd := planStyled(t, `{"type":"text","text":"a","x":5000,"align":"center"},
		{"type":"text","text":"b","align":"center","start":0.31,"duration":0.05}`, nil)
	assert.NotContains(t, filterGraph(cmd), "drawtext")
	assert.Empty(t, cmd.Files)

	// Under a full-frame colour the font is still read and checked.
	_, _, err := planOf(t, `{"width":16,"height":16,"fps":1,"layers":[{"type":"text","text":"a","align":"center","font":"x","duration":1},{"type":"color","color":"red","duration":1}]}`,
		map[string]Media{"x": {Path: "/nonexistent/font", Font: true}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "composition.layers[0]")
}

// TestPlanTextBoxFonts: a font that cannot be measured fails as the
// media, naming the layer's font field; plain text does not measure.
func TestPlanTextBoxFonts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	woff2 := filepath.Join(dir, "woff2")
	require.NoError(t, os.WriteFile(woff2, []byte("wOF2 and then brotli"), 0o600))
	truetype := filepath.Join(dir, "true")
	require.NoError(t, os.WriteFile(truetype, []byte("\x00\x01\x00\x00 but not a font"), 0o600))
	for path, msg := range map[string]string{woff2: "WOFF2", truetype: "not a readable TrueType"} {
		m, err := FontFromFile(path)
		require.NoError(t, err)
		require.True(t, m.Font, "the signature passes")
		_, _, err = planOf(t, `{"width":16,"height":16,"fps":1,"layers":[{"type":"text","text":"a","font":"f","strokeWidth":1,"duration":1}]}`, map[string]Media{"f": m})
		var me *MediaError
		require.ErrorAs(t, err, &me)
		assert.Equal(t, "composition.layers[0].font", me.Field)
		assert.Contains(t, me.Message, msg)

		_, _, err = planOf(t, `{"width":16,"height":16,"fps":1,"layers":[{"type":"text","text":"a","font":"f","duration":1}]}`, map[string]Media{"f": m})
		assert.NoError(t, err, "plain text is drawn by FreeType alone, as before")
	}

	_, cmd := planStyled(t, `{"type":"text","text":"a","font":"f","strokeWidth":1}`, map[string]Media{"f": {Path: testFont, Font: true}})
	assert.Contains(t, filterGraph(cmd), "drawtext=fontfile="+testFont+":textfile=/w/text-0-0.txt")
}

// TestPlanLongGraph: a graph too long for one argument is read from a
// file.
func TestPlanLongGraph(t *testing.T) {
	t.Parallel()
	s, err := Compile("provider_a", []byte(`{"width":320,"height":180,"fps":10,"duration":1,"layers":[{"type":"text","text":`+
		string(mustJSON(t, strings.Repeat("x\n", 2000)))+`,"fontSize":1,"lineHeight":1,"align":"center","y":0,"shadowColor":"red"}]}`), nil, DefaultLimits())
	require.NoError(t, err)
	work := "/w/" + strings.Repeat("d", 200)
	cmd, err := Plan(context.Background(), s, inputs(nil, testFont), work, "/w/out.mp4")
	require.NoError(t, err)
	assert.NotContains(t, cmd.Args, "-filter_complex")
	i := indexOf(cmd.Args, "-filter_complex_script")
	require.GreaterOrEqual(t, i, 0)
	assert.Equal(t, work+"/graph.txt", cmd.Args[i+1])
	graph := string(cmd.Files["graph.txt"])
	assert.Greater(t, len(graph), maxGraphArg)
	// Lines below the frame are not drawn: about 180 of 2000, twice
	// (shadow and glyphs).
	assert.InDelta(t, 2*180, strings.Count(graph, "drawtext="), 2*3)
	_, err = checkGraph(graph, work, testFont)
	assert.NoError(t, err)
}

func indexOf(args []string, a string) int {
	for i, v := range args {
		if v == a {
			return i
		}
	}
	return -1
}

// TestPlanTextBoxIsLiteral: hostile text lands in files, line by line,
// and the graph is that of plain words of the same widths.
func TestPlanTextBoxIsLiteral(t *testing.T) {
	t.Parallel()
	text := "it's: %{pts} [out]; a,b\n\\'x' $(rm) %%"
	_, cmd := planStyled(t, `{"type":"text","text":`+string(mustJSON(t, text))+`,"width":3000,"x":0,"backgroundColor":"black","shadowColor":"red"}`, nil)
	assert.Equal(t, []byte("it's: %{pts} [out]; a,b"), cmd.Files["text-0-0.txt"])
	assert.Equal(t, []byte(`\'x' $(rm) %%`), cmd.Files["text-0-1.txt"])
	graph := filterGraph(cmd)
	assert.False(t, regexp.MustCompile(`pts\}|\[out\]|\(rm\)|%`).MatchString(graph), graph)
	_, err := checkGraph(graph, "/w", testFont)
	assert.NoError(t, err)
}

// TestPlanTextBoxLineBound: a render draws a bounded number of lines of
// laid-out text, counted over its layers; lines off screen and empty
// lines do not count.
func TestPlanTextBoxLineBound(t *testing.T) {
	t.Parallel()
	layer := func(lines int) string {
		return `{"type":"text","fontSize":1,"lineHeight":1,"y":0,"align":"center","text":` + string(mustJSON(t, strings.Repeat("x\n\n", lines))) + `}`
	}
	_, cmd := planStyled(t, layer(90)+","+layer(90)+","+layer(90)+","+layer(90)+","+layer(90), nil)
	assert.Equal(t, 450, strings.Count(filterGraph(cmd), "drawtext="), "180 lines each, half of them empty")

	s, err := Compile("provider_a", []byte(`{"width":320,"height":180,"fps":10,"duration":1,"layers":[`+
		layer(90)+","+layer(90)+","+layer(90)+","+layer(90)+","+layer(90)+","+layer(51)+`]}`), nil, DefaultLimits())
	require.NoError(t, err)
	_, err = Plan(context.Background(), s, inputs(nil, testFont), "/w", "/w/out.mp4")
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "composition.layers[5].text", ve.Field)
	assert.Contains(t, ve.Message, "501 lines")
}

// TestPlanTextBoxFontBytes: the fonts a render reads to lay text out are
// held in kino's memory while it plans, so together they are bounded,
// and a font past the bound is refused before it is read. (Not parallel:
// it counts the bytes allocated.)
func TestPlanTextBoxFontBytes(t *testing.T) {
	dir := t.TempDir()
	regular, err := os.ReadFile(testFont)
	require.NoError(t, err)
	// DejaVu Sans followed by zeros: still a font, as large as asked.
	padded := func(name string, size int64) Media {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, regular, 0o600))
		require.NoError(t, os.Truncate(path, size))
		return Media{Path: path, Font: true}
	}
	layers := func(fonts ...string) string {
		var ls []string
		for _, f := range fonts {
			ls = append(ls, `{"type":"text","text":"a","font":"`+f+`","strokeWidth":1,"duration":1}`)
		}
		return `{"width":16,"height":16,"fps":1,"layers":[` + strings.Join(ls, ",") + `]}`
	}

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, _, err = planOf(t, layers("big"), map[string]Media{"big": padded("big", maxFontBytes+1)})
	runtime.ReadMemStats(&after)
	var me *MediaError
	require.ErrorAs(t, err, &me)
	assert.Equal(t, "composition.layers[0].font", me.Field)
	assert.Contains(t, me.Message, "129 MiB")
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(16<<20), "bytes allocated to refuse it")

	media := map[string]Media{"a": padded("a", 70<<20), "b": padded("b", 70<<20)}
	_, _, err = planOf(t, layers("a", "a", "a"), media)
	assert.NoError(t, err, "a font is read once, however many layers use it")
	_, _, err = planOf(t, layers("a", "b"), media)
	require.ErrorAs(t, err, &me)
	assert.Equal(t, "composition.layers[1].font", me.Field)
	assert.Contains(t, me.Message, "140 MiB")
}

// TestPlanTextBoxFontPanics: sfnt, which reads fonts, is not hardened
// against hostile ones; a panic while measuring a downloaded font fails
// the render naming the font, and does not end kino's process. (A font
// with no parsed data stands in for a font that makes sfnt panic.)
func TestPlanTextBoxFontPanics(t *testing.T) {
	t.Parallel()
	s, err := Compile("provider_a", []byte(`{"width":16,"height":16,"fps":1,"layers":[{"type":"text","text":"a","font":"f","strokeWidth":1,"duration":1}]}`),
		map[string]string{"f": "https://a.test/f"}, DefaultLimits())
	require.NoError(t, err)
	p := &planner{s: s, files: map[string][]byte{}, fonts: map[string]readFont{"/m/f": {Font: &typeset.Font{}}}}
	require.Panics(t, func() { _, _ = (&typeset.Font{}).Face(10) })
	for _, hidden := range []bool{false, true} {
		var err error
		require.NotPanics(t, func() { _, err = p.textBox(0, s.Layers[0], "base", "/m/f", hidden) })
		var me *MediaError
		require.ErrorAs(t, err, &me)
		assert.Equal(t, "composition.layers[0].font", me.Field)
		assert.Contains(t, me.Message, "cannot be measured")
	}
}
