package engine

import "fmt"

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

// Layer is one element of the scene, in scene time. Times are in seconds,
// rounded to the microsecond.
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
	// FontField is the JSON path of the layer's font, for messages.
	FontField string
	X, Y      Pos
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

// Sources are the distinct files to download before planning, in the
// order the composition first names them.
func (s *Scene) Sources() []Source { return s.sources }

// addSource returns the key of url, registering it once: a file used by
// several layers is downloaded once.
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
