package upload

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestContentType(t *testing.T) {
	mp4 := []byte("\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom")
	for _, tc := range []struct {
		sent, name string
		head       []byte
		want       string
	}{
		{"", "clip.mp4", mp4, "video/mp4"},
		{"", "clip.bin", mp4, "video/mp4"},
		{"application/x-www-form-urlencoded", "clip", mp4, "video/mp4"},
		{"application/octet-stream", "subs.ass", []byte("[Script Info]\nTitle: x\n"), "text/x-ssa"},
		{"", "subs.srt", []byte("1\n00:00:01,000 --> 00:00:02,000\nhi\n"), "application/x-subrip"},
		{"", "font.ttf", []byte("\x00\x01\x00\x00\x00\x10\x01\x00"), "font/ttf"},
		{"", "notes", []byte("plain words"), "text/plain; charset=utf-8"},
		{"", "blob", []byte{0, 1, 2, 3, 0xff}, "application/octet-stream"},
		{"audio/wav", "x.mp4", mp4, "audio/wav"},
	} {
		assert.Equal(t, tc.want, ContentType(tc.sent, tc.name, tc.head), "%q %q", tc.sent, tc.name)
	}
}

func TestFilename(t *testing.T) {
	for raw, want := range map[string]string{"clip.mp4": "clip.mp4", `C:\videos\clip.mp4`: "clip.mp4", "a/b/c.srt": "c.srt"} {
		got, err := Filename(raw)
		assert.NoError(t, err, raw)
		assert.Equal(t, want, got)
	}
	for _, raw := range []string{"", " ", "a/", "..", "x.attrs", "bad\x01name"} {
		_, err := Filename(raw)
		assert.Error(t, err, "%q", raw)
	}
}
