package fetch

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// TestSpansKeepNoSecrets: the spans of requests keep no credential a URL
// may carry: not a signed URL's query, not a webhook URL's path, and not
// the cause a cancelled request was given (the failure of another download,
// which names its URL).
func TestSpansKeepNoSecrets(t *testing.T) {
	t.Parallel()
	o := newOrigin(t)
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	c := New(Options{AllowPrivate: true, TracerProvider: tp})
	ctx, root := tp.Tracer("test").Start(context.Background(), "job")

	_, err := c.Download(ctx, o.URL+"/ok?token=s3cr3t#s3cr3t", filepath.Join(t.TempDir(), "ok"))
	require.NoError(t, err)

	req, err := http.NewRequestWithContext(ctx, http.MethodPost, o.URL+"/hooks/s3cr3t?token=s3cr3t", nil)
	require.NoError(t, err)
	resp, err := c.NoRedirectClient().Do(req)
	require.NoError(t, err)
	resp.Body.Close()

	cause := errors.New("fetch " + o.URL + "/other?token=s3cr3t: the server answered 404 Not Found")
	cctx, cancel := context.WithCancelCause(ctx)
	time.AfterFunc(50*time.Millisecond, func() { cancel(cause) })
	_, err = c.Download(cctx, o.URL+"/slow-headers", filepath.Join(t.TempDir(), "slow"))
	var fe *Error
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, Network, fe.Kind)
	assert.ErrorIs(t, err, cause, "the cause is still there for errors.Is")

	// Cancelled while the body streams: net/http fails the read with the
	// cause, which the client span would record as its status.
	bctx, bcancel := context.WithCancelCause(ctx)
	time.AfterFunc(100*time.Millisecond, func() { bcancel(cause) })
	_, err = c.Download(bctx, o.URL+"/slow-body", filepath.Join(t.TempDir(), "body"))
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, Network, fe.Kind, "cancelled, not the cause's 404")
	assert.Equal(t, "fetch "+o.URL+"/slow-body: request cancelled", err.Error())
	assert.ErrorIs(t, err, context.Canceled)
	root.End()

	var urls []string
	for _, s := range spans.GetSpans() {
		for _, a := range s.Attributes {
			if a.Key == "url.full" {
				urls = append(urls, s.Name+" "+a.Value.String())
			}
			assert.NotContains(t, a.Value.String(), "s3cr3t", "%s: %s", s.Name, a.Key)
		}
		assert.NotContains(t, s.Status.Description, "s3cr3t", "%s: status", s.Name)
		for _, e := range s.Events {
			for _, a := range e.Attributes {
				assert.NotContains(t, a.Value.String(), "s3cr3t", "%s: event %s", s.Name, e.Name)
			}
		}
	}
	assert.Contains(t, urls, "fetch "+o.URL+"/ok?token=REDACTED")
	assert.Contains(t, urls, "HTTP GET "+o.URL+"/ok?token=REDACTED")
	assert.Contains(t, urls, "HTTP POST "+o.URL+"/REDACTED", "a webhook's origin only")
	assert.True(t, strings.Contains(strings.Join(urls, " "), o.URL+"/slow-headers"), "%v", urls)
}
