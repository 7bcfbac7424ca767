package executor

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/kinohq/kino/server/catalog"
	"github.com/kinohq/kino/server/ffmpeg"
	"github.com/kinohq/kino/server/jobs"
)

// audioExtract writes the sound of a video (or audio) file as mp3, aac or wav.
type audioExtract struct{ *env }

//nolint:gochecknoglobals // read-only table: each audio format's codec, extension and type
var audioFormats = map[string]struct{ codec, ext, contentType string }{
	"mp3": {"libmp3lame", ".mp3", "audio/mpeg"},
	"aac": {"aac", ".m4a", "audio/mp4"},
	"wav": {"pcm_s16le", ".wav", "audio/wav"},
}

func (e audioExtract) Work(ctx context.Context, t Task[catalog.AudioExtract]) (Result, error) {
	in := t.Inputs["source"]
	if in.Info.Audio() == nil {
		return Result{}, permanent(jobs.CodeInputInvalid, "inputs.source: the file has no audio track")
	}
	f := audioFormats[t.Params.Format]
	out := filepath.Join(t.Dir, "output"+f.ext)
	if err := e.run(ctx, t.Attempt, in.Info.Duration, append(ffmpeg.InputArgs(e.FFmpeg, in.Info, in.Path), "-vn", "-map", "0:a:0", "-c:a", f.codec, "file:"+out)); err != nil {
		return Result{}, err
	}
	return Result{Files: map[string]Output{"outputUrl": {Path: out, ContentType: f.contentType, Ext: f.ext}}}, nil
}

// videoTrim cuts [start, start+duration) of a video or audio file,
// re-encoding so the cut is exact to the frame.
type videoTrim struct{ *env }

func (e videoTrim) Work(ctx context.Context, t Task[catalog.VideoTrim]) (Result, error) {
	in := t.Inputs["source"]
	start, dur := t.Params.Start, t.Params.Duration
	if in.Info.Duration > 0 && start >= in.Info.Duration {
		return Result{}, permanent(jobs.CodeInputInvalid, "params.start: %gs is past the end of the source (%gs)", start, in.Info.Duration)
	}
	args := ffmpeg.InputArgs(e.FFmpeg, in.Info, in.Path, "-ss", fmt.Sprint(start), "-t", fmt.Sprint(dur))
	out, ext, ct := filepath.Join(t.Dir, "output.mp4"), ".mp4", "video/mp4"
	if in.Info.Video() != nil {
		args = append(args, "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-movflags", "+faststart")
	} else {
		out, ext, ct = filepath.Join(t.Dir, "output.m4a"), ".m4a", "audio/mp4"
		args = append(args, "-vn", "-c:a", "aac")
	}
	if err := e.run(ctx, t.Attempt, dur, append(args, "file:"+out)); err != nil {
		return Result{}, err
	}
	return Result{Files: map[string]Output{"outputUrl": {Path: out, ContentType: ct, Ext: ext}}}, nil
}

// imageResize scales a picture to fit (contain), fill (cover, cropped) or
// exactly (fill), and converts it.
type imageResize struct{ *env }

//nolint:gochecknoglobals // read-only table: each image format's extension and type
var imageFormats = map[string]struct{ ext, contentType string }{
	"png":  {".png", "image/png"},
	"jpeg": {".jpg", "image/jpeg"},
	"webp": {".webp", "image/webp"},
}

func (e imageResize) Work(ctx context.Context, t Task[catalog.ImageResize]) (Result, error) {
	in := t.Inputs["source"]
	v := in.Info.Video()
	if v == nil {
		return Result{}, permanent(jobs.CodeInputInvalid, "inputs.source: the file is not a picture")
	}
	w, h := t.Params.Width, t.Params.Height
	if w == 0 && h == 0 {
		w, h = v.Width, v.Height
	}
	var vf string
	switch {
	case w == 0:
		vf = fmt.Sprintf("scale=-2:%d", h)
	case h == 0:
		vf = fmt.Sprintf("scale=%d:-2", w)
	default:
		switch t.Params.Fit {
		case "contain":
			vf = fmt.Sprintf("scale=%d:%d:force_original_aspect_ratio=decrease", w, h)
		case "cover":
			vf = fmt.Sprintf("scale=%d:%d:force_original_aspect_ratio=increase,crop=%d:%d", w, h, w, h)
		default:
			vf = fmt.Sprintf("scale=%d:%d", w, h)
		}
	}
	f := imageFormats[t.Params.Format]
	out := filepath.Join(t.Dir, "output"+f.ext)
	if err := e.run(ctx, t.Attempt, 0, append(ffmpeg.InputArgs(e.FFmpeg, in.Info, in.Path), "-vf", vf, "-frames:v", "1", "file:"+out)); err != nil {
		return Result{}, err
	}
	return Result{Files: map[string]Output{"outputUrl": {Path: out, ContentType: f.contentType, Ext: f.ext}}}, nil
}
