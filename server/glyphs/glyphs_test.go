package glyphs

import (
	"image"
	"image/color"
	"os"
	"slices"
	"testing"
)

// readMachineFont reads a font of the machine, skipping the test when the
// machine lacks it (see needHarfBuzz).
func readMachineFont(t *testing.T, name string, index int) *Font {
	t.Helper()
	path := Default().Path(name)
	if path == "" {
		needHarfBuzz(t, name)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := ParseIndex(data, index)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// clusters are the characters' indices of a line's glyphs, left to right.
func clusters(ln Line) []int {
	var out []int
	for _, g := range ln.glyphs {
		if len(out) == 0 || out[len(out)-1] != g.cluster {
			out = append(out, g.cluster)
		}
	}
	return out
}

func TestMixedArabicLatinInOrder(t *testing.T) {
	latin := readMachineFont(t, "NotoSans-Regular.ttf", 0)
	arabic := readMachineFont(t, "NotoSansArabic-Regular.ttf", 0)
	s := NewShaper([]*Font{latin, arabic}, nil)

	// A left-to-right paragraph: "kino " then the Arabic word, right to
	// left, then " 2026".
	text := []rune("kino مرحبا 2026")
	lay := s.Layout(string(text), Options{Size: 40})
	got := clusters(lay.Lines[0])
	// Left to right: k i n o and the space ascending, the Arabic word's
	// glyphs with descending clusters, then the space and digits.
	first := got[:5]
	if !slices.Equal(first, []int{0, 1, 2, 3, 4}) {
		t.Fatalf("the Latin word comes first, left to right: %v", got)
	}
	var arabicPart []int
	for _, c := range got {
		if c >= 5 && c <= 9 {
			arabicPart = append(arabicPart, c)
		}
	}
	if len(arabicPart) < 2 || !slices.IsSortedFunc(arabicPart, func(a, b int) int { return b - a }) {
		t.Fatalf("the Arabic word is drawn right to left (clusters descending): %v", got)
	}
	if got[len(got)-1] != len(text)-1 {
		t.Fatalf("the digits end the line: %v", got)
	}

	// A right-to-left paragraph: the first Arabic word is rightmost, the
	// Latin word in the middle, left to right.
	text = []rune("مرحبا kino عالم")
	lay = s.Layout(string(text), Options{Size: 40})
	got = clusters(lay.Lines[0])
	if got[len(got)-1] != 0 {
		t.Fatalf("the first word of a right-to-left line is rightmost: %v", got)
	}
	at := slices.Index(got, 6)
	if at < 0 || !slices.Equal(got[at:at+4], []int{6, 7, 8, 9}) {
		t.Fatalf("the Latin word reads left to right inside the line: %v", got)
	}
	if got[0] < 11 {
		t.Fatalf("the last Arabic word is leftmost: %v", got)
	}
}

func TestEmojiInColour(t *testing.T) {
	latin := readMachineFont(t, "NotoSans-Regular.ttf", 0)
	readMachineFont(t, "NotoColorEmoji.ttf", 0)
	s := NewShaper([]*Font{latin}, Default())
	lay := s.Layout("Hi 👋🎉", Options{Size: 64})
	if len(lay.Missing) > 0 {
		t.Fatalf("missing %q", lay.Missing)
	}
	w := int(lay.Lines[0].Width) + 4
	img := image.NewNRGBA(image.Rect(0, 0, w, 90))
	lay.Draw(img, []Point{{0, 70}}, Paint{Fill: color.NRGBA{A: 255}})
	// The text is black: any pixel with chroma is an emoji's.
	hi := lay.Lines[0].glyphs[2].x // after "Hi"
	coloured, blackLeft := 0, 0
	for y := 0; y < 90; y++ {
		for x := 0; x < w; x++ {
			c := img.NRGBAAt(x, y)
			if c.A < 128 {
				continue
			}
			chroma := max(c.R, c.G, c.B) - min(c.R, c.G, c.B)
			if chroma > 60 {
				if float64(x) < hi {
					t.Fatalf("a coloured pixel at %d,%d, in the black text", x, y)
				}
				coloured++
			} else if float64(x) < hi {
				blackLeft++
			}
		}
	}
	if coloured < 500 || blackLeft < 100 {
		t.Fatalf("%d coloured pixels where the emoji are, %d black ones in the text: want the emoji in colour", coloured, blackLeft)
	}
}

func TestFallsBackWithoutBoxes(t *testing.T) {
	// Three scripts, and a first font (DejaVu Sans, kino's default)
	// that has Latin only of them.
	dejavu := readMachineFont(t, "DejaVuSans.ttf", 0)
	readMachineFont(t, "NotoSansDevanagari-Regular.ttf", 0)
	readMachineFont(t, "NotoSansCJK-Regular.ttc", 0)
	s := NewShaper([]*Font{dejavu}, Default())
	lay := s.Layout("Hello हिन्दी 中文", Options{Size: 40})
	if len(lay.Missing) > 0 {
		t.Fatalf("missing %q", lay.Missing)
	}
	for _, g := range lay.Lines[0].glyphs {
		if g.gid == 0 {
			t.Fatalf("a .notdef glyph (a box) for character %d", g.cluster)
		}
	}
	fonts := map[*Font]bool{}
	for _, g := range lay.Lines[0].glyphs {
		fonts[g.font] = true
	}
	if len(fonts) != 3 {
		t.Fatalf("drawn in %d fonts, want 3 (DejaVu Sans, Noto Sans Devanagari, Noto Sans CJK)", len(fonts))
	}
}

func TestMissingIsReportedNotDrawn(t *testing.T) {
	dejavu := readMachineFont(t, "DejaVuSans.ttf", 0)
	// U+E000 is private use: no font on the machine draws it; without
	// the machine's fonts, Devanagari is missing too.
	lay := NewShaper([]*Font{dejavu}, nil).Layout("ab\ue000c हि", Options{Size: 40})
	if !slices.Equal(lay.Missing, []rune{'\ue000', 'ह', 'ि'}) {
		t.Fatalf("missing %q, want U+E000, ह and ि", lay.Missing)
	}
	img := image.NewNRGBA(image.Rect(0, 0, 400, 60))
	lay.Draw(img, []Point{{0, 45}}, Paint{Fill: color.NRGBA{A: 255}})
	// Nothing is drawn where the private character is: no .notdef box.
	var x0, x1 float64
	for i, g := range lay.Lines[0].glyphs {
		if g.cluster == 2 {
			x0, x1 = g.x, lay.Lines[0].glyphs[i+1].x
		}
	}
	for y := 0; y < 60; y++ {
		for x := int(x0) + 1; x < int(x1)-1; x++ {
			if img.NRGBAAt(x, y).A > 0 {
				t.Fatalf("a pixel drawn at %d,%d where the missing character is (%v to %v)", x, y, x0, x1)
			}
		}
	}
}

func TestWrapsWhereUAX14Allows(t *testing.T) {
	dejavu := readMachineFont(t, "DejaVuSans.ttf", 0)
	s := NewShaper([]*Font{dejavu}, Default())
	lay := s.Layout("the quick brown fox", Options{Size: 20, Width: 80})
	for _, ln := range lay.Lines {
		if ln.Width > 80 {
			t.Fatalf("a line %.1f px wide in 80", ln.Width)
		}
	}
	if len(lay.Lines) < 2 {
		t.Fatalf("%d lines", len(lay.Lines))
	}
	readMachineFont(t, "NotoSansCJK-Regular.ttc", 2)
	// Chinese breaks between characters: ten characters at 20 px in 100 px
	// are two lines.
	lay = s.Layout("中文字体排版中文字体", Options{Size: 20, Width: 100})
	if len(lay.Lines) != 2 || lay.Lines[0].Width > 100 {
		t.Fatalf("%d lines, the first %.1f px wide, want 2 of at most 100 px", len(lay.Lines), lay.Lines[0].Width)
	}
}

func TestStrokeSurroundsTheGlyphs(t *testing.T) {
	dejavu := readMachineFont(t, "DejaVuSans.ttf", 0)
	lay := NewShaper([]*Font{dejavu}, nil).Layout("I", Options{Size: 40})
	img := image.NewNRGBA(image.Rect(0, 0, 60, 60))
	lay.Draw(img, []Point{{20, 45}}, Paint{Fill: color.NRGBA{R: 255, A: 255}, StrokeWidth: 4, Stroke: color.NRGBA{B: 255, A: 255}})
	// The stem of the I is red; 3 pixels left of it is blue stroke; 7
	// pixels left is nothing.
	row := 30
	left := -1
	for x := 0; x < 60; x++ {
		if c := img.NRGBAAt(x, row); c.R > 200 && c.A == 255 {
			left = x
			break
		}
	}
	if left < 0 {
		t.Fatal("no red stem")
	}
	if c := img.NRGBAAt(left-3, row); c.B < 200 || c.A < 250 {
		t.Fatalf("3 px left of the stem is %v, want the blue stroke", c)
	}
	if c := img.NRGBAAt(left-7, row); c.A != 0 {
		t.Fatalf("7 px left of the stem is %v, want nothing", c)
	}
}

func TestParseFeature(t *testing.T) {
	for in, want := range map[string]Feature{"smcp": {"smcp", 1}, "+liga": {"liga", 1}, "-kern": {"kern", 0}, "ss01=2": {"ss01", 2}} {
		got, err := ParseFeature(in)
		if err != nil || got != want {
			t.Errorf("%q: %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "ligatures", "kern=x", "ab"} {
		if _, err := ParseFeature(in); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}

// TestSpaceAfterEmoji: a space after an emoji is the text font's, not the
// emoji font's (an emoji wide).
func TestSpaceAfterEmoji(t *testing.T) {
	latin := readMachineFont(t, "NotoSans-Regular.ttf", 0)
	readMachineFont(t, "NotoColorEmoji.ttf", 0)
	s := NewShaper([]*Font{latin}, Default())
	with := s.Layout("a🎉 b", Options{Size: 40}).Lines[0].Width
	without := s.Layout("a🎉b", Options{Size: 40}).Lines[0].Width
	space := s.Layout("a b", Options{Size: 40}).Lines[0].Width - s.Layout("ab", Options{Size: 40}).Lines[0].Width
	if d := with - without; d < space-0.5 || d > space+0.5 {
		t.Fatalf("the space after the emoji is %.1f px, the font's %.1f px", d, space)
	}
}

func TestMaxLinesEndsInEllipsis(t *testing.T) {
	dejavu := readMachineFont(t, "DejaVuSans.ttf", 0)
	s := NewShaper([]*Font{dejavu}, nil)
	text := "one two three four five six seven eight nine ten"
	all := s.Layout(text, Options{Size: 20, Width: 120})
	require := func(ok bool, format string, args ...any) {
		t.Helper()
		if !ok {
			t.Fatalf(format, args...)
		}
	}
	require(len(all.Lines) > 2 && !all.Truncated, "%d lines", len(all.Lines))
	cut := s.Layout(text, Options{Size: 20, Width: 120, MaxLines: 2})
	require(len(cut.Lines) == 2 && cut.Truncated, "%d lines, truncated %v", len(cut.Lines), cut.Truncated)
	last := cut.Lines[1].glyphs
	ell, _ := dejavu.ft.NominalGlyph('…')
	require(last[len(last)-1].gid == ell, "the last line ends in …")
	require(cut.Lines[1].Width <= 120, "the last line with its ellipsis is %.1f px, in 120", cut.Lines[1].Width)

	// Paragraphs past the last line are cut too; text that fits is not.
	paras := s.Layout("a\nb\nc", Options{Size: 20, MaxLines: 2})
	require(len(paras.Lines) == 2 && paras.Truncated, "%d lines, truncated %v", len(paras.Lines), paras.Truncated)
	fits := s.Layout("a\nb", Options{Size: 20, MaxLines: 2})
	require(len(fits.Lines) == 2 && !fits.Truncated, "%d lines, truncated %v", len(fits.Lines), fits.Truncated)
}

func TestWholeWordsOverflow(t *testing.T) {
	dejavu := readMachineFont(t, "DejaVuSans.ttf", 0)
	s := NewShaper([]*Font{dejavu}, nil)
	broken := s.Layout("unbreakable", Options{Size: 20, Width: 40})
	whole := s.Layout("unbreakable", Options{Size: 20, Width: 40, WholeWords: true})
	if broken.Widest() > 40 || len(broken.Lines) < 2 {
		t.Fatalf("a word wider than the line is broken: %d lines, %.1f px", len(broken.Lines), broken.Widest())
	}
	if whole.Widest() <= 40 || len(whole.Lines) != 1 {
		t.Fatalf("WholeWords keeps the word: %d lines, %.1f px", len(whole.Lines), whole.Widest())
	}
}

// machine is this machine's fallback fonts, read once for all the tests.
var machine = NewMachine(DefaultDirs()...)

// Default is the tests' fallback fonts.
func Default() *Machine { return machine }
