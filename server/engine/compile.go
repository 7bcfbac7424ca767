package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"

	"github.com/kinohq/kino/server/ident"
)

// Providers are the composition formats Compile accepts.
//
//nolint:gochecknoglobals // read-only table: the documented providers
var Providers = []string{"provider_a", "unified"}

// maxCoordinate bounds x and y: far enough off screen for any slide-in.
const maxCoordinate = 100000

// Compile parses and validates a composition in the named provider format.
// Any problem is a *ValidationError naming the field by its JSON path from
// the request root (provider, composition.…, assetUrls.…).
func Compile(provider string, composition []byte, assetURLs map[string]string, lim Limits) (*Scene, error) {
	var read func(*compiler, any)
	switch provider {
	case "provider_a":
		read = (*compiler).providerA
	case "unified":
		read = (*compiler).unified
	case "":
		return nil, &ValidationError{Field: "provider", Message: `is required: "provider_a" or "unified"`}
	default:
		return nil, &ValidationError{Field: "provider", Message: fmt.Sprintf(`unknown provider %q; use "provider_a" or "unified"`, provider)}
	}
	var raw any
	dec := json.NewDecoder(bytes.NewReader(composition))
	if err := dec.Decode(&raw); err != nil {
		return nil, &ValidationError{Field: "composition", Message: "is not valid JSON"}
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, &ValidationError{Field: "composition", Message: "has data after the JSON value"}
	}
	if err := checkAssetURLs(assetURLs, lim); err != nil {
		return nil, err
	}
	c := &compiler{r: &reader{}, lim: lim, assets: assetURLs, scene: &Scene{}}
	read(c, raw)
	if c.r.err == nil {
		c.finish()
	}
	if c.r.err != nil {
		return nil, c.r.err
	}
	return c.scene, nil
}

func checkAssetURLs(assets map[string]string, lim Limits) error {
	if len(assets) > lim.MaxAssets {
		return &ValidationError{Field: "assetUrls", Message: fmt.Sprintf("has %d entries; at most %d are allowed", len(assets), lim.MaxAssets)}
	}
	keys := make([]string, 0, len(assets))
	for k := range assets {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if k == "" || len(k) > 128 {
			return &ValidationError{Field: "assetUrls", Message: "keys must be 1 to 128 characters"}
		}
		if !validURL(assets[k]) && !ident.IsAsset(assets[k]) {
			return &ValidationError{Field: "assetUrls." + k, Message: "must be an absolute http or https URL, or the id of an uploaded asset"}
		}
	}
	return nil
}

// compiler builds a Scene from either format.
type compiler struct {
	r      *reader
	lim    Limits
	assets map[string]string
	scene  *Scene
	// explicit is the composition's own duration, or 0.
	explicit float64
	// durationField is where explicit came from, for messages.
	durationField string
	// keys counts the keyframes read so far.
	keys int
	// fpsField, formatField and frameTimeField name the output's fields,
	// for messages about the output as a whole.
	fpsField, formatField, frameTimeField string
}

// output reads the output settings shared by both formats.
func (c *compiler) output(o *object) {
	s := c.scene
	s.Width = c.dimension(o, "width", c.lim.MaxWidth)
	s.Height = c.dimension(o, "height", c.lim.MaxHeight)
	// 30 when absent, as Creatomate and Shotstack default (the spec names
	// fps in its example and requires no value).
	s.FPS = o.integer("fps", 30, 1, c.lim.MaxFPS)
	c.fpsField = o.field("fps")
	found := c.r.count()
	c.explicit = o.number("duration", 0, 0, c.lim.MaxDuration)
	c.durationField = o.field("duration")
	if o.has("duration") && c.explicit == 0 && c.r.count() == found {
		c.r.fail(c.durationField, "must be more than 0")
	}
	s.Background = o.color("background", "0x000000FF")
	s.Format = o.enum("format", "mp4", formatNames...)
	c.formatField = o.field("format")
	if c.r.err == nil {
		c.outputExtras(o)
	}
	c.loudness(o)
}

func (c *compiler) dimension(o *object, key string, max int) int {
	found := c.r.count()
	v := o.requiredInteger(key, 16, max)
	if v%2 != 0 && c.r.count() == found {
		c.r.fail(o.field(key), "must be an even integer between 16 and %d (H.264 and VP9 need even sizes)", max)
	}
	return v
}

// timing reads start and duration (named lengthKey) of a layer.
func (c *compiler) timing(o *object, lengthKey string, l *Layer) {
	l.Start = o.number("start", 0, 0, c.lim.MaxDuration)
	if o.has(lengthKey) {
		l.Duration = o.number(lengthKey, 0, 0, c.lim.MaxDuration)
		if l.Duration == 0 && c.r.err == nil {
			c.r.fail(o.field(lengthKey), "must be more than 0")
		}
	} else if c.explicit > 0 {
		l.Duration = c.explicit - l.Start
		if l.Duration <= 0 && c.r.err == nil {
			c.r.fail(o.field("start"), "is at or after the end of the composition (%s s)", num(c.explicit))
		}
	} else {
		c.r.fail(o.field(lengthKey), "is required when the composition has no duration")
	}
	switch {
	case c.r.err != nil:
	case c.explicit > 0 && l.End() > c.explicit+1e-9:
		c.r.fail(o.field(lengthKey), "the layer ends at %s s, after the composition's duration of %s s", num(l.End()), num(c.explicit))
	case l.End() > c.lim.MaxDuration+1e-9:
		c.r.fail(o.field(lengthKey), "the layer ends at %s s; videos may last at most %s s", num(l.End()), num(c.lim.MaxDuration))
	}
}

// placement reads where a visual layer is drawn and how large; pos and size
// hold the fields (the layer itself in provider_a, the clip's position and
// size objects in unified).
func (c *compiler) placement(pos, size *object, l *Layer) {
	// Keyframed positions start where their first keyframe is.
	if l.Motion.X, _ = c.curve(pos, "x", l, -maxCoordinate, maxCoordinate, true); l.Motion.X != nil {
		l.X = Pos{Px: int(l.Motion.X[0].Value)}
	} else if l.Kind == KindMockup && !pos.has("x") {
		l.X = Pos{} // the template's canvas lies on the frame's
	} else {
		l.X = pos.pos("x", maxCoordinate)
	}
	if l.Motion.Y, _ = c.curve(pos, "y", l, -maxCoordinate, maxCoordinate, true); l.Motion.Y != nil {
		l.Y = Pos{Px: int(l.Motion.Y[0].Value)}
	} else if l.Kind == KindMockup && !pos.has("y") {
		l.Y = Pos{}
	} else {
		l.Y = pos.pos("y", maxCoordinate)
	}
	// Twice the largest output: enough for a zoom or a slide, and a bound
	// on the memory of one frame of the layer.
	l.Width = size.integer("width", 0, 1, 2*c.lim.MaxWidth)
	l.Height = size.integer("height", 0, 1, 2*c.lim.MaxHeight)
}

// opacity reads a visual layer's opacity: a number or keyframes.
func (c *compiler) opacity(o *object, l *Layer) {
	if l.Motion.Opacity, _ = c.curve(o, "opacity", l, 0, 1, false); l.Motion.Opacity == nil {
		l.Opacity = o.number("opacity", 1, 0, 1)
	}
}

// fades reads fadeIn and fadeOut, which must fit in the layer.
func (c *compiler) fades(o *object, l *Layer) {
	l.FadeIn = o.number("fadeIn", 0, 0, c.lim.MaxDuration)
	l.FadeOut = o.number("fadeOut", 0, 0, c.lim.MaxDuration)
	if l.FadeIn+l.FadeOut > l.Duration+1e-9 && c.r.err == nil {
		c.r.fail(o.field("fadeIn"), "fadeIn and fadeOut together (%s s) are longer than the layer (%s s)", num(l.FadeIn+l.FadeOut), num(l.Duration))
	}
}

// source resolves a src: a key of assetUrls, an http(s) URL, or the id of
// an uploaded asset (which the caller checks: the engine reads no store).
func (c *compiler) source(o *object, key string, font bool) (string, string) {
	field := o.field(key)
	s, ok := o.str(key)
	if !ok {
		if c.r.err == nil {
			c.r.fail(field, "is required")
		}
		return "", field
	}
	if u, isKey := c.assets[s]; isKey {
		return c.scene.addSource(u, font, field), field
	}
	if validURL(s) || ident.IsAsset(s) {
		return c.scene.addSource(s, font, field), field
	}
	c.r.fail(field, "no such asset key %q in assetUrls, and not an http or https URL or an asset id", s)
	return "", field
}

// finish checks the scene as a whole and settles its duration.
func (c *compiler) finish() {
	c.resolveDucks()
	c.resolveTranscribe()
	s := c.scene
	end := 0.0
	for _, l := range s.Layers {
		end = math.Max(end, l.End())
	}
	s.Duration = c.explicit
	if s.Duration == 0 {
		s.Duration = end
	}
	switch {
	case s.Duration == 0:
		c.r.fail("composition", "has no layers and no duration; nothing to render")
	case s.Duration > c.lim.MaxDuration:
		c.r.fail("composition", "lasts %s s; at most %s s are allowed", num(s.Duration), num(c.lim.MaxDuration))
	case s.Duration*float64(s.FPS) < 1:
		c.r.fail("composition", "lasts %s s, shorter than one frame at %d fps", num(s.Duration), s.FPS)
	case len(s.sources) > c.lim.MaxAssets:
		c.r.fail("composition", "uses %d distinct assets; at most %d are allowed", len(s.sources), c.lim.MaxAssets)
	default:
		c.checkCaptionsTotal()
		if c.r.err == nil {
			c.checkMockupLayers()
		}
		if c.r.err == nil {
			c.checkExtras()
		}
	}
}

// maxMockupLayers bounds the mockup layers of one render: each reads its
// template and draws its pictures in kino's own process when planned (a
// render's, a part's and a preview's), so one request with many of them
// would cost that many template reads.
const maxMockupLayers = 8

// checkMockupLayers refuses a render of more than maxMockupLayers mockup
// layers, naming the first one too many.
func (c *compiler) checkMockupLayers() {
	n := 0
	for _, l := range c.scene.Layers {
		if l.Mockup == nil {
			continue
		}
		if n++; n > maxMockupLayers {
			c.r.fail(l.Field, "is mockup layer %d; a render has at most %d mockup layers", n, maxMockupLayers)
			return
		}
	}
}

// maxCaptionsLayers bounds the captions layers of one render: each reads,
// lays out and writes its cues, and libass in ffmpeg holds each script.
const maxCaptionsLayers = 8

// checkCaptionsTotal bounds what the captions layers of a render cost
// together, as far as the composition tells: how many there are, and the
// cues of those given inline, at most MaxCues over the render as in one
// layer. The scripts they make are bounded when planned (maxCaptionScript,
// maxCaptionEvents), once URL files are read.
func (c *compiler) checkCaptionsTotal() {
	layers, cues := 0, 0
	for _, l := range c.scene.Layers {
		if l.Captions == nil {
			continue
		}
		layers++
		if layers > maxCaptionsLayers {
			c.r.fail(l.Field, "is captions layer %d; a render has at most %d captions layers", layers, maxCaptionsLayers)
			return
		}
		if l.Captions.Source == "" {
			cues += len(l.Captions.Cues)
		}
		if cues > MaxCues {
			c.r.fail(l.Field, "brings the cues of the render's inline captions to %d; at most %d are allowed in all", cues, MaxCues)
			return
		}
	}
}
