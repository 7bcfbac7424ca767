package ffmpeg

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// demuxers are the formats kino opens, each read from one self-contained
// file. Left to itself ffmpeg guesses a file's format, and some of its
// demuxers follow references to other files: an HLS or DASH playlist, a
// concat list, an image sequence, an SVG's linked images. A downloaded
// playlist naming file:///etc/… would make a job read the server's own
// disk, so every input is opened with the demuxer kino probed, forced, and
// only when it is one of these.
//
//nolint:gochecknoglobals // read-only table: the demuxers kino lets ffmpeg use
var demuxers = []string{
	// video containers
	"mov", "matroska", "avi", "mpegts", "mpeg", "flv", "ogg", "ivf", "nut", "asf", "yuv4mpegpipe",
	"h264", "hevc", "m4v", "mjpeg",
	// audio
	"mp3", "wav", "w64", "aac", "flac", "aiff", "caf", "amr", "ac3", "eac3", "wv",
	// pictures, read by content
	"png_pipe", "jpeg_pipe", "webp_pipe", "gif", "bmp_pipe", "tiff_pipe", "qoi_pipe", "psd_pipe",
	// captions
	"srt", "webvtt", "ass",
}

// formatWhitelist is ffmpeg's -format_whitelist: the demuxers above.
//
//nolint:gochecknoglobals // read-only: the demuxer list as ffmpeg's option takes it
var formatWhitelist = strings.Join(demuxers, ",")

// InputError is a file kino will not open: a format that follows
// references to other files, one it does not know, or a picture larger
// than the limit. Its message is for the user.
type InputError struct{ Reason string }

func (e *InputError) Error() string { return e.Reason }

// Demuxer is the demuxer that opens the file ffprobe described, or an
// *InputError when kino does not open that format.
func (i *Info) Demuxer() (string, error) {
	// ffprobe names a demuxer by all its aliases ("mov,mp4,m4a,3gp,3g2,mj2",
	// "matroska,webm"); any alias forces it.
	for _, name := range strings.Split(i.FormatName, ",") {
		for _, d := range demuxers {
			if name == d {
				return d, nil
			}
		}
	}
	return "", &InputError{Reason: fmt.Sprintf("the file's format (%s) is not one kino opens", i.FormatName)}
}

// checkPixels refuses pictures larger than l's limit.
func checkPixels(l Limits, w, h int) error {
	// Divided, not multiplied: two 32-bit sizes (a PSD's) overflow int64.
	if max := l.WithDefaults().MaxPixels; w > 0 && int64(h) > max/int64(w) {
		return &InputError{Reason: fmt.Sprintf("the picture is %d×%d pixels, more than the limit of %d pixels", w, h, max)}
	}
	return nil
}

// check is what every probe result passes: a demuxer kino opens, and
// frames within l's pixel limit.
func (i *Info) check(l Limits) error {
	if _, err := i.Demuxer(); err != nil {
		return err
	}
	for _, s := range i.Streams {
		if s.CodecType == "video" {
			if err := checkPixels(l, s.Width, s.Height); err != nil {
				return err
			}
		}
	}
	return nil
}

// InputArgs open the probed file at path as an ffmpeg input: its demuxer
// forced, local files the only protocol, and no decoder allowed a frame
// over l's pixel limit. opts are the caller's input options (-ss, -loop,
// …), placed before -i. info comes from Probe or ProbeFast, which refuse
// every format InputArgs could not force. Building arguments starts
// nothing: the engine plans with it.
func InputArgs(l Limits, info *Info, path string, opts ...string) []string {
	d, _ := info.Demuxer()
	return InputArgsFormat(l, d, path, opts...)
}

// InputArgsFormat is InputArgs for a file whose demuxer is known already.
func InputArgsFormat(l Limits, demuxer, path string, opts ...string) []string {
	args := []string{"-protocol_whitelist", "file", "-f", demuxer,
		"-max_pixels", strconv.FormatInt(l.WithDefaults().MaxPixels, 10)}
	args = append(args, opts...)
	return append(args, "-i", "file:"+path)
}

// referenceFormats are the signatures of formats that point at other
// files, for a clear refusal when ffprobe cannot open one.
//
//nolint:gochecknoglobals // read-only table: the formats of reference files
var referenceFormats = []struct {
	magic, name string
}{
	{"#EXTM3U", "an HLS playlist"},
	{"ffconcat", "an ffmpeg concat list"},
	{"<MPD", "a DASH manifest"},
	{"<?xml", "an XML document (a DASH manifest or an SVG picture)"},
	{"<svg", "an SVG picture"},
}

// describeRefusal says why a file ffprobe could not open was refused, when
// its first bytes show a format that refers to other files.
func describeRefusal(path string) (string, bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	head := make([]byte, 512)
	n, _ := io.ReadFull(f, head)
	head = bytes.TrimLeft(head[:n], "\ufeff \t\r\n")
	for _, r := range referenceFormats {
		if bytes.HasPrefix(head, []byte(r.magic)) {
			return fmt.Sprintf("the file is %s, which refers to other files; kino opens only self-contained media files", r.name), true
		}
	}
	return "", false
}

// CheckHeader refuses a picture whose header declares more pixels than
// l's limit, with the *InputError a probe gives; kino's own decoders (the
// PSD reader) call it before reading further. It reads the header alone,
// starting nothing.
func CheckHeader(l Limits, path string) error {
	if w, h, ok := pictureHeader(path); ok {
		return checkPixels(l, w, h)
	}
	return nil
}
