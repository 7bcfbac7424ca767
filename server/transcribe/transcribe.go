// Package transcribe turns speech into timed text for caption.extract,
// caption.burn and the captions layers of renders: offline with ffmpeg's
// asr filter (pocketsphinx), or through a Whisper-compatible HTTP service
// the operator configures (--whisper-url).
package transcribe

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/kinohq/kino/server/engine"
	"github.com/kinohq/kino/server/ffmpeg"
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
	// FFmpeg are the node's limits of the transcriber's ffmpeg runs.
	FFmpeg ffmpeg.Limits
	// Log receives the log of its ffmpeg runs; OnProgress their progress in percent.
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
