package mockup

import (
	"fmt"
	"strings"

	"github.com/kinohq/kino/server/psd"
)

// Manifest is what a template holds, as the asset's metadata publishes it
// and as mockup.render checks params against at submit.
type Manifest struct {
	Width  int `json:"width"`
	Height int `json:"height"`
	// Layers is the layer tree, depth first, bottom to top, as paths.
	Layers       []LayerInfo   `json:"layers"`
	SmartObjects []SmartObject `json:"smartObjects"`
	Fills        []Fill        `json:"fills"`
	Texts        []TextLayer   `json:"texts"`
	// Unsupported lists each feature kino does not draw, with what it does
	// about it: "ignored" (drawn without it) or "refused".
	Unsupported []Feature `json:"unsupported"`
}

// LayerInfo is one layer of the tree.
type LayerInfo struct {
	Path    string  `json:"path"`
	Name    string  `json:"name"`
	Kind    string  `json:"kind"`
	Visible bool    `json:"visible"`
	Blend   string  `json:"blend"`
	Opacity float64 `json:"opacity"`
	Clipped bool    `json:"clipped,omitempty"`
}

// SmartObject is a layer a design can replace.
type SmartObject struct {
	Path string `json:"path"`
	// Quad is the canvas corners of its content: top-left, top-right,
	// bottom-right, bottom-left.
	Quad [4][2]float64 `json:"quad"`
	// Width and Height are the content's size: a design is fitted to it.
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
	// Warp is "none", "custom" or "quilt RxC" (with its style when not
	// custom).
	Warp    string   `json:"warp"`
	Blend   string   `json:"blend"`
	Visible bool     `json:"visible"`
	Clipped []string `json:"clipped"`
	// Filters are the smart filters drawn over a design placed in it,
	// in order ("gaussian blur 3.5 px"), then "filter mask" when a
	// painted mask limits where they apply; absent when it has none.
	Filters []string `json:"filters,omitempty"`
}

// Fill is a solid-colour fill layer: the product's colour, which the
// colors param changes.
type Fill struct {
	Path  string `json:"path"`
	Color string `json:"color"`
}

// TextLayer is a text layer and its text; kino draws its cached pixels.
type TextLayer struct {
	Path string `json:"path"`
	Text string `json:"text"`
}

// Feature is something a layer has that kino does not draw.
type Feature struct {
	Path    string `json:"path"`
	Feature string `json:"feature"`
	Action  string `json:"action"`
}

// SmartObject returns the smart object a request names (see Layer).
func (m *Manifest) SmartObject(path string) (SmartObject, bool) {
	l, ok := m.Layer(path)
	if !ok {
		return SmartObject{}, false
	}
	path = l.Path
	for _, s := range m.SmartObjects {
		if s.Path == path {
			return s, true
		}
	}
	return SmartObject{}, false
}

// Layer returns the layer a request names: by its path ("group/name"),
// or by its name alone when one layer only has it. Where paths repeat,
// the topmost layer wins, as in Photoshop's layers panel.
func (m *Manifest) Layer(path string) (LayerInfo, bool) {
	var found, named LayerInfo
	names := 0
	for _, l := range m.Layers {
		if l.Path == path {
			found = l
		}
		if l.Name == path {
			named = l
			names++
		}
	}
	switch {
	case found.Path != "":
		return found, true
	case names == 1:
		return named, true
	}
	return LayerInfo{}, false
}

// Refusal is the first feature the manifest refuses, "" when none.
func (m *Manifest) Refusal() string {
	for _, f := range m.Unsupported {
		if f.Action == Refused {
			return fmt.Sprintf("layer %q: %s is not drawn by kino", f.Path, f.Feature)
		}
	}
	return ""
}

// What kino does about a feature it does not draw.
const (
	Ignored = "ignored"
	Refused = "refused"
)

// kindName is the manifest's word for a layer kind.
func kindName(k psd.Kind) string {
	if k == psd.KindSmartObject {
		return "smartObject"
	}
	return k.String()
}

// warpName says what warp a smart object has.
func warpName(w *psd.Warp) string {
	switch {
	case w == nil:
		return "none"
	case w.Quilt:
		return fmt.Sprintf("quilt %dx%d", w.Rows, w.Cols)
	case w.Style == "" || w.Style == "warpCustom":
		return "custom"
	}
	return w.Style
}

// classify says what kino does about a feature a layer has. Colour
// adjustments recolour everything under them: one clipped to a smart
// object recolours the design, and a
// mockup without it shows the wrong colour, so it is refused; elsewhere it
// changes the photo's grade, and is ignored with a warning. Layer effects
// and smart filters kino does not draw are ignored: shadows and filters
// that are missing leave a credible picture.
func classify(feature string, nearSmartObject bool) string {
	if strings.HasPrefix(feature, "adjustment") && nearSmartObject {
		return Refused
	}
	return Ignored
}

// manifest reads a file's manifest. The file is already decoded.
func manifest(f *psd.File) Manifest {
	m := Manifest{Width: f.Width, Height: f.Height, Layers: []LayerInfo{}, SmartObjects: []SmartObject{},
		Fills: []Fill{}, Texts: []TextLayer{}, Unsupported: []Feature{}}
	var visit func(ls []*psd.Layer)
	visit = func(ls []*psd.Layer) {
		for i, l := range ls {
			m.Layers = append(m.Layers, LayerInfo{Path: l.Path, Name: l.Name, Kind: kindName(l.Kind), Visible: l.Visible,
				Blend: string(l.Blend), Opacity: round3(float64(l.Opacity) / 255), Clipped: l.Clipped})
			near := false
			if l.Clipped {
				if b := clipBase(ls, i); b != nil && b.Kind == psd.KindSmartObject {
					near = true
				}
			}
			for _, feat := range l.Unsupported {
				action := classify(feat, near && l.Visible)
				m.Unsupported = append(m.Unsupported, Feature{Path: l.Path, Feature: feat, Action: action})
			}
			if unknownBlend(l.Blend) && l.Visible {
				m.Unsupported = append(m.Unsupported, Feature{Path: l.Path, Feature: "blend mode " + string(l.Blend), Action: Refused})
			}
			switch l.Kind {
			case psd.KindSmartObject:
				p := l.Placed
				so := SmartObject{Path: l.Path, Blend: string(l.Blend), Visible: l.Visible, Clipped: []string{}}
				if p != nil {
					q := quadOf(p)
					for k := range q {
						so.Quad[k] = [2]float64{round3(q[k].X), round3(q[k].Y)}
					}
					so.Width, so.Height, so.Warp = p.Width, p.Height, warpName(p.Warp)
					for _, f := range p.Filters {
						if f.ID == "GsnB" {
							so.Filters = append(so.Filters, fmt.Sprintf("gaussian blur %g px", f.Radius))
						}
					}
					if len(so.Filters) > 0 && p.FilterMask != nil {
						so.Filters = append(so.Filters, "filter mask")
					}
					if p.Warp != nil && len(p.Warp.Points) == 0 {
						m.Unsupported = append(m.Unsupported, Feature{Path: l.Path, Feature: "warp style " + p.Warp.Style + " (no mesh stored)", Action: Refused})
					}
					if p.Width <= 0 || p.Height <= 0 {
						m.Unsupported = append(m.Unsupported, Feature{Path: l.Path, Feature: "a smart object without a content size", Action: Refused})
					}
				} else {
					m.Unsupported = append(m.Unsupported, Feature{Path: l.Path, Feature: "a smart object without its placement", Action: Refused})
				}
				for j := i + 1; j < len(ls) && ls[j].Clipped; j++ {
					so.Clipped = append(so.Clipped, ls[j].Path)
				}
				m.SmartObjects = append(m.SmartObjects, so)
			case psd.KindFill:
				if l.FillColor != nil {
					c := l.FillColor
					m.Fills = append(m.Fills, Fill{Path: l.Path, Color: fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B)})
				}
			case psd.KindText:
				if l.Text != nil {
					m.Texts = append(m.Texts, TextLayer{Path: l.Path, Text: l.Text.Value})
				}
			}
			visit(l.Children)
		}
	}
	visit(f.Layers)
	return m
}

// clipBase is the layer that the clipped layer ls[i] is clipped to.
func clipBase(ls []*psd.Layer, i int) *psd.Layer {
	for j := i - 1; j >= 0; j-- {
		if !ls[j].Clipped {
			return ls[j]
		}
	}
	return nil
}

// quadOf is the canvas quad of a smart object's content: the non-affine
// corners when the file has them, else the affine ones.
func quadOf(p *psd.Placed) [4]psd.Point {
	if p.NonAffine != ([4]psd.Point{}) {
		return p.NonAffine
	}
	return p.Transform
}

func unknownBlend(b psd.BlendMode) bool { return strings.HasPrefix(string(b), "key:") }

func round3(v float64) float64 {
	return float64(int64(v*1000+0.5*sign(v))) / 1000
}

func sign(v float64) float64 {
	if v < 0 {
		return -1
	}
	return 1
}
