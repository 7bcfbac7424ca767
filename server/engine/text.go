package engine

import (
	"fmt"
	"path/filepath"
	"strconv"
)

// text draws a text layer with drawtext; a styled one is laid out by
// kino first (see textBox). The text itself is written to a
// file and read with textfile and expansion=none, so quotes, colons,
// backslashes, brackets and %{…} sequences are drawn as they are and never
// reach the filter graph. A hidden layer is only checked.
func (p *planner) text(i int, l Layer, video, defaultFont string, hidden bool) (string, error) {
	font := defaultFont
	if l.Font != "" {
		m, ok := p.media[l.Font]
		if !ok {
			return "", fmt.Errorf("%s: font %s was not downloaded", l.FontField, l.Font)
		}
		if !m.Font {
			return "", &MediaError{Field: l.FontField, Message: "the file is not a TrueType, OpenType or WOFF font"}
		}
		font = m.Path
	}
	if l.styled() {
		return p.textBox(i, l, video, font, hidden)
	}
	if hidden {
		return video, nil
	}
	name := fmt.Sprintf("text-%d.txt", i)
	p.files[name] = []byte(l.Text)
	x, y := "(w-text_w)/2", "(h-text_h)/2"
	if !l.X.Center {
		x = strconv.Itoa(l.X.Px)
	}
	if !l.Y.Center {
		y = strconv.Itoa(l.Y.Px)
	}
	// Opacity and fades as one alpha expression of the frame time t.
	win := frameWindow(l, p.s.FPS)
	var fading string
	if l.FadeIn > 0 {
		fading += fmt.Sprintf("*min(1,max(0,(t-%s)/%s))", f(l.Start), f(l.FadeIn))
	}
	if l.FadeOut > 0 {
		fading += fmt.Sprintf("*min(1,max(0,(%s-t)/%s))", f(l.End()), f(l.FadeOut))
	}
	a := f(l.Opacity) + fading
	size := strconv.Itoa(l.FontSize)
	if l.Motion != nil {
		x, y, a, size = movingText(l, fading)
	}
	out := fmt.Sprintf("v%d", i)
	p.graph = append(p.graph, fmt.Sprintf(
		"[%s]drawtext=fontfile=%s:textfile=%s:expansion=none:fontsize=%s:fontcolor=%s:x=%s:y=%s:alpha=%s:%s[%s]",
		video, filterValue(font), filterValue(filepath.Join(p.workDir, name)), escapeGraph(size), l.Color,
		escapeGraph(x), escapeGraph(y), escapeGraph(a), win.enable(), out))
	return out, nil
}

// maxFontSize bounds the font size a text layer's scale reaches.
const maxFontSize = 2000

// movingText is drawtext's x, y, alpha and font size for a text layer
// that moves, given the factors of its fades: drawtext evaluates each per
// frame. Scale sets the font size (glyphs are drawn at it, never
// stretched) about the text's centre; text cannot turn.
func movingText(l Layer, fading string) (x, y, alpha, size string) {
	m := l.motion()
	k := clock{t: "t", origin: l.Start}
	alpha = f(l.Opacity)
	if m.Opacity != nil {
		alpha = "(" + m.Opacity.expr(k) + ")"
	}
	alpha = product(alpha+fading, l.fading(k))

	// The scale, kept where the font size is a pixel to maxFontSize.
	z := l.zooming(k)
	s0 := l.staticScale()
	lo, hi := 1/float64(l.FontSize), max(1, float64(maxFontSize)/float64(l.FontSize))
	var scale string
	switch {
	case z != "":
		if s0 != 1 {
			z = f(s0) + "*" + z
		}
		scale = fmt.Sprintf("clip(%s,%s,%s)", z, f(lo), f(hi))
	case s0 != 1:
		z = f(s0)
		scale = f(min(max(s0, lo), hi))
	}
	if l.vanishes() {
		// At scale 0 the text is not drawn (the font keeps a pixel).
		alpha += "*gt(" + z + ",0)"
	}
	size = strconv.Itoa(l.FontSize)
	if scale != "" {
		size = fmt.Sprintf("%d*%s", l.FontSize, scale)
	}
	place := func(pos Pos, c Curve, frame, text string) string {
		if c == nil && pos.Center {
			return fmt.Sprintf("(%s-%s)/2", frame, text)
		}
		base := f(float64(pos.Px))
		if c != nil {
			base = "(" + c.expr(k) + ")"
		}
		if scale != "" {
			// Measured at the drawn size, the text is scale times
			// as large as its box.
			base += fmt.Sprintf("+%s*(1/%s-1)/2", text, scale)
		}
		return base
	}
	x = l.sliding(k, "x", place(l.X, m.X, "w", "text_w"), "-text_w", "w")
	y = l.sliding(k, "y", place(l.Y, m.Y, "h", "text_h"), "-text_h", "h")
	return x, y, alpha, size
}
