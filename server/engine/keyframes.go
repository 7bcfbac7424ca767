package engine

import (
	"fmt"
	"math"
)

// Bounds of motion. Each keyframe becomes a term of an ffmpeg expression,
// so their number bounds the size of the filter graph and the work of
// every frame.
const (
	maxKeys      = 100  // keyframes of one property
	maxKeyframes = 1000 // keyframes of a whole composition
	maxScale     = 100
	maxTurn      = 3600 // degrees, ten turns either way
	maxZoom      = 10   // as far as ffmpeg's zoompan goes
	// defaultTransition is the length of an enter or exit animation
	// that gives none.
	defaultTransition = 0.5
)

// The Ken Burns shorthands, as keyframes over the whole layer: zoomIn and
// zoomOut between 1 and kenBurnsZoom; the pans travel the picture edge to
// edge at kenBurnsPanZoom. A pan names where the view goes: panLeft starts
// on the right of the picture and ends on its left.
const (
	kenBurnsZoom    = 1.3
	kenBurnsPanZoom = 1.2
)

//nolint:gochecknoglobals // read-only table: the documented Ken Burns effects
var kenBurnsEffects = []string{"zoomIn", "zoomOut", "panLeft", "panRight", "panUp", "panDown"}

// curve reads key as keyframes when it holds an array: [{"time", "value",
// "easing"?}, …], times in seconds from the layer's start, strictly
// increasing, within the layer. ok is false when key holds anything else,
// for the caller to read a plain value. whole asks for integer values.
func (c *compiler) curve(o *object, key string, l *Layer, lo, hi float64, whole bool) (curve Curve, ok bool) {
	a, isArr := o.m[key].([]any)
	if !isArr {
		return nil, false
	}
	o.seen[key] = true
	path := o.field(key)
	switch {
	case len(a) == 0:
		c.r.fail(path, "must hold at least one keyframe")
	case len(a) > maxKeys:
		c.r.fail(path, "has %d keyframes; at most %d are allowed", len(a), maxKeys)
	case c.keys+len(a) > maxKeyframes:
		c.r.fail(path, "brings the composition to %d keyframes; at most %d are allowed", c.keys+len(a), maxKeyframes)
	}
	if c.r.err != nil {
		return nil, true
	}
	c.keys += len(a)
	for i, v := range a {
		k := c.r.object(fmt.Sprintf("%s[%d]", path, i), v)
		key := Key{Easing: Linear}
		if !k.has("time") {
			c.r.fail(k.field("time"), "is required")
		}
		key.Time = k.number("time", 0, 0, c.lim.MaxDuration)
		if !k.has("value") && c.r.err == nil {
			c.r.fail(k.field("value"), "is required")
		}
		key.Value = k.number("value", lo, lo, hi)
		if whole && key.Value != math.Trunc(key.Value) && c.r.err == nil {
			c.r.fail(k.field("value"), "must be an integer between %s and %s", num(lo), num(hi))
		}
		if i == 0 && k.has("easing") && c.r.err == nil {
			c.r.fail(k.field("easing"), "has no effect on the first keyframe: a keyframe's easing shapes the way into it from the keyframe before")
		}
		key.Easing = Easing(k.enum("easing", string(Linear), easings...))
		k.done()
		switch {
		case c.r.err != nil:
			return nil, true
		case key.Time > l.Duration+1e-9:
			c.r.fail(k.field("time"), "is after the end of the layer, which lasts %s s", num(l.Duration))
		case i > 0 && key.Time <= curve[i-1].Time:
			c.r.fail(k.field("time"), "must be later than the keyframe before it (%s s)", num(curve[i-1].Time))
		}
		curve = append(curve, key)
	}
	return curve, true
}

// property reads a property that is a number or keyframes, nil when absent.
func (c *compiler) property(o *object, key string, l *Layer, lo, hi float64) Curve {
	if curve, ok := c.curve(o, key, l, lo, hi, false); ok {
		return curve
	}
	if !o.has(key) {
		return nil
	}
	return Curve{{Value: o.number(key, lo, lo, hi), Easing: Linear}}
}

// motion reads the properties that only move a layer: scale, rotation,
// the Ken Burns framing of pictures and videos, and the enter and exit
// animations. Position, opacity and volume, which a layer has anyway,
// take keyframes where they are read.
func (c *compiler) motion(o *object, l *Layer) {
	m := l.Motion
	if l.Kind != KindAudio {
		m.Scale = c.property(o, "scale", l, 0, maxScale)
		if _, isArr := o.m["scale"].([]any); !isArr && m.Scale != nil && m.Scale[0].Value == 0 && c.r.err == nil {
			c.r.fail(o.field("scale"), "must be more than 0: a layer at scale 0 is not drawn")
		}
		// Text is a picture kino draws, which turns like any other.
		m.Rotation = c.property(o, "rotation", l, -maxTurn, maxTurn)
	}
	if l.Kind == KindImage || l.Kind == KindVideo {
		c.kenBurns(o, l)
	}
	m.Enter = c.transition(o, "enter", l, EaseOut)
	m.Exit = c.transition(o, "exit", l, EaseIn)
	if m.Enter != nil && m.Exit != nil && m.Enter.Length()+m.Exit.Length() > l.Duration+1e-9 && c.r.err == nil {
		c.r.fail(o.field("exit"), "enter and exit together (%s s) are longer than the layer (%s s)", num(m.Enter.Length()+m.Exit.Length()), num(l.Duration))
	}
	c.checkBy(o, l)
}

// kenBurns reads zoom, panX and panY, or the kenBurns shorthand for them.
func (c *compiler) kenBurns(o *object, l *Layer) {
	m := l.Motion
	m.Zoom = c.property(o, "zoom", l, 1, maxZoom)
	m.PanX = c.property(o, "panX", l, 0, 1)
	m.PanY = c.property(o, "panY", l, 0, 1)
	effect := o.enum("kenBurns", "", kenBurnsEffects...)
	if effect == "" || c.r.err != nil {
		return
	}
	if m.Zoom != nil || m.PanX != nil || m.PanY != nil {
		c.r.fail(o.field("kenBurns"), "is a shorthand for zoom, panX and panY; give either")
		return
	}
	ramp := func(from, to float64) Curve {
		return Curve{{Value: from, Easing: Linear}, {Time: l.Duration, Value: to, Easing: Linear}}
	}
	hold := Curve{{Value: kenBurnsPanZoom, Easing: Linear}}
	switch effect {
	case "zoomIn":
		m.Zoom = ramp(1, kenBurnsZoom)
	case "zoomOut":
		m.Zoom = ramp(kenBurnsZoom, 1)
	case "panLeft":
		m.Zoom, m.PanX = hold, ramp(1, 0)
	case "panRight":
		m.Zoom, m.PanX = hold, ramp(0, 1)
	case "panUp":
		m.Zoom, m.PanY = hold, ramp(1, 0)
	case "panDown":
		m.Zoom, m.PanY = hold, ramp(0, 1)
	}
}

// transition reads an enter or exit animation: {"type", "side"?,
// "duration"?, "easing"?}.
func (c *compiler) transition(o *object, key string, l *Layer, easing Easing) *Transition {
	if !o.has(key) {
		return nil
	}
	t := c.r.object(o.field(key), mustGet(o, key))
	tr := &Transition{Kind: TransitionKind(t.enum("type", "", string(Fade), string(Slide), string(Zoom), string(Typewriter), string(Pop)))}
	c.by(t, l, tr)
	switch {
	case c.r.err != nil:
	case tr.Kind == "":
		c.r.fail(t.field("type"), "is required: fade, slide or zoom (and, for text by word or letter, typewriter or pop)")
	case (tr.Kind == Typewriter || tr.Kind == Pop) && tr.By == "":
		c.r.fail(t.field("type"), "%s animates text by word or letter: give by (word or letter)", tr.Kind)
	case l.Kind == KindAudio && tr.Kind != Fade:
		c.r.fail(t.field("type"), "must be fade: sound only fades")
	case tr.Kind == Slide:
		tr.Side = Side(t.enum("side", "", string(Left), string(Right), string(Top), string(Bottom)))
		if tr.Side == "" && c.r.err == nil {
			c.r.fail(t.field("side"), "is required: left, right, top or bottom")
		}
	}
	given := t.has("duration")
	switch {
	case tr.Kind == Typewriter && given && c.r.err == nil:
		c.r.fail(t.field("duration"), "has no effect on typewriter, which shows each word or letter at once: stagger sets its pace")
	case tr.Kind == Typewriter:
	default:
		tr.Duration = t.number("duration", defaultTransition, 0, c.lim.MaxDuration)
	}
	switch length := tr.Length(); {
	case c.r.err != nil:
	case tr.Duration == 0 && tr.Kind != Typewriter:
		c.r.fail(t.field("duration"), "must be more than 0")
	case length > l.Duration+1e-9 && tr.By != "":
		c.r.fail(t.field("duration"), "with the stagger over %d %ss, lasts %s s, longer than the layer (%s s)", tr.Units, tr.By, num(length), num(l.Duration))
	case length > l.Duration+1e-9 && given:
		c.r.fail(t.field("duration"), "is longer than the layer (%s s)", num(l.Duration))
	case length > l.Duration+1e-9:
		c.r.fail(t.field("duration"), "is required: the default of %s s is longer than the layer (%s s)", num(defaultTransition), num(l.Duration))
	}
	switch {
	case (tr.Kind == Pop || tr.Kind == Typewriter) && t.has("easing") && c.r.err == nil:
		c.r.fail(t.field("easing"), "has no effect on %s, which has a curve of its own", tr.Kind)
	case tr.Kind == Pop || tr.Kind == Typewriter:
		tr.Easing = Linear
	default:
		tr.Easing = Easing(t.enum("easing", string(easing), easings...))
	}
	t.done()
	return tr
}
