package jobs

// The error codes of jobs that failed or were cancelled, of every kind,
// defined here once; docs/jobs.md (Failure codes) documents each. The API
// errors of requests (VALIDATION_ERROR, JOB_NOT_FOUND…) are apierr's.
const (
	// A source or input could not be downloaded.
	CodeAssetFetchFailed = "ASSET_FETCH_FAILED"
	// A render source is not media kino accepts.
	CodeAssetInvalid = "ASSET_INVALID"
	// ffmpeg could not render the composition.
	CodeRenderFailed = "RENDER_FAILED"
	// A render attempt outlasted --render-timeout.
	CodeRenderTimeout = "RENDER_TIMEOUT"
	// A media job attempt outlasted --job-timeout.
	CodeJobTimeout = "JOB_TIMEOUT"
	// An output could not be stored.
	CodeStorageFailed = "STORAGE_FAILED"
	// The worker holding the job died on its every attempt.
	CodeWorkerLost = "WORKER_LOST"
	// A media job input is not media its type accepts.
	CodeInputInvalid = "INPUT_INVALID"
	// ffmpeg failed on a media job.
	CodeExecFailed = "EXECUTION_FAILED"
	// What ffmpeg wrote grew past --max-output-size; not retried.
	CodeOutputTooLarge = "OUTPUT_TOO_LARGE"
	// The disk of the working folder had less room than an attempt may
	// need (--max-output-size and --min-free-disk, and a render's frames
	// of words that move); retried later.
	CodeNoDiskSpace = "NO_DISK_SPACE"
	// A job this one waits for failed (this one is cancelled).
	CodeUpstreamFailed = "UPSTREAM_FAILED"
	// A job this one waits for was cancelled (this one is too).
	CodeUpstreamCancelled = "UPSTREAM_CANCELLED"
	// The attempt ended in a panic of kino's own code: a bug, retried
	// while attempts remain; the stack is logged, never sent.
	CodeInternal = "INTERNAL_ERROR"
)
