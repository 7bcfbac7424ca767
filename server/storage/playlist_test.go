package storage

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRewritePlaylistSignsOnlyItsFolder: a playlist kino serves gets a
// signed URL for each object of its own folder it names, and for nothing
// else: URIs that climb out, are absolute or name another host are left as
// written, unsigned, and an escaped ".." is a name, not a step up.
func TestRewritePlaylistSignsOnlyItsFolder(t *testing.T) {
	t.Parallel()
	const public = "http://kino.test"
	s, err := Open(context.Background(), "", t.TempDir(), public)
	require.NoError(t, err)
	s.SignURLs([]byte("secret"), time.Hour, true)

	in := strings.Join([]string{
		"#EXTM3U",
		`#EXT-X-MAP:URI="init.mp4"`,
		`#EXT-X-KEY:METHOD=AES-128,URI="../../org_b/job/key.bin"`,
		"seg-000.ts",
		"../other/seg.ts",
		"sub/../../x.ts",
		"/files/jobs/org_b/job/out.mp4",
		"http://elsewhere.test/a.ts",
		"%2e%2e/%2e%2e/org_b/job/out.mp4",
	}, "\n")
	out, err := s.RewritePlaylist(context.Background(), "jobs/org_a/job/output.m3u8", []byte(in))
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	require.Len(t, lines, 9)

	signed := func(u, key string) {
		t.Helper()
		p, err := url.Parse(u)
		require.NoError(t, err)
		assert.Equal(t, public+FilesPath+escapeKey(key), public+p.EscapedPath())
		assert.NoError(t, s.Signer().Check(key, p.Query(), time.Now()), u)
	}
	init := strings.TrimSuffix(strings.TrimPrefix(lines[1], `#EXT-X-MAP:URI="`), `"`)
	signed(init, "jobs/org_a/job/init.mp4")
	assert.Equal(t, `#EXT-X-KEY:METHOD=AES-128,URI="../../org_b/job/key.bin"`, lines[2])
	signed(lines[3], "jobs/org_a/job/seg-000.ts")
	for i := 4; i <= 7; i++ {
		assert.Equal(t, strings.Split(in, "\n")[i], lines[i], "left as written")
	}
	// A key named "%2e%2e" inside the folder, whatever it holds: nothing
	// of org_b.
	signed(lines[8], "jobs/org_a/job/%2e%2e/%2e%2e/org_b/job/out.mp4")
}
