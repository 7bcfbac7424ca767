package ffmpeg_test

import (
	"context"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/ffmpeg"
)

// TestPictureHeader reads the size of every picture format it knows from
// files ffmpeg wrote, as ffprobe reads them.
func TestPictureHeader(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, name := range []string{"p.png", "p.jpg", "p.gif", "p.bmp", "p.tiff", "p.qoi", "lossy.webp", "lossless.webp"} {
		args := []string{"-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc2=size=37x23", "-frames:v", "1"}
		if name == "lossless.webp" {
			args = append(args, "-lossless", "1")
		}
		if name == "p.jpg" {
			args = append(args, "-pix_fmt", "yuvj444p")
		}
		out, err := exec.Command("ffmpeg", append(args, filepath.Join(dir, name))...).CombinedOutput()
		require.NoError(t, err, "%s", out)
		w, h, ok := ffmpeg.PictureHeader(filepath.Join(dir, name))
		require.True(t, ok, name)
		info, err := ffmpeg.Probe(context.Background(), ffmpeg.Limits{}, filepath.Join(dir, name))
		require.NoError(t, err, name)
		assert.Equal(t, [2]int{info.Video().Width, info.Video().Height}, [2]int{w, h}, name)
		assert.InDelta(t, 37, w, 1, name) // encoders may round to even sizes
		assert.InDelta(t, 23, h, 1, name)
	}
}

// TestProbeRefusesBombsAndReferences: a picture declaring more pixels than
// the limit, and files that name other files, are refused from their
// first bytes with an *InputError saying why.
func TestProbeRefusesBombsAndReferences(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// An extended WebP declaring a 20000×20000 canvas, and nothing else.
	webp := []byte("RIFF\x00\x00\x00\x00WEBPVP8X\x0a\x00\x00\x00\x00\x00\x00\x00")
	webp = append(webp, 0, 0, 0, 0, 0, 0)
	put24 := func(b []byte, v int) { b[0], b[1], b[2] = byte(v), byte(v>>8), byte(v>>16) }
	put24(webp[24:], 20000-1)
	put24(webp[27:], 20000-1)
	binary.LittleEndian.PutUint32(webp[4:], uint32(len(webp)-8))
	// Photoshop headers declaring 30000×30000 pixels (the most a PSD may
	// have) and 2³²-1 square, whose pixel count overflows an int64.
	psd := func(w, h uint32) string {
		b := []byte("8BPS\x00\x01\x00\x00\x00\x00\x00\x00\x00\x03")
		b = binary.BigEndian.AppendUint32(b, h)
		b = binary.BigEndian.AppendUint32(b, w)
		return string(append(b, 0, 8, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1))
	}
	// A little-endian TIFF whose first image is 40000×40000 (LONG values).
	tiff := []byte("II*\x00\x08\x00\x00\x00\x02\x00")
	for _, tag := range []uint16{256, 257} {
		tiff = binary.LittleEndian.AppendUint16(tiff, tag)
		tiff = binary.LittleEndian.AppendUint16(tiff, 4)
		tiff = binary.LittleEndian.AppendUint32(tiff, 1)
		tiff = binary.LittleEndian.AppendUint32(tiff, 40000)
	}
	tiff = append(tiff, 0, 0, 0, 0)
	files := map[string]struct {
		content, reason string
	}{
		"bomb.tiff": {string(tiff), "40000×40000 pixels"},
		"bomb.qoi":  {"qoif\x00\x00\x9c\x40\x00\x00\x9c\x40\x04\x00", "40000×40000 pixels"},
		"bomb.webp": {string(webp), "20000×20000 pixels"},
		"bomb.psd":  {psd(30000, 30000), "30000×30000 pixels"},
		"huge.psd":  {psd(1<<32-1, 1<<32-1), "4294967295×4294967295 pixels"},
		"list.m3u8": {"#EXTM3U\n#EXTINF:1,\nfile:///etc/hostname\n#EXT-X-ENDLIST\n", "HLS playlist"},
		"concat":    {"ffconcat version 1.0\nfile /etc/hostname\n", "concat list"},
		"dash":      {"<?xml version=\"1.0\"?>\n<MPD xmlns=\"urn:mpeg:dash:schema:mpd:2011\"></MPD>\n", "DASH manifest"},
	}
	for name, f := range files {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(f.content), 0o644))
		for probe, fn := range map[string]func(context.Context, ffmpeg.Limits, string) (*ffmpeg.Info, error){"Probe": ffmpeg.Probe, "ProbeFast": ffmpeg.ProbeFast} {
			_, err := fn(context.Background(), ffmpeg.Limits{}, path)
			var ie *ffmpeg.InputError
			require.True(t, errors.As(err, &ie), "%s of %s: %v", probe, name, err)
			assert.Contains(t, ie.Reason, f.reason, "%s of %s", probe, name)
		}
	}
}

// TestInputArgsForceTheDemuxer: an input is opened with the demuxer kino
// probed and nothing but local files.
func TestInputArgsForceTheDemuxer(t *testing.T) {
	t.Parallel()
	info := &ffmpeg.Info{FormatName: "mov,mp4,m4a,3gp,3g2,mj2"}
	assert.Equal(t, []string{"-protocol_whitelist", "file", "-f", "mov", "-max_pixels", "50000000", "-ss", "1", "-i", "file:/in"},
		ffmpeg.InputArgs(ffmpeg.Limits{}, info, "/in", "-ss", "1"))
	_, err := (&ffmpeg.Info{FormatName: "hls"}).Demuxer()
	assert.Error(t, err)
}

// TestMemoryLimit: an ffmpeg run that needs more memory than its limit
// fails instead of taking it; the same run within the default succeeds.
func TestMemoryLimit(t *testing.T) {
	t.Parallel()
	// One 8000×8000 RGBA frame is 256 MB.
	args := []string{"-f", "lavfi", "-i", "color=c=red:s=8000x8000:d=0.04", "-vf", "format=rgba", "-frames:v", "1", "-f", "null", "-"}
	err := ffmpeg.Run(context.Background(), args, ffmpeg.RunOptions{Dir: t.TempDir(), Limits: ffmpeg.Limits{MaxMemory: 200 << 20}})
	var fe *ffmpeg.Error
	require.True(t, errors.As(err, &fe), "the run fails: %v", err)
	require.NoError(t, ffmpeg.Run(context.Background(), args, ffmpeg.RunOptions{Dir: t.TempDir()}), "and succeeds with the default limit")
}

// TestLimitsAreTheCallers: the pixel bound of a probe and of an input is
// the one the caller passes, so that two nodes in one process keep their
// own.
func TestLimitsAreTheCallers(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "p.png")
	out, err := exec.Command("ffmpeg", "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", "color=size=100x100", "-frames:v", "1", path).CombinedOutput()
	require.NoError(t, err, "%s", out)
	small := ffmpeg.Limits{MaxPixels: 5000}
	_, err = ffmpeg.Probe(context.Background(), small, path)
	var ie *ffmpeg.InputError
	require.ErrorAs(t, err, &ie)
	assert.Contains(t, ie.Reason, "more than the limit of 5000 pixels")
	require.ErrorAs(t, ffmpeg.CheckHeader(small, path), &ie)
	_, err = ffmpeg.ProbeFast(context.Background(), small, path)
	require.ErrorAs(t, err, &ie)
	info, err := ffmpeg.Probe(context.Background(), ffmpeg.Limits{}, path)
	require.NoError(t, err, "within the default")
	require.NoError(t, ffmpeg.CheckHeader(ffmpeg.Limits{}, path))
	assert.Equal(t, []string{"-protocol_whitelist", "file", "-f", "png_pipe", "-max_pixels", "5000", "-i", "file:" + path},
		ffmpeg.InputArgs(small, info, path))
}
