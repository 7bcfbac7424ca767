package asset_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	entasset "github.com/kinohq/kino/ent/asset"
	"github.com/kinohq/kino/server/asset"
	"github.com/kinohq/kino/server/ident"
	"github.com/kinohq/kino/server/storage"
	"github.com/kinohq/kino/server/store"
)

// TestCopy: an organisation copies its own assets and the system's, and
// another organisation's asset is as if it did not exist.
func TestCopy(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	st, err := store.Open(ctx, "sqlite://"+filepath.Join(dir, "kino.db"))
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	bucket, err := storage.Open(ctx, "", dir, "http://kino.test")
	require.NoError(t, err)
	add := func(org string, scope entasset.Scope, content string) string {
		id := ident.New(ident.Asset)
		key := "assets/" + org + "/" + id + "/a.png"
		require.NoError(t, bucket.Write(ctx, key, []byte(content), "image/png"))
		_, err := st.Asset.Create().SetID(id).SetOrgID(org).SetType(entasset.TypeImage).SetName("a").SetFilename("a.png").
			SetStorageKey(key).SetFileSize(int64(len(content))).SetScope(scope).SetStatus(entasset.StatusReady).
			SetCreatedAt(1).SetUpdatedAt(1).Save(ctx)
		require.NoError(t, err)
		return id
	}
	mine, system, theirs := add("org-a", entasset.ScopeOrg, "mine"), add("admin", entasset.ScopeSystem, "system"), add("org-b", entasset.ScopeOrg, "theirs")

	for id, want := range map[string]string{mine: "mine", system: "system"} {
		path := filepath.Join(dir, "copy-"+id)
		n, err := asset.Copy(ctx, st, bucket, "org-a", id, path)
		require.NoError(t, err)
		assert.EqualValues(t, len(want), n)
		got, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, want, string(got))
	}
	_, err = asset.Copy(ctx, st, bucket, "org-a", theirs, filepath.Join(dir, "theirs"))
	assert.EqualError(t, err, "asset "+theirs+" no longer exists")
	assert.NoFileExists(t, filepath.Join(dir, "theirs"))
}
