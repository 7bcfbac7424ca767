package engine

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// maxDerivedSide bounds the side that scaling computes from the other one
// (a layer given only a width or only a height): a very thin picture must
// not make an impossibly large frame. 8192 is far beyond any output.
const maxDerivedSide = 8192

// color draws a color layer: generated at the size of the part of it that
// is on screen (nothing when none is, or when it is fully transparent), in
// YUV with alpha as overlay blends it, with its opacity folded into the
// colour so that only a fade touches its frames.
func (p *planner) color(i int, l Layer, video string) string {
	c, r := p.colorRect(l)
	win := frameWindow(l, p.s.FPS)
	if r.w <= 0 || r.h <= 0 || win.frames() == 0 || colorAlpha(c) == 0 {
		return video
	}
	if l.moves() {
		return p.movingColor(i, l, video, c, r, win)
	}
	lbl := fmt.Sprintf("l%d", i)
	// One frame longer than the layer: the enable window, not the source,
	// decides the last frame. The source draws its frame once and repeats
	// it.
	src := fmt.Sprintf("color=c=%s:s=%dx%d:r=%d:d=%s", c, r.w, r.h, p.s.FPS, f(float64(win.frames()+1)/float64(p.s.FPS)))
	p.graph = append(p.graph, join(src, "format=yuva420p", win.shift(), fades(l, win), p.ramp(i, l, win, r.w, r.h))+"["+lbl+"]")
	return p.overlay(i, win.enable(), video, lbl, strconv.Itoa(r.x), strconv.Itoa(r.y))
}

// rect is a rectangle of the frame in pixels.
type rect struct{ x, y, w, h int }

// colorRect is a color layer's colour with its opacity folded into the
// alpha, and the part of the frame it covers; for a layer that moves,
// its whole size as drawn.
func (p *planner) colorRect(l Layer) (string, rect) {
	w, h := p.filled(l)
	if l.moves() {
		dw, dh := drawn(l, w, h)
		return withOpacity(l.Color, l.Opacity), rect{w: dw, h: dh}
	}
	x, y := placed(l.X, p.s.Width, w), placed(l.Y, p.s.Height, h)
	x0, y0 := max(x, 0), max(y, 0)
	x1, y1 := min(x+w, p.s.Width), min(y+h, p.s.Height)
	return withOpacity(l.Color, l.Opacity), rect{x: x0, y: y0, w: x1 - x0, h: y1 - y0}
}

// filled is the size of a layer that fills the frame by default (a
// colour or a shape): its width and height, the frame's where not given.
func (p *planner) filled(l Layer) (int, int) {
	w, h := l.Width, l.Height
	if w == 0 {
		w = p.s.Width
	}
	if h == 0 {
		h = p.s.Height
	}
	return w, h
}

// placed is where overlay puts the near edge of a layer size pixels long
// on an axis frame pixels long: blending YUV 4:2:0, it moves the corner
// down to an even pixel so that chroma samples line up (vf_overlay's
// normalize_xy), which a clipped layer must reproduce exactly.
func placed(pos Pos, frame, size int) int {
	d := float64(pos.Px)
	if pos.Center {
		d = float64(frame-size) / 2
	}
	return int(d) &^ 1
}

// cover finds the topmost layer that hides everything under it: an opaque
// colour without fades over the whole frame on every frame. It returns
// the layer's index, or -1, and the colour of the base: that layer's, or
// the background.
func (p *planner) cover() (int, string) {
	all := frameAt(p.s.Duration, p.s.FPS)
	for i := len(p.s.Layers) - 1; i >= 0; i-- {
		l := p.s.Layers[i]
		if l.Kind != KindColor || l.FadeIn > 0 || l.FadeOut > 0 || l.Motion != nil {
			continue
		}
		c, r := p.colorRect(l)
		win := frameWindow(l, p.s.FPS)
		if colorAlpha(c) == 0xFF && r == (rect{w: p.s.Width, h: p.s.Height}) && win.first == 0 && win.end >= all {
			return i, c
		}
	}
	return -1, p.s.Background
}

// visual draws an image or video layer, and returns the label of the
// layer's sound for the mix when it has one. A hidden layer is only
// checked, and plays its sound.
func (p *planner) visual(i int, l Layer, video string, hidden bool) (string, string, error) {
	m, err := p.medium(l)
	if err != nil {
		return "", "", err
	}
	if !m.HasVideo {
		return "", "", &MediaError{Field: l.SourceField, Message: fmt.Sprintf("the file has no picture; a %s layer needs an image or a video", l.Kind)}
	}
	sound := l.Kind == KindVideo && m.HasAudio && !m.Still && l.Volume > 0 && p.sound()
	if hidden {
		if sound {
			in := p.input(m, sourceOptions(l, l.Duration)...)
			return video, p.audioChain(i, l, in), nil
		}
		return video, "", nil
	}
	if l.Motion != nil && (m.Width <= 0 || m.Height <= 0) {
		return "", "", &MediaError{Field: l.SourceField, Message: "the picture's size is unknown, and a moving layer needs it"}
	}
	lbl := fmt.Sprintf("l%d", i)
	in, x, y, enable := p.picture(i, l, m, frameWindow(l, p.s.FPS), lbl)
	out := p.overlay(i, enable, video, lbl, x, y)
	if sound {
		return out, p.audioChain(i, l, in), nil
	}
	return out, "", nil
}

// picture makes the chain of an image or video layer from its input,
// labelled lbl, and returns the input and the overlay's x, y and enable.
func (p *planner) picture(i int, l Layer, m Media, win window, lbl string) (in int, x, y, enable string) {
	fps := strconv.Itoa(p.s.FPS)
	// The layer's look cuts, mirrors and fits the frames first (so the
	// frames are as large as the crop leaves them), and colours them
	// once sized.
	before, after := p.look(i, l)
	size, zoompan, sh := p.frame(l, l.Look.Crop.of(m), win)
	var chain string
	// Layers are converted once to YUV 4:2:0 with alpha, the format
	// overlay blends, and faded on their alpha plane alone.
	if m.Still {
		// Scaled, converted, made translucent and turned once, then
		// repeated (unless zoompan frames each repetition).
		var turn string
		if _, fixed := l.motion().Rotation.static(0); fixed && zoompan == "" {
			turn = sh.rotate(l, clock{})
		}
		in = p.input(m)
		// A picture held still but scaled or turned past the frame is
		// cut to what can show before it is repeated.
		var cut string
		var at [2]int
		if zoompan == "" {
			cut, at = p.visibleCut(l, sh)
		}
		repeat, shift := win.repeat(), win.shift()
		if h := p.held(win, m); h > 0 && zoompan != "" {
			// zoompan frames only the frames from the still's on.
			repeat, shift = win.repeatFrom(h), win.shiftFrom(h)
		}
		chain = join(fmt.Sprintf("[%d:v]%s", in, join(before, size, after, "format=yuva420p", opacity(l), turn, cut)),
			repeat, zoompan, shift, fades(l, win))
		if cut != "" {
			tail, _, _, enable := p.transform(i, l, win, sh)
			p.graph = append(p.graph, join(chain, tail)+"["+lbl+"]")
			return in, strconv.Itoa(at[0]), strconv.Itoa(at[1]), enable
		}
	} else {
		// A frame more than the layer, so the fps filter cannot come up
		// one short; the enable window cuts the rest.
		// A layer cut to a part (Scene.Part) reads its source from the
		// same point as the whole render and drops the frames before the
		// part: the frames a source offers after a seek depend on where
		// it seeks, so a seek to the part's start could pick other ones.
		skip, pts := "", sourcePTS(l)
		opts := sourceOptions(l, l.Duration+float64(l.SkipFrames+1)/float64(p.s.FPS))
		if l.SkipFrames > 0 {
			skip = fmt.Sprintf("trim=start_frame=%d", l.SkipFrames)
		}
		if l.SkipFrames > 0 && l.Seek {
			// Seek near the part, and time the frames from the first one
			// the whole render shows, as it does (PTS-STARTPTS there): the
			// fps filter then picks the same frames from the part on.
			moved := max(0, float64(l.SkipFrames)/float64(p.s.FPS)-seekMargin)
			sought := l
			sought.TrimStart = micro(l.TrimStart + moved)
			opts = sourceOptions(sought, l.Duration+float64(l.SkipFrames+1)/float64(p.s.FPS)-moved)
			pts = fmt.Sprintf("setpts=PTS+(%s)/TB", f(moved-l.FirstFrame))
			skip = fmt.Sprintf("trim=start_pts=%d", l.SkipFrames)
		}
		src := m
		if p.mock != nil {
			src = p.mock.design // m is the template's canvas
		}
		in = p.input(src, opts...)
		head := join(fmt.Sprintf("[%d:v]%s", in, pts), "fps="+fps, skip)
		if p.mock != nil {
			// A mockup layer's frames are its design's, drawn into the
			// template.
			head = p.mockupFrames(i, l, win, head)
		}
		chain = join(head, before, size, zoompan, after, "format=yuva420p",
			win.shift(), fades(l, win), opacity(l))
	}
	if !l.moves() && zoompan == "" && !l.ramped() {
		// Nothing changes from frame to frame.
		p.graph = append(p.graph, chain+"["+lbl+"]")
		return in, placedAt(l.X, "W", "w"), placedAt(l.Y, "H", "h"), win.enable()
	}
	tail, x, y, enable := p.transform(i, l, win, sh)
	p.graph = append(p.graph, join(chain, tail)+"["+lbl+"]")
	return in, x, y, enable
}

// placedAt is an overlay coordinate of a layer that holds still.
func placedAt(pos Pos, frame, size string) string {
	if pos.Center {
		return fmt.Sprintf("(%s-%s)/2", frame, size)
	}
	return fmt.Sprint(pos.Px)
}

// scale sizes a layer: both sides given, one given (the other keeps the
// aspect ratio of the picture as decoded, so rotated phone videos work),
// or none (natural size).
func scale(l Layer) string {
	if l.Look.Fit != "" {
		return "" // its fit sized it (look)
	}
	derived := func(given, of, by string) string {
		return fmt.Sprintf("min(%d\\,max(1\\,trunc(%s*%s/%s+0.5)))", maxDerivedSide, given, of, by)
	}
	switch {
	case l.Width > 0 && l.Height > 0:
		return fmt.Sprintf("scale=w=%d:h=%d", l.Width, l.Height)
	case l.Width > 0:
		return fmt.Sprintf("scale=w=%d:h=%s", l.Width, derived("ow", "ih", "iw"))
	case l.Height > 0:
		return fmt.Sprintf("scale=w=%s:h=%d", derived("oh", "iw", "ih"), l.Height)
	}
	return ""
}

// fades fades a layer in and out on its alpha. The chain runs after the
// shift, so fade times are scene times.
func fades(l Layer, win window) string {
	var parts []string
	start := win.startTime()
	if l.FadeIn > 0 {
		parts = append(parts, fmt.Sprintf("fade=t=in:st=%s:d=%s:alpha=1", f(start), f(l.FadeIn)))
	}
	if l.FadeOut > 0 {
		parts = append(parts, fmt.Sprintf("fade=t=out:st=%s:d=%s:alpha=1", f(start+max(l.Duration-l.FadeOut, 0)), f(l.FadeOut)))
	}
	return strings.Join(parts, ",")
}

// opacity scales the alpha plane of a yuva420p chain by the layer's
// opacity (colorchannelmixer, the usual way, works in RGB only).
func opacity(l Layer) string {
	if l.Opacity >= 1 {
		return ""
	}
	return fmt.Sprintf("lut=a=val*%s", f(l.Opacity))
}

// withOpacity multiplies the alpha of an ffmpeg colour (0xRRGGBBAA) by
// opacity.
func withOpacity(c string, opacity float64) string {
	if opacity >= 1 {
		return c
	}
	return fmt.Sprintf("%s%02X", c[:len(c)-2], int(math.Round(float64(colorAlpha(c))*opacity)))
}

// colorAlpha is the alpha of an ffmpeg colour (0xRRGGBBAA), 0 to 255.
func colorAlpha(c string) int {
	a, err := strconv.ParseUint(c[len(c)-2:], 16, 8)
	if err != nil {
		return 0xFF
	}
	return int(a)
}

// overlay places the layer chain lbl over video at x, y on the frames
// enable (an enable option) allows.
func (p *planner) overlay(i int, enable, video, lbl, x, y string) string {
	out := fmt.Sprintf("v%d", i)
	p.graph = append(p.graph, fmt.Sprintf("[%s][%s]overlay=x=%s:y=%s:eof_action=pass:%s[%s]",
		video, lbl, x, y, enable, out))
	return out
}

// join joins the non-empty filters of a chain with commas.
func join(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, ",")
}

// visibleCut is the crop of a still picture layer whose place, scale and
// angle hold still (sized and turned once, sh its frames then), to the
// part of it that lands on the frame, and where overlay places that part;
// "" when the whole picture shows or the layer moves. A picture at scale
// 100 on a 320×180 output was repeated and blended at 7140×4016 on every
// frame, and a hundred of them could not be held in ffmpeg's memory.
func (p *planner) visibleCut(l Layer, sh *shape) (string, [2]int) {
	m := l.motion()
	_, sFixed := m.Scale.static(1)
	_, rFixed := m.Rotation.static(0)
	if !l.moves() || m.X != nil || m.Y != nil || !sFixed || !rFixed || m.enter() != nil || m.exit() != nil || l.vanishes() || l.ramped() {
		return "", [2]int{}
	}
	// Where overlay puts the frame's corner (transform's place: about the
	// box's centre), truncated as overlay truncates it; overlay then moves
	// it down to an even pixel, which an even cut keeps.
	corner := func(pos Pos, frame, box, size int) int {
		if pos.Center {
			return int(float64(frame-size) / 2)
		}
		return int(float64(pos.Px) + float64(box-size)/2)
	}
	x, y := corner(l.X, p.s.Width, sh.boxW, sh.w), corner(l.Y, p.s.Height, sh.boxH, sh.h)
	span := func(at, size, frame int) (int, int) {
		from := max(0, -at) &^ 1
		to := min(size, frame-at+2)
		return from, max(to-from, 0)
	}
	cx, cw := span(x, sh.w, p.s.Width)
	cy, ch := span(y, sh.h, p.s.Height)
	if cw > 0 && ch > 0 && 4*cw*ch > 3*sh.w*sh.h {
		return "", [2]int{} // a cut that saves little is not worth a filter
	}
	if cw <= 0 || ch <= 0 {
		// Nothing of it shows: a pixel of it, off the frame.
		cx, cy, cw, ch = 0, 0, 2, 2
		x, y = -4, -4
	}
	sh.w, sh.h = cw, ch
	return fmt.Sprintf("crop=w=%d:h=%d:x=%d:y=%d:exact=1", cw, ch, cx, cy), [2]int{x + cx, y + cy}
}
