package psd

import (
	"reflect"
	"testing"
)

// TestSmartFilters reads the smart filters of a file Photoshop wrote: a
// Gaussian blur of radius 3.5 under a curves filter at its default (the
// identity, so not kept), neither named as not drawn.
func TestSmartFilters(t *testing.T) {
	t.Parallel()
	f := open(t, "testdata/photoshop/ag-smart-filter-blur.psd")
	l := f.Find("Ellipse 1")
	if l == nil || l.Placed == nil {
		t.Fatal("smart object Ellipse 1 not found")
	}
	want := []SmartFilter{{Name: "Gaussian Blur", ID: "GsnB", Radius: 3.5, Opacity: 1, Blend: "normal"}}
	if !reflect.DeepEqual(l.Placed.Filters, want) {
		t.Errorf("filters %+v, want %+v", l.Placed.Filters, want)
	}
	if len(l.Unsupported) != 0 {
		t.Errorf("unsupported %q, none expected", l.Unsupported)
	}
}

// TestSmartFiltersNotDrawn names each filter kino does not draw, and
// keeps none of a list switched off.
func TestSmartFiltersNotDrawn(t *testing.T) {
	t.Parallel()
	filter := func(name, id string, fltr *descriptor, mode string) *descriptor {
		return &descriptor{Keys: []string{"Nm  ", "blendOptions", "enab", "Fltr", "filterID"}, Vals: []any{
			name + "...\x00", &descriptor{Keys: []string{"Opct", "Md  "}, Vals: []any{unitFloat{"#Prc", 50}, enumValue{"BlnM", mode}}},
			true, fltr, int32(id[0])<<24 | int32(id[1])<<16 | int32(id[2])<<8 | int32(id[3]),
		}}
	}
	blur := &descriptor{Keys: []string{"Rds "}, Vals: []any{unitFloat{"#Pxl", 2}}}
	fx := &descriptor{Keys: []string{"enab", "filterFXList"}, Vals: []any{true, []any{
		filter("Gaussian Blur", "GsnB", blur, "Nrml"),
		filter("Gaussian Blur", "GsnB", blur, "Mltp"),
		filter("Gaussian Blur", "GsnB", &descriptor{Keys: []string{"Rds "}, Vals: []any{unitFloat{"#Pxl", 5000}}}, "Nrml"),
		filter("Liquify", "LqFy", nil, "Nrml"),
	}}}
	d, l := &decoder{}, &Layer{}
	got := d.smartFilters(l, fx)
	if len(got) != 1 || got[0].Radius != 2 || got[0].Opacity != 0.5 {
		t.Errorf("filters %+v, the first blur alone expected", got)
	}
	want := []string{"smart filter: Gaussian Blur in multiply mode", "smart filter: Gaussian Blur of radius 5000", "smart filter: Liquify"}
	if !reflect.DeepEqual(l.Unsupported, want) {
		t.Errorf("unsupported %q, want %q", l.Unsupported, want)
	}
	fx.Vals[0] = false
	if got := d.smartFilters(&Layer{}, fx); got != nil {
		t.Errorf("filters switched off: %+v", got)
	}
}
