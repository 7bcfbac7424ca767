package ffmpeg_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/ffmpeg"
)

// TestProbeFastAgreesWithFFprobe reads real files of each container and
// codec it reads itself, and compares every field it fills with ffprobe's.
func TestProbeFastAgreesWithFFprobe(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "subs.srt"), []byte("1\n00:00:00,000 --> 00:00:01,000\nhello\n"), 0o644))
	video := []string{"-f", "lavfi", "-i", "testsrc2=size=160x90:rate=25"}
	audio := []string{"-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100"}
	cases := map[string][]string{
		"h264-aac.mp4": append(append(append([]string{}, video...), audio...), "-t", "2", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac"),
		"faststart.mp4": append(append(append([]string{}, video...), audio...), "-t", "2.5", "-c:v", "libx264", "-preset", "ultrafast",
			"-pix_fmt", "yuv420p", "-c:a", "aac", "-ac", "2", "-movflags", "+faststart"),
		"bframes.mov":  append(append([]string{}, video...), "-t", "2", "-c:v", "libx264", "-preset", "medium"),
		"surround.mp4": append(append([]string{}, audio...), "-t", "1", "-c:a", "aac", "-ac", "6"),
		"audio.m4a":    append(append([]string{}, audio...), "-t", "1.5", "-c:a", "aac"),
		"mpeg4.mp4":    append(append([]string{}, video...), "-t", "1", "-c:v", "mpeg4"),
		"opus.mp4":     append(append([]string{}, audio...), "-t", "1", "-c:a", "libopus", "-ar", "48000"),
		"subtitled.mp4": append(append(append([]string{}, video...), "-i", "subs.srt"), "-t", "1", "-map", "0", "-map", "1",
			"-c:v", "libx264", "-preset", "ultrafast", "-c:s", "mov_text"),
		"mono48k.mp3":    {"-f", "lavfi", "-i", "sine=sample_rate=48000", "-t", "1.7", "-ac", "1", "-c:a", "libmp3lame"},
		"stereo44k.mp3":  {"-f", "lavfi", "-i", "sine=sample_rate=44100", "-t", "2.2", "-ac", "2", "-c:a", "libmp3lame"},
		"vbr.mp3":        {"-f", "lavfi", "-i", "sine=sample_rate=44100", "-t", "1.3", "-ac", "2", "-c:a", "libmp3lame", "-q:a", "4"},
		"mpeg2-22k.mp3":  {"-f", "lavfi", "-i", "sine=sample_rate=22050", "-t", "1.1", "-ac", "1", "-c:a", "libmp3lame"},
		"s16.wav":        {"-f", "lavfi", "-i", "sine=sample_rate=16000", "-t", "1.25", "-ac", "1"},
		"s24-stereo.wav": {"-f", "lavfi", "-i", "sine=sample_rate=48000", "-t", "0.9", "-ac", "2", "-c:a", "pcm_s24le"},
		"f32.wav":        {"-f", "lavfi", "-i", "sine=sample_rate=44100", "-t", "0.5", "-c:a", "pcm_f32le"},
		"still.png":      append(append([]string{}, video...), "-frames:v", "1"),
		"still.jpg":      append(append([]string{}, video...), "-frames:v", "1"),
	}
	for name, args := range cases {
		cmd := exec.Command("ffmpeg", append(append([]string{"-hide_banner", "-loglevel", "error", "-y"}, args...), name)...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s: %s", name, out)

		path := filepath.Join(dir, name)
		if ext := filepath.Ext(name); ext == ".png" || ext == ".jpg" {
			// As the runner names inputs: by field, without an extension,
			// so that ffprobe goes by the content (png_pipe, jpeg_pipe).
			bare := strings.TrimSuffix(path, ext) + "-" + ext[1:]
			require.NoError(t, os.Rename(path, bare))
			path = bare
		}
		want, err := ffmpeg.Probe(context.Background(), ffmpeg.Limits{}, path)
		require.NoError(t, err)
		got, ok := ffmpeg.ReadContainer(path)
		require.True(t, ok, "%s is read without ffprobe", name)
		assert.Equal(t, want.FormatName, got.FormatName, name)
		assert.InDelta(t, want.Duration, got.Duration, 0.001, name)
		require.Len(t, got.Streams, len(want.Streams), name)
		for i, w := range want.Streams {
			g := got.Streams[i]
			assert.Equal(t, w.Index, g.Index, name)
			assert.Equal(t, w.CodecType, g.CodecType, name)
			assert.Equal(t, w.CodecName, g.CodecName, "%s stream %d", name, i)
			assert.Equal(t, w.Width, g.Width, name)
			assert.Equal(t, w.Height, g.Height, name)
			assert.Equal(t, w.SampleRate, g.SampleRate, name)
			assert.Equal(t, w.Channels, g.Channels, name)
			assert.Equal(t, w.NbFrames, g.NbFrames, "%s stream %d", name, i)
			assert.InDelta(t, w.Duration, g.Duration, 0.05, "%s stream %d", name, i)
			if want.Duration > 0 { // ffprobe gives pictures a nominal 25 fps
				assert.InDelta(t, w.FPS, g.FPS, 0.5, "%s stream %d", name, i)
			}
		}
	}
}

// TestProbeFastLeavesTheRestToFFprobe: what it does not read natively is
// still probed, by ffprobe.
func TestProbeFastLeavesTheRestToFFprobe(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cases := map[string][]string{
		"fragmented.mp4": {"-f", "lavfi", "-i", "testsrc2=size=64x36:rate=10", "-t", "1", "-c:v", "libx264", "-preset", "ultrafast",
			"-movflags", "frag_keyframe+empty_moov"},
		"clip.webm": {"-f", "lavfi", "-i", "testsrc2=size=64x36:rate=10", "-t", "1", "-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8"},
		// A-law: not PCM.
		"alaw.wav": {"-f", "lavfi", "-i", "sine", "-t", "1", "-c:a", "pcm_alaw"},
		// MP3 without a Xing or Info frame.
		"plain.mp3": {"-f", "lavfi", "-i", "sine", "-t", "1", "-c:a", "libmp3lame", "-write_xing", "0"},
		// QuickTime's version 1 sound description.
		"aac.mov": {"-f", "lavfi", "-i", "sine", "-t", "1", "-c:a", "aac"},
		// MP3 in mp4: its channel count is only in the MP3 frames.
		"mp3.mp4": {"-f", "lavfi", "-i", "sine", "-t", "1", "-c:a", "libmp3lame"},
	}
	for name, args := range cases {
		cmd := exec.Command("ffmpeg", append(append([]string{"-hide_banner", "-loglevel", "error", "-y"}, args...), name)...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s: %s", name, out)
		path := filepath.Join(dir, name)
		_, ok := ffmpeg.ReadContainer(path)
		assert.False(t, ok, "%s goes to ffprobe", name)
		info, err := ffmpeg.ProbeFast(context.Background(), ffmpeg.Limits{}, path)
		require.NoError(t, err, name)
		assert.InDelta(t, 1, info.Duration, 0.1, name)
	}
	// Truncated or foreign bytes that look like an mp4 are ffprobe's to
	// judge (it finds no streams in this one).
	require.NoError(t, os.WriteFile(filepath.Join(dir, "fake.mp4"), []byte("\x00\x00\x00\x18ftypisom\x00\x00\x02\x00isomiso2\x00\x00\xff\xffmoov"), 0o644))
	_, ok := ffmpeg.ReadContainer(filepath.Join(dir, "fake.mp4"))
	assert.False(t, ok)
	info, err := ffmpeg.ProbeFast(context.Background(), ffmpeg.Limits{}, filepath.Join(dir, "fake.mp4"))
	if err == nil {
		assert.Empty(t, info.Streams)
	}
}

// FuzzReadContainer: bytes from users never crash the reader, and what it
// accepts is self-consistent.
func FuzzReadContainer(f *testing.F) {
	dir := f.TempDir()
	for _, args := range [][]string{
		{"-f", "lavfi", "-i", "testsrc2=size=32x18:rate=5", "-f", "lavfi", "-i", "sine", "-t", "0.4", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "a.mp4"},
		{"-f", "lavfi", "-i", "sine", "-t", "0.2", "-c:a", "libopus", "b.mp4"},
		{"-f", "lavfi", "-i", "testsrc2=size=8x8", "-frames:v", "1", "c.png"},
		{"-f", "lavfi", "-i", "sine", "-t", "0.2", "-c:a", "libmp3lame", "d.mp3"},
		{"-f", "lavfi", "-i", "sine", "-t", "0.1", "-c:a", "pcm_s24le", "e.wav"},
	} {
		cmd := exec.Command("ffmpeg", append([]string{"-hide_banner", "-loglevel", "error", "-y"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			f.Fatalf("%v: %s", err, out)
		}
		b, err := os.ReadFile(filepath.Join(dir, args[len(args)-1]))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "in")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		info, ok := ffmpeg.ReadContainer(path)
		if !ok {
			return
		}
		for i, s := range info.Streams {
			if s.Index != i || s.CodecType == "" || s.CodecName == "" || s.Width < 0 || s.Height < 0 || s.Channels < 0 {
				t.Fatalf("stream %d: %+v", i, s)
			}
		}
	})
}

// TestReadContainerBoundsTheBoxesItLists: a file of nothing but tiny boxes
// (8 bytes each, so millions in an upload) is left to ffprobe after a
// bounded look, not listed box by box in kino's own memory. Not parallel:
// it counts the process's allocations.
func TestReadContainerBoundsTheBoxesItLists(t *testing.T) {
	path := filepath.Join(t.TempDir(), "boxes.mp4")
	const n = 1 << 20
	b := make([]byte, 0, 24+8*n)
	b = append(b, "\x00\x00\x00\x18ftypisom\x00\x00\x02\x00isomiso2"...)
	for range n {
		b = append(b, "\x00\x00\x00\x08free"...)
	}
	require.NoError(t, os.WriteFile(path, b, 0o644))
	var ok bool
	allocs := testing.AllocsPerRun(1, func() { _, ok = ffmpeg.ReadContainer(path) })
	assert.False(t, ok, "no moov: ffprobe's to judge")
	assert.Less(t, allocs, 10_000.0, "allocations to read %d empty boxes", n)
}

// TestProbeLeavesTagsOut: ffprobe describes a file's metadata too, as long
// as the file makes it; kino asks only for what it reads, so a file of one
// huge title costs kino's own memory nothing. Not parallel: it counts the
// process's allocations.
func TestProbeLeavesTagsOut(t *testing.T) {
	dir := t.TempDir()
	title := strings.Repeat(strings.Repeat("A", 200)+"\b", 10_000) // 2 MB
	require.NoError(t, os.WriteFile(filepath.Join(dir, "meta.txt"), []byte(";FFMETADATA1\ntitle="+title+"\n"), 0o644))
	// Encoded first, then given the title: libx264 is slow to take one.
	for _, args := range [][]string{
		{"-f", "lavfi", "-i", "testsrc2=size=64x48:rate=5", "-t", "1", "-c:v", "libx264", "-preset", "ultrafast", "plain.mkv"},
		{"-i", "plain.mkv", "-f", "ffmetadata", "-i", "meta.txt", "-map", "0", "-map_metadata", "1", "-c", "copy", "titled.mkv"},
	} {
		cmd := exec.Command("ffmpeg", append([]string{"-hide_banner", "-loglevel", "error"}, args...)...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
	}

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	info, err := ffmpeg.Probe(context.Background(), ffmpeg.Limits{}, filepath.Join(dir, "titled.mkv"))
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	require.NotNil(t, info.Video())
	assert.Equal(t, 64, info.Video().Width)
	assert.InDelta(t, 1, info.Duration, 0.01)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(1<<20), "bytes allocated to probe it")
}
