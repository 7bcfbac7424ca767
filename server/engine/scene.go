// Package engine turns a composition into an ffmpeg command. Compile parses
// and validates a composition in one of the supported formats into a Scene,
// the one internal model; Plan turns a Scene and the probed media into
// ffmpeg arguments. Both are pure: nothing here runs a process, so every
// rule is testable without ffmpeg, and a composition that compiles renders.
package engine

import "fmt"

// Limits bound what a composition may ask for.
type Limits struct {
	MaxWidth, MaxHeight int
	MaxFPS              int
	// MaxDuration is in seconds.
	MaxDuration   float64
	MaxLayers     int
	MaxAssets     int
	MaxTextLength int
}

// DefaultLimits are the limits of a kino started without flags.
func DefaultLimits() Limits {
	return Limits{MaxWidth: 3840, MaxHeight: 2160, MaxFPS: 60, MaxDuration: 600, MaxLayers: 100, MaxAssets: 50, MaxTextLength: 5000}
}

// ValidationError names a field of the request, by its JSON path, and what
// is wrong with it.
type ValidationError struct {
	Field   string
	Message string
}

func (e *ValidationError) Error() string { return e.Field + ": " + e.Message }

// MediaError is a downloaded source that does not fit the layer using it.
type MediaError struct {
	Field   string
	Message string
}

func (e *MediaError) Error() string { return e.Field + ": " + e.Message }

// Kind is what a layer draws or plays.
type Kind string

// The layer kinds.
const (
	KindColor Kind = "color"
	KindImage Kind = "image"
	KindVideo Kind = "video"
	KindText  Kind = "text"
	KindAudio Kind = "audio"
)

// Scene is a validated composition: the output settings and the layers,
// bottom first.
type Scene struct {
	Width, Height, FPS int
	// Duration of the output in seconds.
	Duration float64
	// Background is an ffmpeg colour (0xRRGGBBAA).
	Background string
	// Format is "mp4" or "webm".
	Format string
	Layers []Layer

	sources []Source
}

// Pos is a coordinate in pixels, or centred.
type Pos struct {
	Center bool
	Px     int
}

// Layer is one element of the scene, in scene time.
type Layer struct {
	Kind Kind
	// Field is the layer's JSON path, for messages.
	Field    string
	Start    float64
	Duration float64
	// Color of a color layer, or of a text layer's glyphs (0xRRGGBBAA).
	Color string
	// Source is the key of the media (Scene.Sources) of image, video and audio layers.
	Source string
	// SourceField is the JSON path of the layer's src, for messages.
	SourceField string
	Text        string
	FontSize    int
	// Font is the key of a font source, or empty for the default font.
	Font string
	X, Y Pos
	// Width and Height of the drawn layer; 0 means natural size (full frame for color).
	Width, Height   int
	Opacity         float64
	FadeIn, FadeOut float64
	TrimStart       float64
	Volume          float64
}

// End is when the layer stops, in scene time.
func (l Layer) End() float64 { return l.Start + l.Duration }

// Source is one file a render downloads.
type Source struct {
	// Key names the source in the media map given to Plan.
	Key string
	URL string
	// Font marks a font file (not probed as media).
	Font bool
	// Field is the JSON path that first named it, for messages.
	Field string
}

// Sources are the distinct files to download before planning.
func (s *Scene) Sources() []Source { return s.sources }

// addSource returns the key of url, registering it once.
func (s *Scene) addSource(url string, font bool, field string) string {
	for _, src := range s.sources {
		if src.URL == url && src.Font == font {
			return src.Key
		}
	}
	key := fmt.Sprintf("s%d", len(s.sources))
	s.sources = append(s.sources, Source{Key: key, URL: url, Font: font, Field: field})
	return key
}
