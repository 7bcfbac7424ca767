// Package executor runs media jobs on local files: one Worker per job type
// of the catalogue, each handed its params decoded into its type's struct
// (catalog.Decode), once. Most run ffmpeg; mockup.render draws with kino's
// own compositor, and the caption types may call a transcriber. Downloading
// the inputs and storing the outputs is the runner's work (server/mediarun);
// a worker only transforms.
package executor

import (
	"context"
	"fmt"
	"io"
	"reflect"
	"slices"

	"github.com/kinohq/kino/server/catalog"
	"github.com/kinohq/kino/server/ffmpeg"
	"github.com/kinohq/kino/server/jobs"
	"github.com/kinohq/kino/server/memory"
	"github.com/kinohq/kino/server/mockup"
	"github.com/kinohq/kino/server/rawcmd"
	"github.com/kinohq/kino/server/transcribe"
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

// Attempt is what one attempt of a job gives its worker: the downloaded
// inputs, the folder, and where its runs report.
type Attempt struct {
	// Inputs are the downloaded inputs by field (a command's -i URLs by
	// CommandInputKey).
	Inputs map[string]Input
	// Dir is the job's working folder; outputs go there.
	Dir        string
	OnProgress func(percent float64)
	// Files are the files the job's params name (Decoded.Files), each
	// downloaded with the inputs, by ref.
	Files map[string]string
	// Log receives the log of every ffmpeg run of the job.
	Log io.Writer
}

// File is a file a job's params name (a design, a watermark image): a URL
// or an asset id of the job's organisation, which the runner downloads
// with the job's inputs, so that a worker only transforms files.
type File struct {
	// Field names it in failures: "params.designs[0]".
	Field string
	Ref   string
}

// FileNamer is a worker whose params name files beyond the job's inputs.
// inputs are the fields of the inputs the job was given.
type FileNamer[T any] interface {
	Files(params T, inputs map[string]bool) []File
}

// Task is one job to run: its attempt, and its params decoded into T, the
// struct of its type.
type Task[T any] struct {
	Attempt
	Params T
	// Given are the names of the params the request set, sorted: Params
	// holds the catalogue's defaults for the others.
	Given []string
}

// Worker runs the jobs of one type, whose params decode into T.
type Worker[T any] interface {
	Work(ctx context.Context, t Task[T]) (Result, error)
}

// Result is what a job produced: files by output field, and other output
// fields (a transcript, say) as values.
type Result struct {
	Files  map[string]Output
	Values map[string]any
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

// Config is what the workers take from the node's configuration.
type Config struct {
	// Font is the font file of text that names none.
	Font string
	// Transcriber hears the sound of caption.extract and caption.burn;
	// nil is the offline one (transcribe.Pocketsphinx).
	Transcriber transcribe.Transcriber
	// FFmpeg are the node's limits of every ffmpeg and ffprobe process of
	// a job (--max-image-pixels, --ffmpeg-max-memory).
	FFmpeg ffmpeg.Limits
	// Memory gives back the heap that drawing mockups in kino's process
	// grew (mockup.render).
	Memory *memory.Releaser
	// MaxPixels is the largest picture kino opens (--max-image-pixels):
	// every template, design and client's command is read under it.
	MaxPixels int64
	// MaxOutputBytes bounds what each ffmpeg run writes in a job's folder
	// (--max-output-size); 0 bounds nothing.
	MaxOutputBytes int64
	// SandboxPartial lets a client's own command (raw.ffmpeg) run behind
	// the walls the kernel has when one is missing
	// (--raw-ffmpeg-without-sandbox); otherwise such a job fails.
	SandboxPartial bool
}

// env is the configuration every worker of one Executors shares.
type env struct {
	Config
	// templates keeps the last few templates decoded between
	// mockup.render jobs: a shop renders many designs on one product
	// (docs/limits.md).
	templates *mockup.Cache
}

// Executors are the workers of the job types kino runs, built from one
// configuration: each node (and each app of a test binary) has its own.
type Executors struct {
	env   *env
	types map[string]func(params []byte) (*Decoded, error)
}

// New returns the workers of every job type, configured by cfg.
func New(cfg Config) *Executors {
	if cfg.Transcriber == nil {
		cfg.Transcriber = transcribe.Pocketsphinx{}
	}
	e := &Executors{env: &env{Config: cfg, templates: &mockup.Cache{Size: 4, MaxPixels: 16_000_000}},
		types: map[string]func([]byte) (*Decoded, error){}}
	add(e, "audio.extract", audioExtract{e.env})
	add(e, "video.trim", videoTrim{e.env})
	add(e, "image.resize", imageResize{e.env})
	add(e, "watermark.apply", watermarkApply{e.env})
	add(e, "mockup.render", mockupRender{e.env})
	add(e, "caption.extract", captionExtract{e.env})
	add(e, "caption.burn", captionBurn{e.env})
	add(e, "video.thumbnail", videoThumbnail{e.env})
	add(e, "video.transcode", videoTranscode{e.env})
	add(e, "raw.ffmpeg", ffmpegCommand{e.env})
	add(e, "ffmpeg", ffmpegCommand{e.env})
	return e
}

// add registers w as the worker of the job type name, whose catalogue
// entry must declare T as its params' struct.
func add[T any](e *Executors, name string, w Worker[T]) {
	t, ok := catalog.Lookup(name)
	if !ok || reflect.TypeOf(t.Args) != reflect.TypeFor[T]() {
		panic(fmt.Sprintf("executor: %s is not a catalogue type whose params are %s", name, reflect.TypeFor[T]())) //nolint:forbidigo // programmer error: a worker registered for the wrong type
	}
	e.types[name] = func(raw []byte) (*Decoded, error) {
		d, err := catalog.Decode[T](t, raw)
		if err != nil {
			return nil, err
		}
		dec := &Decoded{Params: d.Params, work: func(ctx context.Context, a Attempt) (Result, error) {
			return w.Work(ctx, Task[T]{Attempt: a, Params: d.Params, Given: d.Given})
		}}
		if n, ok := w.(FileNamer[T]); ok {
			dec.files = func(inputs map[string]bool) []File { return n.Files(d.Params, inputs) }
		}
		return dec, nil
	}
}

// Decoded is a job whose params are decoded for its worker, waiting for
// an attempt.
type Decoded struct {
	// Params are the job's params, the struct of its type (a
	// catalog.Command for a command type, whose inputs the runner reads
	// from it before downloading).
	Params any
	work   func(ctx context.Context, a Attempt) (Result, error)
	files  func(inputs map[string]bool) []File
}

// Files are the files the job's params name, for the runner to download
// with the inputs given (by field); a ref named twice is named once.
func (d *Decoded) Files(inputs map[string]bool) []File {
	if d.files == nil {
		return nil
	}
	return d.files(inputs)
}

// Work runs the job on an attempt's inputs and folder.
func (d *Decoded) Work(ctx context.Context, a Attempt) (Result, error) { return d.work(ctx, a) }

// Decode reads the params of a job of type typ, stored as JSON, for its
// worker. Params the catalogue refuses are a *catalog.ParamsError; a row
// that does not decode at all is another error.
func (e *Executors) Decode(typ string, params []byte) (*Decoded, error) {
	decode, ok := e.types[typ]
	if !ok {
		return nil, fmt.Errorf("no executor runs jobs of type %q", typ)
	}
	return decode(params)
}

// Types are the catalogue's types that have a worker, sorted.
func (e *Executors) Types() []string {
	var out []string
	for _, t := range catalog.Names() {
		if _, ok := e.types[t]; ok {
			out = append(out, t)
		}
	}
	return slices.Clip(out)
}

// ParseCommand parses the client's command of a command type's job under
// the node's pixel bound, named being the job's named inputs.
func (e *Executors) ParseCommand(p catalog.Command, named map[string]bool) (*rawcmd.Command, error) {
	return rawcmd.Parse(p.Command, named, e.env.MaxPixels, p.OutputFormat)
}

// run runs ffmpeg, turning its failure into a permanent error with the
// telling last line: inputs were checked, so a failure is the media's.
func (e *env) run(ctx context.Context, a Attempt, duration float64, args []string) error {
	return e.runIn(ctx, a, duration, args, nil)
}

// runIn is run behind the walls of sandbox (nil: none).
func (e *env) runIn(ctx context.Context, a Attempt, duration float64, args []string, sandbox *ffmpeg.Sandbox) error {
	err := ffmpeg.Run(ctx, args, ffmpeg.RunOptions{Limits: e.FFmpeg, Dir: a.Dir, Duration: duration, OnProgress: a.OnProgress, Log: a.Log, MaxOutputBytes: e.MaxOutputBytes, Sandbox: sandbox})
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
