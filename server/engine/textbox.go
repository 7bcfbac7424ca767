package engine

import (
	"fmt"
	"image"
	"math"
	"path/filepath"
	"strings"

	"github.com/kinohq/kino/server/glyphs"
	"github.com/kinohq/kino/server/paint"
)

// textBox draws a text layer: wrapped to its width, aligned, spaced by its
// line height, on a background box with padding and rounded corners, with
// a stroke and a shadow; or, with none of these, as plain text, its top
// left at x, y.
//
// kino's text engine (package glyphs) shapes the text with its font and
// the machine's fallback fonts, breaks it into lines and draws the glyphs
// itself, so what is measured is what is drawn. The layer is drawn once,
// as a picture of its own (the box, the shadow and the glyphs; a blurred
// shadow is a second picture that ffmpeg blurs), then repeated and faded
// like an image: every frame of the video costs one overlay, whatever the
// layer holds. A layer that moves is drawn whole, centred on its box, and
// moved, scaled and turned as a still picture is.
func (p *planner) textBox(i int, l Layer, video, font string, hidden bool) (string, error) {
	lay, err := p.measure(l, font)
	if err != nil {
		return "", err
	}
	if len(lay.missing) > 0 {
		p.warnings = append(p.warnings, missingWarning(l, lay.missing))
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
		return "", &ValidationError{Field: l.textField(), Message: fmt.Sprintf(
			"is laid out %d × %d pixels, and a text box that moves is drawn whole, at most %d pixels on a side (less text, or a smaller font)",
			c.w, c.h, maxDerivedSide)}
	}

	if l.byUnits() != 0 {
		return p.wordsBox(i, l, lay, video)
	}
	head, filters, err := p.textStill(i, fmt.Sprint(i), l, lay, true, true)
	if err != nil {
		return "", err
	}

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
	// One picture goes straight to the overlay's format.
	p.graph = append(p.graph, head+join(filters, tail)+"["+lbl+"]")
	return p.overlay(i, enable, video, lbl, x, y), nil
}

// textStill draws lay on its canvas (lay.canvas), as pictures named after
// name: the box when withBox and the layer has one, and the glyphs with
// their stroke and shadow when withGlyphs. It returns the start of a
// chain that makes the one frame of the drawing: head, an input or the
// overlay of the pictures, and the filters that follow it there (its
// scale, or the overlay; "" when none).
func (p *planner) textStill(i int, name string, l Layer, lay textLayout, withBox, withGlyphs bool) (head, filters string, err error) {
	// The pictures are c.w × c.h, or fewer pixels for a canvas larger
	// than the frame (a moving layer's), scaled up by ffmpeg.
	pic := p.textPicture(lay.canvas)
	d, err := p.drawText(l, lay, pic, withBox, withGlyphs)
	if err != nil {
		return "", "", err
	}
	var parts []string
	if d.box != nil {
		in := p.pictureInput(fmt.Sprintf("box-%s.png", name), d.box)
		parts = append(parts, fmt.Sprintf("[%d:v]%s", in, join(pic.size, "format=rgba")))
	}
	if d.shadow != nil {
		// The shadow is blurred over Blur pixels, as CSS's: a Gaussian
		// of half that deviation. gblur works on planar formats only.
		in := p.pictureInput(fmt.Sprintf("shadow-%s.png", name), d.shadow)
		parts = append(parts, fmt.Sprintf("[%d:v]%s", in, join(pic.size, "format=gbrap", "gblur=sigma="+f(shadowSigma(l)))))
	}
	in := p.pictureInput(fmt.Sprintf("text-%s.png", name), d.top)
	if len(parts) == 0 {
		return fmt.Sprintf("[%d:v]", in), pic.size, nil
	}
	parts = append(parts, fmt.Sprintf("[%d:v]%s", in, join(pic.size, "format=rgba")))
	for k, part := range parts {
		p.graph = append(p.graph, fmt.Sprintf("%s[t%sp%d]", part, name, k))
	}
	below := fmt.Sprintf("t%sp0", name)
	for k := 1; k < len(parts)-1; k++ {
		next := fmt.Sprintf("t%sc%d", name, k)
		p.graph = append(p.graph, fmt.Sprintf("[%s][t%sp%d]overlay=x=0:y=0:format=rgb[%s]", below, name, k, next))
		below = next
	}
	return fmt.Sprintf("[%s][t%sp%d]", below, name, len(parts)-1), "overlay=x=0:y=0:format=rgb", nil
}

// shadowSigma is the deviation of the Gaussian that blurs the layer's
// shadow: half its blur, as CSS's.
func shadowSigma(l Layer) float64 { return float64(l.Style.Shadow.Blur) / 2 }

// drawnText is a text layer's drawing, in the pictures that make it,
// bottom to top: its box apart (nil when it is drawn in top, or there is
// none), its shadow apart to be blurred (nil when there is none to
// blur), and top, the glyphs with their stroke (and shadow, unblurred)
// over the box or over nothing.
type drawnText struct {
	box, shadow, top *image.NRGBA
}

// drawText draws lay on pictures of its canvas (pic): the box when
// withBox and the layer has one, and the glyphs with their stroke and
// shadow when withGlyphs.
func (p *planner) drawText(l Layer, lay textLayout, pic textPictureSize, withBox, withGlyphs bool) (drawnText, error) {
	var d drawnText
	sh := l.Style.Shadow
	if !withGlyphs {
		sh = Shadow{}
	}
	blurred := sh.Color != "" && sh.Blur > 0
	var under *image.NRGBA
	if l.Style.Background != "" && withBox {
		under = p.textBackground(l, lay, pic)
	}
	// The spans' backgrounds lie under the shadow, and come and go with
	// their glyphs.
	spanBoxes := withGlyphs && lay.glyphs.HasBackgrounds()
	if blurred {
		if spanBoxes {
			if under == nil {
				under = pic.image(l.spanBackground())
			}
			p.drawBackgrounds(l, lay, under, pic)
		}
		// The shadow is the glyphs and their stroke in one colour, so
		// they overlap without doubling its alpha.
		d.box, under = under, nil
		d.shadow = pic.image(sh.Color)
		if err := p.drawGlyphs(l, lay, d.shadow, pic, glyphs.Paint{Fill: nrgba(sh.Color), StrokeWidth: float64(l.Stroke.Width), Stroke: nrgba(sh.Color), Flat: true}, sh.X, sh.Y); err != nil {
			return d, err
		}
	}
	top := under
	if top == nil {
		// Glyphs' edges blend into transparency in their outer colour.
		top = pic.image(textEdge(l, withGlyphs))
	}
	if spanBoxes && !blurred {
		p.drawBackgrounds(l, lay, top, pic)
	}
	if sh.Color != "" && !blurred {
		if err := p.drawGlyphs(l, lay, top, pic, glyphs.Paint{Fill: nrgba(sh.Color), StrokeWidth: float64(l.Stroke.Width), Stroke: nrgba(sh.Color), Flat: true}, sh.X, sh.Y); err != nil {
			return d, err
		}
	}
	if withGlyphs {
		glyphPaint := glyphs.Paint{Fill: nrgba(l.Color)}
		if l.Stroke.Width > 0 {
			glyphPaint.StrokeWidth, glyphPaint.Stroke = float64(l.Stroke.Width), nrgba(l.Stroke.Color)
		}
		if err := p.drawGlyphs(l, lay, top, pic, glyphPaint, 0, 0); err != nil {
			return d, err
		}
	}
	d.top = top
	return d, nil
}

// textEdge is the colour the transparent pixels of a text layer's
// pictures hold: the outer colour of its glyphs (their stroke's, or
// their own), or its box's when the glyphs are not drawn.
func textEdge(l Layer, withGlyphs bool) string {
	switch {
	case !withGlyphs:
		return l.Style.Background
	case l.Stroke.Width > 0:
		return l.Stroke.Color
	}
	return l.Color
}

// missingWarning names the characters of a layer no font has.
func missingWarning(l Layer, missing []rune) string {
	var names []string
	for n, r := range missing {
		if n == 8 {
			names = append(names, fmt.Sprintf("and %d more", len(missing)-n))
			break
		}
		names = append(names, fmt.Sprintf("U+%04X %q", r, string(r)))
	}
	return fmt.Sprintf("%s: no font has %s: not drawn (give a font that has them in font)", l.textField(), strings.Join(names, ", "))
}

// textPicture is how a text layer's canvas is painted: its pixels, at
// most the frame's, and the scale that brings the picture to the
// canvas's size (none when it is painted in full).
type textPictureSize struct {
	w, h int
	// k is the picture's pixels to the canvas's.
	k    float64
	size string
}

// image is a transparent picture of the canvas in colour (0xRRGGBBAA):
// pixels with no alpha still hold the colour of what is drawn on them, so
// that converting to YUV 4:2:0, which shares colour between 2×2 pixels,
// and blurring, which mixes neighbours, do not darken the edges.
func (t textPictureSize) image(colour string) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, t.w, t.h))
	c := nrgba(colour)
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2] = c.R, c.G, c.B
	}
	return img
}

// textPicture sizes the pictures of a canvas: a picture costs memory in
// kino's process, so one of more pixels than the frame (only a moving
// layer's can be) is painted with the frame's pixels, and scaled up by
// ffmpeg.
func (p *planner) textPicture(c rect) textPictureSize {
	t := textPictureSize{w: c.w, h: c.h, k: 1}
	if k := math.Sqrt(float64(p.s.Width*p.s.Height) / float64(c.w*c.h)); k < 1 {
		t.w, t.h = side(float64(c.w)*k), side(float64(c.h)*k)
		t.k = min(float64(t.w)/float64(c.w), float64(t.h)/float64(c.h))
		t.size = fmt.Sprintf("scale=w=%d:h=%d", c.w, c.h)
	}
	return t
}

// textBackground paints the layer's box on a picture of the canvas.
func (p *planner) textBackground(l Layer, lay textLayout, pic textPictureSize) *image.NRGBA {
	k := pic.k
	bx := paint.Shape{Width: side(float64(lay.box.w) * k), Height: side(float64(lay.box.h) * k),
		Radius: int(math.Round(float64(l.Radius) * k)), Fill: nrgba(l.Style.Background)}
	img, err := paint.DrawContext(p.ctx, bx, int(math.Round(float64(lay.box.x-lay.canvas.x)*k)), int(math.Round(float64(lay.box.y-lay.canvas.y)*k)), pic.w, pic.h)
	if err != nil {
		// The plan stops at the end of this layer (plan checks ctx).
		return pic.image(l.Style.Background)
	}
	return img
}

// drawGlyphs draws the layout's lines over img, in paint, moved by dx, dy.
// A panic of the font reader, on a hostile downloaded font, fails the
// layer (see recoverFont).
func (p *planner) drawGlyphs(l Layer, lay textLayout, img *image.NRGBA, pic textPictureSize, pt glyphs.Paint, dx, dy int) (err error) {
	defer recoverFont(l, "draw the text", &err)
	if p.ctx != nil && p.ctx.Err() != nil {
		return nil // the plan stops at the end of this layer
	}
	lay.glyphs.DrawScaled(img, lay.origins(pic, dx, dy), pt, pic.k)
	return nil
}

// drawBackgrounds paints the layout's spans' backgrounds over img.
func (p *planner) drawBackgrounds(l Layer, lay textLayout, img *image.NRGBA, pic textPictureSize) {
	if p.ctx != nil && p.ctx.Err() != nil {
		return // the plan stops at the end of this layer
	}
	lay.glyphs.DrawBackgrounds(img, lay.origins(pic, 0, 0), pic.k)
}

// origins are where the layout's lines start on a picture of its canvas,
// moved by dx, dy: the left ends of their baselines; lines off the
// picture start nowhere (at minus infinity).
func (lay textLayout) origins(pic textPictureSize, dx, dy int) []glyphs.Point {
	origins := make([]glyphs.Point, len(lay.lines))
	for n, ln := range lay.lines {
		if !ln.shows {
			// Off the picture: nothing of it is drawn.
			origins[n] = glyphs.Point{X: math.Inf(-1), Y: math.Inf(-1)}
			continue
		}
		x := float64(ln.x-lay.canvas.x+dx) + ln.offset
		origins[n] = glyphs.Point{X: x * pic.k, Y: float64(ln.baseline-lay.canvas.y+dy) * pic.k}
	}
	return origins
}

// pictureInput writes img as the picture name and returns the input that
// reads it.
func (p *planner) pictureInput(name string, img *image.NRGBA) int {
	p.files[name] = paint.PNG(img)
	return p.input(Media{Path: filepath.Join(p.workDir, name), Format: "png_pipe"})
}

// measure reads the layer's font (even for a layer never seen: the font
// is checked), shapes the text and lays it out. The font readers are not
// hardened against hostile files: see recoverFont.
func (p *planner) measure(l Layer, font string) (lay textLayout, err error) {
	defer recoverFont(l, "lay the text out", &err)
	sh, err := p.shaper(l, font)
	if err != nil {
		return textLayout{}, err
	}
	feats, err := parseFeatures(l.Style.Features, l.Field+".fontFeatures")
	if err != nil {
		return textLayout{}, err
	}
	// A span that names no font draws in the default font, which is the
	// layer's (spans take the layer's font when they name none).
	spans, err := p.glyphSpans(l, font)
	if err != nil {
		return textLayout{}, err
	}
	area := 0
	if l.Width > 0 {
		area = l.Width - 2*l.Style.PaddingX
	}
	opts := glyphs.Options{Size: float64(l.FontSize), Width: float64(area), Features: feats, MaxLines: l.Style.MaxLines, LineHeight: l.Style.LineHeight, Lang: l.Style.Lang}
	t := layoutText{sh: sh, text: l.Text, spans: spans, base: l.FontSize}
	if l.Style.Shrink {
		l.FontSize = p.shrink(l, t, opts)
		opts.Size = float64(l.FontSize)
	}
	return p.layout(l, t.at(l.FontSize, opts)), nil
}

// layoutText is a text layer's text, or its spans, and the shaper of its
// fonts.
type layoutText struct {
	sh    *glyphs.Shaper
	text  string
	spans []glyphs.Span
	// base is the layer's font size, which the spans' sizes are relative
	// to when the text is shrunk.
	base int
}

// at lays the text out at font size size: the spans' sizes are each
// size/base times their own.
func (t layoutText) at(size int, o glyphs.Options) *glyphs.Layout {
	o.Size = float64(size)
	if t.spans == nil {
		return t.sh.Layout(t.text, o)
	}
	spans := t.spans
	if size != t.base {
		spans = make([]glyphs.Span, len(t.spans))
		for i, sp := range t.spans {
			sp.Size *= float64(size) / float64(t.base)
			spans[i] = sp
		}
	}
	return t.sh.LayoutSpans(spans, o)
}

// shrink is the largest font size, from 1 pixel to the layer's, at which
// its text fits its box: no word wider than the width, and the lines
// within the height (less the padding) and within maxLines. Text that
// does not fit at 1 pixel is drawn at 1 pixel. Fitting grows with the
// size, so a binary search takes at most 11 layouts. Spans shrink with
// the layer, each in proportion to its size.
func (p *planner) shrink(l Layer, t layoutText, opts glyphs.Options) int {
	fits := func(size int) bool {
		o := opts
		o.MaxLines, o.WholeWords = 0, true
		gl := t.at(size, o)
		if gl.Widest() > o.Width {
			return false
		}
		if l.Style.MaxLines > 0 && len(gl.Lines) > l.Style.MaxLines {
			return false
		}
		if l.Height > 0 {
			// The lines' heights are sums of a font's metrics: a
			// millionth of a pixel spares text that fits exactly.
			return gl.Height() <= float64(l.Height-2*l.Style.PaddingY)+1e-6
		}
		return true
	}
	lo, hi := 1, l.FontSize
	if fits(hi) {
		return hi
	}
	for lo < hi-1 {
		mid := (lo + hi) / 2
		if fits(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// textLayout is where a text layer's box and lines fall, in pixels of the
// frame.
type textLayout struct {
	glyphs *glyphs.Layout
	// missing are the characters no font has.
	missing []rune
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
	// x is the left of the area the line is aligned in, baseline the
	// height of its baseline; offset moves the line right in the area,
	// as it is aligned.
	x, baseline int
	offset      float64
	// width is how far the line's glyphs advance.
	width float64
	// shows is whether any of the line's glyphs, stroke or shadow is on
	// the canvas.
	shows bool
}

// layout places a text layer's lines in its box, as CSS places lines:
// each line is lineHeight high (its largest span's, with spans), the
// glyphs in the middle of it (half the leading above, half below). Plain
// text (no width, height or style) is placed as it always was: the top
// of its glyphs at y, or their whole height centred.
func (p *planner) layout(l Layer, gl *glyphs.Layout) textLayout {
	st := l.Style
	area := 0
	if l.Width > 0 {
		area = l.Width - 2*st.PaddingX
	}
	widest := 0.0
	for _, ln := range gl.Lines {
		widest = max(widest, ln.Width)
	}
	if area == 0 {
		area = int(math.Ceil(widest))
	}
	// base[k] is how far below the top of the lines line k's baseline
	// lies (glyphs.Line's Above and Below stack the lines).
	n := len(gl.Lines)
	base := make([]float64, n)
	block := 0.0
	for k, ln := range gl.Lines {
		base[k] = block + ln.Above
		block += ln.Above + ln.Below
	}
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
	if !l.styled() {
		// Plain text: its ink from the top of the first line's glyphs
		// to the bottom of the last's, at y or centred, as drawtext
		// placed it.
		inkTop, inkBottom := 0.0, 0.0
		if t, _, ok := gl.Lines[0].Ink(); ok {
			inkTop = t
		}
		if _, b, ok := gl.Lines[n-1].Ink(); ok {
			inkBottom = b
		}
		high := base[n-1] - base[0] + inkTop + inkBottom
		at := corner(l.Y, p.s.Height, int(math.Round(high)))
		top = float64(at) - (base[0] - inkTop)
		box.y = int(math.Floor(top))
	}

	sh := l.Style.Shadow
	spread := (3*sh.Blur + 1) / 2 // three deviations of the blur
	var ink bounds
	if st.Background != "" {
		ink.add(box)
	}
	lay := textLayout{glyphs: gl, missing: gl.Missing, box: box, areaWidth: area}
	reaches := make([]rect, n)
	for k, gln := range gl.Lines {
		ln := placedLine{x: box.x + st.PaddingX, baseline: int(math.Round(top + base[k])), width: gln.Width}
		// Glyphs may reach past their advance and the font's ascent and
		// descent (accents, italics, swashes, marks stacked on Indic and
		// Thai letters): half an em of the line's largest text keeps
		// them on the canvas.
		margin := l.Stroke.Width + (int(math.Ceil(gln.Size))+1)/2
		up, down := int(math.Ceil(gln.Ascent))+margin, int(math.Ceil(gln.Descent))+margin
		switch st.Align {
		case "center":
			ln.offset = (float64(area) - gln.Width) / 2
		case "right":
			ln.offset = float64(area) - gln.Width
		}
		// The line's glyphs wherever alignment puts them.
		over := max(int(math.Ceil(gln.Width))-area, 0)
		glyphs := rect{x: ln.x - margin - over, y: ln.baseline - up, w: area + over*2 + 2*margin, h: up + down}
		reaches[k] = glyphs
		if sh.Color != "" {
			shadow := rect{x: glyphs.x + sh.X - spread, y: glyphs.y + sh.Y - spread, w: glyphs.w + 2*spread, h: glyphs.h + 2*spread}
			ink.add(shadow)
			reaches[k] = union(glyphs, shadow)
		}
		if !gln.Empty() {
			ink.add(glyphs)
		}
		lay.lines = append(lay.lines, ln)
	}
	if l.moves() {
		lay.canvas = ink.around(box)
	} else {
		lay.canvas = ink.onFrame(p.s.Width, p.s.Height)
	}
	for k, r := range reaches {
		// Only lines that reach the canvas are drawn.
		lay.lines[k].shows = r.y < lay.canvas.y+lay.canvas.h && r.y+r.h > lay.canvas.y && !gl.Lines[k].Empty()
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
