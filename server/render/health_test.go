package render

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/store"
)

func TestHealthNamesTheFailingCheck(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.Open(ctx, "sqlite://"+filepath.Join(t.TempDir(), "kino.db"))
	require.NoError(t, err)
	h := newHealthCheck(st)

	resp := h.check(ctx)
	assert.Equal(t, "healthy", resp.GetStatus())
	assert.Equal(t, map[string]string{"store": "ok", "ffmpeg": "ok"}, resp.GetChecks())

	require.NoError(t, st.Close())
	resp = h.check(ctx)
	assert.Equal(t, "unhealthy", resp.GetStatus())
	assert.Contains(t, resp.GetChecks()["store"], "unreachable")
	assert.Equal(t, "ok", resp.GetChecks()["ffmpeg"])
}
