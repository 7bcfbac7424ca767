package engine

import (
	"fmt"
	"path/filepath"
	"strconv"
)

// text draws a text layer with drawtext. The text itself is written to a
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
	// Opacity and fades as one alpha expression of the frame time t; its
	// commas are escaped for the graph level.
	win := frameWindow(l, p.s.FPS)
	a := f(l.Opacity)
	if l.FadeIn > 0 {
		a += fmt.Sprintf("*min(1\\,max(0\\,(t-%s)/%s))", f(l.Start), f(l.FadeIn))
	}
	if l.FadeOut > 0 {
		a += fmt.Sprintf("*min(1\\,max(0\\,(%s-t)/%s))", f(l.End()), f(l.FadeOut))
	}
	out := fmt.Sprintf("v%d", i)
	p.graph = append(p.graph, fmt.Sprintf(
		"[%s]drawtext=fontfile=%s:textfile=%s:expansion=none:fontsize=%d:fontcolor=%s:x=%s:y=%s:alpha=%s:%s[%s]",
		video, filterValue(font), filterValue(filepath.Join(p.workDir, name)), l.FontSize, l.Color, x, y, a,
		win.enable(), out))
	return out, nil
}
