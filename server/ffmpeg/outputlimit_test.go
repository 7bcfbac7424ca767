package ffmpeg_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/ffmpeg"
)

// folderSize sums the files of dir.
func folderSize(t *testing.T, dir string) int64 {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var n int64
	for _, e := range entries {
		info, err := e.Info()
		require.NoError(t, err)
		n += info.Size()
	}
	return n
}

// 10 s of raw 640×360 noise is 346 MB; a bound of 4 MiB stops it there.
func TestRunStopsAFileAtMaxOutputBytes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const limit = 4 << 20
	err := ffmpeg.Run(context.Background(), []string{
		"-f", "lavfi", "-i", "nullsrc=size=640x360:rate=60,geq=random(1)*255:128:128", "-t", "10",
		"-f", "rawvideo", "out.raw",
	}, ffmpeg.RunOptions{Dir: dir, Duration: 10, MaxOutputBytes: limit})
	var tooLarge *ffmpeg.OutputTooLargeError
	require.ErrorAs(t, err, &tooLarge)
	assert.EqualValues(t, limit, tooLarge.Limit)
	assert.Equal(t, "the output grew past the limit of 4 MiB", err.Error())
	assert.LessOrEqual(t, folderSize(t, dir), int64(limit), "no file passes the bound")
}

// Many small files (a sequence of pictures, a playlist's segments) are
// bounded together, not each alone.
func TestRunStopsManyFilesAtMaxOutputBytesTogether(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "source.bin"), make([]byte, 8<<20), 0o644))
	const limit = 4 << 20
	err := ffmpeg.Run(context.Background(), []string{
		"-f", "lavfi", "-i", "nullsrc=size=320x240:rate=60,geq=random(1)*255:128:128", "-t", "60",
		"-c:v", "bmp", "frame-%05d.bmp",
	}, ffmpeg.RunOptions{Dir: dir, Duration: 60, MaxOutputBytes: limit})
	var tooLarge *ffmpeg.OutputTooLargeError
	require.ErrorAs(t, err, &tooLarge, "each frame is 230 KB, 3,600 frames 830 MB")
	// What was in the folder before does not count; the overshoot is what
	// ffmpeg writes between two measures.
	assert.Less(t, folderSize(t, dir), int64(8<<20+limit+100<<20))
}

func TestRunWithinMaxOutputBytesSucceeds(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	err := ffmpeg.Run(context.Background(), []string{
		"-f", "lavfi", "-i", "testsrc2=size=160x90:rate=25", "-t", "1", "-c:v", "libx264", "-preset", "ultrafast", "out.mp4",
	}, ffmpeg.RunOptions{Dir: dir, Duration: 1, MaxOutputBytes: 4 << 20})
	require.NoError(t, err)
}
