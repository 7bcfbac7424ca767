package media

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/apierr"
	"github.com/kinohq/kino/server/mockup"
)

// TestPictureWaitsForAWorker: an upload waits for a free worker at most
// the time limit, then is told the server is busy; a worker freed while it
// waits is taken.
func TestPictureWaitsForAWorker(t *testing.T) {
	t.Parallel()
	s := NewAssetService(nil, nil, UploadOptions{Workers: 1, Timeout: 50 * time.Millisecond}, slog.New(slog.DiscardHandler))
	s.workers <- struct{}{} // the only worker is busy
	start := time.Now()
	_, _, _, err := s.picture(context.Background(), "/nonexistent", t.TempDir())
	require.ErrorIs(t, err, errBusy)
	assert.GreaterOrEqual(t, time.Since(start), 50*time.Millisecond)

	s = NewAssetService(nil, nil, UploadOptions{Workers: 1, Timeout: time.Minute}, slog.New(slog.DiscardHandler))
	s.workers <- struct{}{}
	done := make(chan error)
	go func() {
		_, _, _, err := s.picture(context.Background(), "/nonexistent", t.TempDir())
		done <- err
	}()
	<-s.workers // the busy upload finishes
	err = <-done
	require.Error(t, err)
	assert.NotErrorIs(t, err, errBusy)
	assert.Contains(t, err.Error(), "could not be decoded")
	assert.Empty(t, s.workers, "the worker is given back")
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
