package engine

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/draw"
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

	"github.com/kinohq/kino/server/glyphs"
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

// dejaVu lays text out in DejaVu Sans (testFont) at size, as Plan does
// with the default font.
func dejaVu(t *testing.T, text string, size int, width float64) *glyphs.Layout {
	t.Helper()
	data, err := os.ReadFile(testFont)
	require.NoError(t, err)
	f, err := glyphs.Parse(data)
	require.NoError(t, err)
	return glyphs.NewShaper([]*glyphs.Font{f}, testFonts).Layout(text, glyphs.Options{Size: float64(size), Width: width})
}

// filePNG decodes a picture the plan wrote.
func filePNG(t *testing.T, cmd *Command, name string) *image.NRGBA {
	t.Helper()
	require.Contains(t, cmd.Files, name)
	img, err := png.Decode(bytes.NewReader(cmd.Files[name]))
	require.NoError(t, err)
	out := image.NewNRGBA(img.Bounds())
	draw.Draw(out, out.Bounds(), img, img.Bounds().Min, draw.Src)
	return out
}

// TestPlanTextBox pins the graph of a styled text layer with a blurred
// shadow: its box, its shadow and its glyphs are three pictures kino
// draws, the shadow blurred by ffmpeg, composed, then repeated and
// overlaid like a picture.
func TestPlanTextBox(t *testing.T) {
	t.Parallel()
	_, cmd := planStyled(t, `{"type":"text","text":"qqq zzz","fontSize":20,"width":60,"x":100,"y":40,"align":"center",
		"backgroundColor":"#123456","paddingX":5,"paddingY":4,"borderRadius":6,"strokeWidth":2,"strokeColor":"red",
		"shadowColor":"#00000080","shadowX":3,"shadowY":4,"shadowBlur":2,"fadeIn":0.5}`, nil)
	// 60 wide less 2×5 of padding: 50, narrower than "qqq zzz".
	require.Greater(t, dejaVu(t, "qqq zzz", 20, 0).Lines[0].Width, 50.0)
	require.Len(t, dejaVu(t, "qqq zzz", 20, 50).Lines, 2)
	args := strings.Join(cmd.Args, " ")
	for _, name := range []string{"box-0.png", "shadow-0.png", "text-0.png"} {
		assert.Contains(t, args, "-f png_pipe -max_pixels 50000000 -threads 1 -i file:/w/"+name)
	}

	graph := filterGraph(cmd)
	// Two lines of 23.28 px (DejaVu's own line height at 20 px): the box is
	// 60 × 47+8 at 100, 40. Glyphs may reach half an em past their line
	// and the stroke 2 more: 12 px around the area of the lines, from
	// 105-12 = 93 to 93+50+24; the shadow 3 further for its blur, and 3, 4
	// more for its offset. The canvas is that, from an even corner (92,
	// 32), with even sides.
	for _, part := range []string{
		"[0:v]format=rgba[t0p0]",
		"[1:v]format=gbrap,gblur=sigma=1[t0p1]",
		"[2:v]format=rgba[t0p2]",
		"[t0p0][t0p1]overlay=x=0:y=0:format=rgb[t0c1]",
		"[t0c1][t0p2]overlay=x=0:y=0:format=rgb,format=yuva420p,loop=loop=9:size=1:start=0,settb=expr=1/10,setpts=N+0,fade=t=in:st=0:d=0.5:alpha=1[l0]",
		"[base][l0]overlay=x=92:y=32:eof_action=pass:enable='between(t,-0.05,0.95)'[v0]",
	} {
		assert.Contains(t, graph, part)
	}
	assert.NotContains(t, graph, "drawtext")
	assert.NotContains(t, graph, "qqq", "no text in the graph")
	_, err := checkGraph(graph, "/w", testFont)
	require.NoError(t, err)

	img := filePNG(t, cmd, "box-0.png")
	assert.Equal(t, 82, img.Bounds().Dx(), "the box's picture is the canvas")
	assert.Zero(t, img.NRGBAAt(100-92, 40-32).A, "the box's rounded corner")
	assert.Equal(t, uint8(0xFF), img.NRGBAAt(100-92+30, 40-32).A, "the box's top edge")
	assert.Equal(t, uint8(0xFF), img.NRGBAAt(100-92+59, 40-32+54-6).A, "the box's right edge")
	assert.Zero(t, img.NRGBAAt(100-92-1, 40-32+20).A, "left of the box")
	assert.Zero(t, img.NRGBAAt(100-92+20, 40-32+55).A, "under the box")

	// The glyphs: white, outlined in red, on the two lines; the shadow
	// is the same shapes in one colour, 3, 4 further.
	text, shadow := filePNG(t, cmd, "text-0.png"), filePNG(t, cmd, "shadow-0.png")
	var whites, reds, shades int
	for y := 0; y < text.Bounds().Dy(); y++ {
		for x := 0; x < text.Bounds().Dx(); x++ {
			c := text.NRGBAAt(x, y)
			switch {
			case c.A == 255 && c.R > 240 && c.G > 240 && c.B > 240:
				whites++
			case c.A == 255 && c.R > 240 && c.G < 20:
				reds++
			}
			if sc := shadow.NRGBAAt(x, y); sc.A > 0 {
				assert.True(t, sc.R == 0 && sc.G == 0 && sc.B == 0 && sc.A <= 0x80, "the shadow is its colour: %v", sc)
				shades++
			}
		}
	}
	assert.Greater(t, whites, 100)
	assert.Greater(t, reds, 100)
	assert.Greater(t, shades, whites+reds/2)
}

// TestPlanTextBoxParts: a blurred shadow is a picture of its own (and so
// is the box under it); anything else is one picture.
func TestPlanTextBoxParts(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		layer string
		parts int
	}{
		"plain":        {`{"type":"text","text":"a"}`, 1},
		"aligned only": {`{"type":"text","text":"a\nbb","align":"right","x":10,"y":10}`, 1},
		"stroke":       {`{"type":"text","text":"a","strokeWidth":3,"color":"#ffffff80"}`, 1},
		"box":          {`{"type":"text","text":"a","backgroundColor":"white"}`, 1},
		"sharp shadow": {`{"type":"text","text":"a","shadowColor":"red","shadowX":2}`, 1},
		"blurred":      {`{"type":"text","text":"a","shadowColor":"red","shadowBlur":4}`, 2},
		"all":          {`{"type":"text","text":"a","backgroundColor":"white","shadowColor":"red","shadowBlur":4}`, 3},
	}
	for name, tc := range cases {
		_, cmd := planStyled(t, tc.layer, nil)
		graph := filterGraph(cmd)
		if tc.parts == 1 {
			assert.NotContains(t, graph, "[t0p", name)
			assert.Len(t, cmd.Files, 1, name)
			assert.Contains(t, cmd.Files, "text-0.png", name)
		} else {
			assert.Equal(t, tc.parts, strings.Count(graph, "[t0p")/2, name)
			assert.Len(t, cmd.Files, tc.parts, name)
		}
		assert.Equal(t, 2, strings.Count(graph, "[l0]"), name)
		_, err := checkGraph(graph, "/w", testFont)
		assert.NoError(t, err, name)
	}
}

// TestLayout checks where lines and boxes fall.
func TestLayout(t *testing.T) {
	t.Parallel()
	p := &planner{s: &Scene{Width: 320, Height: 180, FPS: 10}}
	lay := func(layer string) textLayout {
		s, err := Compile("provider_a", []byte(`{"width":320,"height":180,"fps":10,"duration":1,"layers":[`+layer+`]}`), nil, DefaultLimits())
		require.NoError(t, err)
		l, err := p.measure(s.Layers[0], testFont)
		require.NoError(t, err)
		return l
	}
	height := dejaVu(t, "a", 20, 0).LineHeight()
	assert.InDelta(t, 23.28, height, 0.01, "DejaVu Sans's own line height at 20 px")

	wrapped := lay(`{"type":"text","text":"the quick brown fox jumps","fontSize":20,"width":100,"x":10,"y":20,"paddingX":5}`)
	assert.Greater(t, len(wrapped.lines), 1)
	high := int(math.Ceil(float64(len(wrapped.lines)) * height))
	assert.Equal(t, rect{x: 10, y: 20, w: 100, h: high}, wrapped.box, "lines of 23.28 each")
	assert.Equal(t, 90, wrapped.areaWidth)
	for _, ln := range wrapped.lines {
		assert.LessOrEqual(t, ln.width, 90.0)
		assert.Equal(t, 15, ln.x)
	}

	// Without a width, the box fits the widest line and its padding;
	// centred, it is centred in the frame.
	fit := lay(`{"type":"text","text":"ab\nabcd","fontSize":20,"paddingX":7,"paddingY":3}`)
	w := int(math.Ceil(dejaVu(t, "abcd", 20, 0).Lines[0].Width)) + 14
	assert.Equal(t, rect{x: (320 - w) / 2, y: (180 - 53) / 2, w: w, h: 47 + 6}, fit.box)

	// Baselines are lineHeight × fontSize apart; the glyphs sit in the
	// middle of each line.
	tall := lay(`{"type":"text","text":"a\nb\nc","fontSize":20,"lineHeight":2,"x":0,"y":0}`)
	require.Len(t, tall.lines, 3)
	gl := dejaVu(t, "a", 20, 0)
	lead := (40 - gl.Ascent - gl.Descent) / 2
	assert.Equal(t, int(lead+gl.Ascent+0.5), tall.lines[0].baseline)
	assert.Equal(t, 40, tall.lines[1].baseline-tall.lines[0].baseline)
	assert.Equal(t, 40, tall.lines[2].baseline-tall.lines[1].baseline)
	assert.Equal(t, 120, tall.box.h)

	// Alignment moves each line in the area by what it lacks.
	right := lay(`{"type":"text","text":"a\nabcd","fontSize":20,"align":"right","width":200,"x":0,"y":0}`)
	assert.InDelta(t, 200-dejaVu(t, "a", 20, 0).Lines[0].Width, right.lines[0].offset, 1e-9)
	centre := lay(`{"type":"text","text":"a","fontSize":20,"align":"center","width":200,"x":0,"y":0}`)
	assert.InDelta(t, (200-dejaVu(t, "a", 20, 0).Lines[0].Width)/2, centre.lines[0].offset, 1e-9)

	// In a taller box, verticalAlign moves the block.
	top := lay(`{"type":"text","text":"a","fontSize":20,"lineHeight":1,"x":0,"y":0,"height":100}`)
	mid := lay(`{"type":"text","text":"a","fontSize":20,"lineHeight":1,"x":0,"y":0,"height":100,"verticalAlign":"middle"}`)
	bottom := lay(`{"type":"text","text":"a","fontSize":20,"lineHeight":1,"x":0,"y":0,"height":100,"verticalAlign":"bottom"}`)
	assert.Equal(t, 40, mid.lines[0].baseline-top.lines[0].baseline)
	assert.Equal(t, 80, bottom.lines[0].baseline-top.lines[0].baseline)

	// Plain text: the top of its glyphs at y, as drawtext placed it. The
	// top of "H" is its cap height (0.729 em in DejaVu Sans) above the
	// baseline.
	plain := lay(`{"type":"text","text":"Hx","fontSize":40,"x":0,"y":50}`)
	assert.InDelta(t, 50+0.729*40, plain.lines[0].baseline, 1)

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
		{"type":"text","text":"b","x":5000},
		{"type":"text","text":"b","align":"center","start":0.31,"duration":0.05}`, nil)
	assert.NotContains(t, filterGraph(cmd), "png")
	assert.Empty(t, cmd.Files)

	// Under a full-frame colour the font is still read and checked.
	_, _, err := planOf(t, `{"width":16,"height":16,"fps":1,"layers":[{"type":"text","text":"a","font":"x","duration":1},{"type":"color","color":"red","duration":1}]}`,
		map[string]Media{"x": {Path: "/nonexistent/font", Font: true}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "composition.layers[0]")
}

// TestPlanTextBoxFonts: a font that cannot be read fails as the media,
// naming the layer's font field, plain text or not.
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
		for _, layer := range []string{`{"type":"text","text":"a","font":"f","strokeWidth":1,"duration":1}`, `{"type":"text","text":"a","font":"f","duration":1}`} {
			_, _, err = planOf(t, `{"width":16,"height":16,"fps":1,"layers":[`+layer+`]}`, map[string]Media{"f": m})
			var me *MediaError
			require.ErrorAs(t, err, &me)
			assert.Equal(t, "composition.layers[0].font", me.Field)
			assert.Contains(t, me.Message, msg)
		}
	}

	// A font given draws the text: DejaVu Sans Mono's glyphs are not
	// DejaVu Sans's.
	mono := "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"
	if _, err := os.Stat(mono); err != nil {
		t.Skip("DejaVu Sans Mono is missing: install fonts-dejavu-core")
	}
	_, sans := planStyled(t, `{"type":"text","text":"iiii","strokeWidth":1}`, nil)
	_, given := planStyled(t, `{"type":"text","text":"iiii","font":"f","strokeWidth":1}`, map[string]Media{"f": {Path: mono, Font: true}})
	assert.NotEqual(t, filePNG(t, sans, "text-0.png").Bounds(), filePNG(t, given, "text-0.png").Bounds())
}

// TestPlanTextMissingCharacters: a character no font has (private use)
// is a warning of the render naming the layer, not a box.
func TestPlanTextMissingCharacters(t *testing.T) {
	t.Parallel()
	_, cmd := planStyled(t, `{"type":"text","text":"ok \ue000"}`, nil)
	require.Len(t, cmd.Warnings, 1)
	assert.Contains(t, cmd.Warnings[0], "composition.layers[0].text: no font has U+E000")
	_, cmd = planStyled(t, `{"type":"text","text":"ok"}`, nil)
	assert.Empty(t, cmd.Warnings)
}

// TestPlanTextFontFeatures: fontFeatures reach the shaper (small caps
// are other glyphs; DejaVu Sans has none, so the picture is the same)
// and bad ones are refused where they are written.
func TestPlanTextFontFeatures(t *testing.T) {
	t.Parallel()
	s, err := Compile("provider_a", []byte(`{"width":320,"height":180,"fps":10,"duration":1,"layers":[{"type":"text","text":"AVAV","fontFeatures":["-kern"]}]}`), nil, DefaultLimits())
	require.NoError(t, err)
	assert.Equal(t, "kern=0", s.Layers[0].Style.Features)
	assert.False(t, s.Layers[0].styled(), "features alone leave text plain")
	p := &planner{s: s}
	kerned, err := p.measure(Layer{Kind: KindText, Text: "AVAV", FontSize: 48, Field: "l"}, testFont)
	require.NoError(t, err)
	unkerned, err := p.measure(s.Layers[0], testFont)
	require.NoError(t, err)
	assert.Less(t, kerned.lines[0].width, unkerned.lines[0].width, "DejaVu Sans kerns AV")

	for _, bad := range []string{`["ligatures"]`, `[3]`, `"smcp"`} {
		_, err := Compile("provider_a", []byte(`{"width":320,"height":180,"fps":10,"duration":1,"layers":[{"type":"text","text":"a","fontFeatures":`+bad+`}]}`), nil, DefaultLimits())
		var ve *ValidationError
		require.ErrorAs(t, err, &ve, bad)
		assert.Contains(t, ve.Field, "composition.layers[0].fontFeatures", bad)
	}
}

// TestPlanLongGraph: a graph too long for one argument is read from a
// file.
func TestPlanLongGraph(t *testing.T) {
	t.Parallel()
	// Shapes moving through many keyframes: long expressions.
	var layers []string
	for i := 0; i < 9; i++ {
		keys := []string{`{"time":0,"value":0}`}
		for k := 1; k < 100; k++ {
			keys = append(keys, fmt.Sprintf(`{"time":%g,"value":%d,"easing":"ease-in-out"}`, float64(k)/100, (k*37+i)%300))
		}
		layers = append(layers, fmt.Sprintf(`{"type":"ellipse","color":"red","width":10,"height":10,"x":[%s],"y":%d}`, strings.Join(keys, ","), i%170))
	}
	s, err := Compile("provider_a", []byte(`{"width":320,"height":180,"fps":10,"duration":1,"layers":[`+strings.Join(layers, ",")+`]}`), nil, DefaultLimits())
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

// TestPlanTextBoxIsLiteral: hostile text is drawn, never written into
// the graph or into any file but the picture.
func TestPlanTextBoxIsLiteral(t *testing.T) {
	t.Parallel()
	text := "it's: %{pts} [out]; a,b\n\\'x' $(rm) %%"
	_, cmd := planStyled(t, `{"type":"text","text":`+string(mustJSON(t, text))+`,"width":3000,"x":0,"backgroundColor":"black","shadowColor":"red"}`, nil)
	assert.Len(t, cmd.Files, 1)
	assert.Contains(t, cmd.Files, "text-0.png")
	graph := filterGraph(cmd)
	assert.False(t, regexp.MustCompile(`pts\}|\[out\]|\(rm\)|%`).MatchString(graph), graph)
	_, err := checkGraph(graph, "/w", testFont)
	assert.NoError(t, err)
}

// TestPlanTextBoxManyLines: a layer of 2000 lines is one picture, its
// lines off the frame not drawn.
func TestPlanTextBoxManyLines(t *testing.T) {
	t.Parallel()
	_, cmd := planStyled(t, `{"type":"text","fontSize":4,"lineHeight":1,"y":0,"align":"center","text":`+string(mustJSON(t, strings.Repeat("x\n", 2000)))+`}`, nil)
	assert.Len(t, cmd.Files, 1)
	img := filePNG(t, cmd, "text-0.png")
	assert.LessOrEqual(t, img.Bounds().Dy(), 180)
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

// TestPlanTextBoxFontPanics: the font readers are not hardened against
// hostile fonts; a panic while reading a downloaded font fails the render
// naming the font, and does not end kino's process. (A font with no
// parsed data stands in for a font that makes the reader panic.)
func TestPlanTextBoxFontPanics(t *testing.T) {
	t.Parallel()
	s, err := Compile("provider_a", []byte(`{"width":16,"height":16,"fps":1,"layers":[{"type":"text","text":"a","font":"f","strokeWidth":1,"duration":1}]}`),
		map[string]string{"f": "https://a.test/f"}, DefaultLimits())
	require.NoError(t, err)
	broken := glyphs.NewShaper([]*glyphs.Font{{}}, nil)
	require.Panics(t, func() { broken.Layout("a", glyphs.Options{Size: 10}) })
	p := &planner{s: s, files: map[string][]byte{}, shapers: map[string]*glyphs.Shaper{"/m/f\x00": broken}}
	for _, hidden := range []bool{false, true} {
		var err error
		require.NotPanics(t, func() { _, err = p.textBox(0, s.Layers[0], "base", "/m/f", hidden) })
		var me *MediaError
		require.ErrorAs(t, err, &me)
		assert.Equal(t, "composition.layers[0].font", me.Field)
		assert.Contains(t, me.Message, "damaged")
	}
}

// TestPlanTextFits: fit "shrink" takes the largest size at which the text
// fits its box, whole words within its width and lines within its height;
// maxLines cuts the text, ending in an ellipsis.
func TestPlanTextFits(t *testing.T) {
	t.Parallel()
	p := &planner{s: &Scene{Width: 640, Height: 360, FPS: 10}}
	layer := func(fields string) Layer {
		s, err := Compile("provider_a", []byte(`{"width":640,"height":360,"fps":10,"duration":1,"layers":[{"type":"text","text":"The quick brown fox jumps over the lazy dog",`+fields+`}]}`), nil, DefaultLimits())
		require.NoError(t, err)
		return s.Layers[0]
	}
	sh, err := p.shaper(Layer{}, testFont)
	require.NoError(t, err)
	fits := func(l Layer, size int) bool {
		gl := sh.Layout(l.Text, glyphs.Options{Size: float64(size), Width: float64(l.Width - 2*l.Style.PaddingX), WholeWords: true})
		return gl.Widest() <= float64(l.Width-2*l.Style.PaddingX) && gl.LineHeight()*float64(len(gl.Lines)) <= float64(l.Height-2*l.Style.PaddingY)
	}
	l := layer(`"fontSize":200,"width":300,"height":120,"paddingX":10,"paddingY":5,"fit":"shrink"`)
	size := p.shrink(l, layoutText{sh: sh, text: l.Text, base: 200}, glyphs.Options{Size: 200, Width: 280})
	assert.Less(t, size, 200)
	assert.True(t, fits(l, size), "fits at %d px", size)
	assert.False(t, fits(l, size+1), "and not at %d px", size+1)
	lay, err := p.measure(l, testFont)
	require.NoError(t, err)
	assert.Equal(t, rect{x: 0, y: 0, w: 300, h: 120}, rect{w: lay.box.w, h: lay.box.h})
	small := layer(`"fontSize":20,"width":600,"fit":"shrink"`)
	assert.Equal(t, 20, p.shrink(small, layoutText{sh: sh, text: small.Text, base: 20}, glyphs.Options{Size: 20, Width: 600}), "text that fits keeps its size")

	cut, err := p.measure(layer(`"fontSize":20,"width":150,"maxLines":2`), testFont)
	require.NoError(t, err)
	assert.Len(t, cut.lines, 2)
	assert.True(t, cut.glyphs.Truncated)

	for fields, msg := range map[string]string{
		`"fit":"shrink"`:              "composition.layers[0].fit: shrinks the text to fit its box: set a width",
		`"fit":"grow","width":100`:    "composition.layers[0].fit",
		`"maxLines":0`:                "composition.layers[0].maxLines",
		`"maxLines":1.5`:              "composition.layers[0].maxLines",
		`"fontFeatures":["smcp","x"]`: "composition.layers[0].fontFeatures[1]",
	} {
		_, err := Compile("provider_a", []byte(`{"width":640,"height":360,"fps":10,"duration":1,"layers":[{"type":"text","text":"a",`+fields+`}]}`), nil, DefaultLimits())
		var ve *ValidationError
		require.ErrorAs(t, err, &ve, fields)
		assert.Contains(t, err.Error(), msg, fields)
	}
}

// TestPlanTextFontList: a text layer's font may be a list, each font
// drawing what the ones before it lack; each is checked as its own field.
func TestPlanTextFontList(t *testing.T) {
	t.Parallel()
	mono := "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"
	if _, err := os.Stat(mono); err != nil {
		t.Skip("DejaVu Sans Mono is missing: install fonts-dejavu-core")
	}
	s, err := Compile("provider_a", []byte(`{"width":320,"height":180,"fps":10,"duration":1,"layers":[{"type":"text","text":"a","font":["https://a.test/m","https://a.test/s"]}]}`), nil, DefaultLimits())
	require.NoError(t, err)
	l := s.Layers[0]
	assert.Equal(t, "composition.layers[0].font[0]", l.FontField)
	require.Len(t, s.Sources(), 2)
	assert.Equal(t, s.Sources()[1].Key, l.Fallback)
	media := map[string]Media{s.Sources()[0].Key: {Path: mono, Font: true}, s.Sources()[1].Key: {Path: testFont, Font: true}}
	_, err = Plan(context.Background(), s, inputs(media, testFont), "/w", "/w/out.mp4")
	require.NoError(t, err)

	p := &planner{s: s, media: media, fallback: testFonts}
	sh, err := p.shaper(l, mono)
	require.NoError(t, err)
	// U+2189 (↉) is in DejaVu Sans, not in DejaVu Sans Mono: the second
	// font of the list draws it, with no warning.
	gl := sh.Layout("a\u2189", glyphs.Options{Size: 20})
	assert.Empty(t, gl.Missing)

	media[s.Sources()[1].Key] = Media{Path: "/nonexistent", Font: true}
	_, err = Plan(context.Background(), s, inputs(media, testFont), "/w", "/w/out.mp4")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "composition.layers[0].font[1]")

	for body, field := range map[string]string{
		`"font":[]`:      "composition.layers[0].font",
		`"font":["x",3]`: "composition.layers[0].font[1]",
		`"font":["a","b","c","d","e","f","g","h","i"]`: "composition.layers[0].font",
	} {
		_, err := Compile("provider_a", []byte(`{"width":320,"height":180,"fps":10,"duration":1,"layers":[{"type":"text","text":"a",`+body+`}]}`),
			map[string]string{"x": "https://a.test/x"}, DefaultLimits())
		var ve *ValidationError
		require.ErrorAs(t, err, &ve, body)
		assert.Equal(t, field, ve.Field, body)
	}
}

// TestPlanTextLang: lang reaches the text engine, a layer's and a
// span's: "骨" is drawn as Japanese writes it with "ja", as Chinese does
// with "zh-Hans" and with no language (Han characters alone), and a span
// takes its own. A bad tag is refused where it is written.
func TestPlanTextLang(t *testing.T) {
	t.Parallel()
	if testFonts.Path("NotoSansCJK-Regular.ttc") == "" {
		t.Skip("fonts-noto-cjk is missing")
	}
	draw := func(fields string) *image.NRGBA {
		s, cmd := planStyled(t, `{"type":"text","fontSize":40,`+fields+`}`, nil)
		assert.False(t, s.Layers[0].styled(), "a language alone leaves text plain")
		return filePNG(t, cmd, "text-0.png")
	}
	ja, zh, none := draw(`"text":"骨","lang":"ja"`), draw(`"text":"骨","lang":"zh-Hans"`), draw(`"text":"骨"`)
	assert.NotEqual(t, ja.Pix, zh.Pix, "Japanese and Chinese draw 骨 apart")
	assert.Equal(t, zh.Pix, none.Pix, "Han characters alone are Chinese")
	span := draw(`"lang":"zh-Hans","spans":[{"text":"骨","lang":"ja"}]`)
	assert.Equal(t, ja.Pix, span.Pix, "a span's language is its own")

	for _, bad := range []string{`"japanese"`, `"j"`, `"ja_JP"`, `3`, `"ja-"`} {
		_, err := Compile("provider_a", []byte(`{"width":320,"height":180,"fps":10,"duration":1,"layers":[{"type":"text","text":"a","lang":`+bad+`}]}`), nil, DefaultLimits())
		var ve *ValidationError
		require.ErrorAs(t, err, &ve, bad)
		assert.Equal(t, "composition.layers[0].lang", ve.Field, bad)
	}
}

// TestPlanTextEmptyLine: an empty line (two newlines in a row) is as
// high as a line of the layer's own fontSize and lineHeight, in plain
// text, in a box and among spans of another size, as an empty line of a
// browser's pre-wrapped text is.
func TestPlanTextEmptyLine(t *testing.T) {
	t.Parallel()
	const dejaVuLine = 1.164 // DejaVu Sans's line height, a multiple of the size
	tops := func(fields string) (first, last int) {
		_, cmd := planStyled(t, `{"type":"text",`+fields+`}`, nil)
		img := filePNG(t, cmd, "text-0.png")
		r, g := colourBox(img, red), colourBox(img, green)
		require.Positive(t, r.h, fields)
		require.Positive(t, g.h, fields)
		return r.y, g.y
	}
	for _, tc := range []struct {
		fields string
		apart  float64
	}{
		{`"fontSize":30,"color":"red","spans":[{"text":"H\n"},{"text":"H","color":"lime"}]`, dejaVuLine * 30},
		{`"fontSize":30,"color":"red","spans":[{"text":"H\n\n"},{"text":"H","color":"lime"}]`, 2 * dejaVuLine * 30},
		{`"fontSize":30,"color":"red","spans":[{"text":"H\n"},{"text":"\nH","color":"lime"}]`, 2 * dejaVuLine * 30},
		{`"fontSize":30,"color":"red","width":200,"spans":[{"text":"H\n\n\n"},{"text":"H","color":"lime"}]`, 3 * dejaVuLine * 30},
		// Spans of 15 px: their lines are 15 px lines, the empty one the layer's 60.
		{`"fontSize":60,"color":"red","spans":[{"text":"H\n\n","fontSize":15},{"text":"H","color":"lime","fontSize":15}]`, dejaVuLine * (15 + 60)},
		{`"fontSize":60,"lineHeight":2,"color":"red","spans":[{"text":"H\n\n","fontSize":15},{"text":"H","color":"lime","fontSize":15}]`, 2 * (15 + 60)},
	} {
		first, last := tops(tc.fields)
		assert.InDelta(t, tc.apart, float64(last-first), 1.5, tc.fields)
	}
}
