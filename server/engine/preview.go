package engine

import "math"

// Preview formats: the picture of a preview.
//
//nolint:gochecknoglobals // read-only table: the preview formats
var previewFormats = map[string]bool{"jpg": true, "png": true}

// MinPreviewWidth is the narrowest preview picture.
const MinPreviewWidth = 16

// Preview is the scene of the one frame a render of s shows at t seconds,
// drawn as a still of format (jpg or png) width pixels wide, the aspect
// kept (0: the scene's width). It is the render's own frame: the frame
// shown at t (the last that starts at or before it), cut as a still is
// (StillFrame: only the layers on screen drawn, the frames before never
// composed), then scaled. The scene's sound, poster, thumbnail and
// loudness have no part in a frame and are dropped. timeField and
// widthField name the request's fields in errors.
func (s *Scene) Preview(t float64, width int, format, timeField, widthField string) (*Scene, error) {
	switch {
	case !s.HasPicture():
		return nil, &ValidationError{Field: "composition", Message: "a " + s.Format + " output has no picture to preview"}
	case !previewFormats[format]:
		return nil, &ValidationError{Field: "format", Message: "must be jpg or png"}
	case math.IsNaN(t) || t < 0 || t >= s.Duration:
		return nil, &ValidationError{Field: timeField, Message: "must be from 0 to before the end of the composition (" + num(s.Duration) +
			" s); the last frame starts at " + num(float64(frameAt(s.Duration, s.FPS)-1)/float64(s.FPS)) + " s"}
	case width != 0 && (width < MinPreviewWidth || width > s.Width):
		return nil, &ValidationError{Field: widthField, Message: "must be from " + num(MinPreviewWidth) + " to the composition's width (" + num(float64(s.Width)) + ")"}
	}
	still := *s
	still.Format, still.FrameTime = format, t
	still.Poster, still.Thumbnail, still.Loudness = nil, nil, nil
	p := still.StillFrame()
	if width != 0 && width != s.Width {
		p.scaleTo = [2]int{width, max(1, int(math.Round(float64(width)*float64(s.Height)/float64(s.Width))))}
	}
	return p, nil
}

// PreviewSize is the size of the picture a preview scene draws.
func (s *Scene) PreviewSize() (width, height int) {
	if s.scaleTo[0] != 0 {
		return s.scaleTo[0], s.scaleTo[1]
	}
	return s.Width, s.Height
}
