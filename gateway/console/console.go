// Package console is kino's web console: plain HTML, CSS and JavaScript
// modules embedded in the binary and served at "/". It is a client of the
// public REST API and nothing else, so it sees exactly what the caller's
// API key may see.
package console

import (
	"embed"
	"io/fs"
	"net/http"
)

//go:generate env KINO_WRITE_CONSOLE_EXAMPLES=1 go test -run TestExamplesMatchDocs -count=1 .

// static holds the page, its style and its modules; nothing is fetched
// from anywhere else at run time.
//
//go:embed static
var static embed.FS

// examples are the compositions of docs/compositions.md, their media
// kino's demo files, extracted by go generate (a test keeps them in step).
//
//go:embed examples.json
var examples []byte

// Prefix is the path of the console's files; the page itself is at "/".
const Prefix = "/console/"

// policy lets the page run only its own code. Outputs may live on another
// origin (signed S3 URLs), so pictures and media may come from anywhere;
// the API is called on this origin only.
const policy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src * data: blob:; media-src * blob:; " +
	"connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Handler serves the page at "/" and its files under Prefix; notFound
// answers any other path under Prefix (a folder included: nothing is listed).
func Handler(notFound http.Handler) http.Handler {
	sub, err := fs.Sub(static, "static")
	if err != nil {
		panic(err) //nolint:forbidigo // programmer error: the embedded tree is fixed at build time
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		headers(w)
		http.ServeFileFS(w, r, sub, "index.html")
	})
	mux.HandleFunc("GET "+Prefix+"examples.json", func(w http.ResponseWriter, _ *http.Request) {
		headers(w)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(examples)
	})
	mux.HandleFunc("GET "+Prefix+"{file...}", func(w http.ResponseWriter, r *http.Request) {
		name := r.PathValue("file")
		if st, err := fs.Stat(sub, name); err != nil || st.IsDir() || name == "index.html" {
			notFound.ServeHTTP(w, r)
			return
		}
		headers(w)
		http.ServeFileFS(w, r, sub, name)
	})
	return mux
}

func headers(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Security-Policy", policy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	// The files change with the binary; a browser revalidates them (cheap:
	// they carry the binary's modification time) instead of running old code.
	h.Set("Cache-Control", "no-cache")
}
