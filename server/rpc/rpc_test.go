package rpc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/kinohq/kino/server/apierr"
)

func TestInterceptorsHideInternalsAndRecoverPanics(t *testing.T) {
	t.Parallel()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	call := unary(log)
	info := &grpc.UnaryServerInfo{FullMethod: "/kino.render.v1.RenderService/GetRender"}

	_, err := call(context.Background(), nil, info, func(context.Context, any) (any, error) { panic("boom") }) //nolint:forbidigo // deliberate: the recovery under test
	st := status.Convert(err)
	assert.Equal(t, codes.Internal, st.Code())
	code, own := apierr.FromStatus(st)
	assert.True(t, own)
	assert.Equal(t, apierr.Internal, code)

	_, err = call(context.Background(), nil, info, func(context.Context, any) (any, error) {
		return nil, errors.New("pq: password authentication failed for user kino")
	})
	st = status.Convert(err)
	assert.Equal(t, codes.Internal, st.Code())
	assert.NotContains(t, st.Message(), "pq:", "driver errors never reach clients")

	_, err = call(context.Background(), nil, info, func(context.Context, any) (any, error) {
		return nil, apierr.New(apierr.JobNotFound, "no render job has the id %q", "x")
	})
	st = status.Convert(err)
	require.Equal(t, codes.NotFound, st.Code())
	code, _ = apierr.FromStatus(st)
	assert.Equal(t, apierr.JobNotFound, code)
}

// TestAClientsCancelIsCancelled: a call whose client cancelled is answered
// CANCELLED whatever its work failed with then, context.Canceled (which
// apierr.ToStatus once made INTERNAL) included.
func TestAClientsCancelIsCancelled(t *testing.T) {
	t.Parallel()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	call := unary(log)
	info := &grpc.UnaryServerInfo{FullMethod: "/kino.media.v1.JobService/ListJobs"}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, failure := range []error{
		context.Canceled,
		fmt.Errorf("list jobs: %w", context.Canceled),
		errors.New("sql: statement interrupted"),
		apierr.New(apierr.Unavailable, "the source answered 503"),
	} {
		_, err := call(ctx, nil, info, func(context.Context, any) (any, error) { return nil, failure })
		st := status.Convert(err)
		assert.Equal(t, codes.Canceled, st.Code(), "%v", failure)
		code, own := apierr.FromStatus(st)
		assert.True(t, own)
		assert.Equal(t, apierr.Cancelled, code)
	}
	// Without the call's own cancel, a context error is still no INTERNAL.
	st := apierr.ToStatus(fmt.Errorf("read: %w", context.Canceled))
	assert.Equal(t, codes.Canceled, st.Code())
	assert.Equal(t, apierr.StatusClientClosedRequest, apierr.HTTPStatus(apierr.Cancelled))
}
