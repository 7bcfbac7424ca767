package gateway

import (
	"context"
	"net/http"
	"strings"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"

	"github.com/kinohq/kino/server/metrics"
)

// unmatched is the route of a request no route took: an unknown path, or
// one refused before routing (a body over the limit, a wrong Content-Type).
const unmatched = "unmatched"

// route is where the handler that took a request writes its pattern, for
// countRequests to read when the request is done.
type route struct{ pattern string }

type routeKey struct{}

// nameRoute names the route of r, for its metrics and its span.
func nameRoute(r *http.Request, pattern string) {
	if rt, ok := r.Context().Value(routeKey{}).(*route); ok {
		rt.pattern = pattern
	}
	nameSpan(r, pattern)
}

// countRequests counts every request into m by method, route pattern (never
// the path itself: ids would make a series each) and status code.
func countRequests(next http.Handler, m *metrics.Metrics) http.Handler {
	if m == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rt := &route{}
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r.WithContext(context.WithValue(r.Context(), routeKey{}, rt)))
		pattern := rt.pattern
		if pattern == "" {
			pattern = unmatched
		}
		m.HTTPRequest(methodLabel(r.Method), pattern, sw.status())
	})
}

// routed names the route of the requests root's own patterns took (watch
// streams, uploads, files); those of grpc-gateway's mux (pattern "/") are
// named by gatewayRoute.
func routed(root *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// ServeMux writes the pattern it matched into the request; read
		// it even if the handler panics.
		defer func() {
			if r.Pattern != "" && r.Pattern != "/" {
				_, path, _ := strings.Cut(r.Pattern, " ")
				nameRoute(r, path)
			}
		}()
		root.ServeHTTP(w, r)
	})
}

// gatewayRoute names the route of a request grpc-gateway matched, as the
// path template of gateway/http.yaml ("/api/render/{job_id}"), for its
// metrics and its span.
func gatewayRoute(next runtime.HandlerFunc) runtime.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request, params map[string]string) {
		if p, ok := runtime.HTTPPattern(r.Context()); ok {
			// Pattern writes a variable as {name=*}; routes are spelt {name}.
			nameRoute(r, strings.ReplaceAll(p.String(), "=*}", "}"))
		}
		next(w, r, params)
	}
}

// methodLabel bounds the method label: a client may send any word.
func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions:
		return m
	}
	return "other"
}

// statusWriter remembers the status a response was sent with.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) {
	// 1xx are interim; the final status follows.
	if w.code == 0 && code >= 200 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(p)
}

// Flush lets streams flush through the wrapper.
func (w *statusWriter) Flush() {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the connection.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *statusWriter) status() int {
	if w.code == 0 {
		return http.StatusOK
	}
	return w.code
}
