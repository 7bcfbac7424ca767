package media

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/apierr"
	"github.com/kinohq/kino/server/auth"
	"github.com/kinohq/kino/server/mockup"
)

// TestPictureWaitsForAWorker: an upload waits for a free worker at most
// the time limit, then is told the server is busy; a worker freed while it
// waits is taken.
func TestPictureWaitsForAWorker(t *testing.T) {
	t.Parallel()
	s := NewAssetService(nil, nil, UploadOptions{Workers: 1, Timeout: 50 * time.Millisecond}, slog.New(slog.DiscardHandler))
	_, err := s.workers.TryAcquire(auth.DefaultOrg) // the only worker is busy
	require.NoError(t, err)
	start := time.Now()
	_, _, _, err = s.picture(context.Background(), "/nonexistent", t.TempDir())
	require.ErrorIs(t, err, errBusy)
	assert.GreaterOrEqual(t, time.Since(start), 50*time.Millisecond)

	s = NewAssetService(nil, nil, UploadOptions{Workers: 1, Timeout: time.Minute}, slog.New(slog.DiscardHandler))
	busy, err := s.workers.TryAcquire(auth.DefaultOrg)
	require.NoError(t, err)
	done := make(chan error)
	go func() {
		_, _, _, err := s.picture(context.Background(), "/nonexistent", t.TempDir())
		done <- err
	}()
	for s.workers.Use(auth.DefaultOrg).Waiting == 0 {
		runtime.Gosched()
	}
	busy() // the busy upload finishes
	err = <-done
	require.Error(t, err)
	assert.NotErrorIs(t, err, errBusy)
	assert.Contains(t, err.Error(), "could not be decoded")
	assert.Zero(t, s.workers.Held(), "the worker is given back")
}

// TestManifestIsBounded: a template's manifest is its asset's metadata,
// listed with it; one of long texts is refused naming file, an ordinary
// one of 2,000 layers is kept.
func TestManifestIsBounded(t *testing.T) {
	t.Parallel()
	long := &mockup.Manifest{Texts: []mockup.TextLayer{{Path: "t", Text: strings.Repeat("x", 2<<20)}}}
	_, err := manifestJSON(long)
	var apiErr *apierr.Error
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, apierr.Validation, apiErr.Code)
	assert.Contains(t, err.Error(), "file: the template's layer names and texts take")

	ordinary := &mockup.Manifest{}
	for i := range 2000 {
		ordinary.Layers = append(ordinary.Layers, mockup.LayerInfo{Path: fmt.Sprintf("Group %d/Layer %d", i/10, i), Name: fmt.Sprintf("Layer %d", i), Kind: "pixel", Visible: true, Blend: "normal", Opacity: 1})
	}
	b, err := manifestJSON(ordinary)
	require.NoError(t, err)
	assert.Less(t, len(b), maxManifestBytes/2)
}
