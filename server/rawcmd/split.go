// Package rawcmd is the first wall around a client's own ffmpeg command
// (the raw.ffmpeg and ffmpeg job types): it splits the command into
// arguments as a POSIX shell would quote them, without ever running a
// shell, checks every argument against an allowlist of options, formats,
// codecs and filters, and names the inputs kino downloads and the outputs
// it stores. What passes may still be hostile if this package is wrong;
// the second wall (server/ffmpeg's sandbox) does not trust it.
package rawcmd

import (
	"strings"
)

// Split splits a command line into words with a POSIX shell's quoting:
// 'single quotes' keep everything, "double quotes" let a backslash escape
// \ " $ ` and a newline, and a backslash outside quotes escapes the next
// character. Nothing is expanded and no shell ever runs; an unquoted shell
// operator (| & < > ` $( ), which a client may believe works, is refused
// rather than passed on as a word. An unquoted ; stays a character: it
// separates the chains of filter graphs that clients send unquoted.
func Split(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\\' && i+1 < len(s) && s[i+1] == '\n':
			i++ // a backslash-newline joins lines
		case c == '\\':
			inWord = true
			if i+1 < len(s) {
				i++
				cur.WriteByte(s[i])
			}
		case c == '\'':
			inWord = true
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, errorf("'", "the command has a ' that is never closed")
			}
			cur.WriteString(s[i+1 : i+1+end])
			i += end + 1
		case c == '"':
			inWord = true
			j := i + 1
			for ; j < len(s) && s[j] != '"'; j++ {
				if s[j] == '\\' && j+1 < len(s) && strings.IndexByte("\\\"$`\n", s[j+1]) >= 0 {
					j++
					if s[j] != '\n' {
						cur.WriteByte(s[j])
					}
					continue
				}
				cur.WriteByte(s[j])
			}
			if j >= len(s) {
				return nil, errorf(`"`, `the command has a " that is never closed`)
			}
			i = j
		case c == '&' && inWord && i+1 < len(s) && strings.IndexByte(" \t\n&|;<>", s[i+1]) < 0:
			// Inside a word, as between a URL's query parameters
			// (?expires=…&signature=…), which clients paste unquoted.
			cur.WriteByte(c)
		case strings.IndexByte("|&<>`", c) >= 0 || (c == '$' && i+1 < len(s) && s[i+1] == '('):
			return nil, errorf(string(c), "the command uses the shell operator %q; kino runs ffmpeg without a shell, so quote it if it belongs to an argument", string(c))
		default:
			inWord = true
			cur.WriteByte(c)
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}
