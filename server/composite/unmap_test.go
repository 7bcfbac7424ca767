package composite

import (
	"image"
	"image/color"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// Unmap reaches exactly the pixels Warp draws, and each point it gives
// goes back, through the mapping, to within a pixel of that pixel's
// centre; a perspective after a warped quad joins its perspective.
func TestUnmapInvertsWarp(t *testing.T) {
	t.Parallel()
	pts := identityPoints(2, 2)
	for i := range pts {
		pts[i].Y += 0.1 * float64(i%7) / 6 // rows bent down to the right
	}
	quad := [4]Point{{20, 10}, {180, 30}, {170, 190}, {30, 160}}
	m := Then(Mesh(2, 2, pts), Perspective(quad))
	half := Then(m, Perspective([4]Point{{0, 0}, {0.5, 0}, {0.5, 0.5}, {0, 0.5}}))
	_, last := half.(then).second.(*homography)
	require.True(t, last, "the scale joins the quad's perspective")

	for _, c := range []struct {
		m    Mapping
		size int
	}{{m, 200}, {half, 100}} {
		white := image.NewNRGBA(image.Rect(0, 0, 64, 64))
		for i := range white.Pix {
			white.Pix[i] = 0xFF
		}
		drawn := Warp(white, c.m, c.size, c.size)
		var mu sync.Mutex
		reached := map[image.Point]bool{}
		worst := 0.0
		Unmap(c.m, image.Rect(0, 0, c.size, c.size), func(x, y int, u, v float64) {
			p := c.m.Map(Point{u, v})
			d := max(abs(p.X-float64(x)-0.5), abs(p.Y-float64(y)-0.5))
			mu.Lock()
			defer mu.Unlock()
			require.False(t, reached[image.Pt(x, y)], "once a pixel")
			reached[image.Pt(x, y)] = true
			worst = max(worst, d)
		})
		for y := 0; y < c.size; y++ {
			for x := 0; x < c.size; x++ {
				a := color.NRGBAModel.Convert(drawn.At(x, y)).(color.NRGBA).A
				require.Equal(t, a > 0, reached[image.Pt(x, y)], "pixel %d,%d (alpha %d)", x, y, a)
			}
		}
		require.Less(t, worst, 1.0, "the points go back to their pixels (the outline's, clamped, within a pixel)")
	}
}

func abs(v float64) float64 { return max(v, -v) }
