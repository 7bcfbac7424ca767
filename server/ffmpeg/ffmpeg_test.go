package ffmpeg_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/ffmpeg"
)

func TestRunReportsProgressAndProbeReadsTheOutput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var progress []float64
	// -re paces the input in real time, so ffmpeg reports a few times
	// before the end instead of finishing within one stats period.
	err := ffmpeg.Run(context.Background(), []string{
		"-re", "-f", "lavfi", "-i", "testsrc2=size=160x90:rate=25", "-f", "lavfi", "-i", "sine=sample_rate=48000",
		"-t", "1", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "out.mp4",
	}, ffmpeg.RunOptions{Dir: dir, Duration: 1, OnProgress: func(p float64) { progress = append(progress, p) }})
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(progress), 2, "a report before the end: %v", progress)
	assert.Equal(t, 100.0, progress[len(progress)-1])
	for i, p := range progress {
		assert.True(t, p >= 0 && p <= 100, "in range: %v", progress)
		if i > 0 {
			assert.Greater(t, p, progress[i-1], "increasing: %v", progress)
		}
		if i < len(progress)-1 {
			assert.Less(t, p, 100.0, "100 only at the end: %v", progress)
		}
	}

	out := filepath.Join(dir, "out.mp4")
	info, err := ffmpeg.Probe(context.Background(), ffmpeg.Limits{}, out)
	require.NoError(t, err)
	assert.Contains(t, info.FormatName, "mp4")
	assert.InDelta(t, 1, info.Duration, 0.05)
	v, a := info.Video(), info.Audio()
	require.NotNil(t, v)
	require.NotNil(t, a)
	assert.Equal(t, ffmpeg.Stream{Index: 0, CodecType: "video", CodecName: "h264", Width: 160, Height: 90, FPS: 25, NbFrames: 25, Duration: 1, PixFmt: "yuv420p"}, *v)
	assert.Equal(t, "aac", a.CodecName)
	assert.Equal(t, 48000, a.SampleRate)
	assert.Equal(t, 1, a.Channels)

	counted, err := ffmpeg.ProbeFrames(context.Background(), ffmpeg.Limits{}, out)
	require.NoError(t, err)
	assert.Equal(t, 25, counted.Video().NbFrames)
}

func TestProbeFramesCountsWhatTheContainerDoesNotSay(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, ffmpeg.Run(context.Background(), []string{"-f", "lavfi", "-i", "testsrc2=size=64x36:rate=10", "-t", "1.5",
		"-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-pix_fmt", "yuv420p", "out.webm"}, ffmpeg.RunOptions{Dir: dir}))
	path := filepath.Join(dir, "out.webm")
	info, err := ffmpeg.Probe(context.Background(), ffmpeg.Limits{}, path)
	require.NoError(t, err)
	assert.Equal(t, 0, info.Video().NbFrames, "WebM declares no frame count")
	assert.Nil(t, info.Audio())
	info, err = ffmpeg.ProbeFrames(context.Background(), ffmpeg.Limits{}, path)
	require.NoError(t, err)
	assert.Equal(t, 15, info.Video().NbFrames)
	assert.InDelta(t, 10, info.Video().FPS, 0.001)
}

func TestRunFailureKeepsStderr(t *testing.T) {
	t.Parallel()
	var progress []float64
	err := ffmpeg.Run(context.Background(), []string{"-i", "/does/not/exist.mp4", filepath.Join(t.TempDir(), "o.mp4")},
		ffmpeg.RunOptions{Duration: 1, OnProgress: func(p float64) { progress = append(progress, p) }})
	var fe *ffmpeg.Error
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, 1, fe.ExitCode)
	assert.Contains(t, fe.Stderr, "No such file")
	assert.Contains(t, fe.Error(), "No such file")
	assert.NotContains(t, progress, 100.0)
}

func TestCancelKillsWithinASecond(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	started := make(chan struct{}, 1)
	errc := make(chan error, 1)
	go func() {
		// A minute of real-time input: only the cancel can end it soon.
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
	select {
	case err := <-errc:
		require.ErrorIs(t, err, context.Canceled)
	case <-time.After(time.Second):
		t.Fatal("ffmpeg still running a second after cancel")
	}
}

func TestRunWithCancelledContextDoesNotStart(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := ffmpeg.Run(ctx, []string{"-f", "lavfi", "-i", "testsrc2", "-t", "1", "-f", "null", "-"}, ffmpeg.RunOptions{})
	require.ErrorIs(t, err, context.Canceled)
}

func TestProbeRejectsNonMedia(t *testing.T) {
	t.Parallel()
	_, err := ffmpeg.Probe(context.Background(), ffmpeg.Limits{}, "/etc/hostname")
	require.Error(t, err)
	_, err = ffmpeg.Probe(context.Background(), ffmpeg.Limits{}, "/does/not/exist")
	require.Error(t, err)
}

func TestAvailable(t *testing.T) {
	t.Parallel()
	require.NoError(t, ffmpeg.Available(context.Background()))
}
