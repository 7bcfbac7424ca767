package engine

import "math"

// A still shows one frame. A layer that moves keeps its own clock in a
// part (Part), so the part composes its frames from the layer's start on:
// a picture turning since 0 s made a still at 30 s compose 750 frames to
// keep one. For a still alone, such a layer is frozen instead: each of its
// curves becomes its value on the still's frame, and it starts there.

// freezeAt is l as it looks on frame n of a scene at fps, starting on that
// frame with every curve held at its value then; ok is false when l cannot
// be frozen there (a transition into or out of it, an enter or an exit,
// a fade under way, a loop), and it keeps its clock.
func freezeAt(l Layer, n, fps int) (Layer, bool) {
	w := frameWindow(l, fps)
	if w.first >= n || n >= w.end || l.Playback.Loop || l.Motion == nil {
		return l, false
	}
	switch l.Kind {
	case KindVideo, KindMockup, KindColor, KindImage, KindRectangle, KindEllipse, KindText:
	default:
		return l, false
	}
	at := float64(n) / float64(fps)
	tau := at - l.Start
	m := *l.Motion
	if m.Into != nil || m.Out != nil || l.FadeIn > tau || l.FadeOut > 0 && tau > l.Duration-l.FadeOut {
		return l, false
	}
	// An enter or exit decides how the layer is drawn (a slide moves a
	// text box that would otherwise be drawn in place); without it the
	// layer would not be drawn as the video draws it, so it keeps its
	// clock.
	if m.Enter != nil || m.Exit != nil {
		return l, false
	}
	if l.Kind == KindVideo || l.Kind == KindMockup {
		l.SkipFrames += n - w.first
	}
	end := l.End()
	l.Start = micro(at)
	l.Duration = micro(end - l.Start)
	for _, c := range []*Curve{&m.X, &m.Y, &m.Opacity, &m.Volume, &m.Scale, &m.Rotation, &m.Zoom, &m.PanX, &m.PanY} {
		if *c != nil {
			*c = c.heldAt(tau, l.Duration)
		}
	}
	l.Motion = &m
	l.FadeIn, l.FadeOut = 0, 0
	return l, true
}

// heldAt is the curve held at its value t seconds into the layer, for a
// layer that lasts d seconds from then. A curve that changes keeps its
// least and greatest values in keys after d, which the layer never
// reaches: the plan sizes a moving layer's boxes from them (a turning
// picture's), so the held layer is drawn exactly as the moving one was on
// that frame, rounding and all.
func (c Curve) heldAt(t, d float64) Curve {
	v := c.at(t)
	lo, hi := c.extent()
	if lo == hi {
		return Curve{{Value: v}}
	}
	after := math.Ceil(d) + 1
	return Curve{{Value: v}, {Time: after, Value: v}, {Time: after + 1, Value: lo}, {Time: after + 2, Value: hi}}
}

// at is the curve's value t seconds after the layer's start, as its
// expression (Curve.expr) computes it on that frame.
func (c Curve) at(t float64) float64 {
	v := c[0].Value
	for i := 1; i < len(c); i++ {
		d := micro(c[i].Value - c[i-1].Value)
		if d == 0 {
			continue
		}
		span := micro(c[i].Time - c[i-1].Time)
		p := 1.0
		if span > 0 {
			p = math.Min(math.Max((t-c[i-1].Time)/span, 0), 1)
		}
		v += d * easeValue(c[i].Easing, p)
	}
	return v
}

// easeValue is ease's shaping of a progress p, as a number.
func easeValue(e Easing, p float64) float64 {
	switch e {
	case EaseIn:
		return p * p * p
	case EaseOut:
		return 1 - math.Pow(1-p, 3)
	case EaseInOut:
		if p < 0.5 {
			return 4 * p * p * p
		}
		return 1 - 4*math.Pow(1-p, 3)
	}
	return p
}
