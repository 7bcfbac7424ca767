package app_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/kinohq/kino/server/app"
	"github.com/kinohq/kino/server/store/storetest"
)

const (
	goodKey  = "key-of-org-a-0123456789"
	wrongKey = "not-a-key-of-anyone-0123"
)

// TestTheKeyComesBeforeAnything: with API keys, a request without a valid
// key is answered 401 before kino routes it, checks its Content-Type or
// reads a byte of its body; the open paths stay open.
func TestTheKeyComesBeforeAnything(t *testing.T) {
	t.Parallel()
	k := start(t, storetest.SQLite(t), func(c *app.Config) {
		c.Workers = 0
		c.APIKeys = map[string]string{goodKey: "org-a"}
	})

	t.Run("a body never sent in full", func(t *testing.T) {
		t.Parallel()
		for _, tc := range []struct {
			name, path, header string
			length             int
		}{
			{"900 KB, wrong key", "/jobs", "Authorization: Bearer " + wrongKey, 900 << 10},
			{"900 KB, no key", "/api/render", "", 900 << 10},
			{"a small body, wrong key", "/api/render", "Authorization: Bearer " + wrongKey, 100},
			{"an upload, wrong key", "/assets", "Authorization: Bearer " + wrongKey, 900 << 10},
			{"an unknown path", "/no/such/path", "Authorization: Bearer " + wrongKey, 900 << 10},
		} {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				conn, err := net.Dial("tcp", k.app.HTTPAddr)
				require.NoError(t, err)
				defer conn.Close()
				if tc.header != "" {
					tc.header += "\r\n"
				}
				_, err = fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: kino\r\n%sContent-Type: application/json\r\nContent-Length: %d\r\n\r\n{\"type\":",
					tc.path, tc.header, tc.length)
				require.NoError(t, err)
				// The rest of the body never comes: only an answer that
				// does not wait for it arrives. The deadline fails the
				// test instead of hanging it.
				require.NoError(t, conn.SetReadDeadline(time.Now().Add(20*time.Second)))
				resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
				require.NoError(t, err, "kino answers without the body")
				defer resp.Body.Close()
				b, err := io.ReadAll(resp.Body)
				require.NoError(t, err)
				r := response{status: resp.StatusCode, header: resp.Header, body: b}
				assert.Equal(t, http.StatusUnauthorized, r.status, "%s", b)
				assert.Equal(t, "UNAUTHENTICATED", r.errorCode(t))
				assert.Equal(t, "Bearer", resp.Header.Get("WWW-Authenticate"))
				assert.True(t, resp.Close, "the connection is closed, not drained")
			})
		}
	})

	t.Run("whole requests", func(t *testing.T) {
		t.Parallel()
		for _, tc := range []struct {
			name, method, path, body string
			header                   []string
			want                     int
		}{
			{"a broken body, wrong key", "POST", "/jobs", `{"type":`, bearer(wrongKey), 401},
			{"a broken body, no key", "POST", "/jobs", `{"type":`, nil, 401},
			{"a broken body, good key", "POST", "/jobs", `{"type":`, bearer(goodKey), 400},
			{"an unknown path, wrong key", "GET", "/no/such/path", "", bearer(wrongKey), 401},
			{"an unknown path, good key", "GET", "/no/such/path", "", bearer(goodKey), 404},
			{"a wrong method, no key", "PUT", "/api/render", "", nil, 401},
			{"not UTF-8, no key", "GET", "/jobs/%ff", "", nil, 401},
			{"a path out of an open folder", "GET", "/demo/../jobs", "", nil, 401},
			{"the console's page, no key", "GET", "/", "", nil, 200},
			{"the health check, no key", "GET", "/api/health", "", nil, 200},
			{"the OpenAPI document, no key", "GET", "/api/openapi.json", "", nil, 200},
			{"demo media, no key", "GET", "/demo/logo.png", "", nil, 200},
			{"an unsigned file URL, no key", "GET", "/files/renders/x.mp4", "", nil, 403},
		} {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				var body any
				if tc.body != "" {
					body = tc.body
				}
				r := k.do(t, tc.method, tc.path, body, tc.header...)
				require.Equal(t, tc.want, r.status, "%s", r.body)
				if tc.want == 401 {
					assert.Equal(t, "UNAUTHENTICATED", r.errorCode(t))
				}
			})
		}
	})

	t.Run("gRPC, before the message", func(t *testing.T) {
		t.Parallel()
		for _, key := range []string{wrongKey, ""} {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			if key != "" {
				ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+key)
			}
			// A unary call whose request message never comes: only a
			// refusal from the headers can answer it.
			s, err := k.conn.NewStream(ctx, &grpc.StreamDesc{ClientStreams: true, ServerStreams: true}, "/kino.render.v1.RenderService/SubmitRender")
			require.NoError(t, err)
			err = s.RecvMsg(new(struct{}))
			st := status.Convert(err)
			require.Equal(t, codes.Unauthenticated, st.Code(), "key %q: %v", key, err)
			var reason string
			for _, d := range st.Details() {
				if info, ok := d.(*errdetails.ErrorInfo); ok {
					reason = info.GetReason()
				}
			}
			assert.Equal(t, "UNAUTHENTICATED", reason)
			assert.True(t, strings.Contains(st.Message(), "API key"), st.Message())
		}
	})
}
