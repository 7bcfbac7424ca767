// Package rpc builds kino's gRPC server: every call passes interceptors that
// turn panics and unexpected errors into INTERNAL_ERROR, so no raw driver
// error or stack ever reaches a client, and log what failed.
package rpc

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/kinohq/kino/server/apierr"
	"github.com/kinohq/kino/server/auth"
	"github.com/kinohq/kino/server/metrics"
	"github.com/kinohq/kino/server/share"
)

// NewServer returns a gRPC server with kino's interceptors. The key is
// checked first of all, by a tap on each new stream (auth.Tap): a call
// without a valid key is refused from its headers, before its message is
// read. Then counting into m, outermost, so it counts every call by the code
// the client got; then error translation; then auth, which puts the key's
// organisation in the call's context.
func NewServer(log *slog.Logger, authn *auth.Authenticator, m *metrics.Metrics, opts ...grpc.ServerOption) *grpc.Server {
	var s *grpc.Server
	var once sync.Once
	known := map[string]bool{}
	refused := func(method string) {
		// The tap runs before the method is looked up: a made-up name
		// must not become a metric series of its own.
		once.Do(func() {
			for svc, info := range s.GetServiceInfo() {
				for _, md := range info.Methods {
					known["/"+svc+"/"+md.Name] = true
				}
			}
		})
		if !known[method] {
			method = "unknown"
		}
		m.GRPCRequest(method, codes.Unauthenticated.String())
	}
	opts = append([]grpc.ServerOption{
		grpc.InTapHandle(authn.Tap(refused)),
		grpc.ChainUnaryInterceptor(countUnary(m), unary(log), authn.Unary()),
		grpc.ChainStreamInterceptor(countStream(m), stream(log), authn.Stream()),
	}, opts...)
	s = grpc.NewServer(opts...)
	return s
}

func countUnary(m *metrics.Metrics) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		resp, err := handler(ctx, req)
		m.GRPCRequest(info.FullMethod, status.Code(err).String())
		return resp, err
	}
}

// countStream counts a stream when it ends, by how it ended.
func countStream(m *metrics.Metrics) grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		err := handler(srv, ss)
		m.GRPCRequest(info.FullMethod, status.Code(err).String())
		return err
	}
}

// WatchLimit caps the server-streaming calls (watches) open at once in the
// process: each holds memory and re-reads the database every second until
// its job ends, which may be hours. The gateway's watch streams are among
// them, as they are calls to this server. The streams are a pool shared
// between organisations (server/share), so that one opening many never
// shuts another out; it runs after authentication, which names the
// organisation. A call over the cap is refused with TOO_MANY_STREAMS at
// once rather than queued. A nil pool caps nothing.
func WatchLimit(pool *share.Pool) grpc.ServerOption {
	return grpc.ChainStreamInterceptor(func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		if !info.IsServerStream || info.IsClientStream || pool == nil {
			return handler(srv, ss)
		}
		release, err := pool.TryAcquire(auth.Org(ss.Context()))
		if err != nil {
			var r *share.Refusal
			errors.As(err, &r)
			return apierr.New(apierr.TooManyStreams, "this server serves %d watch streams (--max-watch-streams %d, shared between organisations), %d of them your organisation's; retry later or poll the resource instead", r.Held, r.Size, r.Mine)
		}
		defer release()
		return handler(srv, ss)
	})
}

func unary(log *slog.Logger) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (resp any, err error) {
		defer func() {
			if v := recover(); v != nil {
				err = panicked(ctx, log, info.FullMethod, v)
			}
		}()
		resp, err = handler(ctx, req)
		return resp, toStatus(ctx, log, info.FullMethod, err)
	}
}

func stream(log *slog.Logger) grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) (err error) {
		defer func() {
			if v := recover(); v != nil {
				err = panicked(ss.Context(), log, info.FullMethod, v)
			}
		}()
		return toStatus(ss.Context(), log, info.FullMethod, handler(srv, ss))
	}
}

func panicked(ctx context.Context, log *slog.Logger, method string, v any) error {
	log.ErrorContext(ctx, "panic in gRPC handler", "method", method, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
	return apierr.New(apierr.Internal, "an unexpected error occurred").GRPCStatus().Err()
}

func toStatus(ctx context.Context, log *slog.Logger, method string, err error) error {
	if err == nil {
		return nil
	}
	// The client cancelled or left while kino worked: whatever the work
	// failed with then (a download cut, a query stopped) is the cancel's
	// doing, not kino's failure, and is answered and counted as such.
	if errors.Is(ctx.Err(), context.Canceled) {
		log.DebugContext(ctx, "request cancelled by its client", "method", method, "err", err)
		return apierr.New(apierr.Cancelled, "the request was cancelled").GRPCStatus().Err()
	}
	// The client's own deadline passed: its answer, not kino's slowness.
	if errors.Is(ctx.Err(), context.DeadlineExceeded) && errors.Is(err, context.DeadlineExceeded) {
		return status.FromContextError(ctx.Err()).Err()
	}
	st := apierr.ToStatus(err)
	if code, _ := apierr.FromStatus(st); code == apierr.Internal || code == apierr.TriggerSubmitFailed {
		log.ErrorContext(ctx, "request failed", "method", method, "err", err)
	}
	if ctx.Err() != nil && st.Code() == codes.Unknown {
		return status.FromContextError(ctx.Err()).Err()
	}
	return st.Err()
}
