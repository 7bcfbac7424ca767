package gateway

import (
	"net/http"
	"path"
	"strings"

	"github.com/kinohq/kino/gateway/console"
	"github.com/kinohq/kino/server/auth"
	"github.com/kinohq/kino/server/demo"
	"github.com/kinohq/kino/server/storage"
)

// requireKey makes the API key the first thing every request meets when
// kino has keys: before routing, the Content-Type check, the body limit
// and any read of the body, so an unauthenticated request costs a digest
// and learns nothing of the API's shape (an unknown path is 401, not 404).
// It covers every path but those of open (a browser or a load balancer
// fetches them without a key); the gRPC server checks the key again and
// scopes the call to its organisation.
func requireKey(next http.Handler, a *auth.Authenticator) http.Handler {
	if a == nil || a.SingleOrg() {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if open(r) {
			next.ServeHTTP(w, r)
			return
		}
		if _, _, err := a.Check(r.Header.Get("Authorization")); err != nil {
			// The body stays unread: the connection is closed after the
			// answer rather than drained for the next request.
			w.Header().Set("Connection", "close")
			w.Header().Set("WWW-Authenticate", "Bearer")
			code, message := describe(err)
			writeError(w, code, message)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// open reports whether r may be served without a key: GET or HEAD of the
// health check, the console's page and its files, the demo media, the
// OpenAPI document (the same for every kino, and public in the docs), and
// the /files/ URLs, whose handler checks their signature instead. A path
// that is not clean (/demo/../jobs) is never open: the mux would redirect
// it elsewhere.
func open(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	p := r.URL.Path
	if p != "/" && path.Clean(p) != strings.TrimSuffix(p, "/") {
		return false
	}
	switch p {
	case "/", "/api/health", "/api/openapi.json":
		return true
	}
	for _, prefix := range []string{console.Prefix, demo.Path, storage.FilesPath} {
		if strings.HasPrefix(p, prefix) {
			return true
		}
	}
	return false
}
