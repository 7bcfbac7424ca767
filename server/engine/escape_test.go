package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestEscape(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in, option, graph, both string
	}{
		{"/tmp/a.txt", "/tmp/a.txt", "/tmp/a.txt", "/tmp/a.txt"},
		{"it's", `it\'s`, `it\'s`, `it\\\'s`},
		{"a:b", `a\:b`, "a:b", `a\\:b`},
		{"k=v", `k\=v`, "k=v", `k\\=v`},
		{`a\b`, `a\\b`, `a\\b`, `a\\\\b`},
		{"[x]", "[x]", `\[x\]`, `\[x\]`},
		{"a,b;c", "a,b;c", `a\,b\;c`, `a\,b\;c`},
		{"%{pts} 50%", "%{pts} 50%", "%{pts} 50%", "%{pts} 50%"},
		{"é\xff", "é\xff", "é\xff", "é\xff"},
		{"", "", "", ""},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.option, escapeOption(tc.in), "option level of %q", tc.in)
		assert.Equal(t, tc.graph, escapeGraph(tc.in), "graph level of %q", tc.in)
		assert.Equal(t, tc.both, filterValue(tc.in), "both levels of %q", tc.in)
		// ffmpeg reads it back as it was, and the value ends where it should.
		graphLevel, rest := getToken(filterValue(tc.in)+",next", "[],;")
		assert.Equal(t, ",next", rest)
		value, rest := getToken(graphLevel+":next", ":")
		assert.Equal(t, tc.in, value)
		assert.Equal(t, ":next", rest)
	}
}

func TestNumberFormat(t *testing.T) {
	t.Parallel()
	for in, want := range map[float64]string{0: "0", 1.5: "1.5", 1e-6: "0.000001", 600: "600", 1e21: "1000000000000000000000", -0.05: "-0.05"} {
		assert.Equal(t, want, f(in))
	}
}
