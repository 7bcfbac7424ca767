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

// escapeFor works on bytes: paths need not be UTF-8, and every special
// character is ASCII.
func escapeFor(s, special string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(special, s[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// f formats a number for a filter graph: plain digits, never an exponent.
func f(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// FilterPath escapes a path kino made for use as a filter option's value
// inside a filter graph, as the executors of media jobs need too.
func FilterPath(path string) string { return filterValue(path) }
