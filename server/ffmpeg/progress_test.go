package ffmpeg

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestProgress(t *testing.T) {
	t.Parallel()
	block := func(outTime string, state string) []string {
		return []string{"frame=1", "out_time_us=" + outTime, "out_time_ms=" + outTime, "out_time=00:00:00.000000", "progress=" + state}
	}
	cases := []struct {
		name     string
		duration float64
		lines    [][]string
		succeed  bool
		want     []float64
	}{
		{"steps then end", 4, [][]string{block("1000000", "continue"), block("2000000", "continue"), block("4000000", "end")}, true, []float64{25, 50, 100}},
		{"N/A before the first frame", 4, [][]string{block("N/A", "continue"), block("2000000", "continue")}, false, []float64{0, 50}},
		{"never backwards", 4, [][]string{block("2000000", "continue"), block("1000000", "continue"), block("2000000", "continue")}, false, []float64{50}},
		{"past the expected end stays below 100", 1, [][]string{block("3000000", "continue"), block("3500000", "continue")}, false, []float64{99.9}},
		{"negative time is ignored", 2, [][]string{block("-5", "continue"), block("1000000", "continue")}, false, []float64{0, 50}},
		{"end without success is not 100", 2, [][]string{block("1000000", "continue"), block("2000000", "end")}, false, []float64{50}},
		{"unknown duration reports only the end", 0, [][]string{block("1000000", "continue"), block("2000000", "end")}, true, []float64{100}},
		{"garbage is skipped", 2, [][]string{{"", "no equals sign", "progress", "out_time_us=abc"}, block("1000000", "continue")}, false, []float64{50}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var got []float64
			p := newProgress(tc.duration, func(v float64) { got = append(got, v) })
			for _, b := range tc.lines {
				for _, l := range b {
					p.line(l)
				}
			}
			if tc.succeed {
				p.done()
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestTailBufferKeepsTheEnd(t *testing.T) {
	t.Parallel()
	b := &tailBuffer{max: 8}
	for _, s := range []string{"abc", "defgh", "ijklmnopqrstuvwxyz"} {
		n, err := b.Write([]byte(s))
		assert.NoError(t, err)
		assert.Equal(t, len(s), n)
	}
	assert.Equal(t, "stuvwxyz", b.String())
}
