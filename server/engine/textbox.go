package engine

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/kinohq/kino/server/paint"
	"github.com/kinohq/kino/server/typeset"
)

// textBox draws a text layer that kino lays out: wrapped to its width,
// aligned, spaced by its line height, on a background box with padding
// and rounded corners, with a stroke and a shadow.
//
// drawtext draws glyphs, but it neither wraps nor aligns lines, and the
// space between its lines depends on the glyphs of the text. So kino
// measures the text with the font, breaks it into lines, and gives each
// line its own text file and drawtext, at its own baseline (drawtext's
// ascent variable is where its glyphs' baseline falls) and aligned by its
// own text_w. The layer is drawn once, on one frame of its own, then
// repeated and faded like a picture: every frame of the video costs one
// overlay, whatever the layer holds. A layer that moves is drawn whole,
// centred on its box, and moved, scaled and turned as a still picture is.
func (p *planner) textBox(i int, l Layer, video, font string, hidden bool) (string, error) {
	lay, err := p.measure(l, font)
	if err != nil {
		return "", err
	}
	win := frameWindow(l, p.s.FPS)
	if hidden || win.frames() == 0 {
		return video, nil
	}
	c := lay.canvas
	if c.w <= 0 || c.h <= 0 {
		return video, nil
	}
	if c.w > maxDerivedSide || c.h > maxDerivedSide {
		// Only a moving layer's canvas can be larger than the frame.
		return "", &ValidationError{Field: l.Field + ".text", Message: fmt.Sprintf(
			"is laid out %d × %d pixels, and a text box that moves is drawn whole, at most %d pixels on a side (less text, or a smaller font)",
			c.w, c.h, maxDerivedSide)}
	}
	// Each line drawn is a drawtext holding the font, about 1 MB of
	// ffmpeg's address space: a bound keeps a render within its limit.
	for _, ln := range lay.lines {
		if ln.shows {
			p.linesDrawn++
		}
	}
	if p.linesDrawn > maxLinesDrawn {
		return "", &ValidationError{Field: l.Field + ".text", Message: fmt.Sprintf(
			"brings the laid-out text on screen to %d lines; a render draws at most %d (fewer lines, or a larger font)", p.linesDrawn, maxLinesDrawn)}
	}

	// Each part is one frame c.w × c.h, drawn bottom first: the box, the
	// shadow, the glyphs. Each is drawn alone on a transparent frame of
	// its own colour and then overlaid: drawtext blends alpha exactly only
	// onto pixels of its own colour, overlay onto anything.
	var parts []string
	if l.Style.Background != "" {
		bx := paint.Shape{Width: lay.box.w, Height: lay.box.h, Radius: l.Radius, Fill: nrgba(l.Style.Background)}
		in, size := p.paintPicture(fmt.Sprintf("box-%d.png", i), bx, lay.box.x-c.x, lay.box.y-c.y, c.w, c.h)
		parts = append(parts, fmt.Sprintf("[%d:v]%s", in, join(size, "format=rgba")))
	}
	if sh := l.Style.Shadow; sh.Color != "" {
		// The shadow is the glyphs and their stroke in one colour, so
		// they overlap without doubling its alpha.
		chain := []string{p.canvas(c, sh.Color)}
		if sh.Blur > 0 {
			// gblur works on planar formats only.
			chain = append(chain, "format=gbrap")
		} else {
			chain = append(chain, "format=rgba")
		}
		chain = append(chain, p.drawLines(i, l, lay, sh.Color, Stroke{Color: sh.Color, Width: l.Stroke.Width}, sh.X, sh.Y)...)
		if sh.Blur > 0 {
			// A blur over Blur pixels, as CSS's: a Gaussian of half that
			// deviation.
			chain = append(chain, "gblur=sigma="+f(float64(sh.Blur)/2))
		}
		parts = append(parts, join(chain...))
	}
	// Over a frame of the stroke's colour, the stroke's edges blend into
	// transparency exactly; the glyphs are drawn on the stroke.
	under := l.Color
	if l.Stroke.Width > 0 {
		under = l.Stroke.Color
	}
	parts = append(parts, join(append([]string{p.canvas(c, under), "format=rgba"}, p.drawLines(i, l, lay, l.Color, l.Stroke, 0, 0)...)...))

	// Then as a picture: one format, opacity once (and, when the layer
	// moves, its fixed scale and angle), repeated for the layer's frames
	// from its first, faded on alpha; then what changes per frame.
	var size, turn, change, x, y, enable string
	var form *shape
	if l.moves() {
		dw, dh := drawn(l, c.w, c.h)
		if dw != c.w || dh != c.h {
			size = fmt.Sprintf("scale=w=%d:h=%d", dw, dh)
		}
		form = &shape{boxW: lay.box.w, boxH: lay.box.h, w: dw, h: dh}
		if _, fixed := l.motion().Rotation.static(0); fixed {
			turn = form.rotate(l, clock{})
		}
	}
	tail := join(size, "format=yuva420p", opacity(l), turn, win.repeat(), win.shift(), fades(l, win))
	if form != nil {
		change, x, y, enable = p.transform(i, l, win, form)
	} else {
		change, x, y, enable = p.ramp(i, l, win, c.w, c.h), fmt.Sprint(c.x), fmt.Sprint(c.y), win.enable()
	}
	tail = join(tail, change)
	lbl := fmt.Sprintf("l%d", i)
	if len(parts) == 1 {
		p.graph = append(p.graph, parts[0]+","+tail+"["+lbl+"]")
	} else {
		for k, part := range parts {
			p.graph = append(p.graph, fmt.Sprintf("%s[t%dp%d]", part, i, k))
		}
		below := fmt.Sprintf("t%dp0", i)
		for k := 1; k < len(parts); k++ {
			over := fmt.Sprintf("[%s][t%dp%d]overlay=x=0:y=0:format=rgb", below, i, k)
			if k == len(parts)-1 {
				p.graph = append(p.graph, over+","+tail+"["+lbl+"]")
				break
			}
			below = fmt.Sprintf("t%dc%d", i, k)
			p.graph = append(p.graph, over+"["+below+"]")
		}
	}
	return p.overlay(i, enable, video, lbl, x, y), nil
}

// measure reads the layer's font (even for a layer never seen: the font
// is checked) and lays the layer out with it. sfnt, which reads fonts, is
// not hardened against hostile files: see recoverFont.
func (p *planner) measure(l Layer, font string) (lay textLayout, err error) {
	defer recoverFont(l, "lay the text out", &err)
	face, err := p.face(l, font)
	if err != nil {
		return textLayout{}, err
	}
	lay = p.layout(l, face)
	lay.font = font
	return lay, nil
}

// maxLinesDrawn bounds the lines of laid-out text a render draws (lines
// off screen and empty lines not counted).
const maxLinesDrawn = 500

// canvas is a source of one transparent frame the size of r, in the
// colour (0xRRGGBBAA) of what will be drawn on it.
func (p *planner) canvas(r rect, colour string) string {
	return fmt.Sprintf("color=c=%s00:s=%dx%d:r=%d:d=%s", colour[:len(colour)-2], r.w, r.h, p.s.FPS, f(1/float64(p.s.FPS)))
}

// drawLines are the drawtext filters of the lines that show on the
// canvas, in colour with stroke, moved by dx, dy. Each line's text is in
// a file of its own.
func (p *planner) drawLines(i int, l Layer, lay textLayout, colour string, stroke Stroke, dx, dy int) []string {
	var out []string
	for n, ln := range lay.lines {
		if !ln.shows {
			continue
		}
		name := fmt.Sprintf("text-%d-%d.txt", i, n)
		p.files[name] = []byte(ln.text)
		x := f(float64(ln.x - lay.canvas.x + dx))
		switch l.Style.Align {
		case "center":
			x += fmt.Sprintf("+(%d-text_w)/2", lay.areaWidth)
		case "right":
			x += fmt.Sprintf("+%d-text_w", lay.areaWidth)
		}
		var border string
		if stroke.Width > 0 {
			border = fmt.Sprintf(":borderw=%d:bordercolor=%s", stroke.Width, stroke.Color)
		}
		out = append(out, fmt.Sprintf("drawtext=fontfile=%s:textfile=%s:expansion=none:fontsize=%d:fontcolor=%s%s:x=%s:y=%d-ascent",
			filterValue(lay.font), filterValue(filepath.Join(p.workDir, name)), l.FontSize, colour, border, x,
			ln.baseline-lay.canvas.y+dy))
	}
	return out
}

// textLayout is where a styled text layer's box and lines fall, in
// pixels of the frame.
type textLayout struct {
	font string
	// box is the layer's box: its width and height, or the lines'
	// extent and the padding.
	box rect
	// areaWidth is the width lines are aligned in: the box less its
	// padding.
	areaWidth int
	lines     []placedLine
	// canvas is the part of the frame the layer draws on: the box, the
	// glyphs and their stroke and shadow, cut to the frame, its corner on
	// even pixels as overlay places a YUV 4:2:0 picture, its sides even.
	// A layer that moves draws all of them, on a canvas centred on the
	// box, which it scales and turns about.
	canvas rect
}

// placedLine is one line of a layout.
type placedLine struct {
	text string
	// x is the left of the area the line is aligned in, baseline the
	// height of its baseline.
	x, baseline int
	// shows is whether any of the line's glyphs, stroke or shadow is on
	// the canvas.
	shows bool
}

// layout breaks a styled text layer into lines and places them in its
// box, as CSS places lines: each line is lineHeight high, the glyphs in
// the middle of it (half the leading above, half below).
func (p *planner) layout(l Layer, face *typeset.Face) textLayout {
	st := l.Style
	area := 0
	if l.Width > 0 {
		area = l.Width - 2*st.PaddingX
	}
	texts := face.Lines(l.Text, area)
	widths := make([]int, len(texts))
	widest := 0
	for n, t := range texts {
		widths[n] = face.Width(t)
		widest = max(widest, widths[n])
	}
	if area == 0 {
		area = widest
	}
	pitch := face.LineHeight()
	if st.LineHeight > 0 {
		pitch = st.LineHeight * float64(l.FontSize)
	}
	block := pitch * float64(len(texts))
	box := rect{w: l.Width, h: l.Height}
	if box.w == 0 {
		box.w = area + 2*st.PaddingX
	}
	if box.h == 0 {
		box.h = int(math.Ceil(block)) + 2*st.PaddingY
	}
	box.x, box.y = corner(l.X, p.s.Width, box.w), corner(l.Y, p.s.Height, box.h)
	top := float64(box.y + st.PaddingY)
	switch free := float64(box.h-2*st.PaddingY) - block; st.VerticalAlign {
	case "middle":
		top += free / 2
	case "bottom":
		top += free
	}
	lead := (pitch - face.Ascent() - face.Descent()) / 2

	// Glyphs may reach past their advance and the font's ascent and
	// descent (accents, italics, swashes): half an em of margin keeps
	// them on the canvas.
	margin := l.Stroke.Width + (l.FontSize+1)/2
	up, down := int(math.Ceil(face.Ascent()))+margin, int(math.Ceil(face.Descent()))+margin
	sh := l.Style.Shadow
	spread := (3*sh.Blur + 1) / 2 // three deviations of the blur
	var ink bounds
	if st.Background != "" {
		ink.add(box)
	}
	lay := textLayout{box: box, areaWidth: area}
	reaches := make([]rect, len(texts))
	for n, t := range texts {
		ln := placedLine{text: t, x: box.x + st.PaddingX, baseline: int(math.Round(top + float64(n)*pitch + lead + face.Ascent()))}
		// The line's glyphs wherever alignment puts them.
		over := max(widths[n]-area, 0)
		glyphs := rect{x: ln.x - margin - over, y: ln.baseline - up, w: area + over*2 + 2*margin, h: up + down}
		reaches[n] = glyphs
		if sh.Color != "" {
			shadow := rect{x: glyphs.x + sh.X - spread, y: glyphs.y + sh.Y - spread, w: glyphs.w + 2*spread, h: glyphs.h + 2*spread}
			ink.add(shadow)
			reaches[n] = union(glyphs, shadow)
		}
		ink.add(glyphs)
		lay.lines = append(lay.lines, ln)
	}
	if l.moves() {
		lay.canvas = ink.around(box)
	} else {
		lay.canvas = ink.onFrame(p.s.Width, p.s.Height)
	}
	for n, r := range reaches {
		// Only lines that reach the canvas cost a drawtext; an empty line
		// costs none.
		lay.lines[n].shows = r.y < lay.canvas.y+lay.canvas.h && r.y+r.h > lay.canvas.y && strings.TrimSpace(texts[n]) != ""
	}
	return lay
}

// corner is where a box size pixels long starts on an axis frame pixels
// long: at pos, or centred (rounded down).
func corner(pos Pos, frame, size int) int {
	if pos.Center {
		return int(math.Floor(float64(frame-size) / 2))
	}
	return pos.Px
}

// bounds is the smallest rectangle holding every rectangle added.
type bounds struct {
	set            bool
	x0, y0, x1, y1 int
}

func (b *bounds) add(r rect) {
	if !b.set {
		*b = bounds{set: true, x0: r.x, y0: r.y, x1: r.x + r.w, y1: r.y + r.h}
		return
	}
	b.x0, b.y0 = min(b.x0, r.x), min(b.y0, r.y)
	b.x1, b.y1 = max(b.x1, r.x+r.w), max(b.y1, r.y+r.h)
}

// around is the smallest rectangle that holds the bounds and r, has r's
// centre, and reaches past r by an even number of pixels: what scales and
// turns about its centre then does so about r's, and overlay, which
// places a YUV 4:2:0 picture on even pixels, puts r where a picture of
// r alone would go.
func (b bounds) around(r rect) rect {
	var mx, my int
	if b.set {
		mx = (max(r.x-b.x0, b.x1-(r.x+r.w), 0) + 1) &^ 1
		my = (max(r.y-b.y0, b.y1-(r.y+r.h), 0) + 1) &^ 1
	}
	return rect{x: r.x - mx, y: r.y - my, w: r.w + 2*mx, h: r.h + 2*my}
}

func union(a, b rect) rect {
	var u bounds
	u.add(a)
	u.add(b)
	return rect{x: u.x0, y: u.y0, w: u.x1 - u.x0, h: u.y1 - u.y0}
}

// onFrame is the part of the bounds on a frame w × h, grown to an even
// corner and even sides (the frame's sides are even); empty when none
// is.
func (b bounds) onFrame(w, h int) rect {
	x0, y0 := max(b.x0, 0)&^1, max(b.y0, 0)&^1
	x1, y1 := min((b.x1+1)&^1, w), min((b.y1+1)&^1, h)
	if !b.set || x1 <= x0 || y1 <= y0 {
		return rect{}
	}
	return rect{x: x0, y: y0, w: x1 - x0, h: y1 - y0}
}
