package ffmpeg

// ReadContainer exposes the native reader to the tests, which compare it
// with ffprobe.
var ReadContainer = readContainer

// PictureHeader exposes the header reader to the tests.
var PictureHeader = pictureHeader

// SetWalls replaces the walls the kernel was found to offer, for tests of
// a kernel without them; it returns a function that puts them back.
func SetWalls(w Walls) (restore func()) {
	ProbeWalls()
	old := walls
	walls = w
	return func() { walls = old }
}
