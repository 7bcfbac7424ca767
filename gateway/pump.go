package gateway

import (
	"errors"
	"io"
	"net/http"

	"github.com/kinohq/kino/server/apierr"
)

// pump sends body to an upload stream in chunks of size as it arrives;
// nothing holds the whole file. It stops when send reports that the
// server ended the stream (its answer then comes from CloseAndRecv), and
// answers the client itself, returning false, when the body breaks.
func pump(w http.ResponseWriter, body io.Reader, size int, send func(chunk []byte) bool) bool {
	buf := make([]byte, size)
	for {
		n, err := body.Read(buf)
		if n > 0 && !send(append([]byte(nil), buf[:n]...)) {
			return true
		}
		if errors.Is(err, io.EOF) {
			return true
		}
		if err != nil {
			writeBodyError(w, err, "the upload was interrupted: "+err.Error())
			return false
		}
	}
}

// writeCreated answers an upload stream's end: 201 with its record, or
// the error in the envelope.
func writeCreated(w http.ResponseWriter, r *http.Request, resp protoMessage, err error) {
	if err != nil {
		writeStatusError(r.Context(), nil, nil, w, r, err)
		return
	}
	body, err := marshaler.Marshal(resp)
	if err != nil {
		writeError(w, apierr.Internal, "an unexpected error occurred")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_, _ = w.Write(body)
}
