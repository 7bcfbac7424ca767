package engine

import (
	"fmt"
	"math"
)

// Playback is how a video or audio layer reads its source.
type Playback struct {
	// Speed is how many seconds of the source play in a second of the
	// layer, 0.25 to 4; 0 means 1.
	Speed float64
	// Loop starts the source over from its beginning whenever it ends
	// before the layer does.
	Loop bool
}

// rate is the speed, 1 when unset.
func (pb Playback) rate() float64 {
	if pb.Speed == 0 {
		return 1
	}
	return pb.Speed
}

// playback reads speed and loop of a video or audio layer from o (the
// layer in provider_a, the clip's asset in unified); trimKey names the
// trim field of that format, which a loop excludes.
func (c *compiler) playback(o *object, trimKey string, l *Layer) {
	if l.Kind != KindVideo && l.Kind != KindAudio && l.Kind != KindMockup {
		return
	}
	l.Playback.Speed = o.number("speed", 0, 0.25, 4)
	if l.Playback.Speed == 1 {
		l.Playback.Speed = 0
	}
	l.Playback.Loop = o.boolean("loop")
	// ffmpeg's loop starts a file over from its beginning, not from the
	// trim; as in Creatomate, the two do not go together rather than
	// loop something other than what was asked.
	if l.Playback.Loop && l.TrimStart > 0 && c.r.err == nil {
		c.r.fail(o.field("loop"), "cannot be used with %s: a loop plays the whole file over and over", trimKey)
	}
}

func (o *object) boolean(key string) bool {
	v, ok := o.get(key)
	if !ok {
		return false
	}
	b, isBool := v.(bool)
	if !isBool {
		o.r.fail(o.field(key), "must be true or false")
	}
	return b
}

// sourceOptions are the input options that read span seconds of a layer
// from its source: from trimStart, span × speed seconds of the file, over
// and over when it loops.
func sourceOptions(l Layer, span float64) []string {
	var opts []string
	if l.Playback.Loop {
		opts = append(opts, "-stream_loop", "-1")
	}
	if r := l.Playback.rate(); r != 1 {
		// Up to the microsecond, so that no rounding reads too little.
		span = math.Ceil(span*r*1e6-1e-3) / 1e6
	}
	return append(opts, "-ss", f(l.TrimStart), "-t", f(span))
}

// sourcePTS starts a video layer's frames at 0, at the layer's speed.
func sourcePTS(l Layer) string {
	if r := l.Playback.rate(); r != 1 {
		return fmt.Sprintf("setpts=(PTS-STARTPTS)/%s", f(r))
	}
	return "setpts=PTS-STARTPTS"
}

// tempo plays a layer's sound at its speed, its pitch kept; atempo takes
// factors from 0.5, so slower speeds take two.
func tempo(l Layer) string {
	r := l.Playback.rate()
	switch {
	case r == 1:
		return ""
	case r < 0.5:
		s := f(micro(math.Sqrt(r)))
		return fmt.Sprintf("atempo=%s,atempo=%s", s, s)
	}
	return "atempo=" + f(r)
}
