package catalog

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
)

// TestArgsMatchTheCatalogue holds every type's struct to its declared
// params: the same names, each of a Go kind its JSON kind decodes into,
// objects and arrays of objects field by field. A param added to the
// table without its field (or the reverse) fails here, not in a job.
func TestArgsMatchTheCatalogue(t *testing.T) {
	t.Parallel()
	for _, typ := range All() {
		t.Run(typ.Name, func(t *testing.T) {
			if typ.Args == nil {
				t.Fatal("the type declares no Args struct")
			}
			var params []Param
			for _, p := range typ.Params {
				if _, old := typ.Aliases[p.Name]; !old {
					params = append(params, p)
				}
			}
			matchFields(t, typ.Name, reflect.TypeOf(typ.Args), params)
		})
	}
}

func matchFields(t *testing.T, path string, st reflect.Type, params []Param) {
	t.Helper()
	if st.Kind() != reflect.Struct {
		t.Fatalf("%s: %s is not a struct", path, st)
	}
	fields := map[string]reflect.Type{}
	for i := range st.NumField() {
		f := st.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			t.Errorf("%s.%s: has no JSON name", path, f.Name)
			continue
		}
		fields[name] = f.Type
	}
	var declared []string
	for _, p := range params {
		declared = append(declared, p.Name)
		ft, ok := fields[p.Name]
		if !ok {
			t.Errorf("%s.%s: declared in the catalogue, not in %s", path, p.Name, st)
			continue
		}
		matchKind(t, path+"."+p.Name, ft, p)
	}
	for name := range fields {
		if !slices.Contains(declared, name) {
			t.Errorf("%s.%s: a field of %s the catalogue does not declare", path, name, st)
		}
	}
}

func matchKind(t *testing.T, path string, ft reflect.Type, p Param) {
	t.Helper()
	if ft.Kind() == reflect.Pointer {
		ft = ft.Elem()
	}
	want := map[string][]reflect.Kind{
		"string": {reflect.String}, "number": {reflect.Float64}, "integer": {reflect.Int},
		"boolean": {reflect.Bool}, "array": {reflect.Slice}, "object": {reflect.Map, reflect.Struct},
	}[p.Kind]
	if !slices.Contains(want, ft.Kind()) {
		t.Errorf("%s: a %s param read into %s", path, p.Kind, ft)
		return
	}
	switch {
	case p.Kind == "array" && p.Items != nil:
		matchKind(t, path+"[]", ft.Elem(), *p.Items)
	case p.Kind == "array":
		matchFields(t, path+"[]", ft.Elem(), p.Fields)
	case p.Kind == "object" && p.Values != nil:
		if ft.Kind() != reflect.Map || ft.Key().Kind() != reflect.String {
			t.Errorf("%s: a map param read into %s", path, ft)
			return
		}
		matchKind(t, path+"{}", ft.Elem(), *p.Values)
	case p.Kind == "object":
		matchFields(t, path, ft, p.Fields)
	}
}

// TestDefaultsAreDescribed holds each declared default to the words of
// its description, which GET /jobs/types publishes, and to the param's own
// rules.
func TestDefaultsAreDescribed(t *testing.T) {
	t.Parallel()
	var walk func(path string, ps []Param)
	walk = func(path string, ps []Param) {
		for _, p := range ps {
			at := path + "." + p.Name
			walk(at, p.Fields)
			if p.Default == nil {
				continue
			}
			words := p.DefaultText
			if words == "" {
				words = "default " + fmt.Sprint(p.Default)
			}
			if !strings.Contains(p.Description, words) {
				t.Errorf("%s: the default is %v, and the description %q does not say %q", at, p.Default, p.Description, words)
			}
			value := p.Default
			if n, ok := value.(int); ok {
				value = float64(n) // as JSON decodes it
			}
			var problems []Problem
			checkValue(at, value, p, &problems)
			if len(problems) > 0 {
				t.Errorf("%s: the default breaks the param's rules: %v", at, problems)
			}
		}
	}
	for _, typ := range All() {
		walk(typ.Name, typ.Params)
	}
}

func TestDecode(t *testing.T) {
	t.Parallel()
	burn, _ := Lookup("caption.burn")
	d, err := Decode[CaptionBurn](burn, []byte(`{"color":"#FF0000","fontSize":30,"bold":false}`))
	if err != nil {
		t.Fatal(err)
	}
	p := d.Params
	if p.FontColor != "#FF0000" || p.FontSize != 30 || p.Bold == nil || *p.Bold || p.MarginV != 60 || p.BoxOpacity != 0.6 || p.Language != "auto" {
		t.Errorf("caption.burn: got %+v: the older name, the values given and the defaults", p)
	}
	if !slices.Equal(d.Given, []string{"bold", "color", "fontSize"}) {
		t.Errorf("given %v, want the names the request used", d.Given)
	}
	if d, _ := Decode[CaptionBurn](burn, nil); d.Params.Bold != nil || d.Params.FontFamily != "" {
		t.Errorf("the defaults that depend on the font input are not filled in: %+v", d.Params)
	}

	wm, _ := Lookup("watermark.apply")
	params := map[string]any{"watermarks": []any{map[string]any{"type": "text", "text": "hi"}}}
	w, err := DecodeMap[WatermarkApply](wm, params)
	if err != nil {
		t.Fatal(err)
	}
	got := w.Params.Watermarks[0]
	if got.Margin != 16 || got.Opacity != 1 || got.Scale != 0.2 || got.Position != "bottom-right" || got.Color != "#FFFFFF" || got.FontSize != 32 {
		t.Errorf("the defaults of an array's objects: %+v", got)
	}
	if len(params["watermarks"].([]any)[0].(map[string]any)) != 2 {
		t.Errorf("DecodeMap changed the params it read: %v", params)
	}

	_, err = Decode[VideoTrim](mustLookup(t, "video.trim"), []byte(`{"start":-1,"speed":2}`))
	var pe *ParamsError
	if !errors.As(err, &pe) {
		t.Fatalf("params the catalogue refuses: got %v, want a *ParamsError", err)
	}
	var paths []string
	for _, p := range pe.Problems {
		paths = append(paths, p.Path)
	}
	sort.Strings(paths)
	if !slices.Equal(paths, []string{"params.duration", "params.speed", "params.start"}) {
		t.Errorf("problems at %v", paths)
	}
	if _, err := Decode[VideoTrim](mustLookup(t, "video.trim"), []byte(`{"start":`)); err == nil || errors.As(err, &pe) {
		t.Errorf("a row that is not JSON: got %v, want a read error", err)
	}
}

func mustLookup(t *testing.T, name string) *Type {
	t.Helper()
	typ, ok := Lookup(name)
	if !ok {
		t.Fatalf("no type %s", name)
	}
	return typ
}
