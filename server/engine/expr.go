package engine

import (
	"fmt"
	"strings"
)

// Motion becomes ffmpeg expressions of a filter's time variable, evaluated
// on every frame (or, for sound, every block of samples). They are written
// here with plain commas; escapeGraph escapes them where they enter the
// graph. Every value in them is a validated number.

// clock is a filter's time variable and the time on it of the layer's
// start, from which keyframe times count.
type clock struct {
	t      string
	origin float64
}

// at is a time on the clock, in microseconds like every time of a scene,
// so that sums stay short.
func (k clock) at(seconds float64) string { return f(micro(k.origin + seconds)) }

// progress goes from 0 at from to 1 at to, layer times, and holds outside.
func (k clock) progress(from, to float64) string {
	return fmt.Sprintf("clip((%s-%s)/%s,0,1)", k.t, k.at(from), f(micro(to-from)))
}

// ease shapes a progress p (an expression from 0 to 1) by e.
func ease(e Easing, p string) string {
	switch e {
	case EaseIn:
		return "pow(" + p + ",3)"
	case EaseOut:
		return "(1-pow(1-" + p + ",3))"
	case EaseInOut:
		return "if(lt(" + p + ",0.5),4*pow(" + p + ",3),1-4*pow(1-" + p + ",3))"
	}
	return p
}

// termsPerGroup bounds the terms of a sum between parentheses: ffmpeg
// parses a sum into a tree as deep as its terms are many, and refuses a
// tree about 100 deep.
const termsPerGroup = 32

// expr is the curve on clock k: its first value, plus each change times
// the eased progress of its step. Before its step a progress is 0 and
// after it 1, so the sum is exactly the curve, without nested conditions.
func (c Curve) expr(k clock) string {
	var terms []string
	for i := 1; i < len(c); i++ {
		d := micro(c[i].Value - c[i-1].Value)
		if d == 0 {
			continue
		}
		sign := "+"
		if d < 0 {
			sign, d = "-", -d
		}
		terms = append(terms, fmt.Sprintf("%s%s*%s", sign, f(d), ease(c[i].Easing, k.progress(c[i-1].Time, c[i].Time))))
	}
	if len(terms) <= termsPerGroup {
		return f(c[0].Value) + strings.Join(terms, "")
	}
	var b strings.Builder
	b.WriteString(f(c[0].Value))
	for len(terms) > 0 {
		n := min(termsPerGroup, len(terms))
		b.WriteString("+(" + strings.Join(terms[:n], "") + ")")
		terms = terms[n:]
	}
	return b.String()
}

// entering goes from 0 to 1, eased, over the enter transition on clock k.
func (t *Transition) entering(k clock) string {
	return ease(t.Easing, k.progress(0, t.Duration))
}

// leaving goes from 0 to 1, eased, over the exit transition of a layer
// lasting d seconds.
func (t *Transition) leaving(k clock, d float64) string {
	return ease(t.Easing, k.progress(d-t.Duration, d))
}

// product multiplies the non-empty factors; "" when there are none.
func product(factors ...string) string {
	var out []string
	for _, x := range factors {
		if x != "" {
			out = append(out, x)
		}
	}
	return strings.Join(out, "*")
}

// fading is what a layer's opacity is multiplied by over its enter and
// exit fades (a fade transition into it among them) on clock k, or ""
// when it does not fade so.
func (l Layer) fading(k clock) string {
	m := l.motion()
	return l.fadingBy(k, m.enter(), m.exit())
}

// fadingBy is what a layer's opacity or volume is multiplied by over the
// fades among enter and exit.
func (l Layer) fadingBy(k clock, enter, exit *Transition) string {
	var in, out string
	if enter.is(Fade) {
		in = enter.entering(k)
	}
	if exit.is(Fade) {
		out = "(1-" + exit.leaving(k, l.Duration) + ")"
	}
	return product(in, out)
}

// zooming is the animated part of a layer's scale on clock k: its scale
// keyframes when they change, times its enter and exit zooms; "" when
// its size does not change over time.
func (l Layer) zooming(k clock) string {
	m := l.motion()
	var keyed, in, out string
	if _, fixed := m.Scale.static(1); !fixed {
		keyed = "(" + m.Scale.expr(k) + ")"
	}
	enter, exit := m.enter(), m.exit()
	if enter.is(Zoom) {
		in = enter.entering(k)
	}
	if exit.is(Zoom) {
		out = "(1-" + exit.leaving(k, l.Duration) + ")"
	}
	return product(keyed, in, out)
}

// vanishes reports a layer whose scale reaches 0, where it is not drawn.
func (l Layer) vanishes() bool {
	m := l.motion()
	if m.enter().is(Zoom) || m.exit().is(Zoom) {
		return true
	}
	lo, _ := m.Scale.extent()
	return m.Scale != nil && lo == 0
}

// sliding moves base, a position expression on one axis, in from and
// out to the sides of that axis: before is where the layer is wholly
// outside the frame on the low side (minus its size), after on the high
// side (the frame's size). Axis is "x" or "y". With e the enter's eased
// progress and q the exit's, the position is
// base·(e−q) + in·(1−e) + out·q: base, the long part, written once.
func (l Layer) sliding(k clock, axis, base, before, after string) string {
	m := l.motion()
	edge := func(t *Transition) string {
		if !t.is(Slide) {
			return ""
		}
		switch {
		case axis == "x" && t.Side == Left, axis == "y" && t.Side == Top:
			return before
		case axis == "x" && t.Side == Right, axis == "y" && t.Side == Bottom:
			return after
		}
		return ""
	}
	enter, exit := m.enter(), m.exit()
	in, out := edge(enter), edge(exit)
	if in == "" && out == "" {
		return base
	}
	share := []string{"(" + base + ")*("}
	var rest string
	if in != "" {
		e := enter.entering(k)
		share = append(share, e)
		rest += fmt.Sprintf("+(%s)*(1-%s)", in, e)
	} else {
		share = append(share, "1")
	}
	if out != "" {
		q := exit.leaving(k, l.Duration)
		share = append(share, "-"+q)
		rest += fmt.Sprintf("+(%s)*%s", out, q)
	}
	return strings.Join(share, "") + ")" + rest
}
