package psd

import (
	"bytes"
	"fmt"
	"image"
	"image/draw"
	_ "image/jpeg"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// samePicture compares a decoded picture with a PNG that ag-psd's tests
// pin. Those PNGs went through a premultiplied canvas, so colours of
// partly transparent pixels may differ by what premultiplying loses;
// alpha and opaque colours must be equal.
func samePicture(got *image.NRGBA, pngPath string) error {
	fh, err := os.Open(pngPath)
	if err != nil {
		return err
	}
	defer fh.Close()
	src, err := png.Decode(fh)
	if err != nil {
		return err
	}
	if got.Rect.Dx() != src.Bounds().Dx() || got.Rect.Dy() != src.Bounds().Dy() {
		return fmt.Errorf("size %v, expected %v", got.Rect.Size(), src.Bounds().Size())
	}
	want := image.NewNRGBA(image.Rectangle{Max: src.Bounds().Size()})
	draw.Draw(want, want.Rect, src, src.Bounds().Min, draw.Src)
	for i := 0; i < len(want.Pix); i += 4 {
		a := int(want.Pix[i+3])
		if int(got.Pix[i+3]) != a {
			return fmt.Errorf("pixel %d: alpha %d, expected %d", i/4, got.Pix[i+3], a)
		}
		if a == 0 {
			continue
		}
		tol := 255/a + 1
		for c := 0; c < 3; c++ {
			if d := int(got.Pix[i+c]) - int(want.Pix[i+c]); d > tol || d < -tol {
				return fmt.Errorf("pixel %d (alpha %d): %v, expected %v", i/4, a, got.Pix[i:i+4], want.Pix[i:i+4])
			}
		}
	}
	return nil
}

// TestPhotoshopFiles decodes files Photoshop wrote (testdata/photoshop,
// see its README): the merged image and every layer equal what ag-psd's
// own tests pin for them, and every embedded smart-object file decodes.
func TestPhotoshopFiles(t *testing.T) {
	files, _ := filepath.Glob("testdata/photoshop/*.ps?")
	if len(files) == 0 {
		t.Fatal("no files")
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			f := open(t, path)
			dir := path[:len(path)-len(filepath.Ext(path))]
			c, err := f.Composite()
			if err != nil {
				t.Fatalf("composite: %v", err)
			}
			if _, err := os.Stat(filepath.Join(dir, "canvas.png")); err == nil {
				if err := samePicture(c, filepath.Join(dir, "canvas.png")); err != nil {
					t.Errorf("composite: %v", err)
				}
			}
			// ag-psd numbers the layers that are not groups, bottom first.
			i, compared := 0, 0
			f.Walk(func(l *Layer) error {
				img, err := l.Image()
				if err != nil {
					t.Errorf("%s: %v", l.Path, err)
				}
				if l.Mask != nil {
					if _, err := l.Mask.Image(); err != nil {
						t.Errorf("%s: mask: %v", l.Path, err)
					}
				}
				if l.Kind == KindGroup {
					return nil
				}
				want := filepath.Join(dir, fmt.Sprintf("layer-%d.png", i))
				i++
				if _, err := os.Stat(want); err != nil || img == nil {
					return nil
				}
				compared++
				if err := samePicture(img, want); err != nil {
					t.Errorf("%s: %v", l.Path, err)
				}
				return nil
			})
			if pngs, _ := filepath.Glob(filepath.Join(dir, "layer-*.png")); compared != len(pngs) {
				t.Errorf("%d layer pictures compared, %d there", compared, len(pngs))
			}
			for id, lf := range f.Linked {
				if lf.Data == nil {
					continue
				}
				if lf.Type == "8BPS" || lf.Type == "8BPB" {
					inner, err := Decode(bytes.NewReader(lf.Data), int64(len(lf.Data)), Limits{})
					if err == nil {
						_, err = inner.Composite()
					}
					if err != nil {
						t.Errorf("linked %s %q: %v", id, lf.Name, err)
					}
					continue
				}
				if _, _, err := image.Decode(bytes.NewReader(lf.Data)); err != nil {
					t.Errorf("linked %s %q (%q): %v", id, lf.Name, lf.Type, err)
				}
			}
		})
	}
}

// TestQuadFramesWarpedMesh pins what the package doc says of placed
// layers: in Photoshop's file, the quad of a warped smart object is the
// extent of its warped mesh scaled, not the content's.
func TestQuadFramesWarpedMesh(t *testing.T) {
	f := open(t, "testdata/photoshop/ag-werps.psd")
	n := 0
	f.Walk(func(l *Layer) error {
		p := l.Placed
		if p == nil || p.Warp == nil {
			return nil
		}
		n++
		min, max := p.Extent()
		if l.Name == "3x3" && min.Y > -167 {
			t.Errorf("3x3: mesh extent from %v: the warp no longer bulges above the content", min)
		}
		q := p.Transform
		sx, sy := (q[1].X-q[0].X)/(max.X-min.X), (q[2].Y-q[1].Y)/(max.Y-min.Y)
		if p.NonAffine == p.Transform && (math.Abs(sx-0.2185365) > 1e-6 || math.Abs(sy-0.2185365) > 1e-6) {
			t.Errorf("%s: quad / mesh extent = %.7f x %.7f, want 0.2185365 both ways", l.Name, sx, sy)
		}
		return nil
	})
	if n != 6 {
		t.Errorf("%d warped smart objects, want 6", n)
	}

	// A plain custom warp (one 4x4 Bezier patch), placed at scale 1: the
	// quad is the mesh's extent moved, 367.58 x 197.42 where the content is
	// 358 x 162.
	so := open(t, "testdata/photoshop/ag-mesh-transform.psd").Find("transform")
	if so == nil || so.Placed == nil || so.Placed.Warp == nil || len(so.Placed.Warp.Points) != 16 {
		t.Fatalf("mesh-transform: %+v", so)
	}
	min, max := so.Placed.Extent()
	q := so.Placed.NonAffine
	if math.Abs(q[1].X-q[0].X-(max.X-min.X)) > 1e-6 || math.Abs(q[2].Y-q[1].Y-(max.Y-min.Y)) > 1e-6 || math.Abs(q[0].Y-(-3.392669677734375)) > 1e-9 {
		t.Errorf("mesh-transform: quad %v, mesh extent %v..%v", q, min, max)
	}
}

// TestPSBEqualsPSD reads one document Photoshop saved both ways: every
// layer's pixels and the merged image must be the same.
func TestPSBEqualsPSD(t *testing.T) {
	psd := open(t, "testdata/photoshop/pt-placedLayer.psd")
	psb := open(t, "testdata/photoshop/pt-placedLayer.psb")
	if psd.PSB || !psb.PSB {
		t.Fatalf("PSB flags %v %v", psd.PSB, psb.PSB)
	}
	pictures := func(f *File) []string {
		var out []string
		f.Walk(func(l *Layer) error {
			img, err := l.Image()
			if err != nil {
				t.Fatalf("%s: %v", l.Path, err)
			}
			out = append(out, l.Path+" "+l.Rect.String()+" "+hash(img.Pix))
			return nil
		})
		c, err := f.Composite()
		if err != nil {
			t.Fatal(err)
		}
		return append(out, hash(c.Pix))
	}
	a, b := pictures(psd), pictures(psb)
	if len(a) != len(b) {
		t.Fatalf("PSD %q, PSB %q", a, b)
	}
	for i := range a {
		if a[i] != b[i] {
			t.Errorf("PSD %q, PSB %q", a[i], b[i])
		}
	}
}
