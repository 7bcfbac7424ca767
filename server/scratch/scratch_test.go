package scratch_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/scratch"
)

func mkdir(t *testing.T, path ...string) string {
	t.Helper()
	p := filepath.Join(path...)
	require.NoError(t, os.MkdirAll(p, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(p, "source-0"), []byte("x"), 0o644))
	return p
}

// TestOpenRemovesWhatDeadProcessesLeft: the folders of a process killed
// with SIGKILL (its lock free) and loose folders of older versions go; a
// living process's folder and anything else stay.
func TestOpenRemovesWhatDeadProcessesLeft(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	mkdir(t, root, "render-0199-abc")
	mkdir(t, root, "job-123")
	mkdir(t, root, "upload-9")
	dead := mkdir(t, root, "proc-dead")
	require.NoError(t, os.WriteFile(filepath.Join(dead, ".owner"), nil, 0o600))
	mkdir(t, root, "keep-me")

	live, removed, err := scratch.Open(root)
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"render-0199-abc", "job-123", "upload-9", "proc-dead"}, removed)
	assert.DirExists(t, filepath.Join(root, "keep-me"))
	mkdir(t, live.Path, "render-1")

	// A second process keeps the first one's folder, which is locked.
	other, removed, err := scratch.Open(root)
	require.NoError(t, err)
	assert.Empty(t, removed)
	assert.DirExists(t, filepath.Join(live.Path, "render-1"))
	assert.NotEqual(t, live.Path, other.Path)

	require.NoError(t, live.Close())
	assert.NoDirExists(t, live.Path)
	require.NoError(t, other.Close())
}
