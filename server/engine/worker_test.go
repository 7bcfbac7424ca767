package engine

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/ffmpeg"
	"github.com/kinohq/kino/server/glyphs"
	"github.com/kinohq/kino/server/mockup"
)

// What the worker does around the engine, done the same way by the tests
// that run what the engine plans.

// inputs are what a test's plan reads: media, a default font, and the
// templates of mockup layers decoded from their files.
func inputs(media map[string]Media, font string) Inputs {
	return Inputs{Media: media, DefaultFont: font, Templates: loadTemplate, Fonts: testFonts}
}

// testFonts are this machine's fallback fonts, read once for every test.
var testFonts = glyphs.NewMachine(glyphs.DefaultDirs()...)

// loadTemplate decodes a template as a node with the default pixel bound
// does.
func loadTemplate(path string) (*mockup.Template, func(), error) {
	t, c, err := mockup.Load(path, ffmpeg.DefaultMaxPixels)
	if err != nil {
		return nil, nil, err
	}
	return t, func() { c.Close() }, nil
}

// measureLoudness runs the loudness pass of s, when it has one, and keeps
// its measure.
func measureLoudness(t *testing.T, s *Scene, media map[string]Media, work string) {
	t.Helper()
	cmd, err := PlanLoudness(context.Background(), s, inputs(media, testFont), work)
	require.NoError(t, err)
	if cmd == nil {
		return
	}
	require.NoError(t, cmd.WriteFiles(work))
	s.Loudness.Measured, err = ffmpeg.MeasureLoudness(context.Background(), cmd.Args, ffmpeg.RunOptions{Dir: work})
	require.NoError(t, err)
}

// seekVideos probes where the videos s cuts seek to, and records it.
func seekVideos(t *testing.T, s *Scene, media map[string]Media) {
	t.Helper()
	for _, sk := range s.Seeks(media) {
		first, err := ffmpeg.FirstFrameAfter(context.Background(), ffmpeg.Limits{}, sk.Path, sk.Format, sk.Trim)
		require.NoError(t, err, sk.Field)
		s.Seeked(sk, first)
	}
}
