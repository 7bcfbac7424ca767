package upload

import (
	"bytes"
	"mime"
	"net/http"
	"path"
	"strings"
)

// sniffLen is how many first bytes are read before the file is stored:
// http.DetectContentType reads 512.
const sniffLen = 512

// vague are content types that say nothing about the file: none, raw
// bytes, and the form encoding curl's -d and --data-binary send unless
// told otherwise.
//
//nolint:gochecknoglobals // read-only table: the content types too vague to keep
var vague = map[string]bool{"": true, "application/octet-stream": true, "application/x-www-form-urlencoded": true,
	"multipart/form-data": true}

// byExt are the types of the media files clients upload, by extension,
// where Go's table has none or another (mime.TypeByExtension reads the
// system's, which differs between machines).
//
//nolint:gochecknoglobals // read-only table: content types by extension
var byExt = map[string]string{
	".mp4": "video/mp4", ".m4v": "video/mp4", ".mov": "video/quicktime", ".webm": "video/webm", ".mkv": "video/x-matroska",
	".avi": "video/x-msvideo", ".ts": "video/mp2t", ".mp3": "audio/mpeg", ".m4a": "audio/mp4", ".aac": "audio/aac",
	".wav": "audio/wav", ".flac": "audio/flac", ".ogg": "audio/ogg", ".opus": "audio/opus",
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp",
	".srt": "application/x-subrip", ".vtt": "text/vtt", ".ass": "text/x-ssa", ".ssa": "text/x-ssa",
	".ttf": "font/ttf", ".otf": "font/otf", ".woff": "font/woff", ".woff2": "font/woff2",
	".psd": "image/vnd.adobe.photoshop", ".json": "application/json", ".txt": "text/plain; charset=utf-8",
}

// ContentType is what an upload is served as: the type the client sent,
// unless it is vague; else what the first bytes are (a signature), else
// what the name's extension says, else text or raw bytes as the bytes
// look. The served type never runs script: /files/ serves anything but
// media and pictures as an attachment, sandboxed.
func ContentType(sent, filename string, head []byte) string {
	if mt, params, err := mime.ParseMediaType(sent); err == nil && !vague[mt] {
		return mime.FormatMediaType(mt, params)
	}
	sniffed := signature(head)
	if sniffed != "" {
		return sniffed
	}
	ext := strings.ToLower(path.Ext(filename))
	if t, ok := byExt[ext]; ok {
		return t
	}
	if t := mime.TypeByExtension(ext); t != "" {
		return t
	}
	return http.DetectContentType(head)
}

// signature is the type the first bytes prove, "" when they prove none
// (text, or a format http.DetectContentType does not know).
func signature(head []byte) string {
	has := func(off int, sig string) bool {
		return len(head) >= off+len(sig) && bytes.Equal(head[off:off+len(sig)], []byte(sig))
	}
	switch {
	case has(4, "ftypqt"):
		return "video/quicktime"
	case has(4, "ftypM4A"):
		return "audio/mp4"
	case has(0, "8BPS"):
		return "image/vnd.adobe.photoshop"
	case has(0, "OTTO"):
		return "font/otf"
	case has(0, "\x00\x01\x00\x00\x00"):
		return "font/ttf"
	case has(0, "fLaC"):
		return "audio/flac"
	}
	t := http.DetectContentType(head)
	if strings.HasPrefix(t, "text/plain") || t == "application/octet-stream" {
		return ""
	}
	return t
}
