package engine

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var grey = [3]float64{128, 128, 128}

// TestRenderFitCropFlip renders the cells picture into 32×32 boxes, one
// per way of showing it, and checks the colour at the centre of every
// region each way should produce.
func TestRenderFitCropFlip(t *testing.T) {
	if testing.Short() {
		t.Skip("renders with ffmpeg")
	}
	t.Parallel()
	cell := func(row, col int) [3]float64 { return cellColors[row][col] }
	cases := []struct {
		name  string
		layer map[string]any
		// want is the colour at x, y of the box.
		want func(x, y int) [3]float64
	}{
		{"fill stretches", map[string]any{"fit": "fill"}, func(x, y int) [3]float64 { return cell(y/16, x/8) }},
		{"contain shows all, with bars of the background", map[string]any{"fit": "contain"}, func(x, y int) [3]float64 {
			if y < 8 || y >= 24 {
				return grey
			}
			return cell((y-8)/8, x/8)
		}},
		{"cover fills with the middle", map[string]any{"fit": "cover"}, func(x, y int) [3]float64 { return cell(y/16, 1+x/16) }},
		{"crop shows the chosen part", map[string]any{"fit": "fill", "crop": map[string]any{"left": 0.5, "top": 0.5}},
			func(x, y int) [3]float64 { return cell(1, 2+x/16) }},
		{"flip horizontal mirrors left and right", map[string]any{"fit": "fill", "flip": "horizontal"},
			func(x, y int) [3]float64 { return cell(y/16, 3-x/8) }},
		{"flip vertical mirrors top and bottom", map[string]any{"fit": "fill", "flip": "vertical"},
			func(x, y int) [3]float64 { return cell(1-y/16, x/8) }},
		{"flip both", map[string]any{"fit": "fill", "flip": "both"}, func(x, y int) [3]float64 { return cell(1-y/16, 3-x/8) }},
		{"crop, then flip, then fit", map[string]any{"fit": "cover", "flip": "horizontal", "crop": map[string]any{"right": 0.5}},
			// The left half (red, blue over yellow, cyan) mirrored: blue, red.
			func(x, y int) [3]float64 { return cell(y/16, 1-x/16) }},
	}
	var layers []any
	for i, tc := range cases {
		l := map[string]any{"type": "image", "src": fixtureURL("cells"), "x": 32 * i, "y": 0, "width": 32, "height": 32}
		for k, v := range tc.layer {
			l[k] = v
		}
		layers = append(layers, l)
	}
	w := 32 * len(cases)
	r := renderFixtures(t, "provider_a", map[string]any{"width": w, "height": 32, "fps": 5, "duration": 0.4, "background": "#808080", "layers": layers})
	checkOutput(t, r, "mp4")
	frames := decodeRGB(t, r.out, w, 32)
	require.Len(t, frames, 2)
	for i, tc := range cases {
		// The centre of every 8×8 region of the box: every cell of every
		// case is at least that large, on a grid of 8.
		for y := 4; y < 32; y += 8 {
			for x := 4; x < 32; x += 8 {
				want := tc.want(x, y)
				got := meanRGB(frames[1], w, 32*i+x-1, y-1, 2)
				for c := range got {
					if !assert.InDelta(t, want[c], got[c], 40, "%s: at %d,%d of the box, got %.0f, want %.0f", tc.name, x, y, got, want) {
						break
					}
				}
			}
		}
	}
}

// TestRenderContainBlur checks that the bars of contain-blur hold the
// picture blurred: not the background, and without the edges the same
// picture has when it covers the box sharp, beside it.
func TestRenderContainBlur(t *testing.T) {
	if testing.Short() {
		t.Skip("renders with ffmpeg")
	}
	t.Parallel()
	const side = 160
	cells := map[string]any{"type": "image", "src": fixtureURL("cells")}
	r := renderFixtures(t, "unified", map[string]any{
		"output": map[string]any{"width": 2 * side, "height": side, "fps": 5, "duration": 0.2, "background": "#808080"},
		"tracks": []any{map[string]any{"clips": []any{
			map[string]any{"asset": cells, "fit": "contain-blur", "size": map[string]any{"width": side}, "position": map[string]any{"x": 0, "y": 0}},
			map[string]any{"asset": cells, "fit": "cover", "size": map[string]any{"width": side}, "position": map[string]any{"x": side, "y": 0}},
		}}},
	})
	checkOutput(t, r, "mp4")
	frame := decodeRGB(t, r.out, 2*side, side)[0]
	// Smoothness is measured on luma, which 4:2:0 keeps at every pixel:
	// the steepest step between neighbours along the rows y0 to y1 of
	// the box at x0.
	luma := decodeGray(t, r.out, 2*side, side)[0]
	steepest := func(x0, y0, y1 int) float64 {
		worst := 0.0
		for y := y0; y < y1; y++ {
			for x := x0 + 1; x < x0+side; x++ {
				worst = math.Max(worst, math.Abs(float64(luma[y*2*side+x])-float64(luma[y*2*side+x-1])))
			}
		}
		return worst
	}
	// The picture contained is 160×80, between y 40 and 120; the bars
	// above and below show the picture covering the box, as the box
	// beside does, sharp.
	for _, bar := range [][2]int{{0, 36}, {124, side}} {
		sharp, blurred := steepest(side, bar[0], bar[1]), steepest(0, bar[0], bar[1])
		require.Greater(t, sharp, 60.0, "the covering picture has edges from y %d to %d", bar[0], bar[1])
		assert.Less(t, blurred, sharp/3, "the bar from y %d to %d is smooth", bar[0], bar[1])
	}
	// How wide the step from blue to lime is, at y 10 of each box: from
	// a tenth of the way to nine tenths. A Gaussian blur of standard
	// deviation s (here 160/30, about 5) makes it 2.56 s wide.
	width := func(x0 int) int {
		lo, hi := float64(luma[10*2*side+x0+40]), float64(luma[10*2*side+x0+120])
		n := 0
		for x := x0 + 40; x < x0+120; x++ {
			if v := (float64(luma[10*2*side+x]) - lo) / (hi - lo); v > 0.1 && v < 0.9 {
				n++
			}
		}
		return n
	}
	assert.LessOrEqual(t, width(side), 3, "the covering picture's edge is sharp")
	assert.InDelta(t, 2.56*5, width(0), 4, "the background's edge is blurred")
	// Blue and lime above, cyan and magenta below, and no grey.
	for _, p := range []struct {
		x, y int
		want [3]float64
	}{{20, 10, cellColors[0][1]}, {140, 10, cellColors[0][2]}, {20, 150, cellColors[1][1]}, {140, 150, cellColors[1][2]}} {
		got := meanRGB(frame, 2*side, p.x, p.y, 4)
		for c := range got {
			assert.InDelta(t, p.want[c], got[c], 60, "bar at %d,%d: got %.0f, want about %.0f", p.x, p.y, got, p.want)
		}
	}
}

// TestRenderFilters renders the swatch (#C86432) under each filter and
// checks its colour against the CSS filter function of the same name,
// worked out here by hand.
func TestRenderFilters(t *testing.T) {
	if testing.Short() {
		t.Skip("renders with ffmpeg")
	}
	t.Parallel()
	swatch := [3]float64{200, 100, 50}
	luma := 0.2126*200 + 0.7152*100 + 0.0722*50
	cases := []struct {
		filters map[string]any
		want    [3]float64
	}{
		{map[string]any{}, swatch},
		{map[string]any{"brightness": 0.5}, [3]float64{100, 50, 25}},
		{map[string]any{"contrast": 0.5}, [3]float64{163.75, 113.75, 88.75}},
		{map[string]any{"saturation": 0}, [3]float64{0.213*200 + 0.715*100 + 0.072*50, 0.213*200 + 0.715*100 + 0.072*50, 0.213*200 + 0.715*100 + 0.072*50}},
		{map[string]any{"saturation": 1.5}, [3]float64{
			(0.213+0.787*1.5)*200 + (0.715-0.715*1.5)*100 + (0.072-0.072*1.5)*50,
			(0.213-0.213*1.5)*200 + (0.715+0.285*1.5)*100 + (0.072-0.072*1.5)*50,
			(0.213-0.213*1.5)*200 + (0.715-0.715*1.5)*100 + (0.072+0.928*1.5)*50}},
		{map[string]any{"greyscale": 1}, [3]float64{luma, luma, luma}},
		{map[string]any{"greyscale": 0.5}, [3]float64{(200 + luma) / 2, (100 + luma) / 2, (50 + luma) / 2}},
		{map[string]any{"sepia": 1}, [3]float64{0.393*200 + 0.769*100 + 0.189*50, 0.349*200 + 0.686*100 + 0.168*50, 0.272*200 + 0.534*100 + 0.131*50}},
		{map[string]any{"invert": 1}, [3]float64{55, 155, 205}},
		// Filters apply in a fixed order: brightness, then invert.
		{map[string]any{"invert": 1, "brightness": 0.5}, [3]float64{155, 205, 230}},
		// Blur on one colour changes nothing.
		{map[string]any{"blur": 3}, swatch},
	}
	var layers []any
	for i, tc := range cases {
		layers = append(layers, map[string]any{"type": "image", "src": fixtureURL("swatch"), "x": 16 * i, "y": 0, "filters": tc.filters})
	}
	w := 16 * len(cases)
	r := renderFixtures(t, "provider_a", map[string]any{"width": w, "height": 16, "fps": 5, "duration": 0.2, "layers": layers})
	frame := decodeRGB(t, r.out, w, 16)[0]
	for i, tc := range cases {
		got := meanRGB(frame, w, 16*i+4, 4, 8)
		for c := range got {
			if !assert.InDelta(t, tc.want[c], got[c], 8, "filters %v: got %.0f, want %.0f", tc.filters, got, tc.want) {
				break
			}
		}
	}
}

// TestRenderGreyscale checks that greyscale leaves every pixel of a
// colourful picture with equal red, green and blue, where the same
// picture unfiltered beside it is far from grey.
func TestRenderGreyscale(t *testing.T) {
	if testing.Short() {
		t.Skip("renders with ffmpeg")
	}
	t.Parallel()
	r := renderFixtures(t, "unified", map[string]any{
		"output": map[string]any{"width": 128, "height": 48, "fps": 5, "duration": 0.2},
		"tracks": []any{map[string]any{"clips": []any{
			map[string]any{"asset": map[string]any{"type": "image", "src": fixtureURL("photo")}, "position": map[string]any{"x": 0, "y": 0}},
			map[string]any{"asset": map[string]any{"type": "image", "src": fixtureURL("photo")}, "position": map[string]any{"x": 64, "y": 0},
				"filters": map[string]any{"greyscale": 1}},
		}}},
	})
	frame := decodeRGB(t, r.out, 128, 48)[0]
	// The largest and the mean difference between a pixel's highest and
	// lowest channel.
	spread := func(x0 int) (worst, mean float64) {
		for y := 0; y < 48; y++ {
			for x := x0; x < x0+64; x++ {
				p := meanRGB(frame, 128, x, y, 1)
				d := math.Max(p[0], math.Max(p[1], p[2])) - math.Min(p[0], math.Min(p[1], p[2]))
				worst = math.Max(worst, d)
				mean += d / (48 * 64)
			}
		}
		return worst, mean
	}
	worst, mean := spread(0)
	assert.Greater(t, worst, 150.0, "the picture is colourful")
	assert.Greater(t, mean, 50.0, "the picture is colourful")
	// The encoder's chroma is not exactly neutral: a pixel is at most a
	// few levels from grey.
	worst, mean = spread(64)
	assert.LessOrEqual(t, worst, 10.0, "greyscale has equal R, G and B")
	assert.Less(t, mean, 2.0, "greyscale has equal R, G and B")
}

// TestRenderSpeedAndLoop reads source time off the ramp video (luma
// rising 100 a second): at speed 2 a frame shows twice the source time of
// the same frame at speed 1; a loop shows the start again after the
// file's 2 s, where a layer without one shows nothing.
func TestRenderSpeedAndLoop(t *testing.T) {
	if testing.Short() {
		t.Skip("renders with ffmpeg")
	}
	t.Parallel()
	ramp := fixtureURL("ramp")
	r := renderFixtures(t, "provider_a", map[string]any{"width": 128, "height": 32, "fps": 10, "duration": 3.5, "layers": []any{
		map[string]any{"type": "video", "src": ramp, "x": 0, "y": 0, "duration": 1},
		map[string]any{"type": "video", "src": ramp, "x": 32, "y": 0, "duration": 1, "speed": 2},
		map[string]any{"type": "video", "src": ramp, "x": 64, "y": 0, "loop": true},
		map[string]any{"type": "video", "src": ramp, "x": 96, "y": 0},
	}})
	checkOutput(t, r, "mp4")
	frames := decodeGray(t, r.out, 128, 32)
	require.Len(t, frames, 35)
	at := func(n, x int) float64 { return meanLuma(frames[n], 128, x+8, 8, 16) }
	require.Greater(t, at(9, 0)-at(0, 0), 80.0, "the ramp rises")
	for n := 0; n < 10; n++ {
		// Gray is full range: source luma 16 + 100 t reads as 116 t.
		assert.InDelta(t, 116*float64(n)/10, at(n, 0), 5, "speed 1, frame %d", n)
		assert.InDelta(t, 116*float64(2*n)/10, at(n, 32), 5, "speed 2, frame %d shows source time %.1f s", n, float64(2*n)/10)
	}
	for n := 20; n < 35; n++ {
		assert.InDelta(t, at(n-20, 64), at(n, 64), 5, "the loop at frame %d shows frame %d again", n, n-20)
		assert.Less(t, at(n, 96), 3.0, "without loop, frame %d shows nothing", n)
	}
}

// TestPlanPicture pins the chain of each way of showing a picture: what
// is cut, mirrored, sized and coloured, in that order, before the layer
// is converted for overlay.
func TestPlanPicture(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, fields string
		chain        string
	}{
		{"nothing asked: as today", `"width":40`,
			`[0:v]setpts=PTS-STARTPTS,fps=10,scale=w=40:h=min(8192\,max(1\,trunc(ow*ih/iw+0.5))),format=yuva420p,setpts=N+0[l0]`},
		{"fill", `"fit":"fill","width":40,"height":30`,
			"[0:v]setpts=PTS-STARTPTS,fps=10,scale=w=40:h=30,format=yuva420p,setpts=N+0[l0]"},
		{"a fit without a size fits the frame", `"fit":"fill"`,
			"[0:v]setpts=PTS-STARTPTS,fps=10,scale=w=160:h=90,format=yuva420p,setpts=N+0[l0]"},
		{"one side given, the other the frame's", `"fit":"cover","width":40`,
			`[0:v]setpts=PTS-STARTPTS,fps=10,crop=w=max(1\,min(iw\,ih*40/90)):h=max(1\,min(ih\,iw*90/40)):exact=1,scale=w=40:h=90,format=yuva420p,setpts=N+0[l0]`},
		{"contain pads with transparency, in 4:4:4", `"fit":"contain","width":41,"height":41`,
			`[0:v]setpts=PTS-STARTPTS,fps=10,scale=w=max(1\,round(iw*min(41/iw\,41/ih))):h=max(1\,round(ih*min(41/iw\,41/ih))),` +
				`format=yuva444p,pad=w=41:h=41:x=(ow-iw)/2:y=(oh-ih)/2:color=0x00000000,format=yuva420p,setpts=N+0[l0]`},
		{"contain-blur splits one frame into the background and the picture", `"fit":"contain-blur","width":120,"height":60`,
			`[0:v]setpts=PTS-STARTPTS,fps=10,split[l0bi][l0fi];` +
				// Blurred at a quarter of the box, then scaled up.
				`[l0bi]crop=w=max(1\,min(iw\,ih*30/15)):h=max(1\,min(ih\,iw*15/30)):exact=1,scale=w=30:h=15,gblur=sigma=1:enable='gte(w,4)*gte(h,4)',scale=w=120:h=60[l0bg];` +
				`[l0fi]scale=w=max(1\,round(iw*min(120/iw\,60/ih))):h=max(1\,round(ih*min(120/iw\,60/ih)))[l0fg];` +
				`[l0bg][l0fg]overlay=x=(W-w)/2:y=(H-h)/2,format=yuva420p,setpts=N+0[l0]`},
		{"crop, flip, fit, filters in that order", `"fit":"fill","width":40,"height":30,"flip":"both","crop":{"left":0.3,"right":0.3,"bottom":0.1},"filters":{"invert":1,"blur":2}`,
			`[0:v]setpts=PTS-STARTPTS,fps=10,crop=w=max(1\,iw*0.4):h=max(1\,ih*0.9):x=iw*0.3:y=ih*0:exact=1,hflip,vflip,scale=w=40:h=30,` +
				`gblur=sigma=2:enable='gte(w,4)*gte(h,4)',lutrgb=r=val+1*(maxval-2*val):g=val+1*(maxval-2*val):b=val+1*(maxval-2*val),format=yuva420p,setpts=N+0[l0]`},
		{"filters that change nothing are left out", `"filters":{"brightness":1,"contrast":1,"saturation":1,"greyscale":0,"sepia":0,"invert":0,"blur":0}`,
			"[0:v]setpts=PTS-STARTPTS,fps=10,format=yuva420p,setpts=N+0[l0]"},
		{"colour matrices", `"filters":{"brightness":0.5,"greyscale":1}`,
			"[0:v]setpts=PTS-STARTPTS,fps=10,colorchannelmixer=rr=0.5:rg=0:rb=0:gr=0:gg=0.5:gb=0:br=0:bg=0:bb=0.5," +
				"colorchannelmixer=rr=0.2126:rg=0.7152:rb=0.0722:gr=0.2126:gg=0.7152:gb=0.0722:br=0.2126:bg=0.7152:bb=0.0722,format=yuva420p,setpts=N+0[l0]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, cmd, err := planOf(t, `{"width":160,"height":90,"fps":10,"duration":1,"layers":[{"type":"video","src":"clip",`+tc.fields+`}]}`,
				map[string]Media{"clip": clipMedia})
			require.NoError(t, err)
			assert.Contains(t, strings.Split(filterGraph(cmd), ";[0:a]")[0], tc.chain)
			_, err = checkGraph(filterGraph(cmd), "/w", "/f/font.ttf")
			assert.NoError(t, err)
		})
	}

	t.Run("a picture is fitted and coloured once, then repeated", func(t *testing.T) {
		t.Parallel()
		_, cmd, err := planOf(t, `{"width":160,"height":90,"fps":10,"duration":1,"layers":[{"type":"image","src":"pic","fit":"contain-blur","filters":{"sepia":1},"opacity":0.5}]}`,
			map[string]Media{"pic": pictureMedia})
		require.NoError(t, err)
		assert.Contains(t, filterGraph(cmd), "[0:v]split[l0bi][l0fi];")
		assert.Contains(t, filterGraph(cmd), "[l0bg][l0fg]overlay=x=(W-w)/2:y=(H-h)/2,colorchannelmixer=rr=0.393:rg=0.769:rb=0.189:gr=0.349:gg=0.686:gb=0.168:br=0.272:bg=0.534:bb=0.131,"+
			"format=yuva420p,lut=a=val*0.5,loop=loop=9:size=1:start=0,settb=expr=1/10,setpts=N+0[l0]")
	})
}

func TestCropOf(t *testing.T) {
	t.Parallel()
	m := Media{Width: 64, Height: 48}
	assert.Equal(t, m, Crop{}.of(m))
	assert.Equal(t, Media{Width: 25, Height: 1}, Crop{Left: 0.3, Right: 0.3, Top: 0.99}.of(m), "as crop truncates, at least a pixel")
	assert.Equal(t, Media{}, Crop{Left: 0.5}.of(Media{}), "an unknown size stays unknown")
}

// TestRenderPictureEdges renders pictures at the edges of the rules:
// each compiles, so each must render exactly.
func TestRenderPictureEdges(t *testing.T) {
	if testing.Short() {
		t.Skip("renders with ffmpeg")
	}
	t.Parallel()
	thin, cells, ramp := fixtureURL("thin"), fixtureURL("cells"), fixtureURL("ramp")
	comp := func(layers ...any) map[string]any {
		return map[string]any{"width": 32, "height": 32, "fps": 10, "duration": 1, "layers": layers}
	}
	cases := map[string]map[string]any{
		// 400×2 contained in 16×16 is 16×0.08; covering, 1600×16.
		"every fit of a thin picture": comp(
			map[string]any{"type": "image", "src": thin, "fit": "contain", "width": 16, "height": 16, "x": 0, "y": 0},
			map[string]any{"type": "image", "src": thin, "fit": "cover", "width": 16, "height": 16, "x": 16, "y": 0},
			map[string]any{"type": "image", "src": thin, "fit": "contain-blur", "width": 16, "height": 16, "x": 0, "y": 16},
			map[string]any{"type": "image", "src": thin, "fit": "fill", "width": 1, "height": 1, "x": 16, "y": 16}),
		"odd boxes": comp(
			map[string]any{"type": "video", "src": ramp, "fit": "contain", "width": 31, "height": 7},
			map[string]any{"type": "image", "src": cells, "fit": "contain-blur", "width": 5, "height": 3},
			map[string]any{"type": "image", "src": cells, "fit": "cover", "width": 3, "height": 5}),
		"crops leaving less than a pixel": comp(
			map[string]any{"type": "image", "src": thin, "crop": map[string]any{"top": 0.999999, "left": 0.5, "right": 0.499999}},
			map[string]any{"type": "video", "src": ramp, "crop": map[string]any{"bottom": 0.99, "right": 0.99}, "fit": "cover"}),
		"every filter at its limits": comp(
			map[string]any{"type": "image", "src": cells, "filters": map[string]any{"blur": 100, "brightness": 2, "contrast": 2, "saturation": 2, "greyscale": 1, "sepia": 1, "invert": 1}},
			map[string]any{"type": "video", "src": ramp, "filters": map[string]any{"brightness": 0, "contrast": 0, "saturation": 0}}),
		// gblur corrupts ffmpeg's heap on frames one pixel wide.
		"blur of layers a pixel wide": comp(
			map[string]any{"type": "image", "src": cells, "width": 1, "height": 1, "filters": map[string]any{"blur": 5}},
			map[string]any{"type": "video", "src": ramp, "width": 1, "height": 3, "filters": map[string]any{"blur": 100}},
			map[string]any{"type": "image", "src": thin, "width": 1, "fit": "contain-blur"}),
		"slowest and fastest, looped": comp(
			map[string]any{"type": "video", "src": ramp, "speed": 0.25, "loop": true, "flip": "both", "volume": 0},
			map[string]any{"type": "video", "src": ramp, "speed": 4, "loop": true, "fit": "contain-blur"}),
		"fits, crops and filters under motion": comp(
			map[string]any{"type": "image", "src": cells, "fit": "contain-blur", "width": 24, "height": 16, "zoom": 2, "rotation": 30, "filters": map[string]any{"sepia": 1}},
			map[string]any{"type": "video", "src": ramp, "crop": map[string]any{"left": 0.5}, "scale": 0.5, "x": []any{map[string]any{"time": 0, "value": 0}, map[string]any{"time": 1, "value": 20}}},
			map[string]any{"type": "image", "src": cells, "fit": "cover", "kenBurns": "panLeft", "flip": "vertical", "opacity": []any{map[string]any{"time": 0, "value": 0}, map[string]any{"time": 1, "value": 1}}},
			map[string]any{"type": "video", "src": ramp, "fit": "contain", "speed": 2, "loop": true, "enter": map[string]any{"type": "slide", "side": "left"}}),
		"hidden under a full-frame colour": comp(
			map[string]any{"type": "video", "src": ramp, "fit": "contain-blur", "speed": 2, "loop": true},
			map[string]any{"type": "color", "color": "navy"}),
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			checkOutput(t, renderFixtures(t, "provider_a", c), "mp4")
		})
	}
}
