package glyphs

import (
	"slices"
	"strings"
	"unicode"

	"github.com/go-text/typesetting/segmenter"
)

// Unit is what a layout's glyphs are divided into, to be drawn apart
// (text that comes in word by word, or letter by letter).
type Unit int

// The units. A word is a run of characters between white space; a
// letter is a grapheme cluster (UAX #29: a letter with its marks, an
// emoji with its modifiers) that is not white space. Both are numbered
// from 0 in the order of the text, across its lines.
const (
	Words Unit = iota + 1
	Letters
)

// CountUnits is how many words or letters text holds: the units a
// layout of it numbers (less those MaxLines cuts off).
func CountUnits(text string, by Unit) int {
	n := 0
	for _, para := range paragraphs(text) {
		_, n = numberUnits([]rune(para), by, n)
	}
	return n
}

// paragraphs is text cut at its newlines, as Layout cuts it.
func paragraphs(text string) []string {
	return strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
}

// numberUnits gives each character of a paragraph its word's or letter's
// number, counting from next, and -1 to white space; it returns the
// numbers and the number after the paragraph's last unit.
func numberUnits(runes []rune, by Unit, next int) ([]int, int) {
	out := make([]int, len(runes))
	if by == Letters {
		var seg segmenter.Segmenter
		seg.Init(runes)
		it := seg.GraphemeIterator()
		for it.Next() {
			g := it.Grapheme()
			n := -1
			for _, r := range g.Text {
				if !unicode.IsSpace(r) {
					n = next
					next++
					break
				}
			}
			for k := range g.Text {
				out[g.Offset+k] = n
			}
		}
		return out, next
	}
	in := false
	for i, r := range runes {
		if unicode.IsSpace(r) {
			out[i], in = -1, false
			continue
		}
		if !in {
			next++
			in = true
		}
		out[i] = next - 1
	}
	return out, next
}

// owners are the units whose pictures paint the characters'
// backgrounds, from their numbers (numberUnits): a unit's own, and white
// space the unit's before it in the paragraph (the one after it, at the
// paragraph's start; -1 in a paragraph of white space only). A
// background behind the spaces between words then comes in with the word
// before them.
func owners(nums []int) []int {
	out := make([]int, len(nums))
	last := -1
	for i, n := range nums {
		if n >= 0 {
			last = n
		}
		out[i] = last
	}
	if first := slices.IndexFunc(nums, func(n int) bool { return n >= 0 }); first > 0 {
		for i := range first {
			out[i] = nums[first]
		}
	}
	return out
}

// Units are the numbers of the words or letters the layout draws
// something of, in increasing order.
func (l *Layout) Units(by Unit) []int {
	seen := map[int]bool{}
	var out []int
	for _, ln := range l.Lines {
		for _, g := range ln.glyphs {
			n := g.unit(by)
			if !g.ink || n < 0 || seen[n] {
				continue
			}
			seen[n] = true
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// Only is the layout with the glyphs of word or letter n only, each where
// it is in the whole, and the white space whose background it paints
// (owners): drawn with the whole's origins, it draws that unit alone.
// Lines keep their widths and heights, so that alignment places them
// alike.
func (l *Layout) Only(by Unit, n int) *Layout {
	out := *l
	out.Missing = nil
	out.Lines = make([]Line, len(l.Lines))
	for i, ln := range l.Lines {
		keep := ln
		keep.glyphs = nil
		for _, g := range ln.glyphs {
			if g.unit(by) == n || g.unit(by) < 0 && g.owner(by) == n && l.styles[g.span].background != nil {
				keep.glyphs = append(keep.glyphs, g)
			}
		}
		out.Lines[i] = keep
	}
	return &out
}

// Span is how far the line's glyphs reach left and right of its origin
// (their ink, not their advance); ok is false for a line with nothing
// to draw.
func (l Line) Span() (left, right float64, ok bool) {
	for _, g := range l.glyphs {
		if !g.ink {
			continue
		}
		x0, x1 := g.x+g.bx, g.x+g.bx+g.bw
		if !ok {
			left, right, ok = x0, x1, true
			continue
		}
		left, right = min(left, x0), max(right, x1)
	}
	return left, right, ok
}

func (g placed) unit(by Unit) int {
	if by == Letters {
		return g.letter
	}
	return g.word
}

func (g placed) owner(by Unit) int {
	if by == Letters {
		return g.ownLetter
	}
	return g.ownWord
}
