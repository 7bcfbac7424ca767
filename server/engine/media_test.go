package engine

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/ffmpeg"
)

func TestMediaFromInfo(t *testing.T) {
	t.Parallel()
	video := func(nbFrames int) ffmpeg.Stream {
		return ffmpeg.Stream{CodecType: "video", CodecName: "x", Width: 64, Height: 48, NbFrames: nbFrames}
	}
	audio := ffmpeg.Stream{CodecType: "audio", CodecName: "aac", SampleRate: 48000, Channels: 2}
	cases := []struct {
		name string
		info ffmpeg.Info
		want Media
	}{
		{"PNG without extension", ffmpeg.Info{FormatName: "png_pipe", Streams: []ffmpeg.Stream{video(0)}},
			Media{Path: "/p", Format: "png_pipe", HasVideo: true, Still: true, Width: 64, Height: 48}},
		{"JPEG with extension", ffmpeg.Info{FormatName: "image2", Duration: 0.04, Streams: []ffmpeg.Stream{video(0)}},
			Media{Path: "/p", HasVideo: true, Still: true, Duration: 0.04, Width: 64, Height: 48}},
		{"GIF of one frame", ffmpeg.Info{FormatName: "gif", Duration: 0.1, Streams: []ffmpeg.Stream{video(1)}},
			Media{Path: "/p", Format: "gif", HasVideo: true, Still: true, Duration: 0.1, Width: 64, Height: 48}},
		{"animated GIF", ffmpeg.Info{FormatName: "gif", Duration: 1, Streams: []ffmpeg.Stream{video(5)}},
			Media{Path: "/p", Format: "gif", HasVideo: true, Duration: 1, Width: 64, Height: 48}},
		{"video with sound", ffmpeg.Info{FormatName: "mov,mp4,m4a,3gp,3g2,mj2", Duration: 2, Streams: []ffmpeg.Stream{audio, video(48)}},
			Media{Path: "/p", Format: "mov", HasVideo: true, HasAudio: true, Duration: 2, Width: 64, Height: 48}},
		{"WebM, frame count unknown", ffmpeg.Info{FormatName: "matroska,webm", Duration: 2, Streams: []ffmpeg.Stream{video(0)}},
			Media{Path: "/p", Format: "matroska", HasVideo: true, Duration: 2, Width: 64, Height: 48}},
		{"sound only", ffmpeg.Info{FormatName: "wav", Duration: 3, Streams: []ffmpeg.Stream{audio}},
			Media{Path: "/p", Format: "wav", HasAudio: true, Duration: 3}},
		{"neither", ffmpeg.Info{FormatName: "tty", Streams: []ffmpeg.Stream{{CodecType: "subtitle"}}},
			Media{Path: "/p"}},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, MediaFromInfo("/p", &tc.info), tc.name)
	}
}

func TestFontFromFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, tc := range map[string]struct {
		head []byte
		font bool
	}{
		"ttf":   {[]byte{0, 1, 0, 0, 9, 9}, true},
		"otf":   {[]byte("OTTO\x00\x0a"), true},
		"mac":   {[]byte("true...."), true},
		"ttc":   {[]byte("ttcf...."), true},
		"woff":  {[]byte("wOFF...."), true},
		"woff2": {[]byte("wOF2...."), true},
		"png":   {[]byte("\x89PNG\r\n\x1a\n"), false},
		"short": {[]byte("OT"), false},
		"empty": {nil, false},
	} {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, tc.head, 0o600))
		m, err := FontFromFile(path)
		require.NoError(t, err, name)
		assert.Equal(t, Media{Path: path, Font: tc.font}, m, name)
	}
	_, err := FontFromFile(filepath.Join(dir, "missing"))
	require.Error(t, err)
}

// TestMediaFromInfoTurned: a video stored landscape with a quarter turn
// in its display matrix is decoded portrait, and described so.
func TestMediaFromInfoTurned(t *testing.T) {
	t.Parallel()
	for rotation, want := range map[int][2]int{0: {80, 60}, 90: {60, 80}, -90: {60, 80}, -180: {80, 60}, 270: {60, 80}} {
		info := ffmpeg.Info{FormatName: "mov,mp4,m4a,3gp,3g2,mj2", Duration: 1,
			Streams: []ffmpeg.Stream{{CodecType: "video", Width: 80, Height: 60, Rotation: rotation, NbFrames: 10}}}
		m := MediaFromInfo("/p", &info)
		assert.Equal(t, want, [2]int{m.Width, m.Height}, "rotation %d", rotation)
	}
}
