package catalog

import (
	"strings"
	"testing"
)

// TestMockupParams: string arrays and maps of the mockup.render params are
// checked item by item, with paths naming the item.
func TestMockupParams(t *testing.T) {
	mt, ok := Lookup("mockup.render")
	if !ok {
		t.Fatal("no mockup.render")
	}
	ok1 := map[string]any{"smartObject": "Design", "hide": []any{"Other"}, "format": "png",
		"colors": map[string]any{"Shirt": "#aa2200"}, "smartObjects": map[string]any{"Back": "https://example.com/b.png"},
		"designs": []any{"https://example.com/a.png", "ast_1"}}
	if p := mt.ValidateParams("params", ok1); len(p) != 0 {
		t.Fatalf("valid params refused: %v", p)
	}
	bad := map[string]any{"hide": []any{"Other", 3}, "colors": map[string]any{"Shirt": "red", "": "#000000"},
		"smartObjects": map[string]any{"Back": 1}, "fit": "stretch"}
	var got []string
	for _, p := range mt.ValidateParams("params", bad) {
		got = append(got, p.String())
	}
	all := strings.Join(got, "; ")
	for _, want := range []string{`params.hide[1]: must be a string`, `params.colors["Shirt"]: must be a colour as #rrggbb`,
		`params.colors[""]: a key must be 1 to 1000 characters`, `params.smartObjects["Back"]: must be a string`, `params.fit: must be one of cover, contain, fill`} {
		if !strings.Contains(all, want) {
			t.Errorf("missing %q in %s", want, all)
		}
	}
	s := Schema(mt.Params)["properties"].(map[string]any)
	if s["hide"].(map[string]any)["items"].(map[string]any)["type"] != "string" {
		t.Errorf("hide's schema: %v", s["hide"])
	}
	if s["colors"].(map[string]any)["additionalProperties"].(map[string]any)["pattern"] == nil {
		t.Errorf("colors' schema: %v", s["colors"])
	}
}
