package yuva

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/ffmpeg"
)

// glyphsLike is a picture as kino draws text: one colour everywhere,
// alpha from 0 to 255 in soft-edged strokes, and a second colour where
// a stroke of another colour would be.
func glyphsLike(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			p := img.Pix[y*img.Stride+4*x:]
			p[0], p[1], p[2] = 250, 200, 40
			d := math.Abs(math.Sin(float64(x)/5)*float64(h)/3 + float64(h)/2 - float64(y))
			p[3] = uint8(math.Max(0, math.Min(255, (6-d)*60)))
			if x > w/2 && p[3] > 0 {
				p[0], p[1], p[2] = 20, 90, 220
			}
		}
	}
	return img
}

// ffmpegRaw runs ffmpeg on the PNG of img through filters and reads its
// one frame of raw pixFmt.
func ffmpegRaw(t *testing.T, img *image.NRGBA, filters, pixFmt string) []byte {
	t.Helper()
	dir := t.TempDir()
	var b bytes.Buffer
	require.NoError(t, png.Encode(&b, img))
	in, out := filepath.Join(dir, "in.png"), filepath.Join(dir, "out.raw")
	require.NoError(t, os.WriteFile(in, b.Bytes(), 0o600))
	args := []string{"-i", "file:" + in, "-vf", filters, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", pixFmt, "file:" + out}
	require.NoError(t, ffmpeg.Run(context.Background(), args, ffmpeg.RunOptions{Dir: dir}))
	raw, err := os.ReadFile(out)
	require.NoError(t, err)
	return raw
}

// worst is the largest difference between two planes, and how many
// samples differ.
func worst(a, b []uint8) (most, differ int) {
	for i := range a {
		d := int(a[i]) - int(b[i])
		if d < 0 {
			d = -d
		}
		most = max(most, d)
		if d != 0 {
			differ++
		}
	}
	return most, differ
}

func planes(raw []byte, w, h int) (y, u, v, a []uint8) {
	cs := ((w + 1) / 2) * ((h + 1) / 2)
	return raw[:w*h], raw[w*h : w*h+cs], raw[w*h+cs : w*h+2*cs], raw[w*h+2*cs:]
}

// TestAsFFmpegDraws: a picture converted, blurred and scaled here is
// ffmpeg 5.1's within a level or two.
func TestAsFFmpegDraws(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ffmpeg")
	}
	t.Parallel()
	const w, h = 90, 40
	img := glyphsLike(w, h)

	t.Run("convert", func(t *testing.T) {
		want := ffmpegRaw(t, img, "format=yuva420p", "yuva420p")
		got := FromNRGBA(img)
		wy, wu, wv, wa := planes(want, w, h)
		for _, c := range []struct {
			name      string
			got, want []uint8
			most      int
		}{{"Y", got.Y, wy, 1}, {"U", got.U, wu, 12}, {"V", got.V, wv, 12}, {"A", got.A, wa, 1}} {
			// swscale dithers, and filters chroma over more than its
			// block: where two colours meet, its chroma mixes them.
			most, differ := worst(c.got, c.want)
			t.Logf("%s: at most %d apart, %d of %d samples differ", c.name, most, differ, len(c.got))
			assert.LessOrEqual(t, most, c.most, c.name)
			assert.Less(t, differ, len(c.got)/4, c.name)
		}
	})
	t.Run("blur", func(t *testing.T) {
		want := ffmpegRaw(t, img, "format=gbrap,gblur=sigma=2,format=rgba", "rgba")
		got := image.NewNRGBA(img.Rect)
		copy(got.Pix, img.Pix)
		Blur(got, 2)
		most, differ := worst(got.Pix, want)
		t.Logf("blur: at most %d apart, %d of %d samples differ", most, differ, len(got.Pix))
		assert.LessOrEqual(t, most, 1)
	})
	t.Run("over", func(t *testing.T) {
		under := glyphsLike(w, h)
		for i := 0; i < len(under.Pix); i += 4 {
			under.Pix[i+3] = uint8(i / 4 % 256)
		}
		top := glyphsLike(w, h)
		dir := t.TempDir()
		var b bytes.Buffer
		require.NoError(t, png.Encode(&b, top))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "top.png"), b.Bytes(), 0o600))
		want := ffmpegRaw(t, under, fmt.Sprintf("format=gbrap[u];movie=%s,format=rgba[t];[u][t]overlay=x=0:y=0:format=rgb,format=rgba",
			filepath.Join(dir, "top.png")), "rgba")
		Over(under, top)
		most, differ := worst(under.Pix, want)
		t.Logf("over: at most %d apart, %d of %d samples differ", most, differ, len(want))
		assert.LessOrEqual(t, most, 1)
	})
	for _, size := range [][2]int{{37, 17}, {99, 44}, {8, 3}} {
		t.Run(fmt.Sprintf("scale to %dx%d", size[0], size[1]), func(t *testing.T) {
			want := ffmpegRaw(t, img, fmt.Sprintf("format=yuva420p,scale=w=%d:h=%d", size[0], size[1]), "yuva420p")
			got := FromNRGBA(img).Scaled(size[0], size[1])
			wy, _, _, wa := planes(want, size[0], size[1])
			for _, c := range []struct {
				name      string
				got, want []uint8
			}{{"Y", got.Y, wy}, {"A", got.A, wa}} {
				most, differ := worst(c.got, c.want)
				mean := 0.0
				for i := range c.got {
					mean += math.Abs(float64(c.got[i]) - float64(c.want[i]))
				}
				mean /= float64(len(c.got))
				t.Logf("%s: at most %d apart, %d of %d differ, %.2f apart on average", c.name, most, differ, len(c.got), mean)
				assert.Less(t, mean, 3.0, c.name)
			}
		})
	}
}

// TestDraw: a picture drawn with its alpha halved lands where it is
// placed, copied where the frame is empty, cut at the frame's edges.
func TestDraw(t *testing.T) {
	t.Parallel()
	frame := New(8, 6)
	frame.Fill(color.NRGBA{R: 255, G: 255, B: 255})
	src := New(4, 4)
	src.Fill(color.NRGBA{R: 255, A: 255})
	frame.Draw(src, 6, -2, 128)
	ry, ru, rv := YUV(255, 0, 0)
	for y := 0; y < 6; y++ {
		for x := 0; x < 8; x++ {
			in := x >= 6 && y < 2
			if in {
				assert.Equal(t, uint8(128), frame.A[y*8+x], "%d,%d", x, y)
				assert.Equal(t, ry, frame.Y[y*8+x])
			} else {
				assert.Equal(t, uint8(0), frame.A[y*8+x], "%d,%d", x, y)
			}
		}
	}
	assert.Equal(t, ru, frame.U[3])
	assert.Equal(t, rv, frame.V[3])
	var b bytes.Buffer
	n, err := frame.WriteTo(&b)
	require.NoError(t, err)
	assert.Equal(t, Size(8, 6), n)
}
