package gateway

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	apiv1 "github.com/kinohq/kino/gen/kino/api/v1"
	"github.com/kinohq/kino/server/apierr"
)

type protoMessage = proto.Message

// writeError answers with the documented envelope {"error":{"code","message"}}.
func writeError(w http.ResponseWriter, code apierr.Code, message string) {
	writeProblems(w, code, message, nil)
}

// errorMarshaler writes the envelope: details only when there are some
// (the shared marshaler would write an empty list on every error).
//
//nolint:gochecknoglobals // read-only after init: a marshaler is safe for concurrent use and has no state
var errorMarshaler = &runtime.JSONPb{MarshalOptions: protojson.MarshalOptions{}}

// writeProblems answers with the envelope, listing each field problem of
// an invalid request in error.details.
func writeProblems(w http.ResponseWriter, code apierr.Code, message string, problems []apierr.FieldProblem) {
	e := &apiv1.Error{Code: string(code), Message: message}
	for _, p := range problems {
		e.Details = append(e.Details, &apiv1.FieldProblem{Field: p.Field, Message: p.Message})
	}
	body, err := errorMarshaler.Marshal(&apiv1.ErrorResponse{Error: e})
	if err != nil {
		body = []byte(`{"error":{"code":"INTERNAL_ERROR","message":"internal error"}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Del("Content-Length")
	w.WriteHeader(apierr.HTTPStatus(code))
	_, _ = w.Write(body)
}

// writeStatusError is the gateway's one error handler: any status from a
// service, and any error grpc-gateway makes itself, becomes the envelope.
func writeStatusError(_ context.Context, _ *runtime.ServeMux, _ runtime.Marshaler, w http.ResponseWriter, r *http.Request, err error) {
	var httpErr *runtime.HTTPStatusError
	if errors.As(err, &httpErr) {
		writeRoutingError(r.Context(), nil, nil, w, r, httpErr.HTTPStatus)
		return
	}
	code, message := describe(err)
	if wait := apierr.RetryDelay(carried(err)); wait > 0 {
		w.Header().Set("Retry-After", retryAfter(wait))
	}
	writeProblems(w, code, message, apierr.Problems(carried(err)))
}

// retryAfter is a wait as Retry-After's whole seconds, rounded up and at
// least 1: a client that waits the header's time is never early.
func retryAfter(wait time.Duration) string {
	secs := int64((wait + time.Second - 1) / time.Second)
	return strconv.FormatInt(max(secs, 1), 10)
}

// carried is the status an error carries, found through any wrapping.
func carried(err error) *status.Status {
	// status.Convert would fold a wrapping error's text into the message;
	// the status the error carries is what its author meant to say.
	var carrier interface{ GRPCStatus() *status.Status }
	if errors.As(err, &carrier) {
		return carrier.GRPCStatus()
	}
	return status.Convert(err)
}

// describe turns an error into a documented code and a message for people.
func describe(err error) (apierr.Code, string) {
	st := carried(err)
	code, own := apierr.FromStatus(st)
	msg := st.Message()
	switch {
	case own:
	case code == apierr.Validation:
		// Errors that grpc-gateway makes while decoding the request.
		msg = "the request is not valid: " + strings.TrimPrefix(msg, "proto: ")
	case st.Code() == codes.Canceled:
		msg = "the request was cancelled"
	case code == apierr.Internal:
		msg = "an unexpected error occurred"
	}
	return code, msg
}

func writeRoutingError(_ context.Context, _ *runtime.ServeMux, _ runtime.Marshaler, w http.ResponseWriter, r *http.Request, httpStatus int) {
	switch httpStatus {
	case http.StatusMethodNotAllowed:
		writeError(w, apierr.MethodNotAllowed, fmt.Sprintf("%s is not allowed on %s", r.Method, r.URL.Path))
	case http.StatusBadRequest:
		writeError(w, apierr.Validation, "the request path is not valid")
	default:
		writeError(w, apierr.NotFound, fmt.Sprintf("no endpoint at %s %s", r.Method, r.URL.Path))
	}
}
