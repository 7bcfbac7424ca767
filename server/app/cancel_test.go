package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"

	renderv1 "github.com/kinohq/kino/gen/kino/render/v1"
	"github.com/kinohq/kino/server/app"
	"github.com/kinohq/kino/server/store/storetest"
)

// TestClientCancelIsCancelled: a client that gives up on a request while
// kino works on it (a preview whose source is still downloading) is
// answered and counted as CANCELLED, over gRPC and over REST (499), and
// is no error in kino's log.
func TestClientCancelIsCancelled(t *testing.T) {
	t.Parallel()
	dir := slides(t)
	asked, release := make(chan struct{}, 1), make(chan struct{})
	files := http.FileServer(http.Dir(dir))
	media := serveDir(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case asked <- struct{}{}:
		default:
		}
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		files.ServeHTTP(w, r)
	}))
	var once sync.Once
	t.Cleanup(func() { once.Do(func() { close(release) }) })
	logs := &lockedBuffer{}
	k := start(t, storetest.SQLite(t), func(c *app.Config) {
		c.MetricsAddr = "127.0.0.1:0"
		c.Log = slog.New(slog.NewTextHandler(logs, nil))
	})
	req := withFields(slideshow(media, 320, 180), "time", 0.2)
	const method = "/kino.render.v1.RenderService/PreviewRender"

	// gRPC: the call is cancelled while its source downloads.
	body, err := json.Marshal(req)
	require.NoError(t, err)
	var msg renderv1.PreviewRenderRequest
	require.NoError(t, protojson.Unmarshal(body, &msg))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := k.rpc.PreviewRender(ctx, &msg)
		done <- err
	}()
	<-asked
	cancel()
	assert.Equal(t, codes.Canceled, status.Code(<-done))
	require.Equal(t, map[string]float64{"Canceled": 1}, answers(t, k, "kino_grpc_requests_total", "method", method),
		"kino answered the call CANCELLED, and only that")

	// REST: the client closes its request the same way.
	hctx, hcancel := context.WithCancel(context.Background())
	hreq, err := http.NewRequestWithContext(hctx, http.MethodPost, k.base+"/api/render/preview", bytes.NewReader(body))
	require.NoError(t, err)
	hreq.Header.Set("Content-Type", "application/json")
	go func() {
		resp, err := http.DefaultClient.Do(hreq)
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	<-asked
	hcancel()
	<-done
	require.Equal(t, map[string]float64{"499": 1}, answers(t, k, "kino_http_requests_total", "route", "/api/render/preview"),
		"the gateway answered 499, and only that")
	// The gateway's call to the gRPC server ends as its client left; the
	// server counts it when its handler returns.
	require.Eventually(t, func() bool {
		return k.scrape(t).value("kino_grpc_requests_total", "method", method, "code", "Canceled") == 2
	}, 20*time.Second, 20*time.Millisecond)
	assert.Equal(t, map[string]float64{"Canceled": 2}, answers(t, k, "kino_grpc_requests_total", "method", method))

	assert.False(t, strings.Contains(logs.String(), "level=ERROR"), "a client's cancel is no error in the log:\n%s", logs.String())
	assert.Equal(t, 2.0, k.scrape(t).value("kino_previews_total", "outcome", "cancelled"), "the previews are logged and counted cancelled")
	assert.Equal(t, 2, strings.Count(logs.String(), "outcome=cancelled"), "%s", logs.String())
}

// answers waits until a request counted in family under the label has
// been answered, then returns its counts by code.
func answers(t *testing.T, k *kino, family, label, value string) map[string]float64 {
	t.Helper()
	var got map[string]float64
	require.Eventually(t, func() bool {
		got = map[string]float64{}
		for _, m := range k.scrape(t)[family].GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels[label] == value {
				got[labels["code"]] = m.GetCounter().GetValue()
			}
		}
		return len(got) > 0
	}, 20*time.Second, 20*time.Millisecond)
	return got
}
