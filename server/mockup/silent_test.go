package mockup

import (
	"bytes"
	"image"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kinohq/kino/server/psd"
)

// TestNothingOmittedSilently proves that no layer with content draws
// nothing without a word: in every template of the test data (the
// Photoshop-written files, the generated and hostile ones), every
// visible layer that has something to show (pixels not all transparent
// nor masked away, a fill, a shape's path) and is not named in the
// manifest's unsupported list changes the picture: drawn with only its
// groups (and the layer it is clipped to), the template differs from
// the same drawing without it.
func TestNothingOmittedSilently(t *testing.T) {
	var files []string
	for _, g := range []string{"../psd/testdata/*.ps?", "../psd/testdata/photoshop/*.ps?", "testdata/*.ps?"} {
		m, _ := filepath.Glob(g)
		files = append(files, m...)
	}
	if len(files) < 40 {
		t.Fatalf("%d files", len(files))
	}
	checked := 0
	for _, name := range files {
		tpl, closer, err := Load(name, 100_000_000)
		if err != nil {
			t.Logf("%s: %v", filepath.Base(name), err)
			continue
		}
		checked += silentLayers(t, filepath.Base(name), tpl)
		closer.Close()
	}
	t.Logf("%d layers drawn alone in %d files", checked, len(files))
	if checked < 100 {
		t.Errorf("only %d layers checked", checked)
	}
}

// silentLayers checks each layer of tpl as TestNothingOmittedSilently
// says, and returns how many it drew.
func silentLayers(t *testing.T, file string, tpl *Template) int {
	named, paths := map[string]bool{}, map[string]int{}
	for _, u := range tpl.Manifest.Unsupported {
		named[u.Path] = true
	}
	tpl.File.Walk(func(l *psd.Layer) error {
		paths[l.Path]++
		return nil
	})
	n := 0
	var visit func(ls []*psd.Layer, keep []string)
	visit = func(ls []*psd.Layer, keep []string) {
		for i, l := range ls {
			if !l.Visible {
				continue
			}
			if l.Kind == psd.KindGroup {
				visit(l.Children, append(keep, l.Path))
				continue
			}
			if l.Kind == psd.KindAdjustment || named[l.Path] || paths[l.Path] > 1 || !hasContent(t, tpl, l) {
				continue
			}
			show := append(append([]string(nil), keep...), l.Path)
			if l.Clipped {
				if b := clipBase(ls, i); b != nil {
					if !b.Visible {
						continue
					}
					show = append(show, b.Path)
				}
			}
			var hide []string
			for p := range paths {
				// A group shown (the layer's own, or its clip base) shows
				// its children.
				if !contains(show, p) && !underAny(p, show[len(keep):]) {
					hide = append(hide, p)
				}
			}
			with, _, err := tpl.Render(Options{Hide: hide})
			if err != nil {
				t.Errorf("%s %q: %v", file, l.Path, err)
				continue
			}
			without, _, err := tpl.Render(Options{Hide: append(hide, l.Path)})
			if err != nil {
				t.Errorf("%s %q: %v", file, l.Path, err)
				continue
			}
			n++
			if bytes.Equal(with.Pix, without.Pix) {
				t.Errorf("%s: layer %q (%v) has content, draws nothing, and the manifest does not name it in unsupported", file, l.Path, l.Kind)
			}
		}
	}
	visit(tpl.File.Layers, nil)
	return n
}

// underAny says whether path p lies inside one of the groups named.
func underAny(p string, groups []string) bool {
	for _, g := range groups {
		if strings.HasPrefix(p, g+"/") {
			return true
		}
	}
	return false
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// hasContent says whether a layer has something to show on the canvas:
// a fill, a shape's path, or pixels some of which are not transparent
// nor hidden by its mask, at an opacity above zero.
func hasContent(t *testing.T, tpl *Template, l *psd.Layer) bool {
	if l.Opacity == 0 || (l.FillOpacity == 0 && !l.Effects.Any()) {
		return false
	}
	canvas := image.Rect(0, 0, tpl.File.Width, tpl.File.Height)
	if l.Kind == psd.KindFill || !l.PathRect().Empty() {
		return true
	}
	r := l.Rect.Intersect(canvas)
	if r.Empty() {
		return l.Kind == psd.KindShape || l.Kind == psd.KindText // a shape or text with no pixels still has content
	}
	img, err := l.Image()
	if err != nil {
		t.Fatalf("%q: %v", l.Path, err)
	}
	var mask *image.Gray
	if l.Mask != nil && !l.Mask.Disabled {
		if mask, err = l.Mask.Image(); err != nil {
			t.Fatalf("%q: mask: %v", l.Path, err)
		}
	}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if img.NRGBAAt(x, y).A == 0 {
				continue
			}
			if mask != nil {
				m := l.Mask.DefaultColor
				if (image.Point{x, y}).In(mask.Rect) {
					m = mask.GrayAt(x, y).Y
				}
				if m == 0 {
					continue
				}
			}
			return true
		}
	}
	return false
}
