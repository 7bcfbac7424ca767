package catalog

import (
	"fmt"
	"regexp"
)

// WebColour is a colour as Rendobar's clients write it: #RRGGBB, or
// #AARRGGBB with the alpha first (FF opaque, 00 transparent).
var WebColour = regexp.MustCompile(`^#(?:[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$`)

// CaptionLanguages are the languages caption.burn transcribes in: auto
// (the transcriber decides) and the ISO 639-1 codes of the languages
// Whisper knows. The offline transcriber hears English only, which is
// checked when the job runs: it depends on the node's --whisper-url.
//
//nolint:gochecknoglobals // read-only table: the caption languages documented in the catalogue
var CaptionLanguages = []string{"auto",
	"af", "am", "ar", "as", "az", "ba", "be", "bg", "bn", "bo", "br", "bs", "ca", "cs", "cy", "da", "de", "el", "en", "es",
	"et", "eu", "fa", "fi", "fo", "fr", "gl", "gu", "ha", "he", "hi", "hr", "ht", "hu", "hy", "id", "is", "it", "ja", "ka",
	"kk", "km", "kn", "ko", "la", "lb", "ln", "lo", "lt", "lv", "mg", "mi", "mk", "ml", "mn", "mr", "ms", "mt", "my", "ne",
	"nl", "nn", "no", "oc", "pa", "pl", "ps", "pt", "ro", "ru", "sa", "sd", "si", "sk", "sl", "sn", "so", "sq", "sr", "su",
	"sv", "sw", "ta", "te", "tg", "th", "tk", "tl", "tr", "tt", "uk", "ur", "uz", "vi", "yi", "yo", "zh"}

// CaptionAliases are caption.burn's older names, kino's before it took
// Rendobar's: each maps to the param it stands for.
//
//nolint:gochecknoglobals // read-only table: the documented aliases of caption options
var CaptionAliases = map[string]string{"font": "fontFamily", "color": "fontColor", "outline": "outlineWidth"}

func colourParam(name, def string) Param {
	return Param{Name: name, Kind: "string", Pattern: WebColour, PatternHint: "must be a colour as #RRGGBB or #AARRGGBB (alpha first)", Default: def,
		Description: "web hex, #RRGGBB or #AARRGGBB with the alpha first; default " + def}
}

//nolint:gochecknoglobals // a constructor of the catalogue's tables, never reassigned
var familyParam = func(name, desc string) Param {
	return Param{Name: name, Kind: "string", MaxLength: 100, Pattern: FontFamily, PatternHint: "a font family name holds only letters, digits and spaces", Description: desc}
}

// captionBurnParams are Rendobar's styling params, in pixels of the
// output video, and kino's older names as aliases. They style SRT and
// WebVTT; an ASS or SSA file keeps its own styles.
//
//nolint:gochecknoglobals // read-only table: the catalogue's caption parameters
var captionBurnParams = []Param{
	{Name: "language", Kind: "string", Enum: CaptionLanguages, Default: "auto", DefaultText: "auto (default)", Description: "the spoken language when subtitles is omitted: an ISO 639-1 code or auto (default); the offline transcriber hears English only"},
	familyParam("fontFamily", "font family; default the font input's own, else DejaVu Sans"),
	{Name: "fontSize", Kind: "integer", Min: bound(8), Max: bound(400), Default: 48, Description: "line height in pixels of the output (ascent plus descent); default 48"},
	colourParam("fontColor", "#FFFFFF"),
	{Name: "bold", Kind: "boolean", Description: "default true (false with a font input: the font is drawn as it is)"},
	{Name: "italic", Kind: "boolean", Default: false, Description: "default false"},
	colourParam("outlineColor", "#000000"),
	{Name: "outlineWidth", Kind: "number", Min: bound(0), Max: bound(20), Default: 2, Description: "outline width in pixels; default 2"},
	{Name: "shadow", Kind: "number", Min: bound(0), Max: bound(20), Default: 1, Description: "drop-shadow depth in pixels, 0 for none; default 1 (no shadow with a box)"},
	{Name: "boxEnabled", Kind: "boolean", Default: false, Description: "a filled box behind each caption; default false"},
	colourParam("boxColor", "#000000"),
	{Name: "boxOpacity", Kind: "number", Min: bound(0), Max: bound(1), Default: 0.6, Description: "0 (transparent) to 1 (opaque); default 0.6"},
	{Name: "position", Kind: "string", Enum: []string{"bottom", "center", "middle", "top"}, Default: "bottom", Description: "vertical placement; middle is kino's older name of center; default bottom"},
	{Name: "alignment", Kind: "string", Enum: []string{"left", "center", "right"}, Default: "center", Description: "horizontal alignment; default center"},
	{Name: "marginV", Kind: "integer", Min: bound(0), Max: bound(2000), Default: 60, Description: "vertical margin in pixels; default 60"},
	{Name: "marginH", Kind: "integer", Min: bound(0), Max: bound(2000), Default: 40, Description: "left and right margins in pixels, which also bound the line width; default 40"},
	{Name: "maxCharsPerLine", Kind: "integer", Min: bound(10), Max: bound(80), Description: "transcribed captions only: at most this many characters a line, two lines a caption"},
	familyParam("font", "kino's older name of fontFamily"),
	{Name: "color", Kind: "string", Pattern: WebColour, PatternHint: "must be a colour as #RRGGBB or #AARRGGBB (alpha first)", Description: "kino's older name of fontColor"},
	{Name: "outline", Kind: "number", Min: bound(0), Max: bound(20), Description: "kino's older name of outlineWidth"},
}

// captionBurnCheck refuses a setting given under both its names.
func captionBurnCheck(v map[string]any) [][2]string {
	var out [][2]string
	for _, old := range []string{"color", "font", "outline"} {
		name := CaptionAliases[old]
		if _, a := v[old]; a {
			if _, b := v[name]; b {
				out = append(out, [2]string{old, fmt.Sprintf("is the older name of %s: give one of them", name)})
			}
		}
	}
	return out
}
