package app_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/store/storetest"
)

// TestUserContentCannotRunScript: everything served from storage says
// what it is and may not be sniffed into something else, and what a
// browser could run as a page is sandboxed and downloaded.
func TestUserContentCannotRunScript(t *testing.T) {
	t.Parallel()
	k := start(t, storetest.SQLite(t), nil)
	png, err := os.ReadFile(filepath.Join(testMedia(t), "image.png"))
	require.NoError(t, err)
	r := k.upload(t, "", [][2]string{{"type", "image"}}, "logo.png", png)
	require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
	a := r.json(t)["data"].(map[string]any)

	for _, path := range []string{"/files/" + a["storageKey"].(string), "/files/" + a["thumbnailKey"].(string), "/assets/" + a["id"].(string) + "/content"} {
		r = k.do(t, http.MethodGet, path, nil)
		require.Equal(t, http.StatusOK, r.status, "%s: %s", path, r.body)
		assert.Equal(t, "image/png", r.header.Get("Content-Type"), path)
		assert.Equal(t, "nosniff", r.header.Get("X-Content-Type-Options"), path)
		assert.Contains(t, r.header.Get("Content-Security-Policy"), "sandbox", path)
	}
	r = k.do(t, http.MethodGet, "/files/"+a["storageKey"].(string), nil)
	assert.Empty(t, r.header.Get("Content-Disposition"), "a picture is shown inline")

	// The local bucket's sidecar files are not files of the API.
	for _, key := range []string{a["storageKey"].(string), a["thumbnailKey"].(string)} {
		for _, ext := range []string{".attrs", ".ATTRS"} {
			r = k.do(t, http.MethodGet, "/files/"+key+ext, nil)
			assert.Equal(t, http.StatusNotFound, r.status, "%s: %s", key+ext, r.body)
			assert.Equal(t, "NOT_FOUND", r.errorCode(t), key+ext)
		}
	}

	// An object of the bucket whose type nobody recorded (put there by
	// hand, or by an older kino) is not sniffed into a page.
	out := filepath.Join(k.cfg.DataDir, "outputs", "page.html")
	require.NoError(t, os.WriteFile(out, []byte("<html><script>alert(document.cookie)</script></html>"), 0o644))
	r = k.do(t, http.MethodGet, "/files/page.html", nil)
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	assert.Equal(t, "application/octet-stream", r.header.Get("Content-Type"))
	assert.Equal(t, "nosniff", r.header.Get("X-Content-Type-Options"))
	assert.Contains(t, r.header.Get("Content-Security-Policy"), "sandbox")
	assert.True(t, strings.HasPrefix(r.header.Get("Content-Disposition"), "attachment"), r.header.Get("Content-Disposition"))
}
