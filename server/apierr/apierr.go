// Package apierr is the one error type every service returns to clients. An
// *Error knows its documented code; it becomes a gRPC status carrying a
// google.rpc.ErrorInfo whose reason is that code, and the gateway turns that
// into the {"error":{"code","message"}} envelope with the documented status.
package apierr

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/protoadapt"
	"google.golang.org/protobuf/types/known/durationpb"
)

// Code is a documented error code, as sent in error.code.
type Code string

// The documented codes. Render failures recorded on a job (ASSET_FETCH_FAILED
// and the rest) live with the renderer; these are the ones a request answers.
const (
	Validation           Code = "VALIDATION_ERROR"
	JobNotFound          Code = "JOB_NOT_FOUND"
	JobNotCancellable    Code = "JOB_NOT_CANCELLABLE"
	TriggerSubmitFailed  Code = "TRIGGER_SUBMIT_FAILED"
	Internal             Code = "INTERNAL_ERROR"
	IdempotencyKeyReused Code = "IDEMPOTENCY_KEY_REUSED"
	NotFound             Code = "NOT_FOUND"
	MethodNotAllowed     Code = "METHOD_NOT_ALLOWED"
	Unauthenticated      Code = "UNAUTHENTICATED"
	Unavailable          Code = "UNAVAILABLE"
	PipelineNotFound     Code = "PIPELINE_NOT_FOUND"
	AssetNotFound        Code = "ASSET_NOT_FOUND"
	RequestTimeout       Code = "REQUEST_TIMEOUT"
	TooManyStreams       Code = "TOO_MANY_STREAMS"
	// TooManyPreviews: the node draws as many previews as --max-previews
	// allows; kino's own.
	TooManyPreviews Code = "TOO_MANY_PREVIEWS"
	// Forbidden refuses a request whose credentials are known but not
	// enough: a file URL without a valid signature, a node list asked
	// for without the admin key.
	Forbidden Code = "FORBIDDEN"
	// RateLimited refuses a submit past the organisation's --org-rate;
	// the error's RetryAfter says when the next one is accepted.
	RateLimited Code = "RATE_LIMITED"
	// QueueFull refuses a submit that would put the organisation past
	// its --org-max-queued jobs waiting.
	QueueFull Code = "QUEUE_FULL"
	// QuotaExceeded refuses what would store more than the organisation's
	// --org-storage-quota.
	QuotaExceeded Code = "QUOTA_EXCEEDED"
	// Cancelled answers a request its client cancelled (or went away
	// from) while kino worked on it; nobody may read it, but logs and
	// metrics do.
	Cancelled Code = "CANCELLED"
	// FileTooLarge refuses an upload (POST /uploads) larger than
	// --max-upload-bytes; kino's own.
	FileTooLarge Code = "FILE_TOO_LARGE"
)

// ServerTimeoutRetryAfter is the Retry-After of a request kino ran out
// of time on.
const ServerTimeoutRetryAfter = 5 * time.Second

// StatusClientClosedRequest is the HTTP status of a request its client
// closed before the answer (nginx's 499, which grpc-gateway uses for a
// cancelled call).
const StatusClientClosedRequest = 499

// Domain is the ErrorInfo domain that marks kino's own codes.
const Domain = "kino"

type mapping struct {
	grpc codes.Code
	http int
}

//nolint:gochecknoglobals // read-only table: each documented code's status and HTTP mapping
var mappings = map[Code]mapping{
	Validation:           {codes.InvalidArgument, http.StatusBadRequest},
	JobNotFound:          {codes.NotFound, http.StatusNotFound},
	JobNotCancellable:    {codes.FailedPrecondition, http.StatusBadRequest},
	TriggerSubmitFailed:  {codes.Unavailable, http.StatusInternalServerError},
	Internal:             {codes.Internal, http.StatusInternalServerError},
	IdempotencyKeyReused: {codes.AlreadyExists, http.StatusUnprocessableEntity},
	NotFound:             {codes.NotFound, http.StatusNotFound},
	MethodNotAllowed:     {codes.Unimplemented, http.StatusMethodNotAllowed},
	Unauthenticated:      {codes.Unauthenticated, http.StatusUnauthorized},
	Unavailable:          {codes.Unavailable, http.StatusServiceUnavailable},
	PipelineNotFound:     {codes.NotFound, http.StatusNotFound},
	AssetNotFound:        {codes.NotFound, http.StatusNotFound},
	RequestTimeout:       {codes.DeadlineExceeded, http.StatusRequestTimeout},
	// The limit is the process's, not the client's: 503 lets a load
	// balancer try another node, where 429 would blame the client.
	TooManyStreams: {codes.ResourceExhausted, http.StatusServiceUnavailable},
	// Likewise the node's bound on previews drawn at once.
	TooManyPreviews: {codes.ResourceExhausted, http.StatusServiceUnavailable},
	Forbidden:       {codes.PermissionDenied, http.StatusForbidden},
	RateLimited:     {codes.ResourceExhausted, http.StatusTooManyRequests},
	QueueFull:       {codes.ResourceExhausted, http.StatusTooManyRequests},
	// Waiting frees no storage, so not 429 (which clients retry on
	// their own): the request needs more room than the organisation has
	// left, until it deletes assets.
	QuotaExceeded: {codes.ResourceExhausted, http.StatusRequestEntityTooLarge},
	Cancelled:     {codes.Canceled, StatusClientClosedRequest},
	FileTooLarge:  {codes.ResourceExhausted, http.StatusRequestEntityTooLarge},
}

// Error is a client-facing error with a documented code.
type Error struct {
	Code    Code
	Message string
	// Cause is logged, never sent to the client.
	Cause error
	// RetryAfter, when above 0, is how long the client should wait before
	// trying again; it travels as a google.rpc.RetryInfo and becomes the
	// Retry-After header.
	RetryAfter time.Duration
	// Fields, when a request has several problems, names each; it
	// travels as a google.rpc.BadRequest and becomes error.details.
	Fields []FieldProblem
}

// FieldProblem is one problem of a request at one field.
type FieldProblem struct {
	Field   string
	Message string
}

// Invalid is a VALIDATION_ERROR listing every problem: the message names
// the first and counts and lists the rest, Fields holds each.
func Invalid(problems []FieldProblem) *Error {
	if len(problems) == 0 {
		return New(Validation, "the request is not valid")
	}
	first := problems[0].Field + ": " + problems[0].Message
	if len(problems) == 1 {
		return New(Validation, "%s", first)
	}
	rest := make([]string, 0, len(problems)-1)
	for _, p := range problems[1:] {
		rest = append(rest, p.Field+": "+p.Message)
	}
	more := fmt.Sprintf("%d more problems", len(rest))
	if len(rest) == 1 {
		more = "1 more problem"
	}
	return &Error{Code: Validation, Fields: problems,
		Message: fmt.Sprintf("%s (and %s: %s)", first, more, strings.Join(rest, "; "))}
}

// Problems is the field problems a status carries in its google.rpc.BadRequest.
func Problems(st *status.Status) []FieldProblem {
	var out []FieldProblem
	for _, d := range st.Details() {
		if br, ok := d.(*errdetails.BadRequest); ok {
			for _, v := range br.GetFieldViolations() {
				out = append(out, FieldProblem{Field: v.GetField(), Message: v.GetDescription()})
			}
		}
	}
	return out
}

// Retry returns an error with the code and message that says to try
// again after wait.
func Retry(wait time.Duration, code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), RetryAfter: wait}
}

// New returns an error with the code and a formatted message.
func New(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Wrap returns an error with the code and message that keeps cause for logs.
func Wrap(cause error, code Code, message string) *Error {
	return &Error{Code: code, Message: message, Cause: cause}
}

func (e *Error) Error() string {
	if e.Cause != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Cause)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

func (e *Error) Unwrap() error { return e.Cause }

// GRPCStatus lets grpc find the status through any wrapping.
func (e *Error) GRPCStatus() *status.Status {
	m, ok := mappings[e.Code]
	if !ok {
		m = mappings[Internal]
	}
	st := status.New(m.grpc, e.Message)
	details := []protoadapt.MessageV1{&errdetails.ErrorInfo{Reason: string(e.Code), Domain: Domain}}
	if e.RetryAfter > 0 {
		details = append(details, &errdetails.RetryInfo{RetryDelay: durationpb.New(e.RetryAfter)})
	}
	if len(e.Fields) > 0 {
		br := &errdetails.BadRequest{}
		for _, f := range e.Fields {
			br.FieldViolations = append(br.FieldViolations, &errdetails.BadRequest_FieldViolation{Field: f.Field, Description: f.Message})
		}
		details = append(details, br)
	}
	if withInfo, err := st.WithDetails(details...); err == nil {
		return withInfo
	}
	return st
}

// RetryDelay is the wait a status asks for in its google.rpc.RetryInfo,
// or 0 when it asks for none.
func RetryDelay(st *status.Status) time.Duration {
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.RetryInfo); ok {
			return info.GetRetryDelay().AsDuration()
		}
	}
	return 0
}

// HTTPStatus is the documented HTTP status of a code; unknown codes are 500.
func HTTPStatus(code Code) int {
	if m, ok := mappings[code]; ok {
		return m.http
	}
	return http.StatusInternalServerError
}

// fallback maps a bare gRPC code, one that carries no kino ErrorInfo (a
// decoding error inside the gateway, a deadline), to the closest documented code.
//
//nolint:gochecknoglobals // read-only table: the code a bare gRPC status maps to
var fallback = map[codes.Code]Code{
	codes.InvalidArgument:    Validation,
	codes.OutOfRange:         Validation,
	codes.FailedPrecondition: Validation,
	codes.NotFound:           NotFound,
	codes.Unimplemented:      MethodNotAllowed,
	codes.Unauthenticated:    Unauthenticated,
	codes.PermissionDenied:   Forbidden,
	codes.Unavailable:        Unavailable,
	codes.Canceled:           Cancelled,
}

// FromStatus recovers the code of a status: the ErrorInfo reason when kino set
// one (own is then true), otherwise the closest documented code for the gRPC code.
func FromStatus(st *status.Status) (code Code, own bool) {
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok && info.GetDomain() == Domain {
			return Code(info.GetReason()), true
		}
	}
	if c, ok := fallback[st.Code()]; ok {
		return c, false
	}
	return Internal, false
}

// ToStatus converts any error returned by a service into a status that
// carries a documented code, hiding causes that are not client-facing.
func ToStatus(err error) *status.Status {
	var e *Error
	if errors.As(err, &e) {
		return e.GRPCStatus()
	}
	if st, ok := status.FromError(err); ok {
		return st
	}
	// A context's cancel is its caller's, not a failure of kino's.
	if errors.Is(err, context.Canceled) {
		return (&Error{Code: Cancelled, Message: "the request was cancelled"}).GRPCStatus()
	}
	// A deadline of kino's own ran out (a client's own deadline is the
	// interceptors' to answer): the node was slow, so 503 with a time to
	// try again, never 408, which says the client was slow.
	if errors.Is(err, context.DeadlineExceeded) {
		return Retry(ServerTimeoutRetryAfter, Unavailable, "kino ran out of time on this request; try again").GRPCStatus()
	}
	return (&Error{Code: Internal, Message: "internal error"}).GRPCStatus()
}
