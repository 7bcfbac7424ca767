package media

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestSniffCaptions: WebVTT is known by its header, SRT by the shape of
// its first cue; text that has neither is no captions file.
func TestSniffCaptions(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		head, format string
	}{
		{"WEBVTT\n\n00:00.000 --> 00:01.000\nhi\n", "vtt"},
		{"\xef\xbb\xbfWEBVTT - a title\r\n", "vtt"},
		{"WEBVTT", "vtt"},
		{"WEBVTT\tx", "vtt"},
		{"1\n00:00:00,500 --> 00:00:02,000\nhi\n", "srt"},
		{"\xef\xbb\xbf\r\n\r\n  12 \r\n00:00:00,500 --> 00:00:02,000\r\nhi\r\n", "srt"},
		{"00:00.500 --> 00:02.000\nno number, no hours\n", "srt"},
		{"1\r00:00:00.5 --> 00:00:02.0\rCR line ends\r", "srt"},
		{"WEBVTTX\n", ""},
		{"NOTE WEBVTT\n", ""},
		{"1\nhello\n00:00:00,500 --> 00:00:02,000\n", ""},
		{"hello --> world\n", ""},
		{"00:00:00 --> 00:00:02\n", ""},
		{"", ""},
	} {
		got, ok := sniff([]byte(c.head))
		assert.Equal(t, c.format != "", ok, "%q", c.head)
		assert.Equal(t, c.format, got.Format, "%q", c.head)
		if ok {
			assert.Equal(t, "captions", got.Type, "%q", c.head)
		}
	}
}
