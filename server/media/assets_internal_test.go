package media

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
