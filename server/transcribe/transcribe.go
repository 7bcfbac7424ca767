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

// Cue is one caption, with the times of its words when the transcriber
// gives them: the engine's cue, so that what is heard goes to a captions
// layer as it is.
type Cue = engine.Cue

// Word is one word heard, and when.
type Word = engine.Word

// PocketsphinxModel is where Debian's pocketsphinx-en-us installs its model.
const PocketsphinxModel = "/usr/share/pocketsphinx/model/en-us"

// Pocketsphinx transcribes offline with ffmpeg's asr filter.
type Pocketsphinx struct{ Model string }

// asrLog starts the log lines of the ametadata filter that prints what asr
// heard. Its file= option is no use: it cuts every line at 127 bytes (a
// fixed buffer in f_metadata.c), which kept 112 characters of an
// utterance; the log has no such limit.
const asrLog = "[ametadata@kino_asr @ 0x"

// silenceLog starts the log lines of the silencedetect filter that finds
// the pauses between words, in the same run: it logs under its own
// context, not its instance's name.
const silenceLog = "[silencedetect @ 0x"

// Pauses are silence of silenceNoise or quieter lasting silenceLength or
// more: long enough to pass over the closure of a stop consonant (about
// 50 ms), short enough to catch the pause at a comma.
const (
	silenceNoise  = "-40dB"
	silenceLength = 0.08
)

var (
	ptsTime      = regexp.MustCompile(`pts_time:([0-9.]+)`)
	silenceStart = regexp.MustCompile(`silence_start: (-?[0-9.]+)`)
	silenceEnd   = regexp.MustCompile(`silence_end: ([0-9.]+)`)
)

// Transcribe runs asr and reads each utterance it reports, with the time
// its end was heard. ffmpeg's asr filter gives no word's time, so the
// words are timed by estimate (timeWords): the same run finds the pauses
// in the sound, and each utterance's words are laid over its speech.
func (p Pocketsphinx) Transcribe(ctx context.Context, a Audio) ([]Cue, error) {
	heard, pauses, err := p.listen(ctx, a)
	if err != nil {
		return nil, err
	}
	return timeWords(heard, pauses), nil
}

// listen runs asr and silencedetect: the utterances (an utterance starts
// where the previous one ended), and the pauses.
func (p Pocketsphinx) listen(ctx context.Context, a Audio) ([]Cue, [][2]float64, error) {
	m := p.Model
	if m == "" {
		m = PocketsphinxModel
	}
	duration := a.Duration
	// Two seconds of silence at the end make pocketsphinx close the last
	// utterance; the pauses are found before them.
	af := fmt.Sprintf("aresample=16000,aformat=channel_layouts=mono,silencedetect=n=%s:d=%s,apad=pad_dur=2,asr=hmm=%s:dict=%s:lm=%s:logfn=/dev/null,ametadata@kino_asr=mode=print:key=lavfi.asr.text",
		silenceNoise, strconv.FormatFloat(silenceLength, 'f', -1, 64),
		engine.FilterPath(m+"/en-us"), engine.FilterPath(m+"/cmudict-en-us.dict"), engine.FilterPath(m+"/en-us.lm.bin"))
	var cues []Cue
	var pauses [][2]float64
	last, at := 0.0, 0.0
	onLine := func(line string) {
		if strings.HasPrefix(line, silenceLog) {
			if m := silenceStart.FindStringSubmatch(line); m != nil {
				t, _ := strconv.ParseFloat(m[1], 64)
				pauses = append(pauses, [2]float64{max(t, 0), duration + 2})
			} else if m := silenceEnd.FindStringSubmatch(line); m != nil && len(pauses) > 0 {
				pauses[len(pauses)-1][1], _ = strconv.ParseFloat(m[1], 64)
			}
			return
		}
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
		return nil, nil, fmt.Errorf("asr: %w", err)
	}
	return cues, pauses, nil
}
