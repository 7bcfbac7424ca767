package engine

import (
	"fmt"
	"strings"

	"github.com/kinohq/kino/server/glyphs"
)

// Bounds of the style fields, in pixels: far beyond any sensible value,
// close enough to keep one frame of a layer small.
const (
	maxPadding     = 2000
	maxStrokeWidth = 500
	maxShadowShift = 1000
	maxShadowBlur  = 100
	maxGradStops   = 16
	maxFeatures    = 32
	maxTextLines   = 10000
)

// textStyle reads how a text layer is laid out and decorated, from the
// object that holds its text. The layer's width and height, read with
// its placement, are its box.
func (c *compiler) textStyle(o *object, l *Layer) {
	st := &l.Style
	st.Align = o.enum("align", "", "left", "center", "right")
	st.VerticalAlign = o.enum("verticalAlign", "", "top", "middle", "bottom")
	if o.has("verticalAlign") && l.Height == 0 && c.r.err == nil {
		c.r.fail(o.field("verticalAlign"), "places the lines in the layer's height: set a height too")
	}
	st.LineHeight = o.number("lineHeight", 0, 0.1, 10)
	st.Background = o.color("backgroundColor", "")
	st.PaddingX = o.integer("paddingX", 0, 0, maxPadding)
	st.PaddingY = o.integer("paddingY", 0, 0, maxPadding)
	if l.Width > 0 && l.Width <= 2*st.PaddingX && c.r.err == nil {
		c.r.fail(o.field("paddingX"), "leaves no room for text in a width of %d", l.Width)
	}
	if l.Height > 0 && l.Height <= 2*st.PaddingY && c.r.err == nil {
		c.r.fail(o.field("paddingY"), "leaves no room for text in a height of %d", l.Height)
	}
	l.Radius = o.integer("borderRadius", 0, 0, 2*c.lim.MaxWidth)
	if o.has("borderRadius") && st.Background == "" && c.r.err == nil {
		c.r.fail(o.field("borderRadius"), "rounds the background box: set backgroundColor too")
	}
	c.stroke(o, l)
	st.Features = c.fontFeatures(o)
	st.Lang = c.lang(o, "")
	st.Shrink = o.enum("fit", "", "shrink") == "shrink"
	if st.Shrink && l.Width == 0 && c.r.err == nil {
		c.r.fail(o.field("fit"), "shrinks the text to fit its box: set a width (and a height, or maxLines, to bound its lines)")
	}
	st.MaxLines = o.integer("maxLines", 0, 1, maxTextLines)
	st.Shadow.Color = o.color("shadowColor", "")
	st.Shadow.X = o.integer("shadowX", 0, -maxShadowShift, maxShadowShift)
	st.Shadow.Y = o.integer("shadowY", 0, -maxShadowShift, maxShadowShift)
	st.Shadow.Blur = o.integer("shadowBlur", 0, 0, maxShadowBlur)
	if st.Shadow.Color == "" {
		for _, key := range []string{"shadowX", "shadowY", "shadowBlur"} {
			if o.has(key) && c.r.err == nil {
				c.r.fail(o.field(key), "shapes the shadow: set shadowColor too")
			}
		}
	}
}

// maxFonts bounds a text layer's list of fonts.
const maxFonts = 8

// textFonts reads a text layer's (or a span's) font: one font, or a list
// of fonts, each drawing the characters the ones before it lack. It
// returns the first font's key and field, and the keys of the others
// joined by commas (Layer.Fallback).
func (c *compiler) textFonts(o *object) (font, field, fallback string) {
	v, _ := o.get("font")
	if _, isList := v.([]any); !isList {
		font, field = c.source(o, "font", true)
		return font, field, ""
	}
	list := o.array("font", maxFonts)
	if len(list) == 0 {
		if c.r.err == nil {
			c.r.fail(o.field("font"), "is an empty list: give a font, or a list of fonts, or no font for the default")
		}
		return "", o.field("font"), ""
	}
	fonts := map[string]any{}
	var keys []string
	for i, f := range list {
		name := fmt.Sprintf("font[%d]", i)
		fonts[name] = f
		entry := &object{r: o.r, path: o.path, m: fonts, seen: map[string]bool{}}
		key, f := c.source(entry, name, true)
		if i == 0 {
			font, field = key, f
		} else {
			keys = append(keys, key)
		}
	}
	return font, field, strings.Join(keys, ",")
}

// lang reads lang, the language of a layer's (or a span's) text as a
// BCP 47 tag ("ja", "zh-Hant", "ko-KR"): letters and digits in subtags
// of one to eight, joined by hyphens, the first of two or three letters.
// def is the language when lang is not given.
func (c *compiler) lang(o *object, def string) string {
	s, ok := o.str("lang")
	if !ok {
		return def
	}
	if !validLang(s) {
		if c.r.err == nil {
			c.r.fail(o.field("lang"), `must be a language tag (BCP 47) such as "ja", "zh-Hans", "zh-TW" or "ko"`)
		}
		return def
	}
	return s
}

// validLang reports a tag of BCP 47's syntax: a primary language of two
// or three letters, then subtags of one to eight letters and digits.
func validLang(s string) bool {
	if len(s) > 35 {
		return false
	}
	for i, sub := range strings.Split(s, "-") {
		if len(sub) < 1 || len(sub) > 8 || i == 0 && (len(sub) < 2 || len(sub) > 3) {
			return false
		}
		for _, r := range sub {
			letter := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
			if !letter && (i == 0 || r < '0' || r > '9') {
				return false
			}
		}
	}
	return true
}

// fontFeatures reads fontFeatures, a list of OpenType features as CSS's
// font-feature-settings writes them ("smcp", "-liga", "ss01=2"), joined by
// commas.
func (c *compiler) fontFeatures(o *object) string {
	if !o.has("fontFeatures") {
		return ""
	}
	var out []string
	for i, v := range o.array("fontFeatures", maxFeatures) {
		s, ok := v.(string)
		field := fmt.Sprintf("%s[%d]", o.field("fontFeatures"), i)
		if !ok {
			if c.r.err == nil {
				c.r.fail(field, `must be a string: a feature's tag, on ("smcp") or off ("-liga"), or with a value ("ss01=2")`)
			}
			return ""
		}
		ft, err := glyphs.ParseFeature(s)
		if err != nil {
			if c.r.err == nil {
				c.r.fail(field, "%s", err.Error())
			}
			return ""
		}
		out = append(out, fmt.Sprintf("%s=%d", ft.Tag, ft.Value))
	}
	return strings.Join(out, ",")
}

// stroke reads strokeWidth and strokeColor (black by default).
func (c *compiler) stroke(o *object, l *Layer) {
	l.Stroke.Width = o.integer("strokeWidth", 0, 0, maxStrokeWidth)
	l.Stroke.Color = o.color("strokeColor", "0x000000FF")
	if o.has("strokeColor") && l.Stroke.Width == 0 && c.r.err == nil {
		c.r.fail(o.field("strokeColor"), "colours the outline: set strokeWidth too")
	}
	if l.Stroke.Width == 0 {
		l.Stroke.Color = ""
	}
}

// shape reads the fill and outline of a rectangle or an ellipse: a colour
// or a gradient, a stroke, or both.
func (c *compiler) shape(o *object, l *Layer) {
	if l.Kind == KindRectangle {
		l.Radius = o.integer("borderRadius", 0, 0, 2*c.lim.MaxWidth)
	}
	l.Color = o.color("color", "")
	if o.has("gradient") {
		if o.has("color") && c.r.err == nil {
			c.r.fail(o.field("gradient"), "fills the shape instead of color: set one of them")
		}
		l.Gradient = c.gradient(o.child("gradient"))
	}
	c.stroke(o, l)
	if l.Color == "" && l.Gradient == nil && l.Stroke.Width == 0 && c.r.err == nil {
		c.r.fail(o.field("color"), "is required: a colour, or a gradient, or a strokeWidth for an outline alone")
	}
}

// gradient reads {type, angle, stops: [{offset, color}, …]}.
func (c *compiler) gradient(o *object) *Gradient {
	g := &Gradient{Radial: o.enum("type", "linear", "linear", "radial") == "radial"}
	if g.Radial {
		if o.has("angle") && c.r.err == nil {
			c.r.fail(o.field("angle"), "only a linear gradient has an angle")
		}
	} else {
		g.Angle = o.number("angle", 180, -360, 360)
	}
	stops := o.array("stops", maxGradStops)
	o.done()
	if c.r.err != nil {
		return g
	}
	if len(stops) < 2 {
		c.r.fail(o.field("stops"), "needs at least 2 stops")
		return g
	}
	for i, v := range stops {
		s := c.r.object(fmt.Sprintf("%s[%d]", o.field("stops"), i), v)
		stop := GradientStop{Offset: s.number("offset", -1, 0, 1)}
		if !s.has("offset") && c.r.err == nil {
			c.r.fail(s.field("offset"), "is required: a number from 0 to 1")
		}
		if !s.has("color") && c.r.err == nil {
			c.r.fail(s.field("color"), "is required")
		}
		stop.Color = s.color("color", "")
		s.done()
		if i > 0 && stop.Offset < g.Stops[i-1].Offset && c.r.err == nil {
			c.r.fail(s.field("offset"), "must not be less than the offset of the stop before it (%s)", num(g.Stops[i-1].Offset))
		}
		if c.r.err != nil {
			return g
		}
		g.Stops = append(g.Stops, stop)
	}
	return g
}
