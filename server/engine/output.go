package engine

import (
	"fmt"
	"math"
)

// outputFormat is what a file of one output format holds.
type outputFormat struct {
	// picture: frames are drawn; sound: the mix is encoded.
	picture, sound bool
	// moving is a sequence of frames; a picture without it is one frame.
	moving bool
	// alpha: the format can keep a transparent background.
	alpha bool
}

// formatNames are the output formats in the order messages list them.
//
//nolint:gochecknoglobals // read-only table: the documented output formats in order
var formatNames = []string{"mp4", "webm", "mov", "gif", "png", "jpg", "mp3", "wav"}

//nolint:gochecknoglobals // read-only table: each output format's muxer and codecs
var formats = map[string]outputFormat{
	"mp4":  {picture: true, sound: true, moving: true},
	"webm": {picture: true, sound: true, moving: true, alpha: true},
	"mov":  {picture: true, sound: true, moving: true, alpha: true},
	"gif":  {picture: true, moving: true, alpha: true},
	"png":  {picture: true, alpha: true},
	"jpg":  {picture: true},
	"mp3":  {sound: true},
	"wav":  {sound: true},
}

// maxGIFFPS is the fastest GIF: frame delays are whole hundredths of a
// second, and browsers play delays under two hundredths slowly.
const maxGIFFPS = 50

// maxGIFPixels bounds width × height × frames of a GIF. The palette is
// computed from every frame before the first is written, so ffmpeg holds
// the whole animation in memory, about 4.5 bytes a pixel: 450 MB here.
const maxGIFPixels = 100_000_000

// HasPicture reports whether the output has frames (every format but the
// audio ones).
func (s *Scene) HasPicture() bool { return formats[s.Format].picture }

// HasSound reports whether the output carries the mix (video formats but
// GIF, and the audio ones).
func (s *Scene) HasSound() bool { return formats[s.Format].sound }

// Still reports whether the output is one picture (png, jpg).
func (s *Scene) Still() bool { return s.HasPicture() && !formats[s.Format].moving }

// Capture is a picture made beside a video from one of its frames: a
// poster at the video's size, or a thumbnail scaled down.
type Capture struct {
	// Time is the capture time in seconds; the picture is the frame
	// showing at that time.
	Time float64
	// Width and Height of the picture.
	Width, Height int
	// Field is the JSON path of the capture, for messages.
	Field string
}

// defaultThumbnailScale is a thumbnail's size relative to the video when
// the request names none: 480 × 270 for 1080p.
const defaultThumbnailScale = 0.25

// outputExtras reads what the output object holds beside the shared
// settings: the frame a still shows, and the poster and thumbnail of a
// video. They are checked against the duration in checkExtras, once the
// duration is known.
func (c *compiler) outputExtras(o *object) {
	s := c.scene
	f := formats[s.Format]
	if o.has("frameTime") {
		if f.moving || !f.picture {
			c.r.fail(o.field("frameTime"), "is only for png and jpg outputs, which show one frame")
			return
		}
		s.FrameTime = o.number("frameTime", 0, 0, c.lim.MaxDuration)
	}
	c.frameTimeField = o.field("frameTime")
	for _, name := range []string{"poster", "thumbnail"} {
		if !o.has(name) {
			continue
		}
		if !f.moving {
			c.r.fail(o.field(name), "is only for video outputs (mp4, webm, mov, gif)")
			return
		}
		p := c.r.object(o.field(name), mustGet(o, name))
		capture := &Capture{Field: p.path, Time: p.number("capture", 0, 0, c.lim.MaxDuration), Width: s.Width, Height: s.Height}
		if name == "poster" {
			s.Poster = capture
		} else {
			scale := p.number("scale", defaultThumbnailScale, 0, 1)
			if scale == 0 && c.r.err == nil {
				c.r.fail(p.field("scale"), "must be more than 0")
			}
			capture.Width, capture.Height = scaled(s.Width, scale), scaled(s.Height, scale)
			s.Thumbnail = capture
		}
		p.done()
	}
}

// scaled is a side of a thumbnail: even, as 4:2:0 pictures need, and at
// least 2 pixels.
func scaled(side int, scale float64) int {
	return max(2, int(math.Round(float64(side)*scale/2))*2)
}

// checkExtras checks the times of the still and the captures against the
// duration, and the size of a GIF.
func (c *compiler) checkExtras() {
	s := c.scene
	before := func(field string, t float64) {
		if t >= s.Duration && c.r.err == nil {
			c.r.fail(field, "is at or after the end of the composition (%s s); the last frame starts at %s s",
				num(s.Duration), num(float64(frameAt(s.Duration, s.FPS)-1)/float64(s.FPS)))
		}
	}
	if s.Still() {
		before(c.frameTimeField, s.FrameTime)
	}
	for _, capture := range []*Capture{s.Poster, s.Thumbnail} {
		if capture != nil {
			before(capture.Field+".capture", capture.Time)
		}
	}
	if s.Format != "gif" || c.r.err != nil {
		return
	}
	if s.FPS > maxGIFFPS {
		c.r.fail(c.fpsField, "must be at most %d for a GIF: its frame delays are whole hundredths of a second, and browsers slow down faster GIFs", maxGIFFPS)
		return
	}
	frames := frameAt(s.Duration, s.FPS)
	if pixels := s.Width * s.Height * frames; pixels > maxGIFPixels {
		c.r.fail(c.formatField, "a GIF of %d×%d with %d frames holds %s million pixels; at most %d million are allowed: lower the size, the frame rate or the duration",
			s.Width, s.Height, frames, fmt.Sprintf("%.1f", float64(pixels)/1e6), maxGIFPixels/1_000_000)
	}
}

// frameShownAt is the frame on screen at t seconds: the last frame that
// starts at or before t, within the output's frames.
func (s *Scene) frameShownAt(t float64) int {
	return min(int(math.Floor(t*float64(s.FPS)+1e-6)), frameAt(s.Duration, s.FPS)-1)
}
