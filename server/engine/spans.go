package engine

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/kinohq/kino/server/glyphs"
)

// Rich text: a text layer's spans, runs of its text each in a colour,
// font, size, features and background of its own, laid out as one
// paragraph by the text engine (glyphs.Shaper.LayoutSpans), drawn as one
// picture as a layer of one text is.

const (
	// maxSpans bounds a text layer's spans: each is shaped apart, with
	// fonts of its own.
	maxSpans = 100
	// maxFontSize bounds fontSize, a layer's and a span's.
	maxFontSize = 2000
)

// layerText reads a text layer's text, which spans may replace.
func (c *compiler) layerText(o *object) string {
	if !o.has("text") {
		if c.r.err == nil {
			c.r.fail(o.field("text"), `is required: the layer's text (or spans: runs of it in styles of their own, [{"text": …, "color": …}, …])`)
		}
		return ""
	}
	return o.text("text", c.lim.MaxTextLength)
}

// spans reads a text layer's spans, once its own fields (the spans'
// defaults) are read. Their texts together are the layer's Text.
func (c *compiler) spans(o *object, l *Layer) {
	if o.has("text") {
		if c.r.err == nil {
			c.r.fail(o.field("spans"), "hold the layer's text in runs: give text or spans, not both")
		}
		return
	}
	list := o.array("spans", maxSpans)
	if c.r.err != nil {
		return
	}
	if len(list) == 0 {
		c.r.fail(o.field("spans"), `is an empty list: give at least one span, {"text": …}`)
		return
	}
	var all strings.Builder
	rich := &TextSpans{}
	for i, v := range list {
		so := c.r.object(fmt.Sprintf("%s[%d]", o.field("spans"), i), v)
		sp := TextSpan{Field: so.path}
		text, ok := so.str("text")
		switch {
		case !ok:
			if !so.has("text") {
				c.r.fail(so.field("text"), "is required")
			}
		case text == "":
			c.r.fail(so.field("text"), "must not be empty")
		case strings.ContainsRune(text, 0):
			c.r.fail(so.field("text"), "must not contain NUL characters")
		}
		sp.Text = text
		all.WriteString(text)
		sp.Color = so.color("color", l.Color)
		sp.Background = so.color("backgroundColor", "")
		sp.FontSize = so.integer("fontSize", l.FontSize, 1, maxFontSize)
		sp.Font, sp.FontField, sp.Fallback = l.Font, l.FontField, l.Fallback
		if so.has("font") {
			sp.Font, sp.FontField, sp.Fallback = c.textFonts(so)
		}
		sp.Features = l.Style.Features
		if so.has("fontFeatures") {
			sp.Features = c.fontFeatures(so)
		}
		sp.Lang = c.lang(so, l.Style.Lang)
		so.done()
		rich.List = append(rich.List, sp)
	}
	if c.r.err != nil {
		return
	}
	l.Text = all.String()
	if n := utf8.RuneCountInString(l.Text); n > c.lim.MaxTextLength {
		c.r.fail(o.field("spans"), "hold %d characters together; at most %d are allowed", n, c.lim.MaxTextLength)
		return
	}
	if strings.TrimSpace(l.Text) == "" {
		c.r.fail(o.field("spans"), "hold white space only: give some text to draw")
		return
	}
	l.Spans = rich
}

// textField is the field that holds a text layer's text: text, or spans.
func (l Layer) textField() string {
	if l.Spans != nil {
		return l.Field + ".spans"
	}
	return l.Field + ".text"
}

// downloadedFont is the field of a font the layer or one of its spans
// downloads (the first), or "" when they draw in the default font only.
func (l Layer) downloadedFont() string {
	if l.Font != "" {
		return l.FontField
	}
	if l.Spans != nil {
		for _, sp := range l.Spans.List {
			if sp.Font != "" {
				return sp.FontField
			}
		}
	}
	return ""
}

// glyphSpans are the layer's spans as the text engine takes them, each
// in its chain of fonts (the default font's, where the span names none);
// nil for a layer of one text.
func (p *planner) glyphSpans(l Layer, defaultFont string) ([]glyphs.Span, error) {
	if l.Spans == nil {
		return nil, nil
	}
	out := make([]glyphs.Span, 0, len(l.Spans.List))
	for _, sp := range l.Spans.List {
		lf := l
		lf.Font, lf.FontField, lf.Fallback, lf.Spans = sp.Font, sp.FontField, sp.Fallback, nil
		path, err := p.fontPath(lf, defaultFont)
		if err != nil {
			return nil, err
		}
		fonts, err := p.fontChain(lf, path)
		if err != nil {
			return nil, err
		}
		feats, err := parseFeatures(sp.Features, sp.Field+".fontFeatures")
		if err != nil {
			return nil, err
		}
		if feats == nil {
			feats = []glyphs.Feature{} // none, not the layer's
		}
		gs := glyphs.Span{Text: sp.Text, Size: float64(sp.FontSize), Fonts: fonts, Features: feats, Lang: sp.Lang}
		fill := nrgba(sp.Color)
		gs.Fill = &fill
		if sp.Background != "" {
			bg := nrgba(sp.Background)
			gs.Background = &bg
		}
		out = append(out, gs)
	}
	return out, nil
}

// parseFeatures reads features as TextStyle.Features holds them.
func parseFeatures(s, field string) ([]glyphs.Feature, error) {
	if s == "" {
		return nil, nil
	}
	var feats []glyphs.Feature
	for _, f := range strings.Split(s, ",") {
		ft, err := glyphs.ParseFeature(f)
		if err != nil {
			return nil, &ValidationError{Field: field, Message: err.Error()}
		}
		feats = append(feats, ft)
	}
	return feats, nil
}

// spanBackground is the colour of the first span's background, or the
// layer's colour when no span has one: what a picture of the spans'
// backgrounds holds where it is transparent (see textPictureSize.image).
func (l Layer) spanBackground() string {
	if l.Spans != nil {
		for _, sp := range l.Spans.List {
			if sp.Background != "" {
				return sp.Background
			}
		}
	}
	return l.Color
}
