package executor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/kinohq/kino/server/catalog"
	"github.com/kinohq/kino/server/engine"
	"github.com/kinohq/kino/server/ffmpeg"
	"github.com/kinohq/kino/server/jobs"
)

// watermarkApply draws image and text watermarks on a video or a picture.
type watermarkApply struct{ *env }

var hexColor = regexp.MustCompile(`^#[0-9a-fA-F]{6}$`)

// place is the overlay or drawtext position of a mark of size (w, h) in a
// frame of size (W, H), margin m from the edges.
func place(position string, w, h, W, H string, m int) (string, string) {
	switch position {
	case "top-left":
		return fmt.Sprint(m), fmt.Sprint(m)
	case "top-right":
		return fmt.Sprintf("%s-%s-%d", W, w, m), fmt.Sprint(m)
	case "bottom-left":
		return fmt.Sprint(m), fmt.Sprintf("%s-%s-%d", H, h, m)
	case "center":
		return fmt.Sprintf("(%s-%s)/2", W, w), fmt.Sprintf("(%s-%s)/2", H, h)
	}
	return fmt.Sprintf("%s-%s-%d", W, w, m), fmt.Sprintf("%s-%s-%d", H, h, m)
}

// Files are the images of image watermarks: the runner downloads them
// with the inputs.
func (e watermarkApply) Files(p catalog.WatermarkApply, _ map[string]bool) []File {
	var files []File
	for i, m := range p.Watermarks {
		if m.Type == "image" {
			files = append(files, File{Field: fmt.Sprintf("params.watermarks[%d]", i), Ref: imageRef(m)})
		}
	}
	return files
}

// imageRef is the URL or asset id of an image watermark.
func imageRef(m catalog.Watermark) string {
	if m.URL != "" {
		return m.URL
	}
	return m.AssetID
}

func (e watermarkApply) Work(ctx context.Context, t Task[catalog.WatermarkApply]) (Result, error) {
	in := t.Inputs["source"]
	v := in.Info.Video()
	if v == nil {
		return Result{}, permanent(jobs.CodeInputInvalid, "inputs.source: the file has no picture to watermark")
	}
	still := in.Info.Duration == 0 || strings.HasSuffix(in.Info.FormatName, "_pipe") || in.Info.FormatName == "image2"
	args := ffmpeg.InputArgs(e.FFmpeg, in.Info, in.Path)
	var graph []string
	cur, inputs := "0:v", 1
	for i, m := range t.Params.Watermarks {
		field := fmt.Sprintf("params.watermarks[%d]", i)
		margin, opacity, pos := m.Margin, m.Opacity, m.Position
		next := fmt.Sprintf("w%d", i)
		switch m.Type {
		case "image":
			path := t.Files[imageRef(m)]
			info, err := ffmpeg.ProbeFast(ctx, e.FFmpeg, path)
			var ie *ffmpeg.InputError
			switch {
			case errors.As(err, &ie):
				return Result{}, permanent(jobs.CodeInputInvalid, "%s: %s", field, ie.Reason)
			case err != nil || info.Video() == nil:
				return Result{}, permanent(jobs.CodeInputInvalid, "%s: the watermark is not a picture", field)
			}
			width := max(2, int(float64(v.Width)*m.Scale))
			args = append(args, ffmpeg.InputArgs(e.FFmpeg, info, path)...)
			x, y := place(pos, "w", "h", "W", "H", margin)
			// Only the mark is touched in RGBA; overlay blends it into the
			// frame in the frame's own YUV, as a hand-written command does
			// (format=auto converted every full frame to RGB and back).
			mark := fmt.Sprintf("[%d:v]scale=%d:-1,format=rgba", inputs, width)
			if opacity < 1 {
				mark += fmt.Sprintf(",colorchannelmixer=aa=%g", opacity)
			}
			overlay := "overlay=x=%s:y=%s"
			if still {
				overlay += ":format=rgb"
			}
			graph = append(graph, fmt.Sprintf("%s[m%d]", mark, i),
				fmt.Sprintf("[%s][m%d]"+overlay+"[%s]", cur, i, x, y, next))
			inputs++
		case "text":
			name := filepath.Join(t.Dir, fmt.Sprintf("watermark-%d.txt", i))
			if err := os.WriteFile(name, []byte(m.Text), 0o600); err != nil {
				return Result{}, err
			}
			color := m.Color
			if !hexColor.MatchString(color) {
				return Result{}, permanent(jobs.CodeInputInvalid, "%s.color: must be #RRGGBB", field)
			}
			x, y := place(pos, "text_w", "text_h", "w", "h", margin)
			graph = append(graph, fmt.Sprintf("[%s]drawtext=fontfile=%s:textfile=%s:expansion=none:fontsize=%d:fontcolor=0x%s@%g:x=%s:y=%s[%s]",
				cur, engine.FilterPath(e.Font), engine.FilterPath(name), m.FontSize, color[1:], opacity, x, y, next))
		}
		cur = next
	}
	if len(graph) == 0 {
		return Result{}, permanent(jobs.CodeInputInvalid, "params.watermarks: nothing to draw")
	}
	out, ext, ct := filepath.Join(t.Dir, "output.mp4"), ".mp4", "video/mp4"
	if still {
		// A picture stays a picture, with its full colour.
		out, ext, ct = filepath.Join(t.Dir, "output.png"), ".png", "image/png"
		graph = append(graph, fmt.Sprintf("[%s]format=rgba[out]", cur))
		args = append(args, "-filter_complex", strings.Join(graph, ";"), "-map", "[out]", "-frames:v", "1")
	} else {
		graph = append(graph, fmt.Sprintf("[%s]format=yuv420p[out]", cur))
		args = append(args, "-filter_complex", strings.Join(graph, ";"), "-map", "[out]", "-map", "0:a?",
			"-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-movflags", "+faststart")
	}
	if err := e.run(ctx, t.Attempt, in.Info.Duration, append(args, "file:"+out)); err != nil {
		return Result{}, err
	}
	return Result{Files: map[string]Output{"outputUrl": {Path: out, ContentType: ct, Ext: ext}}}, nil
}
