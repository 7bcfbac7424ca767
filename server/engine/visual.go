package engine

import (
	"fmt"
	"strconv"
	"strings"
)

// maxDerivedSide bounds the side that scaling computes from the other one
// (a layer given only a width or only a height): a very thin picture must
// not make an impossibly large frame. 8192 is far beyond any output.
const maxDerivedSide = 8192

// color draws a color layer.
func (p *planner) color(i int, l Layer, video string) string {
	w, h := l.Width, l.Height
	if w == 0 {
		w = p.s.Width
	}
	if h == 0 {
		h = p.s.Height
	}
	win := frameWindow(l, p.s.FPS)
	lbl := fmt.Sprintf("l%d", i)
	// One frame longer than the layer: the enable window, not the source,
	// decides the last frame.
	src := fmt.Sprintf("color=c=%s:s=%dx%d:r=%d:d=%s", l.Color, w, h, p.s.FPS, f(float64(win.frames()+1)/float64(p.s.FPS)))
	p.graph = append(p.graph, join(src, "format=rgba", win.shift(), alpha(l, win))+"["+lbl+"]")
	return p.overlay(i, l, win, video, lbl)
}

// visual draws an image or video layer, and returns the label of the
// layer's sound for the mix when it has one.
func (p *planner) visual(i int, l Layer, video string) (string, string, error) {
	m, err := p.medium(l)
	if err != nil {
		return "", "", err
	}
	if !m.HasVideo {
		return "", "", &MediaError{Field: l.SourceField, Message: fmt.Sprintf("the file has no picture; a %s layer needs an image or a video", l.Kind)}
	}
	win := frameWindow(l, p.s.FPS)
	fps := strconv.Itoa(p.s.FPS)
	lbl := fmt.Sprintf("l%d", i)
	var in int
	var chain string
	if m.Still {
		// Scaled once, then repeated: the loop filter holds one frame
		// and works for every picture format, where the demuxer's -loop
		// exists for some only (not GIF).
		in = p.input(m)
		chain = join(fmt.Sprintf("[%d:v]%s", in, join(scale(l), "format=rgba")),
			fmt.Sprintf("loop=loop=%d:size=1:start=0", max(win.frames(), 1)-1),
			"settb=expr=1/"+fps, win.shift())
	} else {
		// A frame more than the layer, so the fps filter cannot come up
		// one short; the enable window cuts the rest.
		in = p.input(m, "-ss", f(l.TrimStart), "-t", f(l.Duration+1/float64(p.s.FPS)))
		chain = join(fmt.Sprintf("[%d:v]setpts=PTS-STARTPTS", in), "fps="+fps, scale(l), "format=rgba", win.shift())
	}
	p.graph = append(p.graph, join(chain, alpha(l, win))+"["+lbl+"]")
	out := p.overlay(i, l, win, video, lbl)
	if l.Kind == KindVideo && m.HasAudio && !m.Still && l.Volume > 0 {
		return out, p.audioChain(i, l, in), nil
	}
	return out, "", nil
}

// scale sizes a layer: both sides given, one given (the other keeps the
// aspect ratio of the picture as decoded, so rotated phone videos work),
// or none (natural size).
func scale(l Layer) string {
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

// alpha fades a layer in and out and sets its opacity. The chain runs
// after the shift, so fade times are scene times.
func alpha(l Layer, win window) string {
	var parts []string
	start := win.startTime()
	if l.FadeIn > 0 {
		parts = append(parts, fmt.Sprintf("fade=t=in:st=%s:d=%s:alpha=1", f(start), f(l.FadeIn)))
	}
	if l.FadeOut > 0 {
		parts = append(parts, fmt.Sprintf("fade=t=out:st=%s:d=%s:alpha=1", f(start+max(l.Duration-l.FadeOut, 0)), f(l.FadeOut)))
	}
	if l.Opacity < 1 {
		parts = append(parts, fmt.Sprintf("colorchannelmixer=aa=%s", f(l.Opacity)))
	}
	return strings.Join(parts, ",")
}

// overlay places the layer chain lbl over video during its window.
func (p *planner) overlay(i int, l Layer, win window, video, lbl string) string {
	x, y := "(W-w)/2", "(H-h)/2"
	if !l.X.Center {
		x = strconv.Itoa(l.X.Px)
	}
	if !l.Y.Center {
		y = strconv.Itoa(l.Y.Px)
	}
	out := fmt.Sprintf("v%d", i)
	p.graph = append(p.graph, fmt.Sprintf("[%s][%s]overlay=x=%s:y=%s:eof_action=pass:%s[%s]",
		video, lbl, x, y, win.enable(), out))
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
