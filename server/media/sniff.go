package media

import (
	"bytes"
	"regexp"
)

// sniffLen is how many first bytes sniff reads: enough for the binary
// signatures, and for the first cue of an SRT file after a few blank lines.
const sniffLen = 1024

// sniffed is what the first bytes of a file say it is.
type sniffed struct {
	// Format is png, jpeg, webp, psd, ttf, otf, woff, woff2, vtt or srt.
	Format string
	// Type is the asset type that format makes: image, psd_template, font
	// or captions.
	Type        string
	ContentType string
}

// sniff reads a file's signature; the name and the declared type are never
// trusted.
func sniff(head []byte) (sniffed, bool) {
	has := func(off int, sig string) bool {
		return len(head) >= off+len(sig) && bytes.Equal(head[off:off+len(sig)], []byte(sig))
	}
	switch {
	case has(0, "\x89PNG\r\n\x1a\n"):
		return sniffed{"png", "image", "image/png"}, true
	case has(0, "\xff\xd8\xff"):
		return sniffed{"jpeg", "image", "image/jpeg"}, true
	case has(0, "RIFF") && has(8, "WEBP"):
		return sniffed{"webp", "image", "image/webp"}, true
	case has(0, "8BPS\x00\x01"), has(0, "8BPS\x00\x02"): // PSD and PSB
		return sniffed{"psd", "psd_template", "image/vnd.adobe.photoshop"}, true
	case has(0, "\x00\x01\x00\x00"), has(0, "true"):
		return sniffed{"ttf", "font", "font/ttf"}, true
	case has(0, "OTTO"):
		return sniffed{"otf", "font", "font/otf"}, true
	case has(0, "wOF2"):
		return sniffed{"woff2", "font", "font/woff2"}, true
	case has(0, "wOFF"):
		return sniffed{"woff", "font", "font/woff"}, true
	case isWebVTT(head):
		return sniffed{"vtt", "captions", "text/vtt; charset=utf-8"}, true
	case isSRT(head):
		return sniffed{"srt", "captions", "application/x-subrip; charset=utf-8"}, true
	}
	return sniffed{}, false
}

// isWebVTT is the header the WebVTT standard requires, as the engine's cue
// parser reads it: "WEBVTT" alone on its line or followed by a space or tab,
// after an optional byte-order mark.
func isWebVTT(head []byte) bool {
	rest, ok := bytes.CutPrefix(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), []byte("WEBVTT"))
	return ok && (len(rest) == 0 || bytes.IndexByte([]byte(" \t\r\n"), rest[0]) >= 0)
}

// srtStart is the shape of an SRT file's first cue: blank lines, perhaps
// its number alone on a line, then its timing ("00:00:01,000 --> …"; hours
// and a comma are optional, as the cue parser reads them).
var srtStart = regexp.MustCompile(`^(?:[ \t]*\r?\n|[ \t]*\r)*(?:[ \t]*[0-9]+[ \t]*(?:\r\n|\r|\n))?[ \t]*(?:[0-9]+:)?[0-9]{1,2}:[0-9]{2}[,.][0-9]{1,3}[ \t]+-->`)

// isSRT reports whether head starts as an SRT file does: nothing else has
// a cue timing in its first lines, so it decides before any parsing.
func isSRT(head []byte) bool {
	return srtStart.Match(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")))
}
