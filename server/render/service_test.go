package render

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"

	renderv1 "github.com/kinohq/kino/gen/kino/render/v1"
	"github.com/kinohq/kino/server/apierr"
	"github.com/kinohq/kino/server/engine"
	"github.com/kinohq/kino/server/events"
	"github.com/kinohq/kino/server/jobs"
	"github.com/kinohq/kino/server/store"
)

func TestSubmitThatCannotBeStoredIsTriggerSubmitFailed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.Open(ctx, "sqlite://"+filepath.Join(t.TempDir(), "kino.db"))
	require.NoError(t, err)
	bus := events.NewLocal()
	svc := NewService(ServiceConfig{
		Store: st, Jobs: jobs.New(st, bus, jobs.Config{}), Limits: engine.DefaultLimits(),
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	require.NoError(t, st.Close()) // the database goes away

	comp, err := structpb.NewStruct(map[string]any{"width": 16, "height": 16, "fps": 1,
		"layers": []any{map[string]any{"type": "color", "color": "red", "duration": 1}}})
	require.NoError(t, err)
	_, err = svc.SubmitRender(ctx, &renderv1.SubmitRenderRequest{Provider: "provider_a", Composition: comp})
	code, own := apierr.FromStatus(apierr.ToStatus(err))
	assert.True(t, own)
	assert.Equal(t, apierr.TriggerSubmitFailed, code)
	assert.NotContains(t, status.Convert(apierr.ToStatus(err).Err()).Message(), "sql:", "driver errors stay in the logs")
}
