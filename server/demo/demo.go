// Package demo holds kino's demo media, carried in the binary: a short talk
// (video with speech), two pictures, music, a logo, a font, captions and
// two PSD templates for mockup layers. The gateway serves them at
// /demo/NAME, and every node reads them as sources without a request
// (Files.Local), so that the examples of the README, of examples/ and of
// the console render on a machine with no network and without
// --allow-private-networks. tools/demo-media.sh makes them.
package demo

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"mime"
	"net"
	"net/http"
	"net/url"
	"path"
	"sort"
	"strings"
)

//go:embed files
var embedded embed.FS

// Path is where the gateway serves the demo files.
const Path = "/demo/"

// DefaultPort is the port of kino's default --http-addr, which the
// examples name (http://localhost:8080/demo/…).
const DefaultPort = "8080"

// Files are the demo files, and the origins under which a URL names them.
type Files struct {
	files map[string][]byte
	etags map[string]string
	// origins are scheme://host:port of the node's own public URL, and
	// of loopback addresses at the node's port and at DefaultPort.
	origins map[string]bool
}

// New returns the demo files of a node reached at publicURL whose gateway
// listens on httpAddr.
func New(publicURL, httpAddr string) *Files {
	f := &Files{files: map[string][]byte{}, etags: map[string]string{}, origins: map[string]bool{}}
	entries, _ := fs.ReadDir(embedded, "files")
	for _, e := range entries {
		b, err := embedded.ReadFile("files/" + e.Name())
		if err != nil {
			continue
		}
		sum := sha256.Sum256(b)
		f.files[e.Name()] = b
		f.etags[e.Name()] = `"` + hex.EncodeToString(sum[:8]) + `"`
	}
	if u, err := url.Parse(publicURL); err == nil && u.Host != "" {
		f.origins[strings.ToLower(u.Scheme+"://"+u.Host)] = true
	}
	ports := []string{DefaultPort}
	if _, port, err := net.SplitHostPort(httpAddr); err == nil {
		ports = append(ports, port)
	}
	for _, port := range ports {
		for _, host := range []string{"localhost", "127.0.0.1", "[::1]"} {
			f.origins["http://"+host+":"+port] = true
		}
	}
	return f
}

// Names are the demo files' names.
func (f *Files) Names() []string {
	var out []string
	for name := range f.files {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// Has reports whether name is a demo file.
func (f *Files) Has(name string) bool {
	_, ok := f.files[name]
	return ok
}

// Local is the demo file rawURL names, and its ETag: a URL of one of the
// node's own origins whose path is /demo/NAME. Any other URL, another
// local address included, is not kino's to answer, and ok is false.
func (f *Files) Local(rawURL string) (data []byte, etag string, ok bool) {
	if f == nil {
		return nil, "", false
	}
	u, err := url.Parse(rawURL)
	if err != nil || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, "", false
	}
	if !f.origins[strings.ToLower(u.Scheme+"://"+u.Host)] || !strings.HasPrefix(u.Path, Path) {
		return nil, "", false
	}
	name := strings.TrimPrefix(u.Path, Path)
	b, ok := f.files[name]
	if !ok {
		return nil, "", false
	}
	return b, f.etags[name], true
}

// Unknown says what is wrong with a URL of one of the node's own origins
// whose path is under /demo/ but names no demo file; nil for any other URL.
func (f *Files) Unknown(rawURL string) error {
	if f == nil {
		return nil
	}
	u, err := url.Parse(rawURL)
	if err != nil || !f.origins[strings.ToLower(u.Scheme+"://"+u.Host)] || !strings.HasPrefix(u.Path, Path) {
		return nil
	}
	name := strings.TrimPrefix(u.Path, Path)
	if _, ok := f.files[name]; ok && u.RawQuery == "" && u.User == nil {
		return nil
	}
	return fmt.Errorf("there is no demo file %q; the demo files are %s", name, strings.Join(f.Names(), ", "))
}

// ServeHTTP serves GET /demo/NAME.
func (f *Files) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(r.URL.Path, Path)
	b, ok := f.files[name]
	if !ok {
		http.NotFound(w, r)
		return
	}
	ctype := mime.TypeByExtension(path.Ext(name))
	switch path.Ext(name) {
	case ".srt":
		ctype = "application/x-subrip"
	case ".ttf":
		ctype = "font/ttf"
	case ".psd":
		// Not in Go's table, and a system's mime.types may lack it.
		ctype = "image/vnd.adobe.photoshop"
	}
	if ctype == "" {
		ctype = "application/octet-stream"
	}
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("ETag", f.etags[name])
	w.Header().Set("Cache-Control", "public, max-age=3600")
	if r.Header.Get("If-None-Match") == f.etags[name] {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	_, _ = w.Write(b)
}
