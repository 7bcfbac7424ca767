package executor

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/kinohq/kino/server/catalog"
	"github.com/kinohq/kino/server/ffmpeg"
	"github.com/kinohq/kino/server/jobs"
)

// videoThumbnail takes one frame, or a sprite sheet of frames spread over
// the video.
type videoThumbnail struct{ *env }

func (e videoThumbnail) Work(ctx context.Context, t Task[catalog.VideoThumbnail]) (Result, error) {
	in := t.Inputs["source"]
	if in.Info.Video() == nil {
		return Result{}, permanent(jobs.CodeInputInvalid, "inputs.source: the file has no picture")
	}
	width := t.Params.Width
	scale := ""
	if width > 0 {
		scale = fmt.Sprintf("scale=%d:-2,", width)
	}
	out := filepath.Join(t.Dir, "output.png")
	var args []string
	if t.Params.Mode == "sprite" {
		cols, rows := t.Params.Columns, t.Params.Rows
		n := cols * rows
		// Frames at even intervals: one every duration/n seconds.
		every := max(in.Info.Duration/float64(n), 0.04)
		args = append(ffmpeg.InputArgs(e.FFmpeg, in.Info, in.Path), "-vf", fmt.Sprintf("fps=1/%g,%stile=%dx%d", every, scale, cols, rows), "-frames:v", "1")
	} else {
		at := t.Params.At
		if in.Info.Duration > 0 && at >= in.Info.Duration {
			return Result{}, permanent(jobs.CodeInputInvalid, "params.at: %gs is past the end of the video (%gs)", at, in.Info.Duration)
		}
		args = append(ffmpeg.InputArgs(e.FFmpeg, in.Info, in.Path, "-ss", fmt.Sprint(at)), "-frames:v", "1")
		if scale != "" {
			args = append(args, "-vf", scale[:len(scale)-1])
		}
	}
	if err := e.run(ctx, t.Attempt, 0, append(args, "file:"+out)); err != nil {
		return Result{}, err
	}
	return Result{Files: map[string]Output{"outputUrl": {Path: out, ContentType: "image/png", Ext: ".png"}}}, nil
}

// videoTranscode re-encodes a video to mp4 (H.264/AAC), webm (VP9/Opus) or
// HLS (an H.264/AAC VOD playlist of MPEG-TS segments), optionally resized
// and with a target bitrate.
type videoTranscode struct{ *env }

// hlsSegmentSeconds is the length of an HLS segment. Keyframes are forced
// on its boundaries, so every segment starts with one and is as long as
// this, but the last.
const hlsSegmentSeconds = 4

func (e videoTranscode) Work(ctx context.Context, t Task[catalog.VideoTranscode]) (Result, error) {
	in := t.Inputs["source"]
	if in.Info.Video() == nil {
		return Result{}, permanent(jobs.CodeInputInvalid, "inputs.source: the file has no picture")
	}
	preset := t.Params.Preset
	args := append(ffmpeg.InputArgs(e.FFmpeg, in.Info, in.Path), "-map", "0:v:0", "-map", "0:a?")
	w, h := t.Params.Width, t.Params.Height
	switch {
	case w > 0 && h > 0:
		args = append(args, "-vf", fmt.Sprintf("scale=%d:%d", w-w%2, h-h%2))
	case w > 0:
		args = append(args, "-vf", fmt.Sprintf("scale=%d:-2", w-w%2))
	case h > 0:
		args = append(args, "-vf", fmt.Sprintf("scale=-2:%d", h-h%2))
	}
	if kbps := t.Params.VideoBitrateKbps; kbps > 0 {
		args = append(args, "-b:v", fmt.Sprintf("%dk", kbps))
	}
	var out, ext, ct string
	switch preset {
	case "webm":
		out, ext, ct = filepath.Join(t.Dir, "output.webm"), ".webm", "video/webm"
		args = append(args, "-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-row-mt", "1", "-pix_fmt", "yuv420p", "-c:a", "libopus")
	case "mp4":
		out, ext, ct = filepath.Join(t.Dir, "output.mp4"), ".mp4", "video/mp4"
		args = append(args, "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-movflags", "+faststart")
	case "hls":
		out, ext, ct = filepath.Join(t.Dir, "output.m3u8"), ".m3u8", "application/vnd.apple.mpegurl"
		// Segments are named relative to the playlist, which is how they
		// are stored: beside it.
		args = append(args, "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-c:a", "aac",
			"-force_key_frames", fmt.Sprintf("expr:gte(t,n_forced*%d)", hlsSegmentSeconds),
			"-f", "hls", "-hls_time", fmt.Sprint(hlsSegmentSeconds), "-hls_playlist_type", "vod",
			"-hls_flags", "independent_segments", "-hls_segment_type", "mpegts",
			"-hls_segment_filename", "file:"+filepath.Join(t.Dir, "hls-%03d.ts"))
	default:
		return Result{}, permanent(jobs.CodeInputInvalid, "params.preset: %q is not a preset; use mp4, webm or hls", preset)
	}
	if err := e.run(ctx, t.Attempt, in.Info.Duration, append(args, "file:"+out)); err != nil {
		return Result{}, err
	}
	o := Output{Path: out, ContentType: ct, Ext: ext}
	if preset == "hls" {
		segments, err := filepath.Glob(filepath.Join(t.Dir, "hls-*.ts"))
		if err != nil || len(segments) == 0 {
			return Result{}, fmt.Errorf("ffmpeg wrote no HLS segments")
		}
		for _, seg := range segments {
			o.Parts = append(o.Parts, Part{Path: seg, ContentType: "video/mp2t"})
		}
	}
	return Result{Files: map[string]Output{"outputUrl": o}}, nil
}
