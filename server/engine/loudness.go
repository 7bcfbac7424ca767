package engine

import "fmt"

// Loudness is the loudness the output's sound is normalised to, measured
// as EBU R 128 does.
type Loudness struct {
	// Target is the integrated loudness in LUFS, −70 to −5.
	Target float64
	// TruePeak is the highest true peak in dBTP, −9 to 0.
	TruePeak float64
}

// loudnessRange is the loudness range (LU) loudnorm keeps to: wide enough
// that speech over music is not squeezed flat.
const loudnessRange = 11

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

// normalize is loudnorm in one pass: it measures as it goes (with three
// seconds of look-ahead) and adjusts the gain smoothly, limiting peaks.
// It works at 192 kHz; the mix resamples to the output's rate after it.
// loudnorm leaves its output's channel layout open, which the resampler
// after it cannot settle alone: aformat names it.
func normalize(lo *Loudness) string {
	if lo == nil {
		return ""
	}
	return fmt.Sprintf("loudnorm=I=%s:TP=%s:LRA=%d,aformat=channel_layouts=stereo", f(lo.Target), f(lo.TruePeak), loudnessRange)
}
