package engine

import (
	"fmt"
	"math"
	"slices"

	"github.com/kinohq/kino/server/glyphs"
)

// Text that comes in (or goes out) word by word or letter by letter: an
// enter or exit with "by". The layer is drawn as it always is, in one
// picture overlaid while the text holds still; while its words (letters)
// move, kino draws its frames (wordframes.go) and ffmpeg overlays one a
// frame. Past the plan's budget of drawn frames, each word is a picture
// of its own animated by ffmpeg's expressions instead: about ten filter
// runs a moving word a frame (docs/benchmarks.md, "Text by word").

// Defaults of an animation by word or letter: the stagger between
// consecutive units' starts.
const (
	defaultWordStagger   = 0.1
	defaultLetterStagger = 0.05
	maxStagger           = 10
)

// popOvershoot is the pop's curve, CSS's "back" ease-out: with p the
// progress, the scale is 1 + (k+1)(p−1)³ + k(p−1)², 0 at the start,
// about 1.1 past two thirds of the way, 1 at the end.
const popOvershoot = 1.70158

// by reads an enter's or exit's by and stagger into tr: text layers only.
func (c *compiler) by(t *object, l *Layer, tr *Transition) {
	tr.By = By(t.enum("by", "", string(ByWord), string(ByLetter)))
	switch {
	case c.r.err != nil:
		return
	case tr.By == "" && t.has("stagger"):
		c.r.fail(t.field("stagger"), "applies to an animation by word or letter: give by")
		return
	case tr.By == "":
		return
	case l.Kind != KindText:
		c.r.fail(t.field("by"), "applies to text layers only")
		return
	}
	def, unit := defaultWordStagger, glyphs.Words
	if tr.By == ByLetter {
		def, unit = defaultLetterStagger, glyphs.Letters
	}
	tr.Stagger = t.number("stagger", def, 0, maxStagger)
	tr.Units = glyphs.CountUnits(l.Text, unit)
}

// checkBy refuses what a layer animated by word or letter cannot also do:
// its words are drawn where the layer holds still, so it does not move,
// scale, turn or change its opacity otherwise, and its enter and exit go
// both by units (or one is absent).
func (c *compiler) checkBy(o *object, l *Layer) {
	m := l.Motion
	key := ""
	switch {
	case m.Enter != nil && m.Enter.By != "":
		key = "enter"
	case m.Exit != nil && m.Exit.By != "":
		key = "exit"
	}
	if key == "" || c.r.err != nil {
		return
	}
	switch {
	case m.Enter != nil && m.Enter.By == "":
		c.r.fail(o.field("enter"), "must go by word or letter too, as the layer's exit does (or be left out)")
	case m.Exit != nil && m.Exit.By == "":
		c.r.fail(o.field("exit"), "must go by word or letter too, as the layer's enter does (or be left out)")
	case m.X != nil || m.Y != nil || m.Scale != nil || m.Rotation != nil || m.Opacity != nil:
		c.r.fail(o.field(key), "animates the layer's words or letters where the layer holds still: give no x or y keyframes, scale, rotation or opacity keyframes with it")
	}
}

// byUnits is the unit the layer's enter and exit go by; 0 when they go
// by none.
func (l Layer) byUnits() glyphs.Unit {
	m := l.motion()
	for _, t := range []*Transition{m.Enter, m.Exit} {
		switch {
		case t == nil:
		case t.By == ByWord:
			return glyphs.Words
		case t.By == ByLetter:
			return glyphs.Letters
		}
	}
	return 0
}

// wordsBox draws text layer i whose enter or exit goes by word or letter
// over video: its box, if it has one, for its whole life; all its glyphs
// in one picture while none moves; and its words (letters) while they
// come in or go out, in frames kino draws (wordFrames), or, past the
// plan's budget of drawn frames, each word's picture animated by ffmpeg.
func (p *planner) wordsBox(i int, l Layer, lay textLayout, video string) (string, error) {
	win := frameWindow(l, p.s.FPS)
	m := l.motion()
	enterEnd, exitStart := l.Start, l.End()
	if m.Enter != nil {
		enterEnd = l.Start + m.Enter.Length()
	}
	if m.Exit != nil {
		exitStart = l.End() - m.Exit.Length()
	}
	c := lay.canvas
	at := func(v int) string { return fmt.Sprint(v) }
	pl := &stillPlacer{p: p, i: i, l: l, video: video}
	if l.Style.Background != "" {
		if err := pl.place(fmt.Sprintf("%dbox", i), lay, true, false, win, at(c.x), at(c.y), "", nil); err != nil {
			return "", err
		}
	}
	hold := window{fps: p.s.FPS, first: max(frameAt(enterEnd, p.s.FPS), win.first), end: min(frameAt(exitStart, p.s.FPS), win.end)}
	if err := pl.place(fmt.Sprint(i), lay, false, true, hold, at(c.x), at(c.y), "", nil); err != nil {
		return "", err
	}
	units, err := p.layerUnits(l, lay)
	if err != nil {
		return "", err
	}
	for _, phase := range []struct {
		t     *Transition
		enter bool
	}{{m.Enter, true}, {m.Exit, false}} {
		if phase.t == nil || len(units) == 0 {
			continue
		}
		// The phase's own units: its frames keep them until drawn.
		units := slices.Clone(units)
		for k := range units {
			a := unitAnimation(phase.t, units[k].n, phase.enter, enterEnd, exitStart)
			w := window{fps: p.s.FPS, first: frameAt(a.from, p.s.FPS), end: frameAt(a.to, p.s.FPS)}
			units[k].anim, units[k].w = a, window{fps: p.s.FPS, first: max(w.first, win.first), end: min(w.end, win.end)}
		}
		if wf := p.wordFrames(l, phase.t, units); wf.fits(&p.drawBudget) {
			if err := p.drawnWords(i, phase.enter, l, wf, pl); err != nil {
				return "", err
			}
			continue
		}
		for _, u := range units {
			name := fmt.Sprintf("%du%d", i, u.n)
			if !phase.enter {
				name += "x" // the exit's picture is the enter's again, a file of its own
			}
			x, y, enable, extra := p.unitMotion(i, pl.n, l, phase.t, u.anim, clock{t: "t"}, u.r, u.w)
			if err := pl.place(name, u.lay, false, true, u.w, x, y, enable, extra); err != nil {
				return "", err
			}
		}
	}
	return pl.video, nil
}

// stillPlacer overlays the pictures of text layer i animated by word
// or letter, one after the other, over video; n is how many it placed.
type stillPlacer struct {
	p     *planner
	i     int
	l     Layer
	n     int
	video string
}

// place overlays, on the frames of w, a picture of lay drawn as
// textStill draws it, named after name, at x, y, with the layer's
// opacity and fades and extra's filters (a function of the picture's
// size); enable, when given, is the overlay's in place of w's.
func (pl *stillPlacer) place(name string, lay textLayout, withBox, withGlyphs bool, w window, x, y, enable string, extra func(w, h int) string) error {
	if w.frames() == 0 {
		return nil
	}
	p, l := pl.p, pl.l
	head, filters, err := p.textStill(pl.i, name, l, lay, withBox, withGlyphs)
	if err != nil {
		return err
	}
	e := ""
	if extra != nil {
		e = extra(lay.canvas.w, lay.canvas.h)
	}
	tail := join(filters, "format=yuva420p", opacity(l), w.repeat(), w.shift(), fades(l, frameWindow(l, p.s.FPS)), e)
	if enable == "" {
		enable = w.enable()
	}
	pl.overlay(head+tail, x, y, enable)
	return nil
}

// overlay overlays the chain over the video at x, y when enable says.
func (pl *stillPlacer) overlay(chain, x, y, enable string) {
	lbl, out := fmt.Sprintf("l%dp%d", pl.i, pl.n), fmt.Sprintf("v%dp%d", pl.i, pl.n)
	pl.p.graph = append(pl.p.graph, chain+"["+lbl+"]",
		fmt.Sprintf("[%s][%s]overlay=x=%s:y=%s:eof_action=pass:%s[%s]", pl.video, lbl, x, y, enable, out))
	pl.video = out
	pl.n++
}

// layerUnit is a word or letter of a text layer animated by unit: its
// number, the layout of its glyphs alone, the part of the frame they
// draw on, and, for the enter or exit being planned, when it shows and
// moves and on which frames.
type layerUnit struct {
	n    int
	lay  textLayout
	r    rect
	anim unitTimes
	w    window
}

// layerUnits are the units of a text layer animated by word or letter
// that draw something on its canvas.
func (p *planner) layerUnits(l Layer, lay textLayout) ([]layerUnit, error) {
	by := l.byUnits()
	var out []layerUnit
	for _, u := range lay.glyphs.Units(by) {
		sub := lay
		sub.glyphs = lay.glyphs.Only(by, u)
		r, ok := p.unitCanvas(l, sub)
		if !ok {
			continue
		}
		sub.canvas = r
		out = append(out, layerUnit{n: u, lay: sub, r: r})
	}
	return out, nil
}

// unitTimes is when a unit of an animation by word or letter shows
// (from, to: scene seconds) and moves (start, over d seconds).
type unitTimes struct {
	from, to, start, d float64
	enter              bool
}

// unitAnimation is when unit u of transition t shows and moves: coming
// in, from its turn (u staggers after the layer's start) until every
// unit is in; going out, from the exit's start until it is gone, its own
// move starting at its turn. A typewriter's units show at once, in turn,
// and go from the last back to the first.
func unitAnimation(t *Transition, u int, enter bool, enterEnd, exitStart float64) unitTimes {
	turn := t.Stagger * float64(u)
	if enter {
		start := enterEnd - t.Length() + turn
		return unitTimes{from: start, to: enterEnd, start: start, d: t.Duration, enter: true}
	}
	if t.Kind == Typewriter {
		turn = t.Stagger * float64(max(t.Units-1-u, 0))
	}
	start := exitStart + turn
	return unitTimes{from: exitStart, to: start + t.Duration, start: start, d: t.Duration}
}

// presence is how far unit's animation has come on clock k, eased: from
// 0 (not there) to 1 (in its place).
func (a unitTimes) presence(k clock, e Easing) string {
	if a.d <= 0 {
		return "1"
	}
	p := ease(e, fmt.Sprintf("clip((%s-%s)/%s,0,1)", k.t, f(micro(a.start)), f(micro(a.d))))
	if a.enter {
		return p
	}
	return "(1-" + p + ")"
}

// unitMotion is what moves a unit's picture of r on the frames of w: its
// overlay's x, y and enable option, and the filters of its chain (a
// function of the picture's size): a fade's ramp, a zoom's or pop's
// scale; a slide also fades.
func (p *planner) unitMotion(i, n int, l Layer, t *Transition, a unitTimes, k clock, r rect, w window) (x, y, enable string, extra func(w, h int) string) {
	v := a.presence(k, t.Easing)
	ramp := a.presence(clock{t: "T"}, t.Easing) // the ramp's own frame time
	x, y = fmt.Sprint(r.x), fmt.Sprint(r.y)
	switch t.Kind {
	case Fade, Slide:
		extra = func(pw, ph int) string {
			return p.unitRamp(fmt.Sprintf("r%dp%d", i, n), w, pw, ph, "255*"+ramp)
		}
		if t.Kind == Slide {
			d := f(float64(l.FontSize))
			off := "(1-" + v + ")*" + d
			switch t.Side {
			case Left:
				x = fmt.Sprintf("%d-%s", r.x, off)
			case Right:
				x = fmt.Sprintf("%d+%s", r.x, off)
			case Top:
				y = fmt.Sprintf("%d-%s", r.y, off)
			case Bottom:
				y = fmt.Sprintf("%d+%s", r.y, off)
			}
		}
	case Zoom, Pop:
		z := v
		if t.Kind == Pop {
			q := "(" + v + "-1)"
			z = fmt.Sprintf("(1+%s*pow(%s,3)+%s*pow(%s,2))", f(popOvershoot+1), q, f(popOvershoot), q)
		}
		extra = func(int, int) string {
			return fmt.Sprintf("scale=w=%s:h=%s:eval=frame",
				escapeGraph("max(1,round(iw*"+z+"))"), escapeGraph("max(1,round(ih*"+z+"))"))
		}
		x = fmt.Sprintf("%d+(%d-w)/2", r.x, r.w)
		y = fmt.Sprintf("%d+(%d-h)/2", r.y, r.h)
		enable = fmt.Sprintf("enable='%s*gt(%s,0.01)'", w.during(), z)
	}
	return escapeGraph(x), escapeGraph(y), enable, extra
}

// unitRamp makes a ramp of alpha (an expression of T, 0 to 255) w×h for
// the frames of win, and returns the blend that multiplies a chain's
// alpha by it (as opacityRamp does for a whole layer).
func (p *planner) unitRamp(lbl string, win window, w, h int, alpha string) string {
	p.graph = append(p.graph, join(
		fmt.Sprintf("color=c=white:s=2x2:r=%d:d=%s", p.s.FPS, f(float64(win.frames()+1)/float64(p.s.FPS))),
		"format=yuva420p", win.shift(), "geq=lum=0:a="+escapeGraph(alpha),
		fmt.Sprintf("scale=w=%d:h=%d:flags=neighbor", w, h))+"["+lbl+"]")
	return "[" + lbl + "]blend=c0_opacity=0:c1_opacity=0:c2_opacity=0:c3_mode=multiply:shortest=1"
}

// unitCanvas is the part of the frame a unit's glyphs (a layout holding
// them only) draw on: their ink and backgrounds, their stroke and shadow, and a pixel of
// smoothing, cut to the layer's canvas, on even pixels; ok is false when
// none of it is on the canvas.
func (p *planner) unitCanvas(l Layer, sub textLayout) (rect, bool) {
	var b bounds
	grow := l.Stroke.Width + 2
	sh := l.Style.Shadow
	spread := (3*sh.Blur + 1) / 2
	for k, gl := range sub.glyphs.Lines {
		// The unit's glyphs and the spans' backgrounds behind them.
		left, right, top, bottom, ok := gl.Reach()
		if !ok || !sub.lines[k].shows {
			continue
		}
		ln := sub.lines[k]
		x0 := float64(ln.x) + ln.offset + left
		x1 := float64(ln.x) + ln.offset + right
		r := rect{x: int(math.Floor(x0)) - grow, y: ln.baseline - int(math.Ceil(top)) - grow}
		r.w = int(math.Ceil(x1)) + grow - r.x
		r.h = ln.baseline + int(math.Ceil(bottom)) + grow - r.y
		b.add(r)
		if sh.Color != "" {
			b.add(rect{x: r.x + sh.X - spread, y: r.y + sh.Y - spread, w: r.w + 2*spread, h: r.h + 2*spread})
		}
	}
	if !b.set {
		return rect{}, false
	}
	c := sub.canvas
	b.x0, b.y0 = max(b.x0, c.x), max(b.y0, c.y)
	b.x1, b.y1 = min(b.x1, c.x+c.w), min(b.y1, c.y+c.h)
	r := b.onFrame(p.s.Width, p.s.Height)
	return r, r.w > 0 && r.h > 0
}
