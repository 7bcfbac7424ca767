package catalog

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// The typed params of each job type: what its executor reads, decoded once
// from the job's row by Decode. Each struct's JSON names are its type's
// Params (TestArgsMatchTheCatalogue holds them to it), so the catalogue
// stays the one declaration: it validates, publishes the JSON Schema and
// gives the defaults Decode fills in.

// AudioExtract are audio.extract's params.
type AudioExtract struct {
	Format string `json:"format"`
}

// VideoTrim are video.trim's params.
type VideoTrim struct {
	Start    float64 `json:"start"`
	Duration float64 `json:"duration"`
}

// ImageResize are image.resize's params; a side of 0 was not given.
type ImageResize struct {
	Width  int    `json:"width"`
	Height int    `json:"height"`
	Fit    string `json:"fit"`
	Format string `json:"format"`
}

// WatermarkApply are watermark.apply's params.
type WatermarkApply struct {
	Watermarks []Watermark `json:"watermarks"`
}

// Watermark is one of watermark.apply's watermarks.
type Watermark struct {
	Type     string  `json:"type"`
	URL      string  `json:"url"`
	AssetID  string  `json:"assetId"`
	Text     string  `json:"text"`
	Position string  `json:"position"`
	Opacity  float64 `json:"opacity"`
	Scale    float64 `json:"scale"`
	Margin   int     `json:"margin"`
	FontSize int     `json:"fontSize"`
	Color    string  `json:"color"`
}

// MockupRender are mockup.render's params; a Width of 0 keeps the
// template's.
type MockupRender struct {
	SmartObject  string            `json:"smartObject"`
	Designs      []string          `json:"designs"`
	SmartObjects map[string]string `json:"smartObjects"`
	Fit          string            `json:"fit"`
	Hide         []string          `json:"hide"`
	Show         []string          `json:"show"`
	Colors       map[string]string `json:"colors"`
	Format       string            `json:"format"`
	Width        int               `json:"width"`
	Quality      int               `json:"quality"`
}

// CaptionExtract are caption.extract's params.
type CaptionExtract struct {
	Language      string  `json:"language"`
	Format        string  `json:"format"`
	MaxCueSeconds float64 `json:"maxCueSeconds"`
}

// CaptionBurn are caption.burn's params, kino's older names read as the
// newer (CaptionAliases). FontFamily and Bold have defaults that depend on
// the font input, so "" and nil mean not given.
type CaptionBurn struct {
	Language        string  `json:"language"`
	FontFamily      string  `json:"fontFamily"`
	FontSize        int     `json:"fontSize"`
	FontColor       string  `json:"fontColor"`
	Bold            *bool   `json:"bold"`
	Italic          bool    `json:"italic"`
	OutlineColor    string  `json:"outlineColor"`
	OutlineWidth    float64 `json:"outlineWidth"`
	Shadow          float64 `json:"shadow"`
	BoxEnabled      bool    `json:"boxEnabled"`
	BoxColor        string  `json:"boxColor"`
	BoxOpacity      float64 `json:"boxOpacity"`
	Position        string  `json:"position"`
	Alignment       string  `json:"alignment"`
	MarginV         int     `json:"marginV"`
	MarginH         int     `json:"marginH"`
	MaxCharsPerLine int     `json:"maxCharsPerLine"`
}

// VideoTranscode are video.transcode's params; 0 is not given.
type VideoTranscode struct {
	Preset           string `json:"preset"`
	Width            int    `json:"width"`
	Height           int    `json:"height"`
	VideoBitrateKbps int    `json:"videoBitrateKbps"`
}

// VideoThumbnail are video.thumbnail's params; a Width of 0 keeps the
// video's.
type VideoThumbnail struct {
	Mode    string  `json:"mode"`
	At      float64 `json:"at"`
	Width   int     `json:"width"`
	Columns int     `json:"columns"`
	Rows    int     `json:"rows"`
}

// Command are the params of the command types (raw.ffmpeg, ffmpeg).
type Command struct {
	Command      string `json:"command"`
	OutputFormat string `json:"outputFormat"`
	// Timeout is in seconds.
	Timeout int `json:"timeout"`
}

// ParamsError is a job's params the catalogue refuses: a job queued
// before a rule, or a row not written by kino's API.
type ParamsError struct{ Problems []Problem }

func (e *ParamsError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.String()
	}
	return strings.Join(parts, "; ")
}

// Decoded is a job's params read into T, the struct of its type (the
// Type's Args).
type Decoded[T any] struct {
	Params T
	// Given are the names of the params the request set, sorted, as it
	// named them: Params holds defaults for the others.
	Given []string
}

// Decode reads params stored as JSON for a job of type t into T: see
// DecodeMap. A row that is not a JSON object is an error of its own, not a
// *ParamsError.
func Decode[T any](t *Type, raw []byte) (Decoded[T], error) {
	params := map[string]any{}
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &params); err != nil {
			return Decoded[T]{}, fmt.Errorf("read params: %w", err)
		}
	}
	return DecodeMap[T](t, params)
}

// DecodeMap reads params into T, the struct of type t: the catalogue's
// rules are checked first (a *ParamsError lists what breaks them, with the
// paths and words the API uses), older names become the newer
// (Type.Aliases), and every param not given that declares a Default takes
// it. params is not changed.
func DecodeMap[T any](t *Type, params map[string]any) (Decoded[T], error) {
	var d Decoded[T]
	if ps := t.ValidateParams("params", params); len(ps) > 0 {
		return d, &ParamsError{Problems: ps}
	}
	// A copy, deep: defaults go into objects of arrays too.
	var copied map[string]any
	b, err := json.Marshal(params)
	if err == nil {
		err = json.Unmarshal(b, &copied)
	}
	if err != nil {
		return d, fmt.Errorf("read params of %s: %w", t.Name, err)
	}
	v := make(map[string]any, len(copied))
	for k, x := range copied {
		if x == nil {
			continue
		}
		d.Given = append(d.Given, k)
		if name, ok := t.Aliases[k]; ok {
			k = name
		}
		v[k] = x
	}
	sort.Strings(d.Given)
	withDefaults(v, t.Params)
	b, err = json.Marshal(v)
	if err == nil {
		err = json.Unmarshal(b, &d.Params)
	}
	if err != nil {
		return d, fmt.Errorf("read params of %s: %w", t.Name, err)
	}
	return d, nil
}

// withDefaults fills in the declared defaults of the params v lacks, in
// objects and arrays of objects too.
func withDefaults(v map[string]any, fields []Param) {
	for _, f := range fields {
		x, ok := v[f.Name]
		if !ok || x == nil {
			if f.Default != nil {
				v[f.Name] = f.Default
			}
			continue
		}
		switch {
		case f.Kind == "object" && f.Values == nil:
			if m, ok := x.(map[string]any); ok {
				withDefaults(m, f.Fields)
			}
		case f.Kind == "array" && f.Items == nil:
			items, _ := x.([]any)
			for _, item := range items {
				if m, ok := item.(map[string]any); ok {
					withDefaults(m, f.Fields)
				}
			}
		}
	}
}
