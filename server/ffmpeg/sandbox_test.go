package ffmpeg_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/ffmpeg"
)

// sandboxed runs ffmpeg behind the second wall alone: the arguments are
// hostile and no parser checked them.
func sandboxed(t *testing.T, dir string, args ...string) error {
	t.Helper()
	w := ffmpeg.ProbeWalls()
	if !w.Complete() {
		t.Skipf("the kernel offers no complete sandbox here: %s", w.Err)
	}
	return ffmpeg.Run(context.Background(), args, ffmpeg.RunOptions{Dir: dir, Sandbox: &ffmpeg.Sandbox{CPUSeconds: 60}, MaxOutputBytes: 64 << 20})
}

func TestSandboxRunsAnOrdinaryEncode(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, sandboxed(t, dir, "-f", "lavfi", "-i", "testsrc2=size=160x90:rate=25", "-f", "lavfi", "-i", "sine",
		"-t", "0.5", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-shortest", "out.mp4"))
	info, err := ffmpeg.Probe(context.Background(), ffmpeg.Limits{}, filepath.Join(dir, "out.mp4"))
	require.NoError(t, err)
	assert.Equal(t, 160, info.Video().Width)
	// Text is drawn with a system font: fonts stay readable.
	require.NoError(t, sandboxed(t, dir, "-f", "lavfi", "-i", "color=size=160x90", "-vf", "drawtext=text=hi:fontsize=20",
		"-frames:v", "1", "text.png"))
}

// copyArgs copy the bytes of src into dst in the job's folder, as the
// data format reads any file.
func copyArgs(src, dst string) []string {
	return []string{"-f", "data", "-i", src, "-map", "0", "-c", "copy", "-f", "data", dst}
}

func TestSandboxRefusesReadingOutsideTheFolder(t *testing.T) {
	t.Parallel()
	for _, src := range []string{"/etc/passwd", "file:/etc/passwd", "file:../../../../../etc/passwd", "/proc/self/environ", "/root/.bash_history"} {
		t.Run(src, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			err := sandboxed(t, dir, copyArgs(src, "stolen.bin")...)
			require.Error(t, err, "the kernel refuses the read")
			_, statErr := os.Stat(filepath.Join(dir, "stolen.bin"))
			if statErr == nil {
				b, _ := os.ReadFile(filepath.Join(dir, "stolen.bin"))
				assert.Empty(t, b, "nothing was copied out")
			}
		})
	}
	// Unsandboxed, the same arguments do read the file: the refusal
	// above is the wall's.
	dir := t.TempDir()
	require.NoError(t, ffmpeg.Run(context.Background(), copyArgs("/etc/passwd", "stolen.bin"), ffmpeg.RunOptions{Dir: dir}))
	b, err := os.ReadFile(filepath.Join(dir, "stolen.bin"))
	require.NoError(t, err)
	assert.Contains(t, string(b), "root:")
}

func TestSandboxRefusesWritingOutsideTheFolder(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dir := filepath.Join(root, "job")
	require.NoError(t, os.Mkdir(dir, 0o755))
	for _, out := range []string{filepath.Join(root, "escaped.png"), "../escaped2.png", "file:" + filepath.Join(root, "escaped3.png")} {
		err := sandboxed(t, dir, "-f", "lavfi", "-i", "color=size=16x16", "-frames:v", "1", out)
		require.Error(t, err, out)
	}
	entries, err := os.ReadDir(root)
	require.NoError(t, err)
	require.Len(t, entries, 1, "only the job's folder: %v", entries)
}

func TestSandboxHasNoNetwork(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	t.Cleanup(srv.Close)
	for _, u := range []string{srv.URL + "/clip.mp4", "http://169.254.169.254/latest/meta-data/", "tcp://127.0.0.1:22"} {
		dir := t.TempDir()
		err := sandboxed(t, dir, "-protocol_whitelist", "http,tcp,file", "-i", u, "-f", "null", "-")
		require.Error(t, err, u)
	}
	assert.Zero(t, hits.Load(), "no request reached the host's loopback")
}

// A node whose kernel lacks a wall refuses a sandboxed run, unless told
// to run behind the walls it has.
func TestSandboxRefusesToRunWithoutItsWalls(t *testing.T) {
	t.Parallel()
	none := &ffmpeg.Walls{Landlock: 0, Err: "landlock: not supported"}
	dir := t.TempDir()
	args := []string{"-f", "lavfi", "-i", "color=size=16x16", "-frames:v", "1", "out.png"}
	err := ffmpeg.Run(context.Background(), args, ffmpeg.RunOptions{Dir: dir, Sandbox: &ffmpeg.Sandbox{Walls: none}})
	require.ErrorIs(t, err, ffmpeg.ErrNoSandbox)
	assert.NoFileExists(t, filepath.Join(dir, "out.png"), "ffmpeg never started")
	// Allowed to run behind what walls remain (here none): it runs.
	require.NoError(t, ffmpeg.Run(context.Background(), args, ffmpeg.RunOptions{Dir: dir, Sandbox: &ffmpeg.Sandbox{Partial: true, Walls: none}}))
	assert.FileExists(t, filepath.Join(dir, "out.png"))
}

// Not parallel: it sets FFREPORT in kino's own environment, which an
// unsandboxed ffmpeg inherits and obeys by writing a report where it says.
func TestSandboxDropsKinosEnvironment(t *testing.T) {
	if !ffmpeg.ProbeWalls().Complete() {
		t.Skip("no sandbox on this kernel")
	}
	outside := t.TempDir()
	report := filepath.Join(outside, "report.log")
	t.Setenv("FFREPORT", "file="+report+":level=32")
	args := []string{"-f", "lavfi", "-i", "color=size=16x16", "-frames:v", "1", "out.png"}
	require.NoError(t, ffmpeg.Run(context.Background(), args, ffmpeg.RunOptions{Dir: t.TempDir(), Sandbox: &ffmpeg.Sandbox{}}))
	assert.NoFileExists(t, report, "the sandboxed ffmpeg saw no FFREPORT")
	require.NoError(t, ffmpeg.Run(context.Background(), args, ffmpeg.RunOptions{Dir: t.TempDir()}))
	assert.FileExists(t, report, "unsandboxed, the same run writes it: the test can fail")
}
