package engine

import (
	"fmt"
	"math"
	"strings"
)

// Transitions between consecutive layers. A layer's "transition" joins it
// to the next layer (the next in provider_a's array, the next clip of the
// same track in unified), which is drawn right over it. The two overlap
// for the transition's duration: the next layer starts that long before
// this one ends, so a transition shortens the sequence rather than adding
// to it (as in editly and in any editor's timeline).
//
// kino draws a transition as an animation of the two layers, not with
// xfade: layers are overlaid on the frame one by one, each with its own
// size, place and motion, where xfade needs two full-frame streams of one
// size, rate and format. So the incoming layer, on top, comes in over the
// outgoing one, which holds still under it: fade ramps its opacity; slide
// moves it in from one side while the outgoing layer moves out by the
// other (the enter and exit slides of Motion); zoom grows it from its
// centre; wipe, circle and dissolve multiply its alpha by a mask, computed
// only on the transition's frames. Both layers' sound crossfades, linearly
// (the gains sum to 1), whatever the picture does.

// CutKind is the family of a transition.
type CutKind string

// The transition families.
const (
	CutFade     CutKind = "fade"
	CutDissolve CutKind = "dissolve"
	CutWipe     CutKind = "wipe"
	CutSlide    CutKind = "slide"
	CutCircle   CutKind = "circle"
	CutZoom     CutKind = "zoom"
)

// Cut is a transition from one layer (its Motion.Out) into the next (its
// Motion.Into); both hold the same Cut.
type Cut struct {
	// Name is the transition as written: fade, wipeLeft, circleOpen, …
	Name string
	Kind CutKind
	// Dir is where a wipe's edge or a slide's pictures travel: Left,
	// Right, Top (up) or Bottom (down).
	Dir Side
	// Open is a circle that grows (circleOpen); else it shrinks.
	Open     bool
	Duration float64
	// Easing shapes the picture's progress; sound always crossfades
	// linearly.
	Easing Easing
	// Field is the transition's JSON path, for messages.
	Field string
}

// cutNames are the transition names, as Shotstack spells them, and what
// each is.
//
//nolint:gochecknoglobals // read-only table: the documented cuts by name
var cutNames = map[string]Cut{
	"fade":        {Kind: CutFade},
	"dissolve":    {Kind: CutDissolve},
	"wipeLeft":    {Kind: CutWipe, Dir: Left},
	"wipeRight":   {Kind: CutWipe, Dir: Right},
	"wipeUp":      {Kind: CutWipe, Dir: Top},
	"wipeDown":    {Kind: CutWipe, Dir: Bottom},
	"slideLeft":   {Kind: CutSlide, Dir: Left},
	"slideRight":  {Kind: CutSlide, Dir: Right},
	"slideUp":     {Kind: CutSlide, Dir: Top},
	"slideDown":   {Kind: CutSlide, Dir: Bottom},
	"circleOpen":  {Kind: CutCircle, Open: true},
	"circleClose": {Kind: CutCircle},
	"zoom":        {Kind: CutZoom},
}

// cutList is the names in the order the documentation gives them.
//
//nolint:gochecknoglobals // read-only table: the documented cuts in their order
var cutList = []string{"fade", "dissolve", "wipeLeft", "wipeRight", "wipeUp", "wipeDown",
	"slideLeft", "slideRight", "slideUp", "slideDown", "circleOpen", "circleClose", "zoom"}

// maxCutDuration bounds a transition; longer ones are better written as
// keyframes.
const maxCutDuration = 10

// cut reads a layer's transition into the next layer: {"name",
// "duration"?, "easing"?}. Its duration defaults to the overlap of the
// two layers, known only once the next is read (link).
func (c *compiler) cut(o *object, l *Layer) {
	if !o.has("transition") {
		return
	}
	t := c.r.object(o.field("transition"), mustGet(o, "transition"))
	for _, k := range []string{"in", "out"} {
		if t.has(k) && c.r.err == nil {
			c.r.fail(t.field(k), "is not a transition field: a transition joins this layer to the next one, {\"name\", \"duration\"}; "+
				"to animate one layer's own start or end, use enter and exit (see Motion)")
		}
	}
	name, _ := t.str("name")
	cut, known := cutNames[name]
	switch {
	case c.r.err != nil:
	case !t.has("name"):
		c.r.fail(t.field("name"), "is required: %s", strings.Join(cutList, ", "))
	case !known:
		c.r.fail(t.field("name"), "must be one of %s", strings.Join(cutList, ", "))
	case l.Kind == KindAudio && cut.Kind != CutFade:
		c.r.fail(t.field("name"), "must be fade: sound only crossfades")
	}
	cut.Name, cut.Field = name, t.path
	cut.Duration = t.number("duration", 0, 0, maxCutDuration)
	if t.has("duration") && cut.Duration == 0 && c.r.err == nil {
		c.r.fail(t.field("duration"), "must be more than 0")
	}
	cut.Easing = Easing(t.enum("easing", string(EaseInOut), easings...))
	t.done()
	if c.r.err == nil {
		l.Motion.Out = &cut
	}
}

// link joins each layer that has a transition to the layer after it:
// next(i) is the index of the layer a transition of layer i leads into,
// or -1 when there is none (the last layer, or a track's last clip).
func (c *compiler) link(next func(i int) int) {
	ls := c.scene.Layers
	for i := range ls {
		if c.r.err != nil {
			return
		}
		if ls[i].Motion == nil || ls[i].Motion.Out == nil {
			continue
		}
		a, cut := &ls[i], ls[i].Motion.Out
		j := next(i)
		if j < 0 {
			c.r.fail(cut.Field, "has no layer to lead into: a transition joins its layer to the next one (the next clip of the track, in unified)")
			return
		}
		b := &ls[j]
		c.checkPair(a, b, cut)
		if c.r.err != nil {
			return
		}
		if b.Motion == nil {
			b.Motion = &Motion{}
		}
		b.Motion.Into = cut
	}
	for i := range ls {
		m := ls[i].Motion
		if m == nil || c.r.err != nil {
			continue
		}
		// A layer that is both led into and leads out needs time for both.
		if m.Into != nil && m.Out != nil && m.Into.Duration+m.Out.Duration > ls[i].Duration+1e-6 {
			c.r.fail(m.Out.Field+".duration", "this transition and the one into the layer (%s) together last %s s, longer than the layer (%s s)",
				m.Into.Field, num(m.Into.Duration+m.Out.Duration), num(ls[i].Duration))
		}
	}
}

// checkPair checks that layer a can hand over to layer b by cut, and
// settles the cut's duration.
func (c *compiler) checkPair(a, b *Layer, cut *Cut) {
	overlap := micro(a.End() - b.Start)
	dur := cut.Field + ".duration"
	switch {
	case (a.Kind == KindAudio) != (b.Kind == KindAudio):
		c.r.fail(cut.Field, "joins %s to %s: a transition joins two visual layers or two audio layers", a.Field, b.Field)
	case cut.Duration == 0 && overlap <= 0:
		c.r.fail(cut.Field, "the next layer (%s) starts at %s s, when or after this one ends (%s s): the two overlap during a transition; "+
			"start it earlier (at %s s for a 0.5 s transition), or give a duration and start it that long before this one ends",
			b.Field, num(b.Start), num(a.End()), num(micro(a.End()-defaultTransition)))
	case cut.Duration == 0:
		cut.Duration = overlap
	case math.Abs(overlap-cut.Duration) > 1e-6:
		c.r.fail(dur, "a %s s transition needs the next layer (%s) to start at %s s, %s s before this one ends; it starts at %s s",
			num(cut.Duration), b.Field, num(micro(a.End()-cut.Duration)), num(cut.Duration), num(b.Start))
	}
	switch {
	case c.r.err != nil:
	case cut.Duration > a.Duration+1e-6 || cut.Duration > b.Duration+1e-6:
		c.r.fail(dur, "the transition (%s s) is longer than one of the layers it joins (%s s and %s s)", num(cut.Duration), num(a.Duration), num(b.Duration))
	case b.Motion != nil && b.Motion.Enter != nil:
		c.r.fail(b.Field+".enter", "the layer already comes in by the transition %s; give one or the other", cut.Field)
	case cut.Kind == CutSlide && a.Motion.Exit != nil:
		c.r.fail(a.Field+".exit", "the layer already goes out by the transition %s (a slide moves both layers); give one or the other", cut.Field)
	}
}

// masked reports a transition drawn by masking the incoming layer.
func masked(c *Cut) bool {
	return c != nil && (c.Kind == CutWipe || c.Kind == CutCircle || c.Kind == CutDissolve)
}

// opposite is the other side of the frame.
func opposite(s Side) Side {
	switch s {
	case Left:
		return Right
	case Right:
		return Left
	case Top:
		return Bottom
	}
	return Top
}

// enter is the layer's enter animation: its own, or the one its
// transition in makes of it (a fade, a slide in from the side the
// pictures travel from, a zoom); nil when there is none.
func (m *Motion) enter() *Transition {
	if m.Enter != nil && m.Enter.By != "" {
		return nil // drawn by the words' pictures (words.go), not the layer's chain
	}
	if m.Enter != nil || m.Into == nil {
		return m.Enter
	}
	c := m.Into
	switch c.Kind {
	case CutFade:
		return &Transition{Kind: Fade, Duration: c.Duration, Easing: c.Easing}
	case CutSlide:
		return &Transition{Kind: Slide, Side: opposite(c.Dir), Duration: c.Duration, Easing: c.Easing}
	case CutZoom:
		return &Transition{Kind: Zoom, Duration: c.Duration, Easing: c.Easing}
	}
	return nil
}

// exit is the layer's exit animation: its own, or the slide out of a
// slide transition into the next layer; nil when there is none.
func (m *Motion) exit() *Transition {
	if m.Exit != nil && m.Exit.By != "" {
		return nil
	}
	if m.Exit != nil || m.Out == nil || m.Out.Kind != CutSlide {
		return m.Exit
	}
	return &Transition{Kind: Slide, Side: m.Out.Dir, Duration: m.Out.Duration, Easing: m.Out.Easing}
}

// crossfading is what a layer's volume is multiplied by over the
// transitions into and out of it, on clock k (from the layer's start);
// "" when it has none. The ramps are linear so that the two gains of a
// crossfade always sum to 1.
func (l Layer) crossfading(k clock) string {
	m := l.motion()
	var in, out string
	if m.Into != nil {
		in = k.progress(0, m.Into.Duration)
	}
	if m.Out != nil {
		out = "(1-" + k.progress(l.Duration-m.Out.Duration, l.Duration) + ")"
	}
	return product(in, out)
}

// maskSize is the size the mask of a transition into a w×h layer is
// computed at before it is scaled to the layer: a wipe changes along one
// axis only; a circle and a dissolve are computed at a quarter of each
// side (a circle's edge then softened by the scale, a dissolve in grains
// of 4×4 pixels). geq evaluates its expression for every pixel: the mask
// of a 1 s circle into a 1280×720 layer took 2.4 s of CPU at half of each
// side, 0.5 s at a quarter (docs/benchmarks.md).
func maskSize(c *Cut, w, h int) (int, int, string) {
	quarter := func(n int) int { return max(2, (n+7)/8*2) }
	switch {
	case c.Kind == CutWipe && (c.Dir == Left || c.Dir == Right):
		return w, 2, "neighbor"
	case c.Kind == CutWipe:
		return 2, h, "neighbor"
	case c.Kind == CutCircle:
		return quarter(w), quarter(h), "bilinear"
	}
	return quarter(w), quarter(h), "neighbor"
}

// maskExpr is the mask's alpha, 0 where the outgoing layer still shows
// and 255 where the incoming one does, for geq on a W×H mask of a w×h
// layer at progress p (0 to 1). At p = 1 it is 255 everywhere.
func maskExpr(c *Cut, p string, w, h int) string {
	u, v := "(X+0.5)/W", "(Y+0.5)/H"
	var in string
	switch c.Kind {
	case CutWipe:
		// The edge travels in Dir: a wipe to the left uncovers the
		// incoming layer from the right.
		switch c.Dir {
		case Left:
			in = fmt.Sprintf("gte(%s,1-%s)", u, p)
		case Right:
			in = fmt.Sprintf("lte(%s,%s)", u, p)
		case Top:
			in = fmt.Sprintf("gte(%s,1-%s)", v, p)
		default:
			in = fmt.Sprintf("lte(%s,%s)", v, p)
		}
	case CutCircle:
		// The distance from the centre in the layer's pixels, against a
		// radius that reaches the corners.
		d := fmt.Sprintf("hypot((%s-0.5)*%d,(%s-0.5)*%d)", u, w, v, h)
		r := f(math.Ceil(math.Hypot(float64(w), float64(h))/2) + 1)
		if c.Open {
			in = fmt.Sprintf("lte(%s,%s*%s)", d, r, p)
		} else {
			in = fmt.Sprintf("gte(%s,%s*(1-%s))", d, r, p)
		}
	default:
		// A grain shows once the progress passes its threshold, a hash
		// of its place from 0 to 1 (below 1, so all show at p = 1).
		in = fmt.Sprintf("lt(mod(abs(sin(X*12.9898+Y*78.233))*43758.5453,1),%s)", p)
	}
	return "255*" + in
}

// mask makes the mask of the transition into layer i, w×h like the
// frames it meets, and returns the blend that applies it, or "" when the
// transition into the layer is not masked. The mask is computed on the
// transition's frames alone; blend then repeats its last frame, opaque
// everywhere, for the rest of the layer.
func (p *planner) mask(i int, l Layer, win window, w, h int) string {
	c := l.motion().Into
	if !masked(c) {
		return ""
	}
	mw, mh, flags := maskSize(c, w, h)
	k := clock{t: "T", origin: l.Start}
	frames := min(frameAt(l.Start+c.Duration, p.s.FPS)-win.first, win.frames()) + 1
	lbl := fmt.Sprintf("m%d", i)
	p.graph = append(p.graph, join(
		fmt.Sprintf("color=c=white:s=%dx%d:r=%d:d=%s", mw, mh, p.s.FPS, f(float64(frames)/float64(p.s.FPS))),
		"format=yuva420p", win.shift(), "geq=lum=0:a="+escapeGraph(maskExpr(c, ease(c.Easing, k.progress(0, c.Duration)), w, h)),
		fmt.Sprintf("scale=w=%d:h=%d:flags=%s", w, h, flags))+"["+lbl+"]")
	// As for the ramp, the mask comes first and the layer's colour is
	// kept; the layer's alpha is multiplied by the mask's.
	return "[" + lbl + "]blend=c0_opacity=0:c1_opacity=0:c2_opacity=0:c3_mode=multiply"
}
