package engine

// Easing shapes the way into a keyframe from the one before it.
type Easing string

// The easings. With p the progress between two keyframes, from 0 to 1:
// linear is p, ease-in p³, ease-out 1−(1−p)³, and ease-in-out is ease-in
// on the first half and ease-out on the second (4p³, then 1−4(1−p)³).
const (
	Linear    Easing = "linear"
	EaseIn    Easing = "ease-in"
	EaseOut   Easing = "ease-out"
	EaseInOut Easing = "ease-in-out"
)

//nolint:gochecknoglobals // read-only table: the documented easings
var easings = []string{string(Linear), string(EaseIn), string(EaseOut), string(EaseInOut)}

// Key is one keyframe: the property is Value at Time seconds from the
// layer's start, reached from the keyframe before with Easing.
type Key struct {
	Time, Value float64
	Easing      Easing
}

// Curve is a property's value over a layer's life: the first key's value
// until its time, the last key's after its time, eased between keys. A
// curve of one key is a constant.
type Curve []Key

// constant reports the curve's value when it never changes.
func (c Curve) constant() (float64, bool) {
	for _, k := range c[1:] {
		if k.Value != c[0].Value {
			return 0, false
		}
	}
	return c[0].Value, true
}

// static is the curve's value when it never changes, or def when the curve
// is absent; ok is false when it changes.
func (c Curve) static(def float64) (float64, bool) {
	if c == nil {
		return def, true
	}
	return c.constant()
}

// extent is the curve's least and greatest value; 0 for an absent curve.
func (c Curve) extent() (lo, hi float64) {
	if c == nil {
		return 0, 0
	}
	lo, hi = c[0].Value, c[0].Value
	for _, k := range c[1:] {
		lo, hi = min(lo, k.Value), max(hi, k.Value)
	}
	return lo, hi
}

// TransitionKind is what an enter or exit animation does.
type TransitionKind string

// The transitions: fade multiplies opacity (and volume) by 0 to 1, slide
// brings the layer from outside the frame (or takes it out), zoom scales
// it from nothing (or to nothing) about its centre.
const (
	Fade  TransitionKind = "fade"
	Slide TransitionKind = "slide"
	Zoom  TransitionKind = "zoom"
	// Typewriter and Pop animate text by word or letter only: each
	// unit shows at once, in turn; or scales from nothing past its size
	// and back (see words.go).
	Typewriter TransitionKind = "typewriter"
	Pop        TransitionKind = "pop"
)

// Side is an edge of the frame a layer slides in from or out by.
type Side string

// The sides.
const (
	Left   Side = "left"
	Right  Side = "right"
	Top    Side = "top"
	Bottom Side = "bottom"
)

// Transition is an enter or exit animation: a shorthand for keyframes
// from (or to) the layer's own values over Duration seconds.
type Transition struct {
	Kind     TransitionKind
	Side     Side
	Duration float64
	Easing   Easing
	// By animates a text layer's words or letters one after the other,
	// Stagger seconds apart, each over Duration (words.go); Units is how
	// many its text holds. The zero By animates the layer whole.
	By      By
	Stagger float64
	Units   int
}

// By is what of a text layer an enter or exit animates in turn.
type By string

// The units of text an animation may go by.
const (
	ByWord   By = "word"
	ByLetter By = "letter"
)

// Length is how long the transition lasts: its Duration, and for one by
// word or letter the stagger before the last unit's start.
func (t *Transition) Length() float64 {
	if t.By == "" {
		return t.Duration
	}
	return t.Duration + t.Stagger*float64(max(t.Units-1, 0))
}

// Motion is what changes over a layer's life. Absent curves hold still;
// the zero Motion moves nothing, and a layer without motion is planned
// exactly as before motion existed.
type Motion struct {
	// X and Y replace Layer.X and Layer.Y: the top left corner, in pixels.
	X, Y Curve
	// Opacity replaces Layer.Opacity.
	Opacity Curve
	// Volume replaces Layer.Volume; Layer.Volume then holds the loudest
	// it gets, so 0 still means never heard.
	Volume Curve
	// Scale multiplies the layer's size about its centre (1: as placed).
	Scale Curve
	// Rotation turns the layer about its centre, in degrees clockwise.
	Rotation Curve
	// Zoom (1 or more), PanX and PanY (0 to 1) frame a picture or video
	// within its layer, Ken Burns style: at zoom z the layer shows 1/z of
	// the picture's width and height, its left edge PanX of the way from
	// the picture's left edge to the rightmost place it can be.
	Zoom, PanX, PanY Curve
	// Enter and Exit animate the start and the end of the layer.
	Enter, Exit *Transition
	// Into is the transition from the layer before into this one, Out
	// the one from this layer into the next (see cut.go).
	Into, Out *Cut
}

// none reports a layer that does not move.
func (m *Motion) none() bool {
	return m.X == nil && m.Y == nil && m.Opacity == nil && m.Volume == nil && m.Scale == nil && m.Rotation == nil &&
		m.Zoom == nil && m.PanX == nil && m.PanY == nil && m.Enter == nil && m.Exit == nil && m.Into == nil && m.Out == nil
}

// is reports whether the enter or exit transition t is of kind k.
func (t *Transition) is(k TransitionKind) bool { return t != nil && t.Kind == k }
