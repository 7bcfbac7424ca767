package ffmpeg_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/ffmpeg"
)

func TestRunReportsProgressAndProbeReadsTheOutput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "out.mp4")
	var (
		mu       sync.Mutex
		progress []float64
	)
	err := ffmpeg.Run(context.Background(), []string{
		"-f", "lavfi", "-i", "testsrc2=size=160x90:rate=25", "-f", "lavfi", "-i", "sine=sample_rate=48000",
		"-t", "2", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", out,
	}, ffmpeg.RunOptions{Dir: dir, Duration: 2, OnProgress: func(p float64) {
		mu.Lock()
		progress = append(progress, p)
		mu.Unlock()
	}})
	require.NoError(t, err)
	require.NotEmpty(t, progress)
	assert.Equal(t, 100.0, progress[len(progress)-1])
	for i := 1; i < len(progress); i++ {
		assert.Greater(t, progress[i], progress[i-1])
	}

	info, err := ffmpeg.Probe(context.Background(), out)
	require.NoError(t, err)
	v, a := info.Video(), info.Audio()
	require.NotNil(t, v)
	require.NotNil(t, a)
	assert.Equal(t, "h264", v.CodecName)
	assert.Equal(t, 160, v.Width)
	assert.Equal(t, 90, v.Height)
	assert.InDelta(t, 25, v.FPS, 0.001)
	assert.Equal(t, 50, v.NbFrames)
	assert.Equal(t, "yuv420p", v.PixFmt)
	assert.Equal(t, "aac", a.CodecName)
	assert.Equal(t, 48000, a.SampleRate)
	assert.InDelta(t, 2, info.Duration, 0.05)
}

func TestRunFailureKeepsStderr(t *testing.T) {
	t.Parallel()
	err := ffmpeg.Run(context.Background(), []string{"-i", "/does/not/exist.mp4", filepath.Join(t.TempDir(), "o.mp4")}, ffmpeg.RunOptions{})
	var fe *ffmpeg.Error
	require.ErrorAs(t, err, &fe)
	assert.NotZero(t, fe.ExitCode)
	assert.Contains(t, fe.Stderr, "No such file")
}

func TestCancelKillsWithinASecond(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{}, 1)
	errc := make(chan error, 1)
	go func() {
		errc <- ffmpeg.Run(ctx, []string{"-re", "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25", "-t", "60",
			"-c:v", "libx264", "-preset", "ultrafast", "-f", "null", "-"},
			ffmpeg.RunOptions{Duration: 60, OnProgress: func(float64) {
				select {
				case started <- struct{}{}:
				default:
				}
			}})
	}()
	select {
	case <-started:
	case <-time.After(20 * time.Second):
		t.Fatal("ffmpeg reported no progress")
	}
	cancel()
	at := time.Now()
	select {
	case err := <-errc:
		require.ErrorIs(t, err, context.Canceled)
		assert.Less(t, time.Since(at), time.Second)
	case <-time.After(time.Second):
		t.Fatal("ffmpeg still running a second after cancel")
	}
}

func TestProbeRejectsNonMedia(t *testing.T) {
	t.Parallel()
	_, err := ffmpeg.Probe(context.Background(), "/etc/hostname")
	require.Error(t, err)
	require.NoError(t, ffmpeg.Available(context.Background()))
}
