package engine

import (
	"fmt"
	"math"
	"strconv"
)

// How layers with Motion are drawn. A layer's chain ends, after its fades,
// with what changes on every frame, cheapest first:
//
//	[r]blend      opacity: the alpha plane times a ramp, a one-colour
//	              picture whose alpha follows the opacity (see ramp)
//	rotate        rotation, into a box that holds every angle
//	scale         size, evaluated per frame only when the size changes
//
// and overlay places it with expressions of t. What holds still is done
// once: a still picture is sized, framed and turned before it is
// repeated, and a constant scale is folded into the size it is drawn at.

// side bounds a computed side: at least a pixel, at most maxDerivedSide.
func side(v float64) int { return min(maxDerivedSide, max(1, int(math.Round(v)))) }

// derived is the side scale computes from the other (see scale); 1
// when the picture's size is unknown.
func derived(given, of, by int) int {
	if by <= 0 {
		return 1
	}
	return min(maxDerivedSide, max(1, int(math.Trunc(float64(given)*float64(of)/float64(by)+0.5))))
}

// box is the size a picture or video layer is placed at, before its scale
// and rotation: as given, one side from the picture's aspect ratio, or
// the picture's own size.
func box(l Layer, m Media) (int, int) {
	switch {
	case l.Width > 0 && l.Height > 0:
		return l.Width, l.Height
	case l.Width > 0:
		return l.Width, derived(l.Width, m.Height, m.Width)
	case l.Height > 0:
		return derived(l.Height, m.Width, m.Height), l.Height
	}
	return m.Width, m.Height
}

// moves reports a layer whose place, size or angle changes, or whose
// scale or angle is not the plain one: it is drawn whole and placed by
// expressions.
func (l Layer) moves() bool {
	m := l.motion()
	s, sFixed := m.Scale.static(1)
	r, rFixed := m.Rotation.static(0)
	enter, exit := m.enter(), m.exit()
	return m.X != nil || m.Y != nil || !sFixed || s != 1 || !rFixed || r != 0 ||
		enter.is(Slide) || enter.is(Zoom) || exit.is(Slide) || exit.is(Zoom)
}

// ramped reports a layer whose opacity changes over time, or that a
// transition masks: its chain blends with a ramp or a mask.
func (l Layer) ramped() bool {
	m := l.motion()
	return m.Opacity != nil || m.enter().is(Fade) || m.exit().is(Fade) || masked(m.Into)
}

// staticScale is the layer's scale when it holds still, else 1: the
// changing part is scaled per frame.
func (l Layer) staticScale() float64 {
	s, fixed := l.motion().Scale.static(1)
	if !fixed {
		return 1
	}
	return s
}

// shape follows a moving layer's frames along its chain.
type shape struct {
	// boxW and boxH are the layer's placed size: before scale and rotation.
	boxW, boxH int
	// w and h are its frames' size at this point of the chain.
	w, h int
	// turned is set once the rotation is done.
	turned bool
}

// grow is the side of a box at least b long that holds a frame side
// pixels long centred on whole pixels: of side's parity, so that the
// turn is about the layer's own centre and a right angle blurs nothing.
func grow(side int, b float64) int {
	n := int(math.Ceil(b - 1e-6))
	if (n-side)%2 != 0 {
		n++
	}
	return max(n, 1)
}

// rotate turns the frames by the layer's rotation (clockwise, about their
// centre) into a box that holds them: the turned frame's bounds for a
// fixed angle, the diagonal for a changing one; "" when there is none.
func (s *shape) rotate(l Layer, k clock) string {
	if s.turned {
		return ""
	}
	s.turned = true
	m := l.motion()
	r, fixed := m.Rotation.static(0)
	if fixed && r == 0 {
		return ""
	}
	w, h := float64(s.w), float64(s.h)
	// The bounds of the frame turned by every angle the curve reaches:
	// keyframes hold the curve's extremes, since every easing stays
	// between the values it joins. A turn of half a circle or more needs
	// the diagonal either way.
	lo, hi := m.Rotation.extent()
	var bw, bh float64
	for a := lo; ; a = min(a+1, hi) {
		rad := a * math.Pi / 180
		sin, cos := math.Abs(math.Sin(rad)), math.Abs(math.Cos(rad))
		bw, bh = max(bw, w*cos+h*sin), max(bh, w*sin+h*cos)
		if a == hi || hi-lo >= 180 {
			break
		}
	}
	switch {
	case hi-lo >= 180:
		bw, bh = math.Hypot(w, h), math.Hypot(w, h)
	case !fixed:
		// Between two sampled degrees the bounds grow by a third of a
		// pixel at most, for the largest frames.
		bw, bh = bw+1, bh+1
	}
	angle := "(" + m.Rotation.expr(k) + ")*PI/180"
	if fixed {
		angle = f(math.Round(r*math.Pi/180*1e9) / 1e9)
	}
	s.w, s.h = grow(s.w, bw), grow(s.h, bh)
	// The fill is transparent: none would leave the last frame's pixels.
	return fmt.Sprintf("rotate=a=%s:ow=%d:oh=%d:c=0x00000000", escapeGraph(angle), s.w, s.h)
}

// scale sizes the frames by the changing part of the layer's scale,
// evaluated per frame; it returns the filter and the scale expression,
// both "" when the size holds still. No side grows past maxDerivedSide.
func (s *shape) scale(l Layer, k clock) (string, string) {
	z := l.zooming(k)
	if z == "" {
		return "", ""
	}
	peak := 1.0
	if m := l.motion(); m.Scale != nil {
		_, peak = m.Scale.extent()
	}
	if limit := float64(maxDerivedSide) / float64(max(s.w, s.h)); peak > limit {
		z = fmt.Sprintf("min(%s,%s)", z, f(math.Floor(limit*1e6)/1e6))
	}
	return fmt.Sprintf("scale=w=%s:h=%s:eval=frame",
		escapeGraph("max(1,round(iw*"+z+"))"), escapeGraph("max(1,round(ih*"+z+"))")), z
}

// ramp makes the ramp of layer i's opacity and the mask of a transition
// into it, w×h like the frames they meet, and returns the blends that
// apply them, "" when there are none.
func (p *planner) ramp(i int, l Layer, win window, w, h int) string {
	return join(p.opacityRamp(i, l, win, w, h), p.mask(i, l, win, w, h))
}

// opacityRamp makes the ramp of layer i's opacity, w×h like the frames it
// meets, and returns the blend that applies it, or "" when the opacity
// holds still. The ramp's alpha is the opacity at the frame's time (geq on four
// pixels, then scaled), and blend multiplies the layer's alpha by it and
// keeps the layer's colour: per pixel, a multiplication and a copy, where
// geq on the layer itself would evaluate an expression for every pixel.
func (p *planner) opacityRamp(i int, l Layer, win window, w, h int) string {
	if m := l.motion(); m.Opacity == nil && !m.enter().is(Fade) && !m.exit().is(Fade) {
		return ""
	}
	k := clock{t: "T", origin: l.Start}
	var keyed string
	if m := l.motion(); m.Opacity != nil {
		keyed = "(" + m.Opacity.expr(k) + ")"
	}
	alpha := "255*" + product(keyed, l.fading(k))
	lbl := fmt.Sprintf("r%d", i)
	p.graph = append(p.graph, join(
		fmt.Sprintf("color=c=white:s=2x2:r=%d:d=%s", p.s.FPS, f(float64(win.frames()+1)/float64(p.s.FPS))),
		"format=yuva420p", win.shift(), "geq=lum=0:a="+escapeGraph(alpha),
		fmt.Sprintf("scale=w=%d:h=%d:flags=neighbor", w, h))+"["+lbl+"]")
	// The ramp comes first in blend (a label joins a chain before the
	// chain's own frames), so the layer is blend's bottom: colour copied
	// from it (normal at opacity 0), alpha multiplied.
	return "[" + lbl + "]blend=c0_opacity=0:c1_opacity=0:c2_opacity=0:c3_mode=multiply:shortest=1"
}

// transform ends the chain of a moving layer i: the ramp of its opacity,
// its rotation and its changing size. It returns those filters and the
// overlay's x, y and enable option that place it.
func (p *planner) transform(i int, l Layer, win window, s *shape) (tail, x, y, enable string) {
	k := clock{t: "t", origin: l.Start}
	ramp := p.ramp(i, l, win, s.w, s.h)
	rotate := s.rotate(l, k)
	scale, z := s.scale(l, k)
	m := l.motion()
	// The layer's position is its box's top left corner: a frame of
	// another size (scaled, turned) is placed about the box's centre.
	resized := l.staticScale() != 1 || z != "" || s.w != s.boxW || s.h != s.boxH
	place := func(pos Pos, c Curve, box int, size, frame string) string {
		if c == nil && pos.Center {
			return fmt.Sprintf("(%s-%s)/2", frame, size)
		}
		base := f(float64(pos.Px))
		if c != nil {
			base = "(" + c.expr(k) + ")"
		}
		if resized {
			base += fmt.Sprintf("+(%d-%s)/2", box, size)
		}
		return base
	}
	x = l.sliding(k, "x", place(l.X, m.X, s.boxW, "w", "W"), "-w", "W")
	y = l.sliding(k, "y", place(l.Y, m.Y, s.boxH, "h", "H"), "-h", "H")
	enable = win.enable()
	if l.vanishes() {
		// At scale 0 the layer is not drawn (scale keeps a pixel).
		if z == "" {
			z = f(l.staticScale())
		}
		enable = fmt.Sprintf("enable='%s*gt(%s,0)'", win.during(), z)
	}
	return join(ramp, rotate, scale), escapeGraph(x), escapeGraph(y), enable
}

// frame sizes and frames a picture or video layer before it is
// converted: the filters that size it (a crop for a fixed Ken Burns frame,
// a scale), zoompan when its Ken Burns frame changes (then the scale makes
// just enough pixels for the deepest zoom), and the shape of its frames
// after them. A layer that does not move is sized as it always was.
func (p *planner) frame(l Layer, m Media, win window) (size, zoompan string, sh *shape) {
	bw, bh := box(l, m)
	dw, dh := drawn(l, bw, bh)
	sh = &shape{boxW: bw, boxH: bh, w: dw, h: dh}
	mo := l.motion()
	z0, zFixed := mo.Zoom.static(1)
	_, pxFixed := mo.PanX.static(0.5)
	_, pyFixed := mo.PanY.static(0.5)
	switch {
	case !zFixed || z0 > 1 && !(pxFixed && pyFixed):
		_, zmax := mo.Zoom.extent()
		if zFixed {
			zmax = z0
		}
		zf := min(zmax, float64(maxDerivedSide)/float64(max(dw, dh)))
		// zoompan numbers its input frames from 0 (in): the chain's
		// frames, one per output frame from the window's first, or from
		// the first a still draws of a picture (held).
		in := "in"
		if h := p.held(win, m); h > 0 {
			in = fmt.Sprintf("(in+%d)", h)
		}
		k := clock{t: fmt.Sprintf("(%s/%d+%s)", in, p.s.FPS, f(win.startTime())), origin: l.Start}
		value := func(c Curve, def string) string {
			if c == nil {
				return def
			}
			return "(" + c.expr(k) + ")"
		}
		return fmt.Sprintf("scale=w=%d:h=%d", side(float64(dw)*zf), side(float64(dh)*zf)),
			fmt.Sprintf("zoompan=z=%s:x=%s:y=%s:d=1:s=%dx%d:fps=%d",
				escapeGraph(value(mo.Zoom, "1")), escapeGraph(value(mo.PanX, "0.5")+"*(iw-iw/zoom)"),
				escapeGraph(value(mo.PanY, "0.5")+"*(ih-ih/zoom)"), dw, dh, p.s.FPS), sh
	case z0 > 1:
		px, _ := mo.PanX.static(0.5)
		py, _ := mo.PanY.static(0.5)
		return join(fmt.Sprintf("crop=w=iw/%s:h=ih/%s:x=(iw-ow)*%s:y=(ih-oh)*%s", f(z0), f(z0), f(px), f(py)),
			fmt.Sprintf("scale=w=%d:h=%d", dw, dh)), "", sh
	case l.moves() && (dw != bw || dh != bh):
		return fmt.Sprintf("scale=w=%d:h=%d", dw, dh), "", sh
	}
	return scale(l), "", sh
}

// drawn is the size a layer of box bw×bh is drawn at, its fixed scale
// applied. The scale stops where a side (or, for a layer that turns, the
// diagonal) would pass maxDerivedSide, rather than distort the layer.
func drawn(l Layer, bw, bh int) (int, int) {
	limit := float64(maxDerivedSide) / float64(max(bw, bh, 1))
	if r, fixed := l.motion().Rotation.static(0); !fixed || r != 0 {
		limit = float64(maxDerivedSide) / math.Hypot(float64(bw), float64(bh))
	}
	s := min(l.staticScale(), limit)
	return side(float64(bw) * s), side(float64(bh) * s)
}

// movingColor draws a colour layer that moves: generated whole at its
// drawn size, then transformed.
func (p *planner) movingColor(i int, l Layer, video, c string, r rect, win window) string {
	lbl := fmt.Sprintf("l%d", i)
	w, h := p.filled(l)
	if part, ok := p.visiblePart(l, w, h, r.w, r.h); ok {
		if part.w <= 0 || part.h <= 0 {
			return video // nothing of it reaches the frame
		}
		sh := &shape{boxW: part.w, boxH: part.h, w: part.w, h: part.h}
		src := fmt.Sprintf("color=c=%s:s=%dx%d:r=%d:d=%s", c, part.w, part.h, p.s.FPS, f(float64(win.frames()+1)/float64(p.s.FPS)))
		tail := join(p.ramp(i, l, win, part.w, part.h), sh.rotate(l, clock{t: "t", origin: l.Start}))
		p.graph = append(p.graph, join(src, "format=yuva420p", win.shift(), fades(l, win), tail)+"["+lbl+"]")
		// part.x, part.y is where the centre of the part lands.
		return p.overlay(i, win.enable(), video, lbl, strconv.Itoa(part.x-sh.w/2), strconv.Itoa(part.y-sh.h/2))
	}
	sh := &shape{boxW: w, boxH: h, w: r.w, h: r.h}
	src := fmt.Sprintf("color=c=%s:s=%dx%d:r=%d:d=%s", c, r.w, r.h, p.s.FPS, f(float64(win.frames()+1)/float64(p.s.FPS)))
	tail, x, y, enable := p.transform(i, l, win, sh)
	p.graph = append(p.graph, join(src, "format=yuva420p", win.shift(), fades(l, win), tail)+"["+lbl+"]")
	return p.overlay(i, enable, video, lbl, x, y)
}

// visiblePart is the part of a colour layer that can reach the frame,
// when its place, scale and angle hold still and the layer drawn whole
// (dw×dh, its box bw×bh scaled) would reach past the frame: its size,
// and where its centre lands on the frame (rect's x and y). One colour
// looks the same cut anywhere, so only the part that can be seen is
// drawn and turned: a colour at scale 100, turned, on a 320×180 output
// turned a 7140×4016 picture every frame. ok is false when the whole
// layer is drawn; a part of no size is a layer that never shows.
func (p *planner) visiblePart(l Layer, bw, bh, dw, dh int) (part rect, ok bool) {
	m := l.motion()
	sc, sFixed := m.Scale.static(1)
	deg, rFixed := m.Rotation.static(0)
	if m.X != nil || m.Y != nil || !sFixed || !rFixed || sc == 0 || m.enter() != nil || m.exit() != nil || l.vanishes() {
		return rect{}, false
	}
	W, H := float64(p.s.Width), float64(p.s.Height)
	// The layer's centre: its box's, which scale and rotation keep.
	cx, cy := float64(l.X.Px)+float64(bw)/2, float64(l.Y.Px)+float64(bh)/2
	if l.X.Center {
		cx = W / 2
	}
	if l.Y.Center {
		cy = H / 2
	}
	// The frame's corners in the layer's own axes (rotate turns
	// clockwise, y down), bounded, with two pixels for the turned edges'
	// smoothing, and cut to the layer.
	rad := deg * math.Pi / 180
	sin, cos := math.Sin(rad), math.Cos(rad)
	u0, v0, u1, v1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, c := range [][2]float64{{0, 0}, {W, 0}, {0, H}, {W, H}} {
		dx, dy := c[0]-cx, c[1]-cy
		u, v := dx*cos+dy*sin, -dx*sin+dy*cos
		u0, u1, v0, v1 = min(u0, u), max(u1, u), min(v0, v), max(v1, v)
	}
	hw, hh := float64(dw)/2, float64(dh)/2
	u0, v0 = max(math.Floor(u0)-2, -hw), max(math.Floor(v0)-2, -hh)
	u1, v1 = min(math.Ceil(u1)+2, hw), min(math.Ceil(v1)+2, hh)
	if u1 <= u0 || v1 <= v0 {
		return rect{}, true
	}
	w, h := int(math.Ceil(u1-u0)), int(math.Ceil(v1-v0))
	if 4*w*h > 3*dw*dh {
		return rect{}, false // a cut that saves little changes nothing
	}
	mu, mv := (u0+u1)/2, (v0+v1)/2
	return rect{x: int(math.Round(cx + mu*cos - mv*sin)), y: int(math.Round(cy + mu*sin + mv*cos)), w: w, h: h}, true
}
