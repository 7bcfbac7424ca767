package render

import (
	"context"
	"io"
	"log/slog"
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
	h := newHealthCheck(st, slog.New(slog.NewTextHandler(io.Discard, nil)))

	resp := h.check(ctx)
	assert.Equal(t, "healthy", resp.GetStatus())
	assert.Equal(t, map[string]string{"store": "ok", "ffmpeg": "ok"}, resp.GetChecks())

	require.NoError(t, st.Close())
	resp = h.check(ctx)
	assert.Equal(t, "unhealthy", resp.GetStatus())
	assert.Equal(t, "unreachable: the database does not answer", resp.GetChecks()["store"])
	assert.Equal(t, "ok", resp.GetChecks()["ffmpeg"])
}
