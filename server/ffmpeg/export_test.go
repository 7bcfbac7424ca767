package ffmpeg

// ReadContainer exposes the native reader to the tests, which compare it
// with ffprobe.
var ReadContainer = readContainer
