package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	renderv1 "github.com/kinohq/kino/gen/kino/render/v1"
	"github.com/kinohq/kino/server/apierr"
)

func TestErrorEnvelope(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		err        error
		wantStatus int
		wantCode   string
		wantMsg    string
	}{
		{"validation", apierr.New(apierr.Validation, "composition.width: too wide"), 400, "VALIDATION_ERROR", "composition.width: too wide"},
		{"not found", apierr.New(apierr.JobNotFound, "no job"), 404, "JOB_NOT_FOUND", "no job"},
		{"not cancellable", apierr.New(apierr.JobNotCancellable, "completed"), 400, "JOB_NOT_CANCELLABLE", "completed"},
		{"submit failed", apierr.New(apierr.TriggerSubmitFailed, "try again"), 500, "TRIGGER_SUBMIT_FAILED", "try again"},
		{"internal", apierr.New(apierr.Internal, "oops"), 500, "INTERNAL_ERROR", "oops"},
		{"idempotency", apierr.New(apierr.IdempotencyKeyReused, "reused"), 422, "IDEMPOTENCY_KEY_REUSED", "reused"},
		{"wrapped status", fmtWrap(apierr.New(apierr.JobNotFound, "no job").GRPCStatus().Err()), 404, "JOB_NOT_FOUND", "no job"},
		{"decode error from the gateway", status.Error(codes.InvalidArgument, "proto: syntax error (line 1:2)"), 400, "VALIDATION_ERROR", "the request is not valid: syntax error (line 1:2)"},
		{"bare internal hides details", status.Error(codes.Internal, "pq: relation does not exist"), 500, "INTERNAL_ERROR", "an unexpected error occurred"},
		{"bare unknown", errors.New("driver exploded"), 500, "INTERNAL_ERROR", "an unexpected error occurred"},
		{"routing 404", &runtime.HTTPStatusError{HTTPStatus: 404, Err: errors.New("x")}, 404, "NOT_FOUND", "no endpoint at GET /x"},
		{"routing 405", &runtime.HTTPStatusError{HTTPStatus: 405, Err: errors.New("x")}, 405, "METHOD_NOT_ALLOWED", "GET is not allowed on /x"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := httptest.NewRecorder()
			writeStatusError(context.Background(), nil, nil, w, httptest.NewRequest(http.MethodGet, "/x", nil), tc.err)
			assert.Equal(t, tc.wantStatus, w.Code)
			assert.Equal(t, "application/json", w.Header().Get("Content-Type"))
			var body struct {
				Error struct{ Code, Message string } `json:"error"`
			}
			require.NoError(t, json.Unmarshal(w.Body.Bytes(), &body), w.Body.String())
			assert.Equal(t, tc.wantCode, body.Error.Code)
			assert.Equal(t, tc.wantMsg, body.Error.Message)
		})
	}
}

func TestRetryAfterIsWholeSecondsRoundedUp(t *testing.T) {
	t.Parallel()
	for wait, want := range map[time.Duration]string{
		time.Millisecond: "1", time.Second: "1", 1001 * time.Millisecond: "2", 90 * time.Second: "90",
	} {
		w := httptest.NewRecorder()
		err := apierr.Retry(wait, apierr.RateLimited, "slow down")
		writeStatusError(context.Background(), nil, nil, w, httptest.NewRequest(http.MethodPost, "/x", nil), fmtWrap(err.GRPCStatus().Err()))
		assert.Equal(t, http.StatusTooManyRequests, w.Code)
		assert.Equal(t, want, w.Header().Get("Retry-After"), wait)
		assert.JSONEq(t, `{"error":{"code":"RATE_LIMITED","message":"slow down"}}`, w.Body.String())
	}
	w := httptest.NewRecorder()
	writeStatusError(context.Background(), nil, nil, w, httptest.NewRequest(http.MethodPost, "/x", nil), apierr.New(apierr.QuotaExceeded, "full"))
	assert.Equal(t, http.StatusRequestEntityTooLarge, w.Code)
	assert.Empty(t, w.Header().Get("Retry-After"))
}

func fmtWrap(err error) error { return &wrapped{err} }

type wrapped struct{ err error }

func (w *wrapped) Error() string { return "wrapped: " + w.err.Error() }
func (w *wrapped) Unwrap() error { return w.err }

func TestPanicAnswersInternalError(t *testing.T) {
	t.Parallel()
	h := recoverPanics(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") }), //nolint:forbidigo // deliberate: the recovery under test
		slog.New(slog.NewTextHandler(io.Discard, nil)))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/api/health", nil))
	assert.Equal(t, http.StatusInternalServerError, w.Code)
	assert.JSONEq(t, `{"error":{"code":"INTERNAL_ERROR","message":"an unexpected error occurred"}}`, w.Body.String())
}

func TestUnhealthyAnswers503(t *testing.T) {
	t.Parallel()
	w := httptest.NewRecorder()
	require.NoError(t, successStatus(context.Background(), w, &renderv1.HealthResponse{Status: "unhealthy"}))
	assert.Equal(t, http.StatusServiceUnavailable, w.Code)
	w = httptest.NewRecorder()
	require.NoError(t, successStatus(context.Background(), w, &renderv1.HealthResponse{Status: "healthy"}))
	assert.Equal(t, http.StatusOK, w.Code)
}
