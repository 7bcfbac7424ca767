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

// TestCaptionBurnParams: Rendobar's names and kino's older ones are taken;
// one setting under both names is refused at the older name.
func TestCaptionBurnParams(t *testing.T) {
	ct, ok := Lookup("caption.burn")
	if !ok {
		t.Fatal("no caption.burn")
	}
	good := map[string]any{"fontFamily": "Inter", "fontSize": float64(48), "fontColor": "#80FFFFFF", "bold": true, "italic": false,
		"outlineColor": "#000000", "outlineWidth": float64(2), "shadow": float64(1), "boxEnabled": true, "boxColor": "#000000",
		"boxOpacity": 0.6, "position": "center", "alignment": "left", "marginV": float64(60), "marginH": float64(40),
		"maxCharsPerLine": float64(42), "language": "ja"}
	if p := ct.ValidateParams("params", good); len(p) != 0 {
		t.Fatalf("Rendobar's params refused: %v", p)
	}
	old := map[string]any{"font": "DejaVu Sans", "color": "#FFFF00", "outline": float64(3), "position": "middle"}
	if p := ct.ValidateParams("params", old); len(p) != 0 {
		t.Fatalf("kino's older names refused: %v", p)
	}
	both := map[string]any{"font": "A", "fontFamily": "A", "color": "#FFFFFF", "fontColor": "#FFFFFF"}
	var got []string
	for _, p := range ct.ValidateParams("params", both) {
		got = append(got, p.String())
	}
	want := []string{"params.color: is the older name of fontColor: give one of them", "params.font: is the older name of fontFamily: give one of them"}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("got %q, want %q", got, want)
	}
	if _, ok := ct.Input("font"); !ok || len(ct.Needs()) != 1 {
		t.Errorf("inputs: a font input, and only source required: %v", ct.Needs())
	}
}
