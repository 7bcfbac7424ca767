package engine

import (
	"strconv"
	"strings"
)

// ffmpeg reads a filter graph at two levels, each splitting on its own
// special characters and honouring backslash escapes: the graph splits
// filters on [ ] , ; and each filter splits its options on : and =. A
// value that reaches a filter must be escaped for both, innermost first.

// escapeOption escapes s as one value of a filter option.
func escapeOption(s string) string { return escapeFor(s, `\':=`) }

// escapeGraph escapes an option string for the filter graph around it.
func escapeGraph(s string) string { return escapeFor(s, `\'[],;`) }

// filterValue is s escaped for both levels.
func filterValue(s string) string { return escapeGraph(escapeOption(s)) }

func escapeFor(s, special string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(special, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// f formats a number for a filter graph: plain digits, never an exponent.
func f(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
