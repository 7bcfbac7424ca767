package executor

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/kinohq/kino/server/engine"
	"github.com/kinohq/kino/server/ffmpeg"
	"github.com/kinohq/kino/server/jobs"
)

// Transcriber turns speech into timed text. The offline one uses ffmpeg's
// asr filter with pocketsphinx; a Whisper-compatible HTTP service can stand
// behind the same interface.
type Transcriber interface {
	Transcribe(ctx context.Context, a Audio) ([]Cue, error)
}

// Audio is the sound to transcribe, and where its ffmpeg runs report.
type Audio struct {
	// Path is a media file with sound.
	Path string
	// Format is the demuxer that opens it, from kino's probe.
	Format string
	// Dir is a working folder for the transcriber's files.
	Dir      string
	Duration float64
	// Language is the spoken language as an ISO 639-1 code; "" or "auto"
	// leaves it to the transcriber.
	Language string
	// FFmpeg, Log and OnProgress are as in Task.
	FFmpeg     ffmpeg.Limits
	Log        io.Writer
	OnProgress func(percent float64)
}

// ffmpegRun runs a transcriber's ffmpeg with the audio's log and progress.
func (a Audio) ffmpegRun(ctx context.Context, duration float64, args []string) error {
	return ffmpeg.Run(ctx, args, ffmpeg.RunOptions{Limits: a.FFmpeg, Dir: a.Dir, Duration: duration, Log: a.Log, OnProgress: a.OnProgress})
}

// Cue is one caption.
type Cue struct {
	Start, End float64
	Text       string
}

// PocketsphinxModel is where Debian's pocketsphinx-en-us installs its model.
const PocketsphinxModel = "/usr/share/pocketsphinx/model/en-us"

// Pocketsphinx transcribes offline with ffmpeg's asr filter.
type Pocketsphinx struct{ Model string }

// asrLog starts the log lines of the ametadata filter that prints what asr
// heard. Its file= option is no use: it cuts every line at 127 bytes (a
// fixed buffer in f_metadata.c), which kept 112 characters of an
// utterance; the log has no such limit.
const asrLog = "[ametadata@kino_asr @ 0x"

var ptsTime = regexp.MustCompile(`pts_time:([0-9.]+)`)

// Transcribe runs asr and reads each utterance it reports, with the time
// its end was heard; an utterance starts where the previous one ended.
func (p Pocketsphinx) Transcribe(ctx context.Context, a Audio) ([]Cue, error) {
	m := p.Model
	if m == "" {
		m = PocketsphinxModel
	}
	duration := a.Duration
	// Two seconds of silence at the end make pocketsphinx close the last
	// utterance.
	af := fmt.Sprintf("aresample=16000,aformat=channel_layouts=mono,apad=pad_dur=2,asr=hmm=%s:dict=%s:lm=%s:logfn=/dev/null,ametadata@kino_asr=mode=print:key=lavfi.asr.text",
		engine.FilterPath(m+"/en-us"), engine.FilterPath(m+"/cmudict-en-us.dict"), engine.FilterPath(m+"/en-us.lm.bin"))
	var cues []Cue
	last, at := 0.0, 0.0
	onLine := func(line string) {
		if !strings.HasPrefix(line, asrLog) {
			return
		}
		_, line, _ = strings.Cut(line, "] [info] ")
		if m := ptsTime.FindStringSubmatch(line); m != nil {
			at, _ = strconv.ParseFloat(m[1], 64)
			return
		}
		if text, ok := strings.CutPrefix(line, "lavfi.asr.text="); ok && strings.TrimSpace(text) != "" {
			end := min(at, duration)
			if end <= last {
				end = last + 0.5
			}
			cues = append(cues, Cue{Start: last, End: end, Text: strings.TrimSpace(text)})
			last = end
		}
	}
	err := ffmpeg.Run(ctx, append(ffmpeg.InputArgsFormat(a.FFmpeg, a.Format, a.Path), "-vn", "-af", af, "-f", "null", "-"),
		ffmpeg.RunOptions{Limits: a.FFmpeg, Dir: a.Dir, Duration: duration + 2, Log: a.Log, OnProgress: a.OnProgress, OnLogLine: onLine})
	if err != nil {
		return nil, fmt.Errorf("asr: %w", err)
	}
	return cues, nil
}

// split breaks long cues into pieces of at most maxSeconds and 12 words,
// sharing the cue's time by word count.
func split(cues []Cue, maxSeconds float64) []Cue {
	var out []Cue
	for _, c := range cues {
		words := strings.Fields(c.Text)
		parts := max(1, int((c.End-c.Start)/maxSeconds+0.999), (len(words)+11)/12)
		per := (c.End - c.Start) / float64(len(words))
		for i := 0; i < parts; i++ {
			a, b := i*len(words)/parts, (i+1)*len(words)/parts
			if a == b {
				continue
			}
			out = append(out, Cue{Start: c.Start + float64(a)*per, End: c.Start + float64(b)*per, Text: strings.Join(words[a:b], " ")})
		}
	}
	return out
}

func stamp(s float64, sep string) string {
	ms := int(s*1000 + 0.5)
	return fmt.Sprintf("%02d:%02d:%02d%s%03d", ms/3600000, ms/60000%60, ms/1000%60, sep, ms%1000)
}

// writeCaptions writes WebVTT or SRT.
func writeCaptions(w io.Writer, cues []Cue, format string) {
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
type captionExtract struct{ transcriber Transcriber }

func (e captionExtract) Run(ctx context.Context, t Task) (Result, error) {
	in := t.Inputs["source"]
	format := str(t.Params, "format", "vtt")
	captions := filepath.Join(t.Dir, "captions."+format)
	var transcript []string
	if hasSubtitles(in) {
		if err := run(ctx, t, in.Info.Duration, append(ffmpeg.InputArgs(t.FFmpeg, in.Info, in.Path), "-map", "0:s:0", "-f", map[string]string{"vtt": "webvtt", "srt": "srt"}[format], "file:"+captions)); err != nil {
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
		tr := e.transcriber
		if t.Transcriber != nil {
			tr = t.Transcriber
		}
		cues, err := tr.Transcribe(ctx, Audio{Path: in.Path, Format: demuxer(in.Info), Dir: t.Dir, Duration: in.Info.Duration, FFmpeg: t.FFmpeg, Log: t.Log, OnProgress: t.OnProgress})
		if err != nil {
			return Result{}, err
		}
		cues = split(cues, num(t.Params, "maxCueSeconds", 6))
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
