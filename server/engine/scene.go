package engine

import (
	"fmt"
)

// Kind is what a layer draws or plays.
type Kind string

// The layer kinds.
const (
	KindColor Kind = "color"
	KindImage Kind = "image"
	KindVideo Kind = "video"
	KindText  Kind = "text"
	KindAudio Kind = "audio"
	// KindRectangle and KindEllipse are shapes: filled with Color or
	// Gradient, outlined by Stroke.
	KindRectangle Kind = "rectangle"
	KindEllipse   Kind = "ellipse"
	// KindMockup draws its picture or video (Source) into a smart object
	// of a PSD template (Mockup), and the template around it.
	KindMockup Kind = "mockup"
)

// Scene is a validated composition: the output settings and the layers,
// bottom first.
type Scene struct {
	Width, Height, FPS int
	// Duration of the output in seconds.
	Duration float64
	// Background is an ffmpeg colour (0xRRGGBBAA).
	Background string
	// Format is the output format: mp4, webm, mov, gif, png, jpg, mp3 or
	// wav.
	Format string
	// FrameTime is the time of the frame a still (png, jpg) shows.
	FrameTime float64
	// Poster and Thumbnail are pictures asked for beside a video; nil
	// when not asked for.
	Poster, Thumbnail *Capture
	Layers            []Layer
	// Loudness normalises the mixed sound; nil leaves it as mixed.
	Loudness *Loudness

	sources []Source
	// lead is how many frames of a part's timeline (Part) come before
	// its first frame; they are drawn by no one and not encoded.
	lead int
	// stillCut marks the scene of a still's one frame (StillFrame).
	stillCut bool
	// scaleTo is the size a preview's frame is scaled to once drawn
	// (Preview); zero: the scene's own.
	scaleTo [2]int
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
	// Color of a color layer, of a text layer's glyphs, or of a shape's
	// fill (0xRRGGBBAA); empty for a shape filled with a gradient or not
	// at all.
	Color string
	// Source is the key of the media (Scene.Sources) of image, video and audio layers.
	Source string
	// SourceField is the JSON path of the layer's src, for messages.
	SourceField string
	// Text is a text layer's text: its spans' texts together when it has
	// spans.
	Text     string
	FontSize int
	// Spans are a text layer's runs of text in styles of their own; nil
	// when it has one text (a pointer keeps Layer comparable).
	Spans *TextSpans
	// Font is the key of a font source, or empty for the default font.
	Font string
	// FontField is the JSON path of the layer's font, for messages.
	FontField string
	// Fallback are the keys of the fonts after Font, in order, of a text
	// layer whose font is a list, joined by commas (a string keeps Layer
	// comparable); their fields are FontField's list's.
	Fallback string
	X, Y     Pos
	// Width and Height of the drawn layer; 0 means natural size (full frame for color).
	Width, Height   int
	Opacity         float64
	FadeIn, FadeOut float64
	TrimStart       float64
	Volume          float64
	// Motion is what changes over the layer's life; nil for a still layer
	// (a pointer keeps Layer comparable).
	Motion *Motion
	// Style lays out and decorates a text layer; its zero value is plain
	// text, drawn as it always was.
	Style TextStyle
	// Radius rounds the corners of a rectangle, or of a text layer's
	// background box.
	Radius int
	// Stroke outlines a shape, or the glyphs of a text layer.
	Stroke Stroke
	// Gradient fills a shape instead of Color.
	Gradient *Gradient
	// ID names the layer for other layers' fields (duck.under); empty
	// when it has none.
	ID string
	// Look is how an image or video layer's picture is cut, flipped,
	// fitted and coloured; the zero value draws it as it is.
	Look Look
	// Playback is how a video or audio layer's source plays; the zero
	// value plays it once, at its own speed.
	Playback Playback
	// Duck lowers the layer's sound while other layers' sound plays; nil
	// when it does not.
	Duck *Duck
	// Captions are a captions layer's cues and how they show; nil on
	// other layers.
	Captions *Captions
	// Mockup is the template a mockup layer draws its source into; nil on
	// other layers.
	Mockup *Mockup
	// SkipFrames are the frames of a video layer that a part of a split
	// render (Scene.Part) does not show: the layer was cut to start with
	// the part, and its source still plays from its trim.
	SkipFrames int
	// FirstFrame is how far past its trim the first frame of the source
	// that the whole render shows lies (Scene.Seeked), known
	// when Seek is set: a cut video then seeks near its part instead of
	// decoding from its trim (see SeekLayers).
	FirstFrame float64
	Seek       bool
}

// Mockup is the PSD template of a mockup layer and how the layer's
// source fills one of its smart objects, as mockup.render takes them.
type Mockup struct {
	// Template is the key of the template's source (Source.Template).
	Template string
	// SmartObject is the layer path the source replaces; empty for the
	// template's only smart object.
	SmartObject string
	// Fit is "cover", "contain" or "fill".
	Fit string
	// Hide and Show are layer paths to hide, or to show though hidden.
	Hide, Show []string
	// Fields are the JSON paths of template, smartObject, hide and show,
	// for messages.
	TemplateField, SmartObjectField, HideField, ShowField string
}

// TextStyle is how a text layer is laid out in its box and decorated.
// Zero values are the defaults: left aligned, at the top, the font's own
// line height, no background, no padding, no shadow.
type TextStyle struct {
	// Align is "left", "center" or "right", or empty for left.
	Align string
	// VerticalAlign is "top", "middle" or "bottom", or empty for top: where
	// the lines sit in a box given a height.
	VerticalAlign string
	// LineHeight is the distance between baselines as a multiple of the
	// font size; 0 is the font's own.
	LineHeight float64
	// Background is the colour of the box (0xRRGGBBAA), or empty for none.
	Background         string
	PaddingX, PaddingY int
	Shadow             Shadow
	// Features are the OpenType features set on the text, as
	// fontFeatures gives them, joined by commas ("smcp,-liga"); empty
	// for the font's defaults.
	Features string
	// Lang is the text's language, a BCP 47 tag, or empty for none: it
	// picks the face of the machine's Chinese, Japanese and Korean fonts
	// and the fonts' forms of the language.
	Lang string
	// Shrink draws the text at the largest size up to the font size at
	// which it fits its box (fit: "shrink").
	Shrink bool
	// MaxLines keeps the first lines, the last ending in an ellipsis when
	// text is cut; 0 keeps every line.
	MaxLines int
}

// TextSpans are the spans of a text layer, in the order of its text.
type TextSpans struct {
	List []TextSpan
}

// TextSpan is a run of a text layer's text in a style of its own, laid
// out with the others as one paragraph. Each field is the layer's unless
// the span sets its own.
type TextSpan struct {
	// Field is the span's JSON path, for messages.
	Field string
	Text  string
	// Color is the colour of the span's glyphs (0xRRGGBBAA).
	Color string
	// Background is the colour painted behind the span's glyphs, or
	// empty for none.
	Background string
	FontSize   int
	// Font, FontField and Fallback are the span's fonts, as Layer's.
	Font, FontField, Fallback string
	// Features are the span's OpenType features, as TextStyle's.
	Features string
	// Lang is the span's language, as TextStyle's.
	Lang string
}

// Stroke is an outline Width pixels wide; no outline when Width is 0.
type Stroke struct {
	Color string
	Width int
}

// Shadow is a copy of the glyphs (and their stroke) under them, X, Y
// pixels away, blurred over Blur pixels; none when Color is empty.
type Shadow struct {
	Color      string
	X, Y, Blur int
}

// Gradient is a linear or radial blend of colours across a shape.
type Gradient struct {
	Radial bool
	// Angle of a linear gradient in degrees, as in CSS: 0 upwards, 90 to
	// the right, 180 downwards.
	Angle float64
	Stops []GradientStop
}

// GradientStop is a colour (0xRRGGBBAA) at an offset from 0 to 1.
type GradientStop struct {
	Offset float64
	Color  string
}

// styled reports whether a text layer is laid out in a box (wrapped,
// aligned, boxed or decorated) rather than placed as plain text, its
// glyphs' top at y. OpenType features alone leave text plain.
func (l Layer) styled() bool {
	st := l.Style
	st.Features, st.Lang = "", ""
	return st != (TextStyle{}) || l.Radius > 0 || l.Stroke.Width > 0 || l.Width > 0 || l.Height > 0
}

// still is the motion of a layer that does not move.
//
//nolint:gochecknoglobals // the zero Motion, used as a constant (a struct cannot be one)
var still Motion

// motion is the layer's motion, never nil.
func (l Layer) motion() *Motion {
	if l.Motion == nil {
		return &still
	}
	return l.Motion
}

// End is when the layer stops, in scene time.
func (l Layer) End() float64 { return l.Start + l.Duration }

// Source is one file a render downloads, or reads from storage.
type Source struct {
	// Key names the source in the media map given to Plan.
	Key string
	// URL is where it is downloaded from, or an uploaded asset's id
	// (ident.IsAsset), which the render reads from storage.
	URL string
	// Font marks a font file (not probed as media).
	Font bool
	// Captions marks an SRT or WebVTT file, which the caller parses
	// (ParseCues) and gives to the layers that name it (SetCues).
	Captions bool
	// Template marks a PSD template of a mockup layer (not probed: Plan
	// reads it, given Media with Template set).
	Template bool
	// Field is the JSON path that first named it, for messages.
	Field string
}

// Sources are the distinct files to download before planning, in the
// order the composition first names them.
func (s *Scene) Sources() []Source { return s.sources }

// addSource returns the key of url, registering it once: a file used by
// several layers is downloaded once.
func (s *Scene) addSource(url string, font bool, field string) string {
	return s.add(Source{URL: url, Font: font, Field: field})
}

func (s *Scene) add(src Source) string {
	for _, have := range s.sources {
		if have.URL == src.URL && have.Font == src.Font && have.Captions == src.Captions && have.Template == src.Template {
			return have.Key
		}
	}
	src.Key = fmt.Sprintf("s%d", len(s.sources))
	s.sources = append(s.sources, src)
	return src.Key
}
