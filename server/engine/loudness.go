package engine

import (
	"context"
	"fmt"
	"math"
	"os"
	"strings"

	"github.com/kinohq/kino/server/ffmpeg"
)

// Loudness is the loudness the output's sound is normalised to, measured
// as EBU R 128 does.
type Loudness struct {
	// Target is the integrated loudness in LUFS, −70 to −5.
	Target float64
	// TruePeak is the highest true peak in dBTP, −9 to 0.
	TruePeak float64
	// Measured is the mix as the first pass measured it: the worker runs
	// PlanLoudness's command (ffmpeg.MeasureLoudness) and sets it; nil
	// until then.
	Measured *ffmpeg.Loudness
	// measuring makes the mix measure itself instead of being normalised:
	// the first pass.
	measuring bool
}

// loudnessRange is the loudness range (LU) loudnorm keeps to when it
// normalises in one pass (a mix that was not measured): wide enough that
// speech over music is not squeezed flat.
const loudnessRange = 11

// silentBelow is the integrated loudness (LUFS) under which a mix is
// silence, left as it is: EBU R 128's absolute gate.
const silentBelow = -70

// loudness reads the output's loudness, in both formats an output field.
func (c *compiler) loudness(o *object) {
	if !o.has("loudness") {
		return
	}
	if !c.scene.HasSound() {
		c.r.fail(o.field("loudness"), "is only for outputs with sound (mp4, webm, mov, mp3, wav)")
		return
	}
	lo := o.child("loudness")
	c.scene.Loudness = &Loudness{Target: lo.number("target", -16, -70, -5), TruePeak: lo.number("truePeak", -1.5, -9, 0)}
	lo.done()
}

// normalize is the chain that brings the mix to the loudness asked for.
//
// Measured (the second pass), it is one gain, the target less the measured
// loudness, for the whole mix: quiet music stays as much quieter than the
// voice over it as the composition made it, and lands where the target
// says. Only true peaks the gain would push over the ceiling are limited,
// by a limiter with look-ahead that acts on the peaks alone, at four times
// the rate (192 kHz) so that it sees the peaks between samples. This is
// loudnorm's linear mode, done by kino: loudnorm itself falls back to its
// dynamic mode whenever the gain would push a peak over the ceiling, and
// that is the mode that pumps.
//
// Measuring (the first pass), it is loudnorm printing its measurement of
// the mix. Neither (a mix planned without its first pass), it is loudnorm
// in one pass, adjusting the gain as it goes.
//
// loudnorm and the resampler leave the channel layout open, which the
// resampler after the chain cannot settle alone: aformat names it.
func normalize(lo *Loudness) string {
	if lo == nil {
		return ""
	}
	stereo := "aformat=channel_layouts=stereo"
	if lo.measuring {
		return join(fmt.Sprintf("loudnorm=I=%s:TP=%s:LRA=%d:print_format=json", f(lo.Target), f(lo.TruePeak), loudnessRange), stereo)
	}
	m := lo.Measured
	if m == nil {
		return join(fmt.Sprintf("loudnorm=I=%s:TP=%s:LRA=%d", f(lo.Target), f(lo.TruePeak), loudnessRange), stereo)
	}
	if math.IsInf(m.Integrated, 0) || math.IsNaN(m.Integrated) || m.Integrated < silentBelow {
		return "" // silence stays silence
	}
	gain := lo.Target - m.Integrated
	chain := fmt.Sprintf("volume=volume=%sdB:precision=double", f(round2(gain)))
	if m.TruePeak+gain <= lo.TruePeak {
		return chain // no peak reaches the ceiling: the gain alone
	}
	limit := math.Pow(10, lo.TruePeak/20)
	return join(chain, "aresample=192000",
		fmt.Sprintf("alimiter=limit=%s:attack=5:release=50:level=0:latency=1", f(round4(limit))), stereo)
}

func round2(v float64) float64 { return math.Round(v*100) / 100 }
func round4(v float64) float64 { return math.Round(v*10000) / 10000 }

// PlanLoudness plans the first pass of a render with loudness: the
// scene's sound mixed as the render will mix it, measured by loudnorm and
// written nowhere. The worker runs it (ffmpeg.MeasureLoudness) and keeps
// the measure in s.Loudness.Measured, from which Plan and PlanSound then
// apply one gain. The command is nil when there is nothing to measure: a
// scene without loudness, measured already, without sound, or with
// nothing to mix (silence, left as it is). A split render's sound is
// mixed once for the whole timeline (PlanSound), so its one measure is
// the whole's too.
func PlanLoudness(ctx context.Context, s *Scene, in Inputs, workDir string) (*Command, error) {
	if s.Loudness == nil || s.Loudness.Measured != nil || !s.HasSound() {
		return nil, nil
	}
	lo := *s.Loudness
	lo.measuring = true
	m := *s
	// The mix alone, into nothing: the format's encoder does not change
	// what is measured, and WAV costs nothing to encode.
	m.Loudness, m.Format, m.Poster, m.Thumbnail = &lo, "wav", nil, nil
	cmd, err := plan(ctx, &m, in, workDir, os.DevNull, soundOnly)
	if err != nil {
		return nil, err
	}
	if !strings.Contains(strings.Join(cmd.Args, " "), "print_format=json") {
		return nil, nil // nothing mixed: silence, left as it is
	}
	return cmd, nil
}
