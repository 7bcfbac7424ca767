package ffmpeg

// ReadContainer exposes the native reader to the tests, which compare it
// with ffprobe.
var ReadContainer = readContainer

// PictureHeader exposes the header reader to the tests.
var PictureHeader = pictureHeader

// ParseLoudnorm exposes the reader of loudnorm's measure to the tests.
var ParseLoudnorm = parseLoudnorm
