package composite

import (
	"encoding/binary"
	"image"
	"image/color"
	"math"
	"testing"
)

// FuzzWarp warps a small design through a perspective, a mesh of up to
// 4x4 patches, or both, made of arbitrary numbers (NaN, infinities,
// folded and degenerate quads included): no input may panic, draw
// outside the canvas or take long.
func FuzzWarp(f *testing.F) {
	seed := func(vs ...float64) []byte {
		var b []byte
		for _, v := range vs {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
		}
		return b
	}
	f.Add(uint8(0), seed(10, 10, 50, 12, 48, 60, 8, 55))
	f.Add(uint8(1), seed(0, 0, 100, 0, 0, 100, 100, 100))
	f.Add(uint8(2), seed(0, 0, 1e300, 0, math.NaN(), 1, math.Inf(-1), 5))
	f.Add(uint8(0x15), seed(0, 0, 100, 0, -100, 100, 200, 100, 0.5, 0.5))
	src := checkerboard(24, 16, 4, color.NRGBA{255, 0, 0, 255}, color.NRGBA{0, 0, 255, 128})
	f.Fuzz(func(t *testing.T, kind uint8, data []byte) {
		next := func(i int) float64 {
			if 8*i+8 > len(data) {
				return float64(i%4) / 3
			}
			return math.Float64frombits(binary.LittleEndian.Uint64(data[8*i:]))
		}
		var quad [4]Point
		for i := range quad {
			quad[i] = Point{next(2 * i), next(2*i + 1)}
		}
		rows, cols := int(kind>>2&3)+1, int(kind>>4&3)+1
		pts := identityPoints(rows, cols)
		for i := range pts {
			if 8+2*i+1 < len(data)/8 {
				pts[i] = Point{next(8 + 2*i), next(8 + 2*i + 1)}
			}
		}
		var m Mapping
		switch kind & 3 {
		case 0:
			m = Perspective(quad)
		case 1:
			m = Mesh(rows, cols, pts)
		default:
			m = Then(Mesh(rows, cols, pts), Perspective(quad))
		}
		out := Warp(src, m, 64, 48)
		if !out.Rect.Empty() && !out.Rect.In(image.Rect(0, 0, 64, 48)) {
			t.Fatalf("drew %v outside the 64x48 canvas", out.Rect)
		}
	})
}
