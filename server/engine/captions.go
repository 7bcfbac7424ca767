package engine

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/kinohq/kino/server/ident"
)

// KindCaptions is a layer of timed captions: cues from an SRT or WebVTT
// file or text, or from transcribing another layer's sound.
const KindCaptions Kind = "captions"

// maxLinesPerCue bounds captions' maxLines.
const maxLinesPerCue = 10

// maxHighlightScale bounds highlightScale: a word three times its size
// still sits in its line.
const maxHighlightScale = 3

// Captions is where a captions layer's cues come from and how they show.
// Exactly one of Cues (inline), Source or Transcribe is set by Compile;
// the caller of Plan fills Cues for the other two (downloading and
// parsing the file, or transcribing), so the engine reads no file but
// fonts.
type Captions struct {
	// Cues are the cues in scene time, ready for Plan.
	Cues []Cue
	// Source is the key of an SRT or WebVTT file among the scene's
	// sources (Source.Captions); SourceField names the src.
	Source, SourceField string
	// Transcribe is the index in Scene.Layers of the video or audio layer
	// whose sound is transcribed, -1 when none is; TranscribeField names
	// the field, for messages.
	Transcribe int
	// TranscribeMix transcribes the composition's sound, every layer's
	// mixed, instead of one layer's.
	TranscribeMix   bool
	TranscribeField string
	transcribeID    string
	// Highlight is the colour (0xRRGGBBAA) of the word being spoken, or
	// empty for none.
	Highlight string
	// HighlightBackground is the colour of a box behind the word being
	// spoken, or empty for none.
	HighlightBackground string
	// HighlightScale grows the word being spoken (1 leaves it).
	HighlightScale float64
	// MaxLines splits a cue that wraps to more lines into several, shown
	// one after the other; 0 keeps every cue whole.
	MaxLines int
}

// captions reads a captions layer's source and its captions-only fields
// from o (the layer in provider_a, the clip's asset in unified); its
// style is read as a text layer's.
func (c *compiler) captions(o *object, l *Layer) {
	cp := &Captions{Transcribe: -1}
	l.Captions = cp
	n := 0
	for _, k := range []string{"src", "text", "words", "transcribe"} {
		if o.has(k) {
			n++
		}
	}
	if n != 1 && c.r.err == nil {
		c.r.fail(o.field("src"), "a captions layer takes exactly one of src (an SRT, WebVTT or JSON of words file), text (SRT or WebVTT, inline), words (timed words, inline) and transcribe")
		return
	}
	switch {
	case o.has("src"):
		cp.Source, cp.SourceField = c.captionSource(o)
	case o.has("text"):
		s, _ := o.str("text")
		if c.r.err != nil {
			return
		}
		cues, err := ParseCues([]byte(s))
		if err != nil {
			c.r.fail(o.field("text"), "%s", err.Error())
			return
		}
		cp.Cues = cues
	case o.has("words"):
		v, _ := o.get("words")
		data, err := json.Marshal(v)
		if err == nil && len(data) > MaxCaptionBytes {
			err = fmt.Errorf("is %d bytes as JSON; at most %d are allowed", len(data), MaxCaptionBytes)
		}
		var cues []Cue
		if err == nil {
			cues, err = parseWordsFile(data)
		}
		if err == nil && len(cues) == 0 {
			err = errors.New("holds no words")
		}
		if err != nil {
			c.r.fail(o.field("words"), "%s", err.Error())
			return
		}
		cp.Cues = cues
	default:
		t := o.child("transcribe")
		cp.TranscribeField = t.field("layer")
		if t.has("layer") {
			cp.transcribeID, _ = t.str("layer")
		} else {
			cp.TranscribeField, cp.TranscribeMix = o.field("transcribe"), true
		}
		t.done()
	}
	cp.Highlight = o.color("highlightColor", "")
	cp.HighlightBackground = o.color("highlightBackground", "")
	cp.HighlightScale = o.number("highlightScale", 1, 0.5, maxHighlightScale)
	cp.MaxLines = o.integer("maxLines", 0, 1, maxLinesPerCue)
	l.FontSize = o.integer("fontSize", max(8, c.scene.Height/15), 1, 2000)
	l.Color = o.color("color", "0xFFFFFFFF")
	if o.has("font") {
		l.Font, l.FontField = c.source(o, "font", true)
	}
	st := &l.Style
	st.Align = o.enum("align", "center", "left", "center", "right")
	st.VerticalAlign = o.enum("verticalAlign", "bottom", "top", "middle", "bottom")
	st.Background = o.color("backgroundColor", "")
	st.PaddingX = o.integer("paddingX", 0, 0, maxPadding)
	st.PaddingY = o.integer("paddingY", 0, 0, maxPadding)
	c.stroke(o, l)
	st.Shadow.Color = o.color("shadowColor", "")
	st.Shadow.X = o.integer("shadowX", 0, -maxShadowShift, maxShadowShift)
	st.Shadow.Y = o.integer("shadowY", 0, -maxShadowShift, maxShadowShift)
	if st.Shadow.Color == "" {
		for _, key := range []string{"shadowX", "shadowY"} {
			if o.has(key) && c.r.err == nil {
				c.r.fail(o.field(key), "shapes the shadow: set shadowColor too")
			}
		}
	}
}

// captionSource resolves a captions src: a key of assetUrls, a URL or the
// id of an uploaded captions asset (whose type the caller checks: the
// engine reads no store).
func (c *compiler) captionSource(o *object) (string, string) {
	field := o.field("src")
	s, _ := o.str("src")
	if u, isKey := c.assets[s]; isKey {
		s = u
	}
	if !validURL(s) && !ident.IsAsset(s) {
		c.r.fail(field, "no such asset key %q in assetUrls, and not an http or https URL or an asset id", s)
		return "", field
	}
	return c.scene.add(Source{URL: s, Captions: true, Field: field}), field
}

// checkCaptions refuses what a captions layer does not do: it neither
// moves nor fades (each cue shows for its own time), and checks that a
// transcribed layer exists and has sound.
func (c *compiler) checkCaptions(o *object, l *Layer) {
	if l.Kind != KindCaptions || c.r.err != nil {
		return
	}
	switch {
	case l.Motion.X != nil:
		c.r.fail(l.Field+".x", "captions do not move: give a number of pixels or \"center\"")
	case l.Motion.Y != nil:
		c.r.fail(l.Field+".y", "captions do not move: give a number of pixels or \"center\"")
	case l.Motion.Opacity != nil:
		c.r.fail(l.Field+".opacity", "captions have one opacity: give a number from 0 to 1")
	case l.FadeIn > 0 || l.FadeOut > 0:
		c.r.fail(l.Field+".fadeIn", "captions do not fade: each cue shows for its own time")
	case l.Style.PaddingX > 0 && l.Style.Background == "":
		c.r.fail(o.field("paddingX"), "pads the background box: set backgroundColor too")
	case l.Style.PaddingY > 0 && l.Style.Background == "":
		c.r.fail(o.field("paddingY"), "pads the background box: set backgroundColor too")
	}
}

// resolveTranscribe finds the layers captions transcribe, once every
// layer is read.
func (c *compiler) resolveTranscribe() {
	for i := range c.scene.Layers {
		l := &c.scene.Layers[i]
		if l.Captions == nil || l.Captions.transcribeID == "" || c.r.err != nil {
			continue
		}
		cp := l.Captions
		for j, k := range c.scene.Layers {
			if k.ID == cp.transcribeID {
				cp.Transcribe = j
			}
		}
		switch {
		case cp.Transcribe < 0:
			c.r.fail(cp.TranscribeField, "no layer has the id %q", cp.transcribeID)
		case c.scene.Layers[cp.Transcribe].Kind != KindVideo && c.scene.Layers[cp.Transcribe].Kind != KindAudio:
			c.r.fail(cp.TranscribeField, "%q is a %s layer, which has no sound", cp.transcribeID, c.scene.Layers[cp.Transcribe].Kind)
		}
	}
}

// SetCues gives a captions layer the cues of its file, parsed, or of its
// transcription, in the layer's time (0 is the layer's start); Plan cuts
// them to the layer's time.
func (s *Scene) SetCues(layer int, cues []Cue) {
	cp := *s.Layers[layer].Captions
	cp.Cues = append([]Cue{}, cues...)
	s.Layers[layer].Captions = &cp
}

// ErrNoCues is returned by Plan for a captions layer whose cues were
// never given (SetCues).
var ErrNoCues = errors.New("the captions were not read before planning")

func (p *planner) captionsReady(l Layer) error {
	if l.Captions.Cues == nil && (l.Captions.Source != "" || l.Captions.Transcribe >= 0 || l.Captions.TranscribeMix) {
		return fmt.Errorf("%s: %w", l.Field, ErrNoCues)
	}
	return nil
}

// highlights reports whether the word being spoken is drawn apart.
func (cp *Captions) highlights() bool {
	return cp.Highlight != "" || cp.HighlightBackground != "" || (cp.HighlightScale != 0 && cp.HighlightScale != 1)
}
