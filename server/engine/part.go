package engine

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kinohq/kino/server/ffmpeg"
)

// A split render (docs/split.md) encodes its frames in parts, each a run of
// whole frames that any worker renders on its own, and its sound once for
// the whole timeline. The functions here cut a scene into those pieces;
// PlanPart and PlanSound plan them.

// Frames is how many frames a moving picture of the scene has.
func (s *Scene) Frames() int { return frameAt(s.Duration, s.FPS) }

// Splittable reports whether the scene's output can be encoded in parts
// and joined without encoding it again: an MP4, whose H.264 parts each
// start on a keyframe and whose AAC sound is encoded once. A GIF's palette
// comes from every frame, and stills and sound files have no frames to
// share out. Captions are read (downloaded, parsed or transcribed from the
// whole timeline's sound) by the worker of the whole render only, so a
// scene with captions renders in one piece.
func (s *Scene) Splittable() bool {
	if s.Format != "mp4" {
		return false
	}
	for _, l := range s.Layers {
		if l.Captions != nil {
			return false
		}
	}
	return true
}

// PartRange is the frames [First, First+Count) of a scene's timeline.
type PartRange struct{ First, Count int }

// Ranges cuts the scene's frames into runs of per frames, the last one
// shorter when per does not divide them.
func (s *Scene) Ranges(per int) []PartRange {
	total := s.Frames()
	if per <= 0 {
		per = total
	}
	var out []PartRange
	for first := 0; first < total; first += per {
		out = append(out, PartRange{First: first, Count: min(per, total-first)})
	}
	return out
}

// Part is the scene of the frames r of s, picture only: its frame 0 is
// frame r.First of s. Layers that show none of its frames are left out;
// a layer that starts before the part and looks the same on every frame
// is cut to start with it (a video seeks its source there), so that the
// part decodes and draws only what it shows. A layer whose look changes
// with time (motion, fades still under way, loops) keeps its own clock:
// the part starts its timeline at that layer's start and draws its frames
// from the part's first on. last marks the part that ends the timeline,
// which keeps the scene's exact duration.
func (s *Scene) Part(r PartRange, last bool) *Scene {
	fps := float64(s.FPS)
	start := float64(r.First) / fps
	end := float64(r.First+r.Count) / fps
	// lead is the frame the part's timeline starts at: the earliest start
	// of a layer that must keep its clock, else the part's first frame.
	lead := r.First
	var kept []Layer
	for _, l := range s.Layers {
		if l.Kind == KindAudio {
			continue // the sound is mixed once, by PlanSound
		}
		w := frameWindow(l, s.FPS)
		if w.frames() == 0 || w.end <= r.First || w.first >= r.First+r.Count {
			continue
		}
		if w.first < r.First {
			if cut, ok := cutLayer(l, w, r.First); ok {
				l = cut
			} else {
				lead = min(lead, w.first)
			}
		}
		kept = append(kept, l)
	}
	offset := float64(lead) / fps
	p := *s
	p.Layers = nil
	for _, l := range kept {
		l.Start = micro(l.Start - offset)
		p.Layers = append(p.Layers, l)
	}
	p.Duration = micro(end - offset)
	if last {
		p.Duration = micro(s.Duration - offset)
	}
	p.lead = r.First - lead
	p.Poster, p.Thumbnail = captureIn(s.Poster, start, end), captureIn(s.Thumbnail, start, end)
	used := map[string]bool{}
	for _, l := range p.Layers {
		used[l.Source], used[l.Font] = true, true
		for _, key := range strings.Split(l.Fallback, ",") {
			used[key] = true
		}
		if l.Mockup != nil {
			used[l.Mockup.Template] = true
		}
	}
	p.sources = nil
	for _, src := range s.sources {
		if used[src.Key] {
			p.sources = append(p.sources, src)
		}
	}
	return &p
}

// cutLayer is l started at frame first instead of its own first frame w,
// when that draws the same frames from there on: nothing about it changes
// with time but the frames of a video, which skips the frames before
// the part (Layer.SkipFrames).
func cutLayer(l Layer, w window, first int) (Layer, bool) {
	d := float64(first-w.first) / float64(w.fps)
	if l.Motion != nil || l.moves() || l.ramped() || l.FadeIn > d || l.Playback.Loop {
		return l, false
	}
	switch l.Kind {
	case KindVideo, KindMockup:
		l.SkipFrames += first - w.first
	case KindColor, KindImage, KindRectangle, KindEllipse, KindText:
	default:
		return l, false
	}
	end := l.End()
	l.Start = micro(float64(first) / float64(w.fps))
	l.Duration = micro(end - l.Start)
	l.FadeIn = 0
	return l, true
}

// seekMargin is how far before its part a cut video starts reading its
// source when it seeks (Layer.Seek): frames the fps filter may hold back
// over a gap in the source come from before the part.
const seekMargin = 1.0

// SeekLayers are the layers of a part that seek their source near the part
// once their Layer.FirstFrame is known: videos cut to the part, played at
// their own speed. The worker probes each before planning (Seeks) and
// records the answers (Seeked); unprobed, a layer plays from its trim and
// drops the frames before the part, which costs decoding only.
func (s *Scene) SeekLayers() []int {
	var out []int
	for i, l := range s.Layers {
		if (l.Kind == KindVideo || l.Kind == KindMockup) && l.SkipFrames > 0 && l.Playback.rate() == 1 && !l.Playback.Loop {
			out = append(out, i)
		}
	}
	return out
}

// captureIn is c moved into a part from start to end when its frame is
// among the part's, else nil.
func captureIn(c *Capture, start, end float64) *Capture {
	if c == nil || c.Time < start-1e-9 || c.Time >= end-1e-9 {
		return nil
	}
	moved := *c
	moved.Time = math.Max(0, micro(c.Time-start))
	return &moved
}

// SoundSources are the sources the sound of the scene plays: those of its
// video and audio layers.
func (s *Scene) SoundSources() []Source {
	used := map[string]bool{}
	for _, l := range s.Layers {
		if l.Kind == KindVideo || l.Kind == KindAudio || l.Kind == KindMockup {
			used[l.Source] = true
		}
	}
	var out []Source
	for _, src := range s.sources {
		if used[src.Key] {
			out = append(out, src)
		}
	}
	return out
}

// PlanJoin plans the join of a split render: the parts, in order, put end
// to end by the concat demuxer and muxed with the sound, copying both, so
// that no frame is encoded twice. parts and sound are files in workDir;
// lim are the limits of the ffmpeg that joins them.
func PlanJoin(s *Scene, lim ffmpeg.Limits, parts []string, sound, workDir, outPath string) *Command {
	var list strings.Builder
	list.WriteString("ffconcat version 1.0\n")
	for _, part := range parts {
		// The names are kino's own (part-000.ts…), never a user's.
		fmt.Fprintf(&list, "file '%s'\n", strings.ReplaceAll(part, "'", `'\''`))
	}
	args := []string{"-protocol_whitelist", "file", "-f", "concat", "-safe", "0", "-i", "file:" + filepath.Join(workDir, joinList)}
	mapped := []string{"-map", "0:v"}
	if sound != "" {
		args = append(args, ffmpeg.InputArgsFormat(lim, "mp4", sound)...)
		mapped = append(mapped, "-map", "1:a")
	}
	args = append(args, mapped...)
	args = append(args, "-c", "copy", "-r", strconv.Itoa(s.FPS), "-movflags", "+faststart", "-f", "mp4", "file:"+outPath)
	return &Command{Args: args, Files: map[string][]byte{joinList: []byte(list.String())}}
}

// joinList is the concat demuxer's list of a join, in its working folder.
const joinList = "parts.txt"

// StillFrame is the scene of a still's one frame, cut as a part is: the
// layers that do not show on it are left out, those that look the same on
// every frame start on it, and the frames before it are never composed.
// Drawing a still at frameTime 30 of a 60 fps composition composed 1,800
// frames to keep one. Its frame is the part's frame 0. Plan cuts a still
// itself; the worker cuts it first to seek its videos (Seeks), which
// otherwise decode every frame from their trims to the still's.
func (s *Scene) StillFrame() *Scene {
	n := s.frameShownAt(s.FrameTime)
	frozen := *s
	frozen.Layers = make([]Layer, len(s.Layers))
	for i, l := range s.Layers {
		frozen.Layers[i], _ = freezeAt(l, n, s.FPS)
	}
	p := frozen.Part(PartRange{First: n, Count: 1}, false)
	p.FrameTime = 0
	p.stillCut = true
	return p
}

// Seek is a probe the worker makes before planning, so that a video a
// part cuts (SeekLayers) seeks near its frames instead of decoding all
// before them: where the first frame at or after Trim seconds of the file
// at Path lies (ffmpeg.FirstFrameAfter, reading packets only).
type Seek struct {
	// Layer is the index of the layer in the scene's Layers.
	Layer int
	// Field is the layer's source field, to name it in a log.
	Field string
	// Path and Format are the downloaded file and its demuxer.
	Path, Format string
	// Trim is where the layer starts playing its source, in seconds.
	Trim float64
}

// Seeks are the probes the scene's SeekLayers need, one for each whose
// source is a video (a mockup layer's picture seeks nothing). The worker
// makes each and records its answer with Seeked; a layer whose probe
// failed plays from its trim, slower, the same frames.
func (s *Scene) Seeks(media map[string]Media) []Seek {
	var out []Seek
	for _, i := range s.SeekLayers() {
		l := s.Layers[i]
		m := media[l.Source]
		if m.Still {
			continue
		}
		out = append(out, Seek{Layer: i, Field: l.SourceField, Path: m.Path, Format: m.Format, Trim: l.TrimStart})
	}
	return out
}

// Seeked records a Seek's answer: the first frame the whole render shows
// of the layer's source lies first seconds past its trim, so the layer
// seeks near it (Layer.FirstFrame and Layer.Seek).
func (s *Scene) Seeked(sk Seek, first float64) {
	l := &s.Layers[sk.Layer]
	l.FirstFrame, l.Seek = first, true
}
