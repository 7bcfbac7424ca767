package composite

import (
	"image"
	"image/color"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the CPU the process has used: on a shared machine, what a
// benchmark costs is better read from it than from the wall clock, which
// counts waiting for the other processes too.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loop runs f b.N times and reports its CPU time per run beside the wall
// time (cpu-ms/op; with two cores busy it is up to twice the wall time).
func loop(b *testing.B, f func()) {
	b.ReportAllocs()
	start := cpuTime()
	for b.Loop() {
		f()
	}
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N)/1e6, "cpu-ms/op")
}

// design is a w × h picture with detail everywhere (a gradient under a
// fine grid), like a photograph the warp cannot skip through.
func design(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			i := img.PixOffset(x, y)
			img.Pix[i] = uint8(x * 255 / w)
			img.Pix[i+1] = uint8(y * 255 / h)
			img.Pix[i+2] = uint8((x ^ y) & 0xff)
			img.Pix[i+3] = 255
		}
	}
	return img
}

// mockupQuad is a smart object's perspective on a 3000 × 3000 template.
var mockupQuad = [4]Point{{620, 480}, {2450, 700}, {2330, 2600}, {540, 2380}}

func BenchmarkWarp(b *testing.B) {
	src := design(2000, 2000)
	m := Perspective(mockupQuad)
	loop(b, func() { Warp(src, m, 3000, 3000) })
}

// BenchmarkWarpLarge warps a design over twice its place's size, which is
// first shrunk by Catmull-Rom.
func BenchmarkWarpLarge(b *testing.B) {
	src := design(4000, 4000)
	m := Perspective(mockupQuad)
	loop(b, func() { Warp(src, m, 3000, 3000) })
}

func BenchmarkWarpMesh(b *testing.B) {
	src := design(2000, 2000)
	pts := identityPoints(1, 1)
	for _, i := range []int{5, 6, 9, 10} {
		pts[i].X += 0.1
	}
	m := Then(Mesh(1, 1, pts), Perspective(mockupQuad))
	loop(b, func() { Warp(src, m, 3000, 3000) })
}

func BenchmarkFlatten(b *testing.B) {
	const w, h = 3000, 3000
	warped := Warp(design(2000, 2000), Perspective(mockupQuad), w, h)
	shade := design(w, h)
	layers := []*Layer{
		{Image: design(w, h), Mode: Normal, Opacity: 1, FillOpacity: 1},
		{Image: warped, Mode: Normal, Opacity: 1, FillOpacity: 1},
		{Image: shade, Mode: Multiply, Opacity: 1, FillOpacity: 1, Clipped: true},
		{Fill: &color.NRGBA{200, 180, 160, 255}, Mode: Multiply, Opacity: 0.4, FillOpacity: 1},
	}
	loop(b, func() { Flatten(w, h, layers) })
}
