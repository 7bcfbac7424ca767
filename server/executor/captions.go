package executor

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kinohq/kino/server/catalog"
	"github.com/kinohq/kino/server/ffmpeg"
	"github.com/kinohq/kino/server/jobs"
	"github.com/kinohq/kino/server/transcribe"
)

// split breaks long cues into pieces of at most maxSeconds and 12 words,
// each piece starting when its first word is spoken when the transcriber
// timed the cue's words one for one, and sharing the cue's time by word
// count otherwise.
func split(cues []transcribe.Cue, maxSeconds float64) []transcribe.Cue {
	var out []transcribe.Cue
	for _, c := range cues {
		words := strings.Fields(c.Text)
		parts := max(1, int((c.End-c.Start)/maxSeconds+0.999), (len(words)+11)/12)
		per := (c.End - c.Start) / float64(len(words))
		at := func(k int) float64 {
			switch {
			case k == len(words):
				return c.End
			case len(c.Words) == len(words):
				return min(max(c.Words[k].Start, c.Start), c.End)
			}
			return c.Start + float64(k)*per
		}
		for i := 0; i < parts; i++ {
			a, b := i*len(words)/parts, (i+1)*len(words)/parts
			if a == b {
				continue
			}
			out = append(out, transcribe.Cue{Start: at(a), End: max(at(b), at(a)+0.01), Text: strings.Join(words[a:b], " ")})
		}
	}
	return out
}

func stamp(s float64, sep string) string {
	ms := int(s*1000 + 0.5)
	return fmt.Sprintf("%02d:%02d:%02d%s%03d", ms/3600000, ms/60000%60, ms/1000%60, sep, ms%1000)
}

// writeCaptions writes WebVTT or SRT.
func writeCaptions(w io.Writer, cues []transcribe.Cue, format string) {
	if format == "srt" {
		for i, c := range cues {
			fmt.Fprintf(w, "%d\n%s --> %s\n%s\n\n", i+1, stamp(c.Start, ","), stamp(c.End, ","), c.Text)
		}
		return
	}
	fmt.Fprint(w, "WEBVTT\n\n")
	for _, c := range cues {
		fmt.Fprintf(w, "%s --> %s\n%s\n\n", stamp(c.Start, "."), stamp(c.End, "."), c.Text)
	}
}

// captionExtract extracts a subtitle stream when the source has one, and
// transcribes its sound otherwise.
type captionExtract struct{ *env }

func (e captionExtract) Work(ctx context.Context, t Task[catalog.CaptionExtract]) (Result, error) {
	in := t.Inputs["source"]
	format := t.Params.Format
	captions := filepath.Join(t.Dir, "captions."+format)
	var transcript []string
	if hasSubtitles(in) {
		if err := e.run(ctx, t.Attempt, in.Info.Duration, append(ffmpeg.InputArgs(e.FFmpeg, in.Info, in.Path), "-map", "0:s:0", "-f", map[string]string{"vtt": "webvtt", "srt": "srt"}[format], "file:"+captions)); err != nil {
			return Result{}, err
		}
		b, _ := os.ReadFile(captions)
		for _, line := range strings.Split(string(b), "\n") {
			if line != "" && !strings.Contains(line, "-->") && line != "WEBVTT" && !isDigits(line) {
				transcript = append(transcript, line)
			}
		}
	} else {
		if in.Info.Audio() == nil {
			return Result{}, permanent(jobs.CodeInputInvalid, "inputs.source: the file has neither subtitles nor sound")
		}
		cues, err := e.Transcriber.Transcribe(ctx, transcribe.Audio{Path: in.Path, Format: demuxer(in.Info), Dir: t.Dir, Duration: in.Info.Duration, Log: t.Log, OnProgress: t.OnProgress})
		if err != nil {
			return Result{}, err
		}
		cues = split(cues, t.Params.MaxCueSeconds)
		f, err := os.Create(captions)
		if err != nil {
			return Result{}, err
		}
		writeCaptions(f, cues, format)
		if err := f.Close(); err != nil {
			return Result{}, err
		}
		for _, c := range cues {
			transcript = append(transcript, c.Text)
		}
	}
	ct := map[string]string{"vtt": "text/vtt", "srt": "application/x-subrip"}[format]
	ext, sct := passThrough(in)
	return Result{
		Files: map[string]Output{
			"captionsUrl": {Path: captions, ContentType: ct, Ext: "." + format},
			"outputUrl":   {Path: in.Path, ContentType: sct, Ext: ext},
		},
		Values: map[string]any{"transcript": strings.Join(transcript, " ")},
	}, nil
}

func hasSubtitles(in Input) bool {
	for _, s := range in.Info.Streams {
		if s.CodecType == "subtitle" {
			return true
		}
	}
	return false
}

func isDigits(s string) bool {
	_, err := strconv.Atoi(strings.TrimSpace(s))
	return err == nil
}

// passThrough names the stored copy of a source by its container.
func passThrough(in Input) (string, string) {
	switch {
	case strings.Contains(in.Info.FormatName, "mp4"):
		if in.Info.Video() == nil {
			return ".m4a", "audio/mp4"
		}
		return ".mp4", "video/mp4"
	case strings.Contains(in.Info.FormatName, "webm"):
		return ".webm", "video/webm"
	case in.Info.FormatName == "wav":
		return ".wav", "audio/wav"
	case in.Info.FormatName == "mp3":
		return ".mp3", "audio/mpeg"
	}
	return "", "application/octet-stream"
}
