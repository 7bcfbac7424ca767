package executor

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/kinohq/kino/server/catalog"
	"github.com/kinohq/kino/server/ffmpeg"
	"github.com/kinohq/kino/server/jobs"
	"github.com/kinohq/kino/server/rawcmd"
)

// ffmpegCommand runs a client's own ffmpeg command (raw.ffmpeg, ffmpeg)
// behind both walls: the command as the parser checked it, every input
// replaced by kino's downloaded copy, and ffmpeg in its sandbox.
type ffmpegCommand struct{ *env }

// CommandInputKey is the key in Task.Inputs of the command's i-th -i
// input when it is a URL or an asset id (named inputs keep their names).
func CommandInputKey(i int) string { return fmt.Sprintf("#%d", i) }

// commandFormats are outputFormat's muxers, extensions and content types.
//
//nolint:gochecknoglobals // read-only table: each command output format's muxer and type
var commandFormats = map[string]struct{ muxer, contentType string }{
	"mp4": {"mp4", "video/mp4"}, "mkv": {"matroska", "video/x-matroska"}, "webm": {"webm", "video/webm"},
	"mov": {"mov", "video/quicktime"}, "avi": {"avi", "video/x-msvideo"}, "ts": {"mpegts", "video/mp2t"},
	"gif": {"gif", "image/gif"}, "png": {"image2", "image/png"}, "jpg": {"image2", "image/jpeg"},
	"mp3": {"mp3", "audio/mpeg"}, "wav": {"wav", "audio/wav"}, "flac": {"flac", "audio/flac"},
	"ogg": {"ogg", "audio/ogg"}, "aac": {"adts", "audio/aac"}, "opus": {"opus", "audio/ogg"},
	"m4a": {"ipod", "audio/mp4"}, "srt": {"srt", "application/x-subrip"}, "vtt": {"webvtt", "text/vtt"},
}

func (e ffmpegCommand) Work(ctx context.Context, t Task[catalog.Command]) (Result, error) {
	named := map[string]bool{}
	for k := range t.Inputs {
		if !strings.HasPrefix(k, "#") {
			named[k] = true
		}
	}
	format := t.Params.OutputFormat
	cmd, err := rawcmd.Parse(t.Params.Command, named, e.MaxPixels, format)
	if err != nil { // checked at submit; a changed allowlist may refuse it now
		return Result{}, permanent(jobs.CodeInputInvalid, "params.command: %v", err)
	}
	locals := map[int]rawcmd.Local{}
	duration := 0.0
	for i, in := range cmd.Inputs {
		key := CommandInputKey(i)
		if in.Kind == rawcmd.Graph {
			continue
		}
		if in.Kind == rawcmd.Named {
			key = in.Ref
		}
		got, ok := t.Inputs[key]
		if !ok || got.Info == nil {
			return Result{}, fmt.Errorf("input %s was not downloaded", in.Ref)
		}
		d, err := got.Info.Demuxer()
		if err != nil {
			return Result{}, permanent(jobs.CodeInputInvalid, "-i %s: %v", in.Ref, err)
		}
		locals[i] = rawcmd.Local{Path: got.Path, Demuxer: d}
		duration = max(duration, got.Info.Duration)
	}
	first := ""
	if f, ok := commandFormats[format]; ok && !strings.EqualFold(filepath.Ext(cmd.Outputs[0].Name), "."+format) {
		first = f.muxer
	}
	args, err := cmd.Args(locals, e.MaxPixels, first)
	if err != nil {
		return Result{}, err
	}
	timeout := time.Duration(t.Params.Timeout) * time.Second
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	err = ffmpeg.Run(rctx, args, ffmpeg.RunOptions{Limits: e.FFmpeg, Dir: t.Dir, Duration: duration, OnProgress: t.OnProgress, Log: t.Log,
		MaxOutputBytes: e.MaxOutputBytes,
		Sandbox:        &ffmpeg.Sandbox{CPUSeconds: uint64(timeout.Seconds())*uint64(runtime.NumCPU()) + 5, Partial: e.SandboxPartial}})
	switch {
	case err != nil && ctx.Err() == nil && rctx.Err() != nil:
		return Result{}, permanent(jobs.CodeJobTimeout, "ffmpeg ran longer than params.timeout (%s) and was stopped", timeout)
	case errors.Is(err, ffmpeg.ErrNoSandbox):
		return Result{}, permanent(jobs.CodeExecFailed, "%v: the kernel lacks a network namespace or Landlock, and raw ffmpeg commands run only behind both (see docs/media.md)", err)
	}
	if err := commandFailure(ctx, err); err != nil {
		return Result{}, err
	}
	return commandOutputs(t.Dir, cmd, format)
}

// commandFailure is run's classification of a failed ffmpeg.
func commandFailure(ctx context.Context, err error) error {
	if err != nil && ctx.Err() == nil {
		if tl, ok := err.(*ffmpeg.OutputTooLargeError); ok {
			return permanent(jobs.CodeOutputTooLarge, "the output grew past the limit of %s (--max-output-size)", ffmpeg.FormatBytes(tl.Limit))
		}
		if fe, ok := err.(*ffmpeg.Error); ok {
			return permanent(jobs.CodeExecFailed, "ffmpeg exited with code %d: %s", fe.ExitCode, fe.LastLine())
		}
	}
	return err
}

// commandOutputs are the files the command wrote, in its order: the
// first is outputUrl, the next outputUrl2, outputUrl3, …; a numbered
// sequence counts each of its files. Values.outputNames tells each
// field's file name as the command wrote it.
func commandOutputs(dir string, cmd *rawcmd.Command, format string) (Result, error) {
	res := Result{Files: map[string]Output{}, Values: map[string]any{}}
	names := map[string]any{}
	n := 0
	for i, o := range cmd.Outputs {
		paths := []string{filepath.Join(dir, o.Name)}
		if strings.Contains(o.Name, "%") {
			matches, _ := filepath.Glob(filepath.Join(dir, sequenceGlob(o.Name)))
			sort.Strings(matches)
			paths = matches
		}
		if len(paths) == 0 {
			return Result{}, permanent(jobs.CodeExecFailed, "ffmpeg wrote no file for the output %s", o.Name)
		}
		for _, p := range paths {
			st, err := os.Stat(p)
			if err != nil || !st.Mode().IsRegular() {
				return Result{}, permanent(jobs.CodeExecFailed, "ffmpeg wrote no file for the output %s", o.Name)
			}
			n++
			if n > rawcmd.MaxStoredFiles {
				return Result{}, permanent(jobs.CodeOutputTooLarge, "the command wrote more than %d files", rawcmd.MaxStoredFiles)
			}
			field := "outputUrl"
			if n > 1 {
				field = fmt.Sprintf("outputUrl%d", n)
			}
			ext := strings.ToLower(filepath.Ext(p))
			ct := commandFormats[strings.TrimPrefix(ext, ".")].contentType
			if f, ok := commandFormats[format]; ok && i == 0 && n == 1 {
				ext, ct = "."+format, f.contentType
			}
			if ct == "" {
				ct = mime.TypeByExtension(ext)
			}
			if ct == "" {
				ct = "application/octet-stream"
			}
			res.Files[field] = Output{Path: p, ContentType: ct, Ext: ext}
			names[field] = filepath.Base(p)
		}
	}
	res.Values["outputNames"] = names
	return res, nil
}

// sequenceGlob turns a %d pattern into a glob of its files.
func sequenceGlob(name string) string {
	i := strings.IndexByte(name, '%')
	j := strings.IndexByte(name[i:], 'd')
	return name[:i] + "[0-9]*" + name[i+j+1:]
}
