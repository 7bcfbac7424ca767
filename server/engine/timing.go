package engine

import (
	"fmt"
	"math"
)

// window is the frames a layer is drawn on, first included, end excluded.
// Frames are numbered from 0, frame n being at n/fps seconds.
type window struct {
	fps, first, end int
}

// frameWindow is the frames whose time t satisfies start <= t < end.
func frameWindow(l Layer, fps int) window {
	return window{fps: fps, first: frameAt(l.Start, fps), end: frameAt(l.End(), fps)}
}

// frameAt is the first frame at or after t seconds; the microsecond of
// slack absorbs the rounding of t*fps (0.7*10 is 7.000000000000001).
func frameAt(t float64, fps int) int {
	return int(math.Ceil(t*float64(fps) - 1e-6))
}

// frames is how many frames the window covers; a layer shorter than a
// frame and between two frames covers none.
func (w window) frames() int { return max(w.end-w.first, 0) }

// startTime is the time of the window's first frame.
func (w window) startTime() float64 { return float64(w.first) / float64(w.fps) }

// enable is the timeline option true on exactly the window's frames. Its
// bounds lie half a frame before the first frame and before the end, so no
// rounding of a frame's time t moves a frame in or out.
func (w window) enable() string { return "enable='" + w.during() + "'" }

// during is the expression of enable: true on the window's frames.
func (w window) during() string {
	fps := float64(w.fps)
	return fmt.Sprintf("between(t,%s,%s)", f((float64(w.first)-0.5)/fps), f((float64(w.end)-0.5)/fps))
}

// shift moves a chain of frames numbered from 0 at 1/fps (a color source,
// or the output of the fps filter) to the window's first frame. Counting
// frames (N) instead of scaling times keeps the move exact.
func (w window) shift() string { return fmt.Sprintf("setpts=N+%d", w.first) }

// held is how many of a window's first frames a still's one frame
// (StillFrame) comes after, for a picture layer that keeps its clock: its
// chain need not make them, as the frame before the still's is never
// drawn. A Ken Burns picture framed those frames by zoompan one at a time
// (a still at 2.5 s of a 30 fps picture from 0 s framed 75 to keep one).
// 0 in every other scene, and for videos, whose frames come from their
// source.
func (p *planner) held(win window, m Media) int {
	if !p.s.stillCut || !m.Still {
		return 0
	}
	return min(max(p.s.lead-win.first, 0), max(win.frames()-1, 0))
}

// repeatFrom is repeat without the first held frames.
func (w window) repeatFrom(held int) string {
	return fmt.Sprintf("loop=loop=%d:size=1:start=0,settb=expr=1/%d", max(w.frames()-held, 1)-1, w.fps)
}

// shiftFrom is shift for a chain that starts held frames into the window.
func (w window) shiftFrom(held int) string { return fmt.Sprintf("setpts=N+%d", w.first+held) }

// repeat makes one picture the window's frames: the loop filter holds the
// one frame (it works for every picture format, where the demuxer's
// -loop exists for some only, not GIF), numbered from 0 at 1/fps for
// shift.
func (w window) repeat() string {
	return fmt.Sprintf("loop=loop=%d:size=1:start=0,settb=expr=1/%d", max(w.frames(), 1)-1, w.fps)
}
