package engine

import (
	"bytes"
	"image"
	"image/png"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPlanShapes pins the graphs of shapes: a plain rectangle is a colour
// source; other shapes are pictures of the part of the frame they cover,
// from an even corner, repeated and overlaid like images.
func TestPlanShapes(t *testing.T) {
	t.Parallel()
	_, cmd := planStyled(t, `{"type":"rectangle","color":"red","x":10,"y":20,"width":30,"height":40},
		{"type":"rectangle","color":"red","x":11,"y":21,"width":30,"height":40,"borderRadius":5,"opacity":0.5,"fadeOut":0.5},
		{"type":"ellipse","x":-21,"y":150,"width":60,"height":50,"gradient":{"type":"radial","stops":[{"offset":0,"color":"white"},{"offset":1,"color":"black"}]},"start":0.5},
		{"type":"rectangle","color":"red","x":11,"y":20,"width":30,"height":40}`, nil)
	graph := filterGraph(cmd)
	for _, part := range []string{
		"color=c=0xFF0000FF:s=30x40:r=10:d=1.1,format=yuva420p,setpts=N+0[l0]",
		"[base][l0]overlay=x=10:y=20:",
		"[0:v]format=yuva420p,lut=a=val*0.5,loop=loop=9:size=1:start=0,settb=expr=1/10,setpts=N+0,fade=t=out:st=0.5:d=0.5:alpha=1[l1]",
		"[v0][l1]overlay=x=10:y=20:eof_action=pass:enable='between(t,-0.05,0.95)'[v1]",
		"[1:v]format=yuva420p,loop=loop=4:size=1:start=0,settb=expr=1/10,setpts=N+5[l2]",
		"[v1][l2]overlay=x=0:y=150:eof_action=pass:enable='between(t,0.45,0.95)'[v2]",
	} {
		assert.Contains(t, graph, part)
	}
	assert.NotContains(t, cmd.Files, "shape-0.png", "a plain rectangle needs no picture")
	assert.Contains(t, cmd.Files, "shape-3.png", "unless a colour source would land a pixel off")
	assert.Contains(t, graph, "[v2][l3]overlay=x=10:y=20:")
	args := strings.Join(cmd.Args, " ")
	assert.Contains(t, args, "-f png_pipe -max_pixels 50000000 -threads 1 -i file:/w/shape-1.png")
	assert.Contains(t, args, "-i file:/w/shape-2.png")
	_, err := checkGraph(graph, "/w", testFont)
	require.NoError(t, err)

	// The rounded rectangle at 11, 21 in a picture from 10, 20: one
	// transparent row and column, then the shape, its corners cut.
	rounded := decodePNG(t, cmd.Files["shape-1.png"])
	assert.Equal(t, image.Rect(0, 0, 32, 42), rounded.Bounds())
	assert.Zero(t, alpha(rounded, 0, 10), "the column left of the shape")
	assert.Zero(t, alpha(rounded, 1, 1), "the very corner")
	assert.Equal(t, uint32(0xFFFF), alpha(rounded, 1, 10), "the left edge")
	assert.Equal(t, uint32(0xFFFF), alpha(rounded, 15, 1), "the top edge")
	assert.Equal(t, uint32(0xFFFF), alpha(rounded, 28, 38), "inside the bottom right corner's circle")
	assert.Zero(t, alpha(rounded, 30, 40), "outside it")

	// The ellipse, 21 px off the left edge and 20 off the bottom: its
	// visible part, from x=0 to 39, y=150 to 179.
	ellipse := decodePNG(t, cmd.Files["shape-2.png"])
	assert.Equal(t, image.Rect(0, 0, 40, 30), ellipse.Bounds())
	r, _, _, _ := ellipse.At(9, 25).RGBA()
	assert.Greater(t, r, uint32(0xF000), "white at the centre (30-21, 25)")
	assert.Zero(t, alpha(ellipse, 0, 0), "outside, at the ellipse's top left")
}

func TestPlanShapesOffScreen(t *testing.T) {
	t.Parallel()
	_, cmd := planStyled(t, `{"type":"ellipse","color":"red","x":320,"y":0,"width":10,"height":10},
		{"type":"rectangle","color":"red","borderRadius":3,"x":0,"y":-10,"width":10,"height":10},
		{"type":"ellipse","color":"red","start":0.31,"duration":0.05},
		{"type":"color","color":"blue"},
		{"type":"ellipse","color":"red","width":10,"height":10}`, nil)
	graph := filterGraph(cmd)
	assert.Equal(t, 1, strings.Count(graph, "overlay="), "only the ellipse over the full-frame colour: %s", graph)
	assert.Equal(t, []string{"shape-4.png"}, fileNames(cmd.Files))
}

// fileNames are the names of the files a command writes.
func fileNames(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func decodePNG(t *testing.T, b []byte) image.Image {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	require.NoError(t, err)
	return img
}

func alpha(img image.Image, x, y int) uint32 {
	_, _, _, a := img.At(x, y).RGBA()
	return a
}

// TestPlanPaintedPixels: kino paints in its own process, so no picture it
// paints has more pixels than the frame (about: sides round), however
// large the layer: shapes and text boxes that hold still are cut to the
// frame, and those that move are painted at the frame's pixels and scaled
// up by ffmpeg.
func TestPlanPaintedPixels(t *testing.T) {
	t.Parallel()
	_, cmd := planStyled(t, `{"type":"ellipse","color":"red","width":640,"height":360,"x":-100,"y":-100},
		{"type":"rectangle","color":"red","borderRadius":9,"width":640,"height":360,"scale":10},
		{"type":"rectangle","color":"red","strokeWidth":2,"width":640,"height":2,"rotation":[{"time":0,"value":0},{"time":1,"value":90}]},
		{"type":"text","text":"big","fontSize":200,"width":640,"height":360,"backgroundColor":"blue","borderRadius":9,"scale":[{"time":0,"value":1},{"time":1,"value":5}]},
		{"type":"text","text":"big","fontSize":200,"width":640,"height":360,"backgroundColor":"blue","x":-100}`, nil)
	n := 0
	for name, data := range cmd.Files {
		if !strings.HasSuffix(name, ".png") {
			continue
		}
		n++
		cfg, err := png.DecodeConfig(bytes.NewReader(data))
		require.NoError(t, err)
		assert.LessOrEqual(t, cfg.Width*cfg.Height, 321*181, "%s is %d × %d", name, cfg.Width, cfg.Height)
	}
	assert.Equal(t, 5, n, "a picture a layer")
}
