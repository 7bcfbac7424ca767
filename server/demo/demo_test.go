package demo_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/demo"
	"github.com/kinohq/kino/server/fetch"
)

// TestLocalNamesOnlyTheNodesOwnDemoFiles: the node's public URL, and
// loopback at its port or at 8080, with /demo/NAME of a shipped file; no
// other host, port, path or file.
func TestLocalNamesOnlyTheNodesOwnDemoFiles(t *testing.T) {
	t.Parallel()
	f := demo.New("https://kino.example.org", "127.0.0.1:7000")
	for url, want := range map[string]bool{
		"https://kino.example.org/demo/talk.mp4":     true,
		"http://localhost:8080/demo/logo.png":        true,
		"http://127.0.0.1:7000/demo/font.ttf":        true,
		"http://[::1]:8080/demo/captions.srt":        true,
		"http://LOCALHOST:8080/demo/music.mp3":       true,
		"http://localhost:8081/demo/logo.png":        false,
		"http://10.0.0.1:8080/demo/logo.png":         false,
		"https://localhost:8080/demo/logo.png":       false,
		"http://localhost:8080/demo/none.png":        false,
		"http://localhost:8080/demo/../logo.png":     false,
		"http://localhost:8080/files/logo.png":       false,
		"http://localhost:8080/demo/logo.png?x=1":    false,
		"http://user@localhost:8080/demo/logo.png":   false,
		"https://kino.example.org:444/demo/talk.mp4": false,
	} {
		_, _, ok := f.Local(url)
		assert.Equal(t, want, ok, url)
	}
	for _, name := range []string{"talk.mp4", "picture1.jpg", "picture2.jpg", "music.mp3", "logo.png", "font.ttf", "captions.srt", "screen.psd", "shirt.psd"} {
		assert.True(t, f.Has(name), name)
	}
}

// TestFetchReadsDemoFilesInProcess: a guarded client that may reach no
// private address downloads a demo file without a request (the cache's
// conditional GET answers not modified), and still refuses any other
// loopback URL.
func TestFetchReadsDemoFilesInProcess(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("a request reached %s", r.URL)
	}))
	defer srv.Close()
	f := demo.New("", srv.Listener.Addr().String())
	c := fetch.New(fetch.Options{Local: f.Local, Unknown: f.Unknown})
	dst := filepath.Join(t.TempDir(), "logo.png")
	n, v, err := c.DownloadIfChanged(context.Background(), srv.URL+"/demo/logo.png", dst, fetch.Validators{})
	require.NoError(t, err)
	b, err := os.ReadFile(dst)
	require.NoError(t, err)
	assert.Equal(t, int64(len(b)), n)
	assert.NotEmpty(t, v.ETag)
	_, _, err = c.DownloadIfChanged(context.Background(), srv.URL+"/demo/logo.png", dst, v)
	assert.ErrorIs(t, err, fetch.ErrNotModified)

	// A demo name that does not exist is said to be one, and which exist.
	_, err = c.Download(context.Background(), srv.URL+"/demo/other.png", dst)
	var fe *fetch.Error
	require.True(t, errors.As(err, &fe), "%v", err)
	assert.Equal(t, fetch.Status, fe.Kind)
	assert.False(t, fe.Temporary())
	assert.ErrorContains(t, err, `there is no demo file "other.png"; the demo files are captions.srt,`)

	// Any other loopback URL is still refused.
	_, err = c.Download(context.Background(), srv.URL+"/files/other.png", dst)
	require.True(t, errors.As(err, &fe), "%v", err)
	assert.Equal(t, fetch.Blocked, fe.Kind)
}

// TestServeSaysEachFilesType: each demo file is served with the type a
// client expects, the PSD templates and the captions included.
func TestServeSaysEachFilesType(t *testing.T) {
	t.Parallel()
	f := demo.New("", "127.0.0.1:8080")
	for name, want := range map[string]string{
		"talk.mp4":     "video/mp4",
		"picture1.jpg": "image/jpeg",
		"captions.srt": "application/x-subrip",
		"font.ttf":     "font/ttf",
		"screen.psd":   "image/vnd.adobe.photoshop",
		"shirt.psd":    "image/vnd.adobe.photoshop",
	} {
		w := httptest.NewRecorder()
		f.ServeHTTP(w, httptest.NewRequest(http.MethodGet, demo.Path+name, nil))
		assert.Equal(t, http.StatusOK, w.Code, name)
		assert.Equal(t, want, w.Header().Get("Content-Type"), name)
	}
}
