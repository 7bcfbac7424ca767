package app_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	renderv1 "github.com/kinohq/kino/gen/kino/render/v1"
	"github.com/kinohq/kino/server/app"
	"github.com/kinohq/kino/server/store/storetest"
)

// TestJSONBodyIsOneUTF8Value: a JSON body is one value and nothing after it,
// in UTF-8; anything else is refused before it reaches a service, on the
// render API and the media API alike.
func TestJSONBodyIsOneUTF8Value(t *testing.T) {
	t.Parallel()
	k := start(t, storetest.SQLite(t), nil)
	render := `{"provider":"provider_a","composition":{"width":160,"height":90,"fps":10,"layers":[{"type":"color","color":"#000000","start":0,"duration":1}]}}`
	pipeline := `{"name":"p","nodes":[{"id":"a","type":"audio.extract","params":{"format":"mp3"}}]}`

	refused := []struct {
		name, path, body, contentType, inMessage string
	}{
		{"render: trailing garbage", "/api/render", render + ` garbage`, "application/json", "after the JSON value"},
		{"render: a second object", "/api/render", render + render, "application/json", "after the JSON value"},
		{"render: utf-16", "/api/render", render, "application/json; charset=utf-16", "charset"},
		{"render: latin-1", "/api/render", render, "application/json; charset=iso-8859-1", "charset"},
		{"jobs: trailing garbage", "/jobs", `{"type":"audio.extract"} x`, "application/json", "after the JSON value"},
		{"jobs: utf-16", "/jobs", `{"type":"audio.extract"}`, "application/json; charset=UTF-16LE", "charset"},
		{"pipelines: trailing garbage", "/pipelines", pipeline + `]`, "application/json", "after the JSON value"},
		{"pipeline runs: utf-16", "/pipelines/p1/runs", `{}`, "application/json;charset=utf-16", "charset"},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			r := k.do(t, http.MethodPost, tc.path, tc.body, "Content-Type", tc.contentType)
			assert.Equal(t, http.StatusBadRequest, r.status, "%s", r.body)
			assert.Equal(t, "VALIDATION_ERROR", r.errorCode(t))
			assert.Contains(t, r.json(t)["error"].(map[string]any)["message"], tc.inMessage)
		})
	}

	for _, ct := range []string{"application/json", "application/json; charset=utf-8", "application/json; charset=UTF-8"} {
		r := k.do(t, http.MethodPost, "/api/render", render+" \n\t", "Content-Type", ct)
		assert.Equal(t, http.StatusAccepted, r.status, "%s: %s", ct, r.body)
	}
}

// TestSlowRequestBodiesAreCut: a client that dribbles its body over real
// TCP is cut with 408 REQUEST_TIMEOUT long before its body could arrive,
// on JSON requests and multipart uploads alike; a body that keeps the rate
// passes however long it takes.
func TestSlowRequestBodiesAreCut(t *testing.T) {
	t.Parallel()
	k := start(t, storetest.SQLite(t), func(c *app.Config) {
		c.Workers = 0
		c.BodyMinRate = 1000
		c.BodyRateWindow = 300 * time.Millisecond
	})

	for _, tc := range []struct{ name, path, contentType string }{
		{"json", "/api/render", "application/json"},
		{"upload", "/assets", "multipart/form-data; boundary=xyz"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// At 50 bytes/s the 5,000-byte body would take 100 s to arrive.
			conn := rawRequest(t, k, "POST", tc.path, tc.contentType, 5000)
			stop := make(chan struct{})
			defer close(stop)
			go func() {
				tick := time.NewTicker(20 * time.Millisecond)
				defer tick.Stop()
				for range 5000 {
					select {
					case <-stop:
						return
					case <-tick.C:
					}
					if _, err := conn.Write([]byte(" ")); err != nil {
						return
					}
				}
			}()
			require.NoError(t, conn.SetReadDeadline(time.Now().Add(20*time.Second)))
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			require.NoError(t, err, "the server answers before the body could have arrived")
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			r := response{status: resp.StatusCode, header: resp.Header, body: b}
			assert.Equal(t, http.StatusRequestTimeout, r.status, "%s", b)
			assert.Equal(t, "REQUEST_TIMEOUT", r.errorCode(t))
			assert.Contains(t, string(b), "1000 bytes/s")
		})
	}

	t.Run("a body at the rate passes", func(t *testing.T) {
		t.Parallel()
		// 4,800 bytes in 400-byte pieces every 100 ms: 1.2 s, four windows.
		body := strings.Repeat(" ", 4800) + `{"provider":"provider_a","composition":{"width":160,"height":90,"fps":10,"layers":[{"type":"color","color":"#000000","start":0,"duration":1}]}}`
		conn := rawRequest(t, k, "POST", "/api/render", "application/json", len(body))
		pace := time.NewTicker(100 * time.Millisecond) // the client's pace, not a wait for the server
		defer pace.Stop()
		for chunk := range slices.Chunk([]byte(body), 400) {
			_, err := conn.Write(chunk)
			require.NoError(t, err)
			<-pace.C
		}
		require.NoError(t, conn.SetReadDeadline(time.Now().Add(20*time.Second)))
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		require.NoError(t, err)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Equal(t, http.StatusAccepted, resp.StatusCode, "%s", b)
	})
}

// rawRequest opens a TCP connection to kino and sends the headers of a
// request whose body the test then writes itself.
func rawRequest(t *testing.T, k *kino, method, path, contentType string, length int) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", k.app.HTTPAddr)
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	_, err = fmt.Fprintf(conn, "%s %s HTTP/1.1\r\nHost: kino\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n", method, path, contentType, length)
	require.NoError(t, err)
	return conn
}

// TestWatchStreamOutlivesTheWriteTimeout: the write timeout times each
// write, not the response, so a watch stream that stays quiet for longer
// still delivers the job's next change.
func TestWatchStreamOutlivesTheWriteTimeout(t *testing.T) {
	t.Parallel()
	const writeTimeout = 200 * time.Millisecond
	k := start(t, storetest.SQLite(t), func(c *app.Config) {
		c.Workers = 0
		c.HTTPWriteTimeout = writeTimeout
	})
	id := k.submit(t, longComposition())

	sse := openWatch(t, k, "/api/render/"+id+"/events", "text/event-stream")
	ndjson := openWatch(t, k, "/api/render/"+id+"/events", "application/x-ndjson")
	require.Equal(t, "queued", nextRecord(t, sse)["status"])
	require.Equal(t, "queued", nextRecord(t, ndjson)["status"])
	// Let the connections' write deadlines, as flat ones would be, pass.
	<-time.After(3 * writeTimeout)
	r := k.do(t, http.MethodDelete, "/api/render/"+id, nil)
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	assert.Equal(t, "cancelled", nextRecord(t, sse)["status"])
	assert.Equal(t, "cancelled", nextRecord(t, ndjson)["status"])
}

// TestWatchStreamsAreCapped: the N+1th watch stream of the process is
// refused with 503 TOO_MANY_STREAMS, over HTTP (render and media paths) and
// gRPC, and a closed stream frees its place.
func TestWatchStreamsAreCapped(t *testing.T) {
	t.Parallel()
	k := start(t, storetest.SQLite(t), func(c *app.Config) {
		c.Workers = 0
		c.MaxWatchStreams = 2
	})
	id := k.submit(t, longComposition())

	cancelFirst := func() func() {
		ctx, cancel := context.WithCancel(context.Background())
		lines := openWatchCtx(ctx, t, k, "/api/render/"+id+"/events", "text/event-stream")
		nextRecord(t, lines)
		return cancel
	}()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stream, err := k.rpc.WatchRender(ctx, &renderv1.WatchRenderRequest{JobId: id})
	require.NoError(t, err)
	_, err = stream.Recv()
	require.NoError(t, err)

	// Bounded, so that a stream that is wrongly let in fails the test
	// instead of hanging it.
	overCtx, overCancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer overCancel()
	for _, path := range []string{"/api/render/" + id + "/events", "/jobs/x/events", "/pipelines/p/runs/r/events"} {
		req, err := http.NewRequestWithContext(overCtx, http.MethodGet, k.base+path, nil)
		require.NoError(t, err)
		req.Header.Set("Accept", "text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.NoError(t, err, path)
		r := response{status: resp.StatusCode, header: resp.Header, body: b}
		assert.Equal(t, http.StatusServiceUnavailable, r.status, "%s: %s", path, r.body)
		assert.Equal(t, "TOO_MANY_STREAMS", r.errorCode(t), path)
	}
	over, err := k.rpc.WatchRender(overCtx, &renderv1.WatchRenderRequest{JobId: id})
	require.NoError(t, err)
	_, err = over.Recv()
	assert.Equal(t, codes.ResourceExhausted, status.Code(err), "%v", err)

	cancelFirst()
	var r response
	require.Eventually(t, func() bool {
		r = k.do(t, http.MethodGet, "/api/render/nope/events", nil)
		return r.status != http.StatusServiceUnavailable
	}, 5*time.Second, 20*time.Millisecond, "a closed stream frees its place")
	assert.Equal(t, http.StatusNotFound, r.status, "a closed stream frees its place: %s", r.body)
}

// openWatch opens a watch stream and returns its lines.
func openWatch(t *testing.T, k *kino, path, accept string) *bufio.Scanner {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return openWatchCtx(ctx, t, k, path, accept)
}

func openWatchCtx(ctx context.Context, t *testing.T, k *kino, path, accept string) *bufio.Scanner {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, k.base+path, nil)
	require.NoError(t, err)
	req.Header.Set("Accept", accept)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { resp.Body.Close() })
	require.Equal(t, http.StatusOK, resp.StatusCode)
	return bufio.NewScanner(resp.Body)
}

// nextRecord reads the next record of an SSE or NDJSON watch stream.
func nextRecord(t *testing.T, lines *bufio.Scanner) map[string]any {
	t.Helper()
	for lines.Scan() {
		line := lines.Text()
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			var m map[string]any
			require.NoError(t, json.Unmarshal([]byte(data), &m))
			return m
		}
		if strings.HasPrefix(line, "{") {
			var m struct{ Result map[string]any }
			require.NoError(t, json.Unmarshal([]byte(line), &m))
			require.NotNil(t, m.Result, "%s", line)
			return m.Result
		}
	}
	t.Fatalf("the stream ended: %v", lines.Err())
	return nil
}

// TestSlowReaderIsCut: a client that stops reading a download is cut once
// a write has waited --http-write-timeout, instead of holding the
// connection for as long as it likes.
func TestSlowReaderIsCut(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	k := start(t, storetest.SQLite(t), func(c *app.Config) {
		c.DataDir, c.Workers = dir, 0
		c.HTTPWriteTimeout = 200 * time.Millisecond
	})
	// Far more than the loopback socket buffers hold.
	const size = 64 << 20
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "outputs", "renders"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "outputs", "renders", "big.bin"), make([]byte, size), 0o644))

	conn, err := net.Dial("tcp", k.app.HTTPAddr)
	require.NoError(t, err)
	defer conn.Close()
	_, err = fmt.Fprintf(conn, "GET /files/renders/big.bin HTTP/1.1\r\nHost: kino\r\n\r\n")
	require.NoError(t, err)
	// Read the status, then stop reading until the server gave up: it
	// closes the connection, so reading on drains what the socket buffers
	// held and ends well short of the file.
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	<-time.After(5 * k.cfg.HTTPWriteTimeout)
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(20*time.Second)))
	n, err := io.Copy(io.Discard, resp.Body)
	require.Error(t, err, "the download was cut")
	assert.Less(t, n, int64(size))
}

// TestNotUTF8InTheURLIsRefused: a path or query that decodes to bytes that
// are not UTF-8 (%ff) is the client's mistake, 400 VALIDATION_ERROR on
// every API, never a 500 from a message that cannot be encoded.
func TestNotUTF8InTheURLIsRefused(t *testing.T) {
	t.Parallel()
	k := start(t, storetest.SQLite(t), nil)
	for _, path := range []string{
		"/jobs/%ff", "/api/render/%ff", "/assets?type=%ff", "/api/render/%ff/events", "/jobs/%ff/events",
		"/jobs?status=%ff", "/api/render?status=%C3%28", "/pipelines/%ff", "/assets/%ff/content", "/templates/%ff",
		"/jobs/a%ffb/cancel", "/files/renders/%ff.mp4",
	} {
		method := http.MethodGet
		if strings.HasSuffix(path, "/cancel") {
			method = http.MethodPost
		}
		r := k.do(t, method, path, nil)
		assert.Equal(t, http.StatusBadRequest, r.status, "%s: %s", path, r.body)
		assert.Equal(t, "VALIDATION_ERROR", r.errorCode(t), path)
		assert.Contains(t, string(r.body), "UTF-8", path)
	}
	// Valid UTF-8 that is not ASCII is an ordinary id: not found.
	r := k.do(t, http.MethodGet, "/jobs/%C3%A9", nil)
	assert.Equal(t, http.StatusNotFound, r.status, "%s", r.body)
}

// TestTruncatedJSONSaysWhere: a body cut short or malformed is refused with
// the place where it stopped making sense, not a bare "unexpected EOF".
func TestTruncatedJSONSaysWhere(t *testing.T) {
	t.Parallel()
	k := start(t, storetest.SQLite(t), nil)
	for _, tc := range []struct{ path, body, inMessage string }{
		{"/api/render", `{"provider":"provider_a","composition":{"width":160`, "the body ends before the JSON value does (after byte 51"},
		{"/jobs", `{"type":"audio.extract","inputs":`, "the body ends before the JSON value does (after byte 33"},
		{"/api/render", `{"provider":"provider_a",}`, "line 1, column 26"},
		{"/pipelines", "{\n  \"name\": \"p\",\n  \"nodes\": [}\n", "line 3, column 13"},
	} {
		r := k.do(t, http.MethodPost, tc.path, tc.body)
		assert.Equal(t, http.StatusBadRequest, r.status, "%s", r.body)
		assert.Equal(t, "VALIDATION_ERROR", r.errorCode(t))
		msg := r.json(t)["error"].(map[string]any)["message"].(string)
		assert.Contains(t, msg, tc.inMessage)
		assert.NotEqual(t, "the request is not valid: unexpected EOF", msg)
	}
}

// TestErrorsSayHowToFix: the mistakes people make coming from other tools
// are refused with what to send instead.
func TestErrorsSayHowToFix(t *testing.T) {
	t.Parallel()
	k := start(t, storetest.SQLite(t), nil)
	text := func(extra string, v any) map[string]any {
		layer := map[string]any{"type": "text", "text": "hi", "start": 0, "duration": 1}
		layer[extra] = v
		return map[string]any{"provider": "provider_a", "composition": map[string]any{"width": 64, "height": 36, "fps": 10, "layers": []any{layer}}}
	}
	unified := map[string]any{"output": map[string]any{"width": 64, "height": 36, "fps": 10},
		"tracks": []any{map[string]any{"clips": []any{map[string]any{"asset": map[string]any{"type": "color", "color": "red"}, "length": 1}}}}}
	for _, tc := range []struct {
		name      string
		body      map[string]any
		inMessage []string
	}{
		{"fontWeight", text("fontWeight", "bold"), []string{"composition.layers[0].fontWeight: unknown field", `bold is a bold font file, given in "font"`}},
		{"fontFamily", text("fontFamily", "Arial"), []string{"composition.layers[0].fontFamily: unknown field", `give the font file in "font"`}},
		{"unified sent as provider_a", map[string]any{"provider": "provider_a", "composition": unified},
			[]string{`composition: looks like a "unified" composition`, `"provider": "unified"`}},
		{"provider_a sent as unified", map[string]any{"provider": "unified", "composition": text("x", 1)["composition"]},
			[]string{`composition: looks like a "provider_a" composition`, `"provider": "provider_a"`}},
	} {
		r := k.do(t, http.MethodPost, "/api/render", tc.body)
		assert.Equal(t, http.StatusBadRequest, r.status, "%s: %s", tc.name, r.body)
		assert.Equal(t, "VALIDATION_ERROR", r.errorCode(t))
		msg := r.json(t)["error"].(map[string]any)["message"].(string)
		for _, want := range tc.inMessage {
			assert.Contains(t, msg, want, tc.name)
		}
	}
}
