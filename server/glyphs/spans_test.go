package glyphs

import (
	"image"
	"image/color"
	"slices"
	"testing"
)

// split cuts text into spans at the given character offsets.
func split(text string, at ...int) []Span {
	runes := []rune(text)
	var out []Span
	start := 0
	for _, a := range append(at, len(runes)) {
		out = append(out, Span{Text: string(runes[start:a])})
		start = a
	}
	return out
}

// places are the glyphs of a layout, line by line: glyph, cluster and
// where it is drawn.
func places(l *Layout) [][][3]float64 {
	var out [][][3]float64
	for _, ln := range l.Lines {
		var line [][3]float64
		for _, g := range ln.glyphs {
			line = append(line, [3]float64{float64(g.gid), float64(g.cluster), g.x})
		}
		out = append(out, line)
	}
	return out
}

// A span in another colour draws its glyphs in that colour, where the
// plain text has them: spans of one size and font are laid out as the
// text they make.
func TestSpanColourKeepsPlaces(t *testing.T) {
	s := NewShaper([]*Font{readMachineFont(t, "DejaVuSans.ttf", 0)}, nil)
	text := "Plain red words plain"
	plain := s.Layout(text, Options{Size: 30})
	spans := split(text, 6, 15)
	red := color.NRGBA{R: 255, A: 255}
	spans[1].Fill = &red
	rich := s.LayoutSpans(spans, Options{Size: 30})
	if !slices.EqualFunc(places(plain), places(rich), slices.Equal) {
		t.Fatalf("the spans' glyphs are not where the plain text's are:\n%v\n%v", places(plain), places(rich))
	}
	if plain.Lines[0].Above != rich.Lines[0].Above || plain.Lines[0].Below != rich.Lines[0].Below {
		t.Fatalf("the line's height changed: %v/%v, plain %v/%v", rich.Lines[0].Above, rich.Lines[0].Below, plain.Lines[0].Above, plain.Lines[0].Below)
	}

	w := int(plain.Lines[0].Width) + 8
	a := image.NewNRGBA(image.Rect(0, 0, w, 50))
	b := image.NewNRGBA(image.Rect(0, 0, w, 50))
	black := color.NRGBA{A: 255}
	plain.Draw(a, []Point{{2, 36}}, Paint{Fill: black})
	rich.Draw(b, []Point{{2, 36}}, Paint{Fill: black})
	// The red span lies from the pen before "red" to the pen after
	// "words".
	var x0, x1 float64
	for _, g := range rich.Lines[0].glyphs {
		switch g.cluster {
		case 6:
			x0 = 2 + g.pen
		case 14:
			x1 = 2 + g.pen + g.adv
		}
	}
	redPixels := 0
	for y := 0; y < 50; y++ {
		for x := 0; x < w; x++ {
			pa, pb := a.NRGBAAt(x, y), b.NRGBAAt(x, y)
			if d := int(pa.A) - int(pb.A); d < -1 || d > 1 {
				t.Fatalf("at %d,%d the spans cover %d, the plain text %d", x, y, pb.A, pa.A)
			}
			if pb.A < 128 {
				continue
			}
			inside := float64(x) >= x0 && float64(x+1) <= x1
			switch {
			case inside && (pb.R < 250 || pb.G > 5):
				t.Fatalf("at %d,%d, in the red span, %v", x, y, pb)
			case !inside && (float64(x+1) < x0 || float64(x) > x1) && pb.R > 5:
				t.Fatalf("at %d,%d, outside the red span, %v", x, y, pb)
			case inside:
				redPixels++
			}
		}
	}
	if redPixels < 100 {
		t.Fatalf("%d red pixels", redPixels)
	}
}

// A larger span raises its line, all spans on one baseline; the lines
// without it keep the text's own height.
func TestLargerSpanRaisesItsLine(t *testing.T) {
	s := NewShaper([]*Font{readMachineFont(t, "DejaVuSans.ttf", 0)}, nil)
	text := "one BIG two three four five six"
	plain := s.Layout(text, Options{Size: 20, Width: 160})
	spans := split(text, 4, 7)
	spans[1].Size = 40
	rich := s.LayoutSpans(spans, Options{Size: 20, Width: 160})
	if len(rich.Lines) < 2 || len(plain.Lines) < 2 {
		t.Fatalf("%d and %d lines", len(rich.Lines), len(plain.Lines))
	}
	first, second := rich.Lines[0], rich.Lines[1]
	a, d, g := s.fonts[0].Metrics(40)
	if first.Above != a+g/2 || first.Below != d+g/2 || first.Size != 40 {
		t.Fatalf("the first line is %.2f above, %.2f below its baseline (size %v), want the 40 px span's %.2f, %.2f", first.Above, first.Below, first.Size, a+g/2, d+g/2)
	}
	if second.Above != plain.Lines[1].Above || second.Below != plain.Lines[1].Below {
		t.Fatalf("the second line is %.2f/%.2f, the plain text's %.2f/%.2f", second.Above, second.Below, plain.Lines[1].Above, plain.Lines[1].Below)
	}
	for _, g := range first.glyphs {
		if g.y != 0 {
			t.Fatalf("glyph %d is %.2f off the baseline", g.cluster, g.y)
		}
	}
	// The big word is twice as wide as at 20 px.
	big := func(l *Layout) float64 {
		w := 0.0
		for _, g := range l.Lines[0].glyphs {
			if g.cluster >= 4 && g.cluster < 7 {
				w += g.adv
			}
		}
		return w
	}
	if r := big(rich) / big(plain); r < 1.95 || r > 2.05 {
		t.Fatalf("the 40 px word is %.2f times as wide as at 20 px", r)
	}
	if got, want := rich.Height(), first.Above+first.Below+second.Above+second.Below; len(rich.Lines) == 2 && got != want {
		t.Fatalf("height %.2f, want %.2f", got, want)
	}

	// lineHeight is a multiple of each span's size: the line takes its
	// largest.
	tall := s.LayoutSpans(spans, Options{Size: 20, Width: 160, LineHeight: 1.5})
	if h := tall.Lines[0].Above + tall.Lines[0].Below; h < 59.99 || h > 60.01 {
		t.Fatalf("the first line is %.2f high at lineHeight 1.5, want 60", h)
	}
	if h := tall.Lines[1].Above + tall.Lines[1].Below; h < 29.99 || h > 30.01 {
		t.Fatalf("the second line is %.2f high at lineHeight 1.5, want 30", h)
	}
}

// A span's edge inside a word is no place to break a line: spans break
// where the text they make breaks.
func TestSpansBreakAsTheirText(t *testing.T) {
	s := NewShaper([]*Font{readMachineFont(t, "DejaVuSans.ttf", 0)}, nil)
	text := "the quick brown fox jumps over"
	for _, wrap := range []Options{{Size: 20, Width: 80}, {Size: 20, Width: 80, WholeWords: true}} {
		plain := s.Layout(text, wrap)
		// Edges inside "quick", "brown" and "jumps".
		rich := s.LayoutSpans(split(text, 6, 12, 22), wrap)
		if len(plain.Lines) != len(rich.Lines) || len(plain.Lines) < 3 {
			t.Fatalf("%d lines, the plain text's %d", len(rich.Lines), len(plain.Lines))
		}
		for k := range plain.Lines {
			if !slices.Equal(clusters(plain.Lines[k]), clusters(rich.Lines[k])) {
				t.Fatalf("line %d holds %v, the plain text's %v", k, clusters(rich.Lines[k]), clusters(plain.Lines[k]))
			}
		}
	}
}

// Right-to-left words in spans of their own are ordered as one text: the
// first Hebrew word is right of the second.
func TestSpansOrderedAsOneText(t *testing.T) {
	latin := readMachineFont(t, "NotoSans-Regular.ttf", 0)
	hebrew := readMachineFont(t, "NotoSansHebrew-Regular.ttf", 0)
	s := NewShaper([]*Font{latin, hebrew}, nil)
	text := "kino שלום עולם end"
	plain := s.Layout(text, Options{Size: 30})
	rich := s.LayoutSpans(split(text, 5, 10, 15), Options{Size: 30})
	if got, want := clusters(rich.Lines[0]), clusters(plain.Lines[0]); !slices.Equal(got, want) {
		t.Fatalf("the spans are drawn in the order %v, the text in %v", got, want)
	}
	got := clusters(rich.Lines[0])
	if slices.Index(got, 10) > slices.Index(got, 5) {
		t.Fatalf("the second Hebrew word is right of the first: %v", got)
	}
}

// A span's own font draws its characters.
func TestSpanFont(t *testing.T) {
	dejavu := readMachineFont(t, "DejaVuSans.ttf", 0)
	noto := readMachineFont(t, "NotoSans-Regular.ttf", 0)
	s := NewShaper([]*Font{dejavu}, nil)
	spans := split("ab cd", 3)
	spans[1].Fonts = []*Font{noto}
	lay := s.LayoutSpans(spans, Options{Size: 30})
	for _, g := range lay.Lines[0].glyphs {
		if want := map[bool]*Font{true: noto, false: dejavu}[g.cluster >= 3]; g.font != want && g.ink {
			t.Fatalf("character %d is drawn in the wrong font", g.cluster)
		}
	}
}

// A span's background is painted behind its glyphs as far as they
// advance, from its font's ascent to its descent; with units, the space
// after a word comes with the word.
func TestSpanBackground(t *testing.T) {
	dejavu := readMachineFont(t, "DejaVuSans.ttf", 0)
	s := NewShaper([]*Font{dejavu}, nil)
	spans := split("say hello there now", 4, 16)
	yellow := color.NRGBA{R: 255, G: 220, A: 255}
	spans[1].Background = &yellow
	lay := s.LayoutSpans(spans, Options{Size: 30})
	var x0, x1 float64
	for _, g := range lay.Lines[0].glyphs {
		switch g.cluster {
		case 4:
			x0 = g.pen
		case 15:
			x1 = g.pen + g.adv
		}
	}
	a, d, _ := dejavu.Metrics(30)
	w := int(lay.Lines[0].Width) + 10
	img := image.NewNRGBA(image.Rect(0, 0, w, 60))
	origin := Point{5, 45}
	lay.DrawBackgrounds(img, []Point{origin}, 1)
	at := func(x, y float64) color.NRGBA { return img.NRGBAAt(int(x), int(y)) }
	if c := at(origin.X+(x0+x1)/2, origin.Y-a+2); c != yellow {
		t.Fatalf("inside the background: %v", c)
	}
	if c := at(origin.X+x0-2, origin.Y-5); c.A != 0 {
		t.Fatalf("left of the background: %v", c)
	}
	if c := at(origin.X+x1+2, origin.Y-5); c.A != 0 {
		t.Fatalf("right of the background: %v", c)
	}
	if c := at(origin.X+x0+3, origin.Y+d+2); c.A != 0 {
		t.Fatalf("below the background: %v", c)
	}
	if left, right, top, bottom, ok := lay.Lines[0].Reach(); !ok || left > x0 || right < x1 || top < a-0.01 || bottom < d-0.01 {
		t.Fatalf("the line reaches %v to %v, %v up, %v down: want its background in", left, right, top, bottom)
	}

	// Word 1 ("hello") brings the background of the space after it.
	one := lay.Only(Words, 1)
	var hello []int
	for _, g := range one.Lines[0].glyphs {
		hello = append(hello, g.cluster)
	}
	if !slices.Equal(hello, []int{4, 5, 6, 7, 8, 9}) {
		t.Fatalf("word 1 draws %v", hello)
	}
	if _, right, _, _, _ := one.Lines[0].Reach(); right < x0+1 || right > x1 {
		t.Fatalf("word 1 reaches %v", right)
	}
	// Text and backgrounds of the units together are the whole's.
	n := 0
	for _, u := range lay.Units(Words) {
		n += len(lay.Only(Words, u).Lines[0].boxes())
	}
	if n != 2 {
		t.Fatalf("the words paint %d backgrounds, want 2 (hello and its space, there)", n)
	}
}

// Text cut by maxLines ends in an ellipsis in the colour of the span it
// ends.
func TestSpanEllipsis(t *testing.T) {
	s := NewShaper([]*Font{readMachineFont(t, "DejaVuSans.ttf", 0)}, nil)
	spans := split("one two three four five six seven", 8)
	red := color.NRGBA{R: 255, A: 255}
	spans[1].Fill = &red
	lay := s.LayoutSpans(spans, Options{Size: 20, Width: 100, MaxLines: 2})
	if !lay.Truncated || len(lay.Lines) != 2 {
		t.Fatalf("%d lines, truncated %v", len(lay.Lines), lay.Truncated)
	}
	last := lay.Lines[1].glyphs
	if g := last[len(last)-1]; lay.styles[g.span].fill != &red {
		t.Fatalf("the ellipsis is in span %d", g.span)
	}
}
