// Package executor runs media jobs: one Executor per job type of the
// catalogue, each an ffmpeg run on local files. Downloading the inputs and
// storing the outputs is the runner's work; an executor only transforms.
package executor

import (
	"context"
	"fmt"
	"io"

	"github.com/kinohq/kino/server/ffmpeg"
	"github.com/kinohq/kino/server/jobs"
	"github.com/kinohq/kino/server/memory"
)

// Input is a downloaded input of a job.
type Input struct {
	Path string
	Info *ffmpeg.Info
}

// Output is a file an executor made, for one output field.
type Output struct {
	Path        string
	ContentType string
	// Ext is the file extension of the stored object, with its dot.
	Ext string
	// Described, when set, is what the output is (contentType, width,
	// height): the executor knows, and the runner need not probe it.
	Described map[string]any
	// Parts are files the output refers to by their base names (the
	// segments of an HLS playlist); they are stored beside it, under
	// those names.
	Parts []Part
}

// Part is a file stored beside an output.
type Part struct {
	Path        string
	ContentType string
}

// Task is one job to run.
type Task struct {
	Params map[string]any
	Inputs map[string]Input
	// Dir is the job's working folder; outputs go there.
	Dir        string
	OnProgress func(percent float64)
	// Fetch downloads a URL or an asset id of the job's organisation to
	// dst, for media that params name (a watermark image).
	Fetch func(ctx context.Context, ref, dst string) error
	// Font is the font file of text that names none.
	Font string
	// Transcriber replaces the offline transcriber of caption.extract.
	Transcriber Transcriber
	// Log receives the log of every ffmpeg run of the job.
	Log io.Writer
	// FFmpeg are the node's limits of every ffmpeg and ffprobe process
	// of the job (--max-image-pixels, --ffmpeg-max-memory).
	FFmpeg ffmpeg.Limits
	// Memory gives back the heap that drawing mockups in kino's process
	// grew (mockup.render).
	Memory *memory.Releaser
	// MaxOutputBytes bounds what each ffmpeg run writes in Dir
	// (--max-output-size); 0 bounds nothing.
	MaxOutputBytes int64
	// SandboxPartial lets a client's own command (raw.ffmpeg) run behind
	// the walls the kernel has when one is missing
	// (--raw-ffmpeg-without-sandbox); otherwise such a job fails.
	SandboxPartial bool
}

// Result is what a job produced: files by output field, and other output
// fields (a transcript, say) as values.
type Result struct {
	Files  map[string]Output
	Values map[string]any
}

// Executor runs the jobs of one type.
type Executor interface {
	Run(ctx context.Context, t Task) (Result, error)
}

// PermanentError is a job that cannot succeed however often it is tried:
// media of the wrong kind, params ffmpeg cannot honour.
type PermanentError struct {
	Code    string
	Message string
}

func (e *PermanentError) Error() string { return e.Code + ": " + e.Message }

func permanent(code, format string, args ...any) error {
	return &PermanentError{Code: code, Message: fmt.Sprintf(format, args...)}
}

var registry = map[string]Executor{
	"audio.extract":   audioExtract{},
	"video.trim":      videoTrim{},
	"image.resize":    imageResize{},
	"watermark.apply": watermarkApply{},
	"mockup.render":   mockupRender{},
	"caption.extract": captionExtract{transcriber: Pocketsphinx{}},
	"caption.burn":    captionBurn{transcriber: Pocketsphinx{}},
	"video.thumbnail": videoThumbnail{},
	"video.transcode": videoTranscode{},
	"raw.ffmpeg":      ffmpegCommand{},
	"ffmpeg":          ffmpegCommand{},
}

// For returns the executor of a job type, if kino can run it yet.
func For(jobType string) (Executor, bool) {
	e, ok := registry[jobType]
	return e, ok
}

func str(p map[string]any, key, def string) string {
	if v, ok := p[key].(string); ok && v != "" {
		return v
	}
	return def
}

func num(p map[string]any, key string, def float64) float64 {
	if v, ok := p[key].(float64); ok {
		return v
	}
	return def
}

// run runs ffmpeg, turning its failure into a permanent error with the
// telling last line: inputs were checked, so a failure is the media's.
func run(ctx context.Context, t Task, duration float64, args []string) error {
	err := ffmpeg.Run(ctx, args, ffmpeg.RunOptions{Limits: t.FFmpeg, Dir: t.Dir, Duration: duration, OnProgress: t.OnProgress, Log: t.Log, MaxOutputBytes: t.MaxOutputBytes})
	if err != nil && ctx.Err() == nil {
		if tl, ok := err.(*ffmpeg.OutputTooLargeError); ok {
			return permanent(jobs.CodeOutputTooLarge, "the output grew past the limit of %s (--max-output-size); lower the size, frame rate or quality the params ask for, or cut the input shorter", ffmpeg.FormatBytes(tl.Limit))
		}
		if fe, ok := err.(*ffmpeg.Error); ok {
			return permanent(jobs.CodeExecFailed, "ffmpeg could not process the input: %s", fe.LastLine())
		}
	}
	return err
}

// demuxer is the demuxer of a probed input, for runs that take a path.
func demuxer(info *ffmpeg.Info) string {
	d, _ := info.Demuxer()
	return d
}
