package typeset

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const dejaVu = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"

func face(t *testing.T, size int) *Face {
	t.Helper()
	data, err := os.ReadFile(dejaVu)
	require.NoError(t, err)
	f, err := Parse(data)
	require.NoError(t, err)
	fc, err := f.Face(size)
	require.NoError(t, err)
	return fc
}

// TestWidthIsDrawtexts pins widths that ffmpeg 5.1's drawtext reported as
// text_w for these lines in DejaVu Sans: rounded advances, no kerning (AV
// and To would kern).
func TestWidthIsDrawtexts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		size  int
		line  string
		width int
	}{
		{12, "AVAVAV To Ty", 84},
		{20, "ffi fl WAVE Tokyo", 172},
		{33, "Hello, world!", 207},
		{48, "AVAVAV To Ty", 343},
		{48, "iiiiiiiiiiiiiii", 195},
		{100, "mmmmmmmm", 776},
	} {
		assert.Equal(t, tc.width, face(t, tc.size).Width(tc.line), "%q at %d px", tc.line, tc.size)
	}
	f := face(t, 20)
	assert.Equal(t, 4*f.Width(" "), f.Width("\t"), "a tab moves to the next stop of four spaces")
	assert.Equal(t, 8*f.Width(" "), f.Width("a\t\t"))
}

func TestMetrics(t *testing.T) {
	t.Parallel()
	f := face(t, 100)
	// DejaVu Sans: ascent 1901, descent 483, no gap, 2048 units per em.
	assert.InDelta(t, 92.8, f.Ascent(), 0.1)
	assert.InDelta(t, 23.6, f.Descent(), 0.1)
	assert.InDelta(t, 116.4, f.LineHeight(), 0.1)
}

func TestLines(t *testing.T) {
	t.Parallel()
	f := face(t, 20)
	w := f.Width("quick brown")
	cases := []struct {
		name  string
		text  string
		width int
		want  []string
	}{
		{"no width: newlines only", "the quick brown fox\njumps", 0, []string{"the quick brown fox", "jumps"}},
		{"fits", "quick brown", w, []string{"quick brown"}},
		{"one pixel short", "quick brown", w - 1, []string{"quick", "brown"}},
		{"greedy", "the quick brown fox jumps over", f.Width("the quick brown"), []string{"the quick brown", "fox jumps over"}},
		{"spaces at breaks go, others stay", "a  b   quick brown", f.Width("a  b   quick"), []string{"a  b   quick", "brown"}},
		{"indent stays", "  quick brown", f.Width("  quick"), []string{"  quick", "brown"}},
		{"empty paragraphs stay", "quick\n\nbrown", w, []string{"quick", "", "brown"}},
		{"long word broken between characters", "abcdefghij", f.Width("abcd"), []string{"abcd", "efgh", "ij"}},
		{"long word after a short one", "a abcdefghij b", f.Width("abcd"), []string{"a", "abcd", "efgh", "ij b"}},
		{"narrower than a character", "ab", 1, []string{"a", "b"}},
		{"no-break space holds", "a quick\u00a0brown", f.Width("a quick\u00a0brown") - 1, []string{"a", "quick\u00a0brown"}},
		{"CJK breaks anywhere", "漢字漢字漢字", f.Width("漢字"), []string{"漢字", "漢字", "漢字"}},
	}
	for _, tc := range cases {
		got := f.Lines(tc.text, tc.width)
		assert.Equal(t, tc.want, got, tc.name)
		if tc.width > 1 {
			for _, l := range got {
				assert.LessOrEqual(t, f.Width(l), tc.width, "%s: %q", tc.name, l)
			}
		}
	}
}

func TestLinesOfLongText(t *testing.T) {
	t.Parallel()
	f := face(t, 10)
	text := strings.Repeat("x", 5000)
	lines := f.Lines(text, f.Width("xxxxxxxxxx"))
	assert.Len(t, lines, 500)
	assert.Equal(t, text, strings.Join(lines, ""))
}

// TestWOFF checks that a WOFF font measures as the font it wraps.
func TestWOFF(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(dejaVu)
	require.NoError(t, err)
	f, err := Parse(wrapWOFF(t, data))
	require.NoError(t, err)
	fc, err := f.Face(48)
	require.NoError(t, err)
	assert.Equal(t, face(t, 48).Width("Hello, WOFF!"), fc.Width("Hello, WOFF!"))
	assert.Equal(t, face(t, 48).Ascent(), fc.Ascent())

	_, err = Parse([]byte("wOF2 and the rest"))
	assert.ErrorIs(t, err, ErrWOFF2)
	for _, bad := range [][]byte{[]byte("wOFF"), append([]byte("wOFF"), make([]byte, 60)...), []byte("not a font at all")} {
		_, err := Parse(bad)
		assert.Error(t, err)
	}
}

// wrapWOFF packs an sfnt font as WOFF 1.0, compressing every table.
func wrapWOFF(t *testing.T, sfnt []byte) []byte {
	be := binary.BigEndian
	n := int(be.Uint16(sfnt[4:]))
	head := make([]byte, 44+20*n)
	copy(head, "wOFF")
	copy(head[4:], sfnt[:4])
	be.PutUint16(head[12:], uint16(n))
	var body []byte
	for i := 0; i < n; i++ {
		rec := sfnt[12+16*i:]
		off, length := be.Uint32(rec[8:]), be.Uint32(rec[12:])
		var z bytes.Buffer
		zw := zlib.NewWriter(&z)
		_, err := zw.Write(sfnt[off : off+length])
		require.NoError(t, err)
		require.NoError(t, zw.Close())
		data := z.Bytes()
		if len(data) >= int(length) {
			data = sfnt[off : off+length]
		}
		e := head[44+20*i:]
		copy(e, rec[:4])
		be.PutUint32(e[4:], uint32(len(head)+len(body)))
		be.PutUint32(e[8:], uint32(len(data)))
		be.PutUint32(e[12:], length)
		copy(e[16:], rec[4:8])
		body = append(body, data...)
		for len(body)%4 != 0 {
			body = append(body, 0)
		}
	}
	be.PutUint32(head[16:], uint32(len(sfnt)))
	return append(head, body...)
}

// TestWOFFBomb: tables of a WOFF font may all point at one small
// compressed block, each claiming to inflate to the most a table may
// hold; together they must not make kino allocate more than a font may
// hold, before it notices the font is too large.
func TestWOFFBomb(t *testing.T) {
	be := binary.BigEndian
	const tables, size = 16, 16 << 20 // 256 MiB in all, 16 MiB each
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	_, err := zw.Write(make([]byte, size))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	head := make([]byte, 44+20*tables)
	copy(head, "wOFF")
	be.PutUint32(head[4:], 0x00010000)
	be.PutUint16(head[12:], tables)
	be.PutUint32(head[16:], 1<<20)
	for i := range tables {
		e := head[44+20*i:]
		be.PutUint32(e, uint32(i))
		be.PutUint32(e[4:], uint32(len(head)))
		be.PutUint32(e[8:], uint32(z.Len()))
		be.PutUint32(e[12:], size)
	}
	bomb := append(head, z.Bytes()...)
	require.Less(t, len(bomb), 64<<10)

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = Parse(bomb)
	runtime.ReadMemStats(&after)
	assert.Error(t, err)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(maxFontBytes), "allocated before refusing")
}

// TestLinesOfLongLines: a paragraph whose lines hold thousands of words
// is broken in time and memory that grow with the text, not with its
// square (each word added once, never the line measured again).
func TestLinesOfLongLines(t *testing.T) {
	f := face(t, 2)
	text := strings.Repeat("i ", 2500)
	width := f.Width(text) / 2
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	lines := f.Lines(text, width)
	runtime.ReadMemStats(&after)
	require.Len(t, lines, 2)
	assert.True(t, lines[0]+" "+lines[1] == text, "the break swallows one space")
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(len(text)*4), "bytes allocated to break %d bytes", len(text))
}

// TestSystemFont: the font fontconfig names is one typeset reads.
func TestSystemFont(t *testing.T) {
	t.Parallel()
	path := SystemFont()
	data, err := os.ReadFile(path)
	require.NoError(t, err, path)
	_, err = Parse(data)
	require.NoError(t, err, path)
}
