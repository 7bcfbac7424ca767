package ffmpeg_test

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kinohq/kino/server/ffmpeg"
)

func TestParseLoudnorm(t *testing.T) {
	t.Parallel()
	m, err := ffmpeg.ParseLoudnorm(strings.Split("{\n\t\"input_i\" : \"-27.61\",\n\t\"input_tp\" : \"-4.47\",\n\t\"input_lra\" : \"18.06\",\n\t\"input_thresh\" : \"-39.20\",\n"+
		"\t\"output_i\" : \"-16.58\",\n\t\"output_tp\" : \"-1.50\",\n\t\"output_lra\" : \"14.78\",\n\t\"output_thresh\" : \"-27.71\",\n\t\"normalization_type\" : \"dynamic\",\n\t\"target_offset\" : \"0.58\"\n}\n[info] after", "\n"))
	require.NoError(t, err)
	assert.Equal(t, ffmpeg.Loudness{Integrated: -27.61, TruePeak: -4.47, Range: 18.06, Threshold: -39.2}, *m)
	m, err = ffmpeg.ParseLoudnorm([]string{"{", `"input_i" : "-inf",`, `"input_tp" : "-inf",`, `"input_lra" : "0.00",`, `"input_thresh" : "-70.00"`, "}"})
	require.NoError(t, err)
	assert.True(t, math.IsInf(m.Integrated, -1))
	_, err = ffmpeg.ParseLoudnorm([]string{"{", `"input_i" : "-2`})
	assert.Error(t, err)
}

// TestMeasureLoudness: the measure of a tone follows its level, 20 dB
// for a tenth of the amplitude; a command that prints none is an error.
func TestMeasureLoudness(t *testing.T) {
	t.Parallel()
	measure := func(volume string) (*ffmpeg.Loudness, error) {
		args := []string{"-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=48000:duration=2",
			"-af", "volume=" + volume + ",loudnorm=I=-16:TP=-1.5:LRA=11:print_format=json", "-f", "null", "-"}
		return ffmpeg.MeasureLoudness(context.Background(), args, ffmpeg.RunOptions{Dir: t.TempDir()})
	}
	loud, err := measure("1")
	require.NoError(t, err)
	quiet, err := measure("0.1")
	require.NoError(t, err)
	assert.InDelta(t, 20, loud.Integrated-quiet.Integrated, 0.5, "loud %+v, quiet %+v", *loud, *quiet)
	assert.Less(t, loud.TruePeak, 0.0)

	_, err = ffmpeg.MeasureLoudness(context.Background(), []string{"-f", "lavfi", "-i", "anullsrc", "-t", "0.1", "-f", "null", "-"},
		ffmpeg.RunOptions{Dir: t.TempDir()})
	require.ErrorContains(t, err, "no measurement")
}
