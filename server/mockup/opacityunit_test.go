package mockup

import (
	"testing"

	"github.com/kinohq/kino/server/composite"
)

// TestOpacityUnit: a faded layer and the effects on and over it are put
// together and faded once, each at its own opacity inside; not when
// layers are clipped to it or an effect blends in another mode.
func TestOpacityUnit(t *testing.T) {
	t.Parallel()
	mk := func(mode composite.Mode) (*composite.Layer, effectLayers) {
		l := &composite.Layer{Mode: composite.Normal, Opacity: 0.25, FillOpacity: 1}
		stroke := &composite.Layer{Mode: mode, Opacity: 0.25 * 0.5, FillOpacity: 1}
		return l, effectLayers{after: []*composite.Layer{stroke}}
	}
	l, d := mk(composite.Normal)
	u := opacityUnit(l, d, false)
	if u == nil || u.Opacity != 0.25 || len(u.Children) != 2 || u.Children[0] != l || l.Opacity != 1 || d.after[0].Opacity != 0.5 {
		t.Fatalf("unit %+v, layer %+v, stroke %+v", u, l, d.after[0])
	}
	l, d = mk(composite.Normal)
	if u := opacityUnit(l, d, true); u != nil || l.Opacity != 0.25 {
		t.Errorf("a clipping base put together: %+v", u)
	}
	l, d = mk(composite.Multiply)
	if u := opacityUnit(l, d, false); u != nil || l.Opacity != 0.25 {
		t.Errorf("a multiplied effect put together: %+v", u)
	}
}
