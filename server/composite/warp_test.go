package composite

import (
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// checkerboard is w × h pixels of squares of side n, red and blue, red
// at the top-left.
func checkerboard(w, h, n int, a, b color.NRGBA) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := a
			if (x/n+y/n)%2 == 1 {
				c = b
			}
			img.SetNRGBA(x, y, c)
		}
	}
	return img
}

func TestPerspectiveMapsCornersAndLines(t *testing.T) {
	t.Parallel()
	quad := [4]Point{{100.25, 50.5}, {900.75, 120}, {800, 700.5}, {150, 600}}
	m := Perspective(quad)
	for i, uv := range []Point{{0, 0}, {1, 0}, {1, 1}, {0, 1}} {
		p := m.Map(uv)
		assert.InDelta(t, quad[i].X, p.X, 1e-9)
		assert.InDelta(t, quad[i].Y, p.Y, 1e-9)
	}
	// A homography keeps lines: the centre goes to where the diagonals
	// cross, not to the average of the corners.
	c := m.Map(Point{0.5, 0.5})
	x := intersect(quad[0], quad[2], quad[1], quad[3])
	assert.InDelta(t, x.X, c.X, 1e-9)
	assert.InDelta(t, x.Y, c.Y, 1e-9)
	// And (u, 0.25) for any u lies on the line joining the images of
	// (0, 0.25) and (1, 0.25).
	a, b := m.Map(Point{0, 0.25}), m.Map(Point{1, 0.25})
	p := m.Map(Point{0.3, 0.25})
	cross := (b.X-a.X)*(p.Y-a.Y) - (b.Y-a.Y)*(p.X-a.X)
	assert.InDelta(t, 0, cross, 1e-6)
}

// intersect is where line a1-a2 meets line b1-b2.
func intersect(a1, a2, b1, b2 Point) Point {
	d := (a1.X-a2.X)*(b1.Y-b2.Y) - (a1.Y-a2.Y)*(b1.X-b2.X)
	s := a1.X*a2.Y - a1.Y*a2.X
	r := b1.X*b2.Y - b1.Y*b2.X
	return Point{(s*(b1.X-b2.X) - (a1.X-a2.X)*r) / d, (s*(b1.Y-b2.Y) - (a1.Y-a2.Y)*r) / d}
}

func TestWarpPlacesTheCheckerboard(t *testing.T) {
	t.Parallel()
	src := checkerboard(80, 80, 10, red, blue)

	// An axis-aligned quad with fractional edges: the edge pixels are
	// covered by the fraction of them inside.
	out := Warp(src, Perspective([4]Point{{10.25, 20.5}, {90.75, 20.5}, {90.75, 100}, {10.25, 100}}), 120, 120)
	assert.InDelta(t, 0.75*255, float64(out.NRGBAAt(10, 50).A), 2, "left edge at 10.25")
	assert.InDelta(t, 0.75*255, float64(out.NRGBAAt(90, 50).A), 2, "right edge at 90.75")
	assert.InDelta(t, 0.5*255, float64(out.NRGBAAt(50, 20).A), 2, "top edge at 20.5")
	assert.InDelta(t, 0.75*0.5*255, float64(out.NRGBAAt(10, 20).A), 2, "the corner pixel")
	assert.Equal(t, uint8(255), out.NRGBAAt(50, 99).A, "bottom edge on a pixel border")
	assert.Zero(t, out.NRGBAAt(50, 100).A)
	assert.Zero(t, out.NRGBAAt(9, 50).A)
	assert.Equal(t, red, out.NRGBAAt(12, 23), "top-left square is red")
	assert.Equal(t, red, out.NRGBAAt(88, 97), "bottom-right square is red (8 by 8 squares)")

	// A true perspective: the centre of each square lands where the
	// homography says, in that square's colour.
	quad := [4]Point{{30.3, 10.7}, {180.2, 40.1}, {170.6, 160.4}, {20.9, 190.8}}
	m := Perspective(quad)
	out = Warp(src, m, 200, 200)
	for sy := 0; sy < 8; sy++ {
		for sx := 0; sx < 8; sx++ {
			p := m.Map(Point{(float64(sx) + 0.5) / 8, (float64(sy) + 0.5) / 8})
			want := red
			if (sx+sy)%2 == 1 {
				want = blue
			}
			assert.Equal(t, want, out.NRGBAAt(int(p.X), int(p.Y)), "square %d,%d at %.1f,%.1f", sx, sy, p.X, p.Y)
		}
	}
	// Outside the quad: transparent.
	assert.Zero(t, out.NRGBAAt(5, 5).A)
	assert.Zero(t, out.NRGBAAt(195, 195).A)
	// Corners land within the pixel holding them, partly covered.
	for _, c := range quad {
		a := out.NRGBAAt(int(c.X), int(c.Y)).A
		assert.True(t, a > 0 && a < 255, "corner %.1f,%.1f alpha %d", c.X, c.Y, a)
	}
}

// identityPoints is the identity mesh of rows × cols patches.
func identityPoints(rows, cols int) []Point {
	var pts []Point
	for i := 0; i <= 3*rows; i++ {
		for j := 0; j <= 3*cols; j++ {
			pts = append(pts, Point{float64(j) / float64(3*cols), float64(i) / float64(3*rows)})
		}
	}
	return pts
}

func maxDiff(t *testing.T, a, b *image.NRGBA) int {
	t.Helper()
	require.Equal(t, a.Rect, b.Rect)
	d := 0
	for i := range a.Pix {
		if e := int(math.Abs(float64(a.Pix[i]) - float64(b.Pix[i]))); e > d {
			d = e
			t.Logf("diff %d at %d,%d: %v %v", e, a.Rect.Min.X+i/4%a.Rect.Dx(), a.Rect.Min.Y+i/4/a.Rect.Dx(), a.Pix[i/4*4:i/4*4+4], b.Pix[i/4*4:i/4*4+4])
		}
	}
	return d
}

func TestIdentityMeshIsThePlainQuad(t *testing.T) {
	t.Parallel()
	src := checkerboard(64, 64, 8, red, blue)
	quad := [4]Point{{20, 10}, {150, 30}, {140, 140}, {10, 120}}
	plain := Warp(src, Perspective(quad), 160, 160)
	for _, g := range [][2]int{{1, 1}, {2, 3}} {
		meshed := Warp(src, Then(Mesh(g[0], g[1], identityPoints(g[0], g[1])), Perspective(quad)), 160, 160)
		assert.LessOrEqual(t, maxDiff(t, plain, meshed), 2, "%d×%d identity mesh", g[0], g[1])
	}
	// Alone (no perspective), the identity mesh on the unit square is a
	// 1-pixel picture's worth of nothing: scale it up through Then with
	// an affine quad instead, and through the generic path.
	generic := Warp(src, Then(Mesh(1, 1, identityPoints(1, 1)), Then(Perspective(quad), identity{})), 160, 160)
	assert.LessOrEqual(t, maxDiff(t, plain, generic), 8, "tessellated perspective")
}

// identity is a Mapping Warp knows nothing about, to take its general path.
type identity struct{}

func (identity) Map(p Point) Point { return p }

func TestBentMeshMovesTheMiddle(t *testing.T) {
	t.Parallel()
	pts := identityPoints(1, 1)
	// Push the four inner control points right by 0.1: in the middle
	// the surface moves by Σ B₁,₂(½)² · 0.1 = 4·(3/8)²·0.1 = 0.05625.
	for _, i := range []int{5, 6, 9, 10} {
		pts[i].X += 0.1
	}
	m := Mesh(1, 1, pts)
	c := m.Map(Point{0.5, 0.5})
	assert.InDelta(t, 0.55625, c.X, 1e-12)
	assert.InDelta(t, 0.5, c.Y, 1e-12)
	edge := m.Map(Point{0.5, 0})
	assert.InDelta(t, 0.5, edge.X, 1e-12, "the outline's control points did not move")

	// Drawn: left half red, right half blue, on a 400-pixel square; in
	// the middle row the colours meet at 0.55625·400 = 222.5.
	src := image.NewNRGBA(image.Rect(0, 0, 100, 100))
	for y := 0; y < 100; y++ {
		for x := 0; x < 100; x++ {
			if x < 50 {
				src.SetNRGBA(x, y, red)
			} else {
				src.SetNRGBA(x, y, blue)
			}
		}
	}
	out := Warp(src, Then(m, Perspective([4]Point{{0, 0}, {400, 0}, {400, 400}, {0, 400}})), 400, 400)
	meet := -1
	for x := 0; x < 400; x++ {
		if out.NRGBAAt(x, 200).B > out.NRGBAAt(x, 200).R {
			meet = x
			break
		}
	}
	assert.InDelta(t, 222.5, meet, 1.5)
	top := -1
	for x := 0; x < 400; x++ {
		if out.NRGBAAt(x, 0).B > out.NRGBAAt(x, 0).R {
			top = x
			break
		}
	}
	assert.InDelta(t, 200, top, 1.5, "on the top edge they still meet in the middle")
}

func TestShrinkingFiltersInsteadOfAliasing(t *testing.T) {
	t.Parallel()
	black := color.NRGBA{0, 0, 0, 255}
	// One-pixel squares shrunk four times: every pixel should be the
	// average, mid grey; point sampling would give black or white.
	src := checkerboard(800, 800, 1, white, black)
	out := Warp(src, Perspective([4]Point{{0, 0}, {200, 0}, {200, 200}, {0, 200}}), 200, 200)
	var worst float64
	for y := 2; y < 198; y++ {
		for x := 2; x < 198; x++ {
			worst = math.Max(worst, math.Abs(float64(out.NRGBAAt(x, y).R)-127.5))
		}
	}
	assert.Less(t, worst, 4.0, "the most any pixel is off mid grey")

	// Shrunk unevenly by a perspective (from 1× to about 8×), still grey.
	out = Warp(src, Perspective([4]Point{{0, 0}, {200, 60}, {200, 140}, {0, 200}}), 200, 200)
	worst = 0
	for y := 80; y < 120; y++ {
		for x := 150; x < 195; x++ {
			worst = math.Max(worst, math.Abs(float64(out.NRGBAAt(x, y).R)-127.5))
		}
	}
	assert.Less(t, worst, 8.0)

	// Through a mesh, which the mip levels alone filter.
	out = Warp(src, Then(Mesh(1, 1, identityPoints(1, 1)), Perspective([4]Point{{0, 0}, {200, 60}, {200, 140}, {0, 200}})), 200, 200)
	worst = 0
	for y := 80; y < 120; y++ {
		for x := 5; x < 195; x++ {
			worst = math.Max(worst, math.Abs(float64(out.NRGBAAt(x, y).R)-127.5))
		}
	}
	assert.Less(t, worst, 8.0, "through the mesh")
}

func TestWarpEdgeCases(t *testing.T) {
	t.Parallel()
	src := checkerboard(10, 10, 5, red, blue)
	// A degenerate quad draws nothing rather than failing.
	out := Warp(src, Perspective([4]Point{{5, 5}, {5, 5}, {5, 5}, {5, 5}}), 20, 20)
	for i := 3; i < len(out.Pix); i += 4 {
		require.Zero(t, out.Pix[i])
	}
	// A quad off the canvas gives an empty picture.
	out = Warp(src, Perspective([4]Point{{-50, -50}, {-40, -50}, {-40, -40}, {-50, -40}}), 20, 20)
	assert.True(t, out.Rect.Empty())
	// An empty design draws nothing.
	out = Warp(image.NewNRGBA(image.Rect(0, 0, 0, 7)), Perspective([4]Point{{0, 0}, {10, 0}, {10, 10}, {0, 10}}), 10, 10)
	assert.True(t, out.Rect.Empty())
	// A picture whose bounds do not start at 0,0 and of another type.
	sub := checkerboard(20, 20, 5, red, blue).SubImage(image.Rect(5, 5, 15, 15))
	out = Warp(sub, Perspective([4]Point{{0, 0}, {10, 0}, {10, 10}, {0, 10}}), 10, 10)
	assert.Equal(t, red, out.NRGBAAt(0, 0), "the picture's 5,5 is in the red square 1,1")
	gray := image.NewGray(image.Rect(0, 0, 4, 4))
	for i := range gray.Pix {
		gray.Pix[i] = 77
	}
	out = Warp(gray, Perspective([4]Point{{0, 0}, {4, 0}, {4, 4}, {0, 4}}), 4, 4)
	assert.Equal(t, color.NRGBA{77, 77, 77, 255}, out.NRGBAAt(1, 1))
}

func TestLargeDesignShrunkSharply(t *testing.T) {
	t.Parallel()
	// A step from black to white, 1000 pixels wide, into 300: the edge
	// stays about one canvas pixel wide (a cubic over the 3.3 design
	// pixels of each), where box-averaged mip levels blended trilinearly
	// smear it over several.
	src := image.NewNRGBA(image.Rect(0, 0, 1000, 100))
	for y := 0; y < 100; y++ {
		for x := 0; x < 1000; x++ {
			v := uint8(0)
			if x >= 503 {
				v = 255
			}
			src.SetNRGBA(x, y, color.NRGBA{v, v, v, 255})
		}
	}
	out := Warp(src, Perspective([4]Point{{0, 0}, {300, 0}, {300, 30}, {0, 30}}), 300, 30)
	// The edge falls at 503/1000·300 = 150.9: pixel 150 is a tenth
	// white. Against that area coverage, the cubic is off by 16 in all
	// (35 and 248), the mip levels alone by 65 (3, 54, 222).
	var off float64
	for x := 140; x < 160; x++ {
		want := 0.0
		switch {
		case x == 150:
			want = 25.5
		case x > 150:
			want = 255
		}
		off += math.Abs(float64(out.NRGBAAt(x, 12).R) - want)
	}
	assert.Less(t, off, 30.0, "the edge's error")
	assert.Equal(t, uint8(0), out.NRGBAAt(140, 12).R)
	assert.Equal(t, uint8(255), out.NRGBAAt(160, 12).R)

	for _, k := range [][2]int{{1000, 250}, {999, 333}, {10, 7}} {
		for _, tp := range kernel(k[0], k[1]) {
			var sum int32
			for _, w := range tp.weights {
				sum += w
			}
			require.InDelta(t, 1<<14, sum, 8, "weights of %d to %d sum to one", k[0], k[1])
		}
	}
}

func TestTextureSharedByWarps(t *testing.T) {
	t.Parallel()
	tex := NewTexture(checkerboard(400, 400, 3, red, blue))
	maps := []Mapping{
		Perspective([4]Point{{0, 0}, {100, 10}, {90, 100}, {5, 90}}),  // shrunk first
		Perspective([4]Point{{0, 0}, {300, 0}, {300, 300}, {0, 300}}), // mip levels
		Then(Mesh(1, 1, identityPoints(1, 1)), Perspective([4]Point{{0, 0}, {50, 0}, {50, 50}, {0, 50}})),
	}
	want := make([]*image.NRGBA, len(maps))
	for i, m := range maps {
		want[i] = NewTexture(checkerboard(400, 400, 3, red, blue)).Warp(m, 300, 300)
	}
	got := make([]*image.NRGBA, len(maps))
	done := make(chan struct{})
	for i, m := range maps {
		go func() {
			defer func() { done <- struct{}{} }()
			got[i] = tex.Warp(m, 300, 300)
		}()
	}
	for range maps {
		<-done
	}
	for i := range maps {
		assert.Equal(t, want[i].Pix, got[i].Pix, "mapping %d", i)
	}
}

func TestWarpOfDecodedKinds(t *testing.T) {
	t.Parallel()
	// A JPEG decodes to YCbCr; converted band by band it must equal the
	// picture converted whole.
	ycc := image.NewYCbCr(image.Rect(0, 0, 300, 300), image.YCbCrSubsampleRatio420)
	for i := range ycc.Y {
		ycc.Y[i] = uint8(i * 7)
	}
	for i := range ycc.Cb {
		ycc.Cb[i], ycc.Cr[i] = uint8(i*3), uint8(255-i)
	}
	quad := Perspective([4]Point{{0, 0}, {300, 0}, {300, 300}, {0, 300}})
	got := Warp(ycc, quad, 300, 300)
	want := image.NewNRGBA(ycc.Rect)
	for y := 0; y < 300; y++ {
		for x := 0; x < 300; x++ {
			want.Set(x, y, ycc.At(x, y))
		}
	}
	assert.LessOrEqual(t, maxDiff(t, want, got), 1)
}

func TestWarpNeverPanics(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	tex := NewTexture(checkerboard(37, 23, 4, red, blue))
	coord := func() float64 {
		switch rng.IntN(4) {
		case 0:
			return rng.Float64()*4000 - 2000 // far off the canvas
		case 1:
			return math.Round(rng.Float64() * 64) // on pixel borders
		}
		return rng.Float64() * 64
	}
	for i := 0; i < 500; i++ {
		var q [4]Point
		for k := range q {
			q[k] = Point{coord(), coord()}
		}
		var m Mapping = Perspective(q)
		if i%3 == 0 {
			pts := identityPoints(2, 1)
			for k := range pts {
				pts[k].X += rng.Float64()*0.6 - 0.3
				pts[k].Y += rng.Float64()*0.6 - 0.3
			}
			m = Then(Mesh(2, 1, pts), m)
		}
		out := tex.Warp(m, 64, 64)
		require.True(t, out.Rect.In(image.Rect(0, 0, 64, 64)) || out.Rect.Empty(), "quad %v: picture at %v", q, out.Rect)
	}
}
