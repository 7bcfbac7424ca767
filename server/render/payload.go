package render

// RenderCompleted is the body sent when a render completes: the render
// interface's completion callback payload (docs/webhooks.md, Payloads).
type RenderCompleted struct {
	JobID string `json:"jobId"`
	// Status is "completed".
	Status    string `json:"status"`
	OutputURL string `json:"outputUrl"`
	// Duration of the output in seconds; 0 for a still picture.
	Duration float64 `json:"duration"`
	// Format is the output format: "mp4", "webm", "mov", "gif", "png",
	// "jpg", "mp3" or "wav".
	Format string `json:"format"`
	// Resolution of the picture; 0 × 0 for an audio format.
	Resolution Resolution `json:"resolution"`
	// PosterURL and ThumbnailURL are kino's additions: the pictures the
	// composition asked for beside a video, absent when it did not.
	PosterURL    string `json:"posterUrl,omitempty"`
	ThumbnailURL string `json:"thumbnailUrl,omitempty"`
	// Warnings are kino's addition: what the render did not draw as the
	// composition asked (the status record's warnings), absent when none.
	Warnings []string `json:"warnings,omitempty"`
}

// Resolution is the size of the video in pixels.
type Resolution struct {
	Width  int `json:"width"`
	Height int `json:"height"`
}

// RenderFailed is the body sent when a render fails or is cancelled. It is
// the completion payload without outputUrl, with the error of a failed job
// as the status record carries it, so that a receiver can handle every
// callback with one type.
type RenderFailed struct {
	JobID string `json:"jobId"`
	// Status is "failed" or "cancelled".
	Status string `json:"status"`
	// Error is set when Status is "failed", with the code and message the
	// job's status record shows; absent when cancelled.
	Error *ErrorBody `json:"error,omitempty"`
	// Duration is the length in seconds the video would have had; absent
	// when unknown.
	Duration float64 `json:"duration,omitzero"`
	// Format and Resolution are the requested output.
	Format     string     `json:"format"`
	Resolution Resolution `json:"resolution"`
}

// ErrorBody is the error of a failed job: the shape of the render
// interface's error object, {"code", "message"}.
type ErrorBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}
