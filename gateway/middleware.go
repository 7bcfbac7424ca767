package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"runtime/debug"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/kinohq/kino/server/apierr"
)

// recoverPanics answers a panic in any handler with INTERNAL_ERROR and keeps
// the process serving.
func recoverPanics(next http.Handler, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v) //nolint:forbidigo // re-raised: http.ErrAbortHandler is net/http's own way to abort, and must reach it
				}
				log.Error("panic in HTTP handler", "method", r.Method, "path", r.URL.Path, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
				writeError(w, apierr.Internal, "an unexpected error occurred")
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// limitBody checks the content type of requests with a body and reads the
// body up to the limit, so an oversized or mistyped request gets a clear
// VALIDATION_ERROR instead of a decoder's complaint.
func limitBody(next http.Handler, limit int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost && r.Method != http.MethodPut && r.Method != http.MethodPatch {
			next.ServeHTTP(w, r)
			return
		}
		// Uploads stream, and their bodies are files of any type; the
		// services enforce their own limits.
		if r.URL.Path == "/assets" || r.URL.Path == "/uploads" {
			next.ServeHTTP(w, r)
			return
		}
		// A bodiless POST such as POST /jobs/{id}/cancel needs no content type.
		if r.ContentLength == 0 && r.Header.Get("Content-Type") == "" {
			next.ServeHTTP(w, r)
			return
		}
		mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if err != nil || mt != "application/json" {
			writeError(w, apierr.Validation, "Content-Type must be application/json")
			return
		}
		// The decoder reads bytes as UTF-8 whatever the header says; another
		// charset would be decoded wrong, not refused.
		if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") {
			writeError(w, apierr.Validation, fmt.Sprintf("the request body must be UTF-8: Content-Type charset %q is not supported", cs))
			return
		}
		if r.ContentLength > limit {
			writeError(w, apierr.Validation, fmt.Sprintf("the request body is larger than the limit of %d bytes", limit))
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
		if err != nil {
			writeBodyError(w, err, "the request body could not be read")
			return
		}
		if int64(len(body)) > limit {
			writeError(w, apierr.Validation, fmt.Sprintf("the request body is larger than the limit of %d bytes", limit))
			return
		}
		if len(bytes.TrimSpace(body)) == 0 {
			writeError(w, apierr.Validation, "the request body is empty; send a JSON object")
			return
		}
		if problem := jsonProblem(body); problem != "" {
			writeError(w, apierr.Validation, "the request is not valid: "+problem)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		next.ServeHTTP(w, r)
	})
}

// jsonProblem says what is wrong with body as one JSON value, and where;
// "" when it is one well-formed value and nothing after it but white space.
// grpc-gateway's decoder says "unexpected EOF" with no place for a body cut
// short, and stops after the first value, silently ignoring the rest.
func jsonProblem(body []byte) string {
	dec := json.NewDecoder(bytes.NewReader(body))
	var v json.RawMessage
	err := dec.Decode(&v)
	var syntax *json.SyntaxError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Sprintf("the body ends before the JSON value does (after byte %d, %s); send the whole JSON object",
			len(body), place(body, int64(len(body))))
	case errors.As(err, &syntax):
		return fmt.Sprintf("%s at %s", syntax.Error(), place(body, syntax.Offset))
	case err != nil:
		// Other decoding errors are left to grpc-gateway.
		return ""
	}
	if len(bytes.TrimSpace(body[dec.InputOffset():])) > 0 {
		return "the body has data after the JSON value; send exactly one JSON object"
	}
	return ""
}

// place is the line and column of the offset-th byte of body (from 1), as
// editors count them.
func place(body []byte, offset int64) string {
	offset = min(max(offset, 1), int64(len(body)))
	before := body[:offset-1]
	line := bytes.Count(before, []byte("\n")) + 1
	column := offset - int64(bytes.LastIndexByte(before, '\n')+1)
	return fmt.Sprintf("line %d, column %d", line, column)
}

// utf8URL refuses a request whose path or query decodes to bytes that are
// not UTF-8 (%ff): ids and filters are proto strings, which must be UTF-8,
// and such a request would otherwise fail inside the gRPC call as an
// internal error.
func utf8URL(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !utf8.ValidString(r.URL.Path) {
			writeError(w, apierr.Validation, "the request path is not valid: it decodes to bytes that are not UTF-8; percent-encode UTF-8 text only")
			return
		}
		// A query that does not parse is left to the handlers, which say so.
		q, _ := url.ParseQuery(r.URL.RawQuery)
		for k, vs := range q {
			if !utf8.ValidString(k) {
				writeError(w, apierr.Validation, "the query is not valid: a parameter name decodes to bytes that are not UTF-8; percent-encode UTF-8 text only")
				return
			}
			for _, v := range vs {
				if !utf8.ValidString(v) {
					writeError(w, apierr.Validation, fmt.Sprintf("the query is not valid: %s decodes to bytes that are not UTF-8; percent-encode UTF-8 text only", k))
					return
				}
			}
		}
		next.ServeHTTP(w, r)
	})
}

// cors lets the configured origins call the API from a browser.
func cors(next http.Handler, origins []string) http.Handler {
	if len(origins) == 0 {
		return next
	}
	any := slices.Contains(origins, "*")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if origin != "" && (any || slices.Contains(origins, origin)) {
			h := w.Header()
			if any {
				h.Set("Access-Control-Allow-Origin", "*")
			} else {
				h.Set("Access-Control-Allow-Origin", origin)
				h.Add("Vary", "Origin")
			}
			h.Set("Access-Control-Expose-Headers", "Content-Length, Content-Type")
			if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
				h.Set("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS")
				h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, Idempotency-Key")
				h.Set("Access-Control-Max-Age", "600")
				w.WriteHeader(http.StatusNoContent)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// acceptsEventStream reports whether a client asked for Server-Sent Events.
func acceptsEventStream(r *http.Request) bool {
	return strings.Contains(r.Header.Get("Accept"), "text/event-stream")
}
