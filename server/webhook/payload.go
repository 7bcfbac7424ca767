package webhook

// RenderCompleted is the body sent when a render completes: the spec's
// completion callback payload.
type RenderCompleted struct {
	JobID     string `json:"jobId"`
	Status    string `json:"status"`
	OutputURL string `json:"outputUrl"`
	// Duration of the video in seconds.
	Duration   float64    `json:"duration"`
	Format     string     `json:"format"`
	Resolution Resolution `json:"resolution"`
}

// Resolution is the size of the video in pixels.
type Resolution struct {
	Width  int `json:"width"`
	Height int `json:"height"`
}

// RenderFailed is the body sent when a render fails or is cancelled. It has
// the completion payload's fields but outputUrl, and error when failed.
type RenderFailed struct {
	JobID      string     `json:"jobId"`
	Status     string     `json:"status"`
	Error      *ErrorBody `json:"error,omitempty"`
	Duration   float64    `json:"duration"`
	Format     string     `json:"format"`
	Resolution Resolution `json:"resolution"`
}

// ErrorBody is the error of a failed job.
type ErrorBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}
