package glyphs

import (
	"slices"
	"testing"
)

func TestCountUnits(t *testing.T) {
	for _, tc := range []struct {
		text           string
		words, letters int
	}{
		{"", 0, 0},
		{"  ", 0, 0},
		{"Hello world", 2, 10},
		{"one\ntwo  three\r\nfour", 4, 15},
		{"नमस्ते दुनिया", 2, 6}, // a letter with its marks, and a conjunct, are one grapheme: न म स्ते, दु नि या
		{"hi 👋🏽!", 2, 4},        // the emoji and its skin tone are one letter
	} {
		if got := CountUnits(tc.text, Words); got != tc.words {
			t.Errorf("%q: %d words, want %d", tc.text, got, tc.words)
		}
		if got := CountUnits(tc.text, Letters); got != tc.letters {
			t.Errorf("%q: %d letters, want %d", tc.text, got, tc.letters)
		}
	}
}

// TestOnlyDrawsOneWord: a layout's words, each drawn alone where the
// whole draws it, together paint what the whole paints, and each unit the
// layout numbers is a word of its text, across lines and past a wrap.
func TestOnlyDrawsOneWord(t *testing.T) {
	s := NewShaper([]*Font{readMachineFont(t, "NotoSans-Regular.ttf", 0)}, nil)
	text := "Words that move\none by one"
	lay := s.Layout(text, Options{Size: 30, Width: 150})
	if got := lay.Units(Words); !slices.Equal(got, []int{0, 1, 2, 3, 4, 5}) {
		t.Fatalf("units %v", got)
	}
	if got := lay.Units(Letters); len(got) != CountUnits(text, Letters) {
		t.Fatalf("%d letters drawn, want %d", len(got), CountUnits(text, Letters))
	}
	glyphsOf := func(l *Layout) int {
		n := 0
		for _, ln := range l.Lines {
			n += len(ln.glyphs)
		}
		return n
	}
	total := 0
	for _, n := range lay.Units(Words) {
		one := lay.Only(Words, n)
		lines := 0
		for _, ln := range one.Lines {
			if _, _, ok := ln.Span(); ok {
				lines++
			}
		}
		if lines != 1 {
			t.Errorf("word %d lies on %d lines", n, lines)
		}
		total += glyphsOf(one)
	}
	spaces := glyphsOf(lay.Only(Words, -1))
	if total == 0 || total+spaces != glyphsOf(lay) {
		t.Errorf("the words hold %d of the layout's %d glyphs, and %d are spaces", total, glyphsOf(lay), spaces)
	}
}
