// Package catalog is the one definition of kino's media job types: their
// inputs, outputs, params (with their defaults and limits) and cost, and
// the typed struct each type's params decode into. Validation of jobs and
// pipelines, the executors and GET /jobs/types all read it from here.
package catalog

import (
	"slices"
	"sort"
)

// Media kinds a field can carry.
const (
	Video     = "video"
	Audio     = "audio"
	Image     = "image"
	Subtitles = "subtitles"
	Font      = "font"
	Text      = "text"
)

// Field is an input or output of a job type.
type Field struct {
	Name        string
	Media       []string
	Required    bool
	Description string
	// Unprobed inputs are read by kino's own decoder (a PSD template),
	// not probed by ffprobe when a job downloads them.
	Unprobed bool
}

// Type is one media job type.
type Type struct {
	Name       string
	Tag        string
	Summary    string
	Pattern    string
	ProviderID string
	Resource   string
	Inputs     []Field
	Outputs    []Field
	Params     []Param
	// Check adds rules that span params (two names for one setting, say),
	// as (relative path, message) pairs.
	Check func(v map[string]any) [][2]string
	// Aliases are older names of params: older -> newer. Both are
	// declared; a job gives one (Check), and Decode reads it as the newer.
	Aliases map[string]string
	// Args is the zero value of the struct Decode reads the type's params
	// into: AudioExtract for audio.extract, say.
	Args         any
	AcceptsMedia []string
	// PricePerSecond is the price in USD per second of input media.
	PricePerSecond float64
	// PricePerMegapixel is the price in USD per megapixel of each
	// picture the job writes.
	PricePerMegapixel float64
	// MinPrice is the least a job of the type costs, in USD.
	MinPrice float64
	// MediaOverrides are prices per media kind, when they differ: made
	// from PricePerMegapixel for the types that write pictures.
	MediaOverrides map[string]any
	// Command types (raw.ffmpeg, ffmpeg) run the client's own ffmpeg
	// command, params.command: their inputs are not fields but files
	// named by the client, each staged in the job's folder under its
	// name for the command to use, and the command's own -i URLs.
	Command bool
}

// Input returns the input field named name.
func (t *Type) Input(name string) (Field, bool) { return find(t.Inputs, name) }

// Output returns the output field named name.
func (t *Type) Output(name string) (Field, bool) { return find(t.Outputs, name) }

// Needs are the names of the required inputs.
func (t *Type) Needs() []string {
	var out []string
	for _, f := range t.Inputs {
		if f.Required {
			out = append(out, f.Name)
		}
	}
	return out
}

func find(fs []Field, name string) (Field, bool) {
	for _, f := range fs {
		if f.Name == name {
			return f, true
		}
	}
	return Field{}, false
}

// Lookup returns the type named name.
func Lookup(name string) (*Type, bool) {
	t, ok := byName[name]
	return t, ok
}

// All returns every type, sorted by name.
func All() []*Type { return all }

// Names returns every type name, sorted.
func Names() []string {
	out := make([]string, len(all))
	for i, t := range all {
		out[i] = t.Name
	}
	return out
}

// Compatible reports whether an output can feed an input: they share a media kind.
func Compatible(out, in Field) bool {
	for _, m := range out.Media {
		if slices.Contains(in.Media, m) {
			return true
		}
	}
	return false
}

//nolint:gochecknoglobals // the catalogue's index, built once by init from types and read-only after
var (
	all    []*Type
	byName = map[string]*Type{}
)

func init() {
	for _, t := range types {
		if t.PricePerMegapixel > 0 {
			t.MediaOverrides = map[string]any{Image: map[string]any{"pricePerMegapixel": t.PricePerMegapixel, "minPrice": t.MinPrice}}
		}
		byName[t.Name] = t
		all = append(all, t)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Name < all[j].Name })
}

// Render prices renders (POST /api/render), which are not in the
// catalogue: per second of output, and per megapixel for a still (a png
// or jpg of one frame).
//
//nolint:gochecknoglobals // read-only: the prices of renders, a catalogue entry like the types
var Render = &Type{Name: "render", PricePerSecond: 0.002, PricePerMegapixel: 0.0004, MinPrice: 0.001}
