package storage

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"path"
	"regexp"
	"strings"
)

// IsPlaylist reports whether key names an HLS playlist.
func IsPlaylist(key string) bool { return strings.HasSuffix(strings.ToLower(key), ".m3u8") }

// uriAttr is a URI="…" attribute of a tag (EXT-X-MAP, EXT-X-KEY, media
// playlists of a master playlist).
var uriAttr = regexp.MustCompile(`URI="([^"]*)"`)

// RewritePlaylist returns the playlist at key with every relative URI
// (segments, init sections, nested playlists) replaced by a URL a client
// can fetch as it is: signed for its own object. Absolute URIs and URIs
// that climb out of the playlist's folder are left alone.
func (s *Storage) RewritePlaylist(ctx context.Context, key string, body []byte) ([]byte, error) {
	dir := path.Dir(key)
	resolve := func(ref string) (string, error) {
		if ref == "" || strings.Contains(ref, "://") || strings.HasPrefix(ref, "/") || strings.Contains(ref, "..") {
			return ref, nil
		}
		ref, _, _ = strings.Cut(ref, "?")
		return s.URL(ctx, path.Join(dir, ref))
	}
	var out bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "":
		case strings.HasPrefix(trimmed, "#"):
			var err error
			line = uriAttr.ReplaceAllStringFunc(line, func(m string) string {
				u, e := resolve(uriAttr.FindStringSubmatch(m)[1])
				if e != nil {
					err = e
				}
				return `URI="` + u + `"`
			})
			if err != nil {
				return nil, fmt.Errorf("rewrite playlist %s: %w", key, err)
			}
		default:
			u, err := resolve(trimmed)
			if err != nil {
				return nil, fmt.Errorf("rewrite playlist %s: %w", key, err)
			}
			line = u
		}
		out.WriteString(line)
		out.WriteByte('\n')
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read playlist %s: %w", key, err)
	}
	return out.Bytes(), nil
}
