package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	renderv1 "github.com/kinohq/kino/gen/kino/render/v1"
	"github.com/kinohq/kino/server/app"
	"github.com/kinohq/kino/server/store/storetest"
)

// kino is one running kino for a test, reached over real loopback HTTP and gRPC.
type kino struct {
	app  *app.App
	base string
	rpc  renderv1.RenderServiceClient
	conn *grpc.ClientConn
	cfg  app.Config
}

func start(t *testing.T, db storetest.DB, mutate func(*app.Config)) *kino {
	t.Helper()
	if testing.Short() {
		// -short is the fast loop: a whole kino, its database and its
		// renders are the full suite's.
		t.Skip("starts a whole kino")
	}
	cfg := app.Config{
		HTTPAddr:             "127.0.0.1:0",
		GRPCAddr:             "127.0.0.1:0",
		DataDir:              t.TempDir(),
		DatabaseURL:          db.URL,
		Workers:              1,
		AllowPrivateNetworks: true,
		WebhookBaseDelay:     20 * time.Millisecond,
		Lease:                2 * time.Second,
		ShutdownGrace:        2 * time.Second,
		Log:                  testLogger(t),
	}
	if mutate != nil {
		mutate(&cfg)
	}
	a, err := app.Start(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = a.Shutdown(ctx)
	})
	conn, err := grpc.NewClient(a.GRPCAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	return &kino{app: a, base: "http://" + a.HTTPAddr, rpc: renderv1.NewRenderServiceClient(conn), conn: conn, cfg: cfg}
}

func testLogger(t *testing.T) *slog.Logger {
	if os.Getenv("KINO_TEST_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// response is an HTTP answer with its body read.
type response struct {
	status int
	header http.Header
	body   []byte
}

func (r response) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(r.body, &m), "body: %s", r.body)
	return m
}

// errorCode checks the envelope and returns its code.
func (r response) errorCode(t *testing.T) string {
	t.Helper()
	m := r.json(t)
	require.Len(t, m, 1, "an error body holds only error: %s", r.body)
	e, ok := m["error"].(map[string]any)
	require.True(t, ok, "no error object: %s", r.body)
	for k := range e {
		require.Contains(t, []string{"code", "message", "details"}, k, "error holds code and message, and details when there are several problems: %s", r.body)
	}
	if d, ok := e["details"]; ok {
		require.Greater(t, len(d.([]any)), 1, "details list several problems: %s", r.body)
	}
	msg, _ := e["message"].(string)
	require.NotEmpty(t, msg, "error message: %s", r.body)
	code, _ := e["code"].(string)
	return code
}

func (k *kino) do(t *testing.T, method, path string, body any, header ...string) response {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		enc, err := json.Marshal(b)
		require.NoError(t, err)
		rd = bytes.NewReader(enc)
	}
	req, err := http.NewRequest(method, k.base+path, rd)
	require.NoError(t, err)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return response{status: resp.StatusCode, header: resp.Header, body: b}
}

// submit posts a render request and returns the job id.
func (k *kino) submit(t *testing.T, body any, header ...string) string {
	t.Helper()
	r := k.do(t, http.MethodPost, "/api/render", body, header...)
	require.Equal(t, http.StatusAccepted, r.status, "submit: %s", r.body)
	id, _ := r.json(t)["jobId"].(string)
	require.NotEmpty(t, id)
	return id
}

func (k *kino) get(t *testing.T, id string) map[string]any {
	t.Helper()
	r := k.do(t, http.MethodGet, "/api/render/"+id, nil)
	require.Equal(t, http.StatusOK, r.status, "get: %s", r.body)
	return r.json(t)
}

// waitStatus polls until the job has the status, failing on another terminal one.
func (k *kino) waitStatus(t *testing.T, id, want string, within time.Duration) map[string]any {
	t.Helper()
	var last map[string]any
	deadline := time.Now().Add(within)
	poll := time.NewTicker(50 * time.Millisecond)
	defer poll.Stop()
	for ; time.Now().Before(deadline); <-poll.C {
		last = k.get(t, id)
		st := last["status"].(string)
		if st == want {
			return last
		}
		if st != "queued" && st != "processing" {
			t.Fatalf("job %s ended %s, want %s: %v", id, st, want, last)
		}
	}
	t.Fatalf("job %s did not reach %s within %s; last %v", id, want, within, last)
	return nil
}

// media serves test files on 127.0.0.1, made once with ffmpeg.
type mediaServer struct {
	*httptest.Server
	dir string
}

var (
	mediaOnce sync.Once
	mediaDir  string
	mediaErr  error
)

// testMedia makes small real media files once per test binary.
func testMedia(t *testing.T) string {
	t.Helper()
	mediaOnce.Do(func() {
		mediaDir, mediaErr = os.MkdirTemp("", "kino-media-")
		if mediaErr != nil {
			return
		}
		cmds := [][]string{
			{"-f", "lavfi", "-i", "testsrc2=size=64x48:rate=10", "-frames:v", "1", "image.png"},
			{"-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-t", "3", "tone.wav"},
			{"-f", "lavfi", "-i", "testsrc2=size=96x64:rate=10", "-f", "lavfi", "-i", "sine=frequency=220:sample_rate=48000",
				"-t", "3", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", "clip.mp4"},
		}
		for _, args := range cmds {
			cmd := exec.Command("ffmpeg", append([]string{"-hide_banner", "-loglevel", "error", "-y"}, args...)...)
			cmd.Dir = mediaDir
			if out, err := cmd.CombinedOutput(); err != nil {
				mediaErr = fmt.Errorf("make test media %v: %v: %s", args, err, out)
				return
			}
		}
		mediaErr = os.WriteFile(filepath.Join(mediaDir, "corrupt.mp4"), []byte("this is not a video file at all"), 0o644)
		if mediaErr == nil {
			mediaErr = zeroMdat(filepath.Join(mediaDir, "clip.mp4"), filepath.Join(mediaDir, "zeroed.mp4"))
		}
	})
	require.NoError(t, mediaErr)
	return mediaDir
}

func serveMedia(t *testing.T) *mediaServer {
	dir := testMedia(t)
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	t.Cleanup(srv.Close)
	return &mediaServer{Server: srv, dir: dir}
}

// serveDir serves a folder on 127.0.0.1 and returns its base URL.
func serveDir(t *testing.T, h http.Handler) string {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// zeroMdat copies an mp4 with the payload of its mdat box zeroed: the
// container (and so a probe) is intact, but no frame decodes.
func zeroMdat(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	at := bytes.Index(b, []byte("mdat"))
	if at < 4 {
		return fmt.Errorf("%s has no mdat box", src)
	}
	size := int(b[at-4])<<24 | int(b[at-3])<<16 | int(b[at-2])<<8 | int(b[at-1])
	clear(b[at+4 : at-4+size])
	return os.WriteFile(dst, b, 0o644)
}
