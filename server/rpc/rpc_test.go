package rpc

import (
	"context"
	"errors"
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

	_, err := call(context.Background(), nil, info, func(context.Context, any) (any, error) { panic("boom") })
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
