package media

import "bytes"

// sniffed is what the first bytes of a file say it is.
type sniffed struct {
	// Format is png, jpeg, webp, psd, ttf, otf, woff or woff2.
	Format string
	// Type is the asset type that format makes: image, psd_template or font.
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
	case has(0, "8BPS\x00\x01"):
		return sniffed{"psd", "psd_template", "image/vnd.adobe.photoshop"}, true
	case has(0, "\x00\x01\x00\x00"), has(0, "true"):
		return sniffed{"ttf", "font", "font/ttf"}, true
	case has(0, "OTTO"):
		return sniffed{"otf", "font", "font/otf"}, true
	case has(0, "wOF2"):
		return sniffed{"woff2", "font", "font/woff2"}, true
	case has(0, "wOFF"):
		return sniffed{"woff", "font", "font/woff"}, true
	}
	return sniffed{}, false
}
