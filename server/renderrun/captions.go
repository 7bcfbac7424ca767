package renderrun

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kinohq/kino/server/engine"
	"github.com/kinohq/kino/server/ffmpeg"
	"github.com/kinohq/kino/server/jobs"
	"github.com/kinohq/kino/server/transcribe"
)

// readCaptions gives every captions layer its cues before planning (the
// engine reads no file): an SRT or WebVTT file downloaded as a source is
// parsed, and a layer's sound is transcribed with the transcriber of
// caption.extract (with its words' times). A file that is not SRT,
// WebVTT or a JSON of words fails the render with ASSET_INVALID naming
// the src and the line. When ctx ends first, the
// failure is nil: the caller says why.
func (r *renderRun) readCaptions(ctx context.Context, dir string, scene *engine.Scene, media map[string]engine.Media) *jobs.Failure {
	if !scene.HasPicture() {
		// Nothing is drawn: no captions are read.
		return nil
	}
	// One transcription a transcribed layer, however many captions use it
	// (the mix is -1).
	heard := map[int][]transcribe.Cue{}
	for i, l := range scene.Layers {
		cp := l.Captions
		if cp == nil {
			continue
		}
		switch {
		case cp.Source != "":
			m, ok := media[cp.Source]
			if !ok {
				return failed(jobs.CodeRenderFailed, "%s: the captions file was not downloaded", cp.SourceField)
			}
			data, err := readCapped(m.Path, engine.MaxCaptionBytes)
			if err != nil {
				return failed(jobs.CodeAssetInvalid, "%s: %v", cp.SourceField, err)
			}
			cues, err := engine.ParseCues(data)
			if err != nil {
				return failed(jobs.CodeAssetInvalid, "%s: the file is not SRT, WebVTT or a JSON of words that kino can read: %v", cp.SourceField, err)
			}
			scene.SetCues(i, cues)
		case cp.TranscribeMix:
			cues, done := heard[-1]
			if !done {
				var f *jobs.Failure
				if cues, f = r.transcribeMix(ctx, dir, scene, media, cp.TranscribeField); f != nil || ctx.Err() != nil {
					return f
				}
				heard[-1] = cues
			}
			scene.SetCues(i, shiftCues(cues, func(t float64) float64 { return t - l.Start }))
		case cp.Transcribe >= 0:
			src := scene.Layers[cp.Transcribe]
			cues, done := heard[cp.Transcribe]
			if !done {
				m := media[src.Source]
				if !m.HasAudio {
					return failed(jobs.CodeAssetInvalid, "%s: the file of the layer to transcribe (%s) has no sound", cp.TranscribeField, src.SourceField)
				}
				tr := r.transcriber()
				work := filepath.Join(dir, fmt.Sprintf("transcribe-%d", cp.Transcribe))
				if err := os.Mkdir(work, 0o700); err != nil {
					return &jobs.Failure{Code: jobs.CodeRenderFailed, Message: "kino could not create a working folder", Retry: true}
				}
				var err error
				cues, err = tr.Transcribe(ctx, transcribe.Audio{Path: m.Path, Format: m.Format, Dir: work, Duration: m.Duration, FFmpeg: r.cfg.Env.FFmpeg})
				if ctx.Err() != nil {
					return nil
				}
				if err != nil {
					r.log.Error("transcribe", "field", cp.TranscribeField, "err", err)
					return &jobs.Failure{Code: jobs.CodeRenderFailed, Message: fmt.Sprintf("%s: the sound could not be transcribed", cp.TranscribeField), Retry: true}
				}
				heard[cp.Transcribe] = cues
			}
			scene.SetCues(i, heardCues(cues, src, l))
		}
	}
	return nil
}

// heardCues places what was heard in a file (in the file's time) in the
// captions layer's time: the file plays in its layer from trimStart, at
// its speed. Words heard outside the layer are cut by Plan.
func heardCues(cues []transcribe.Cue, src, captions engine.Layer) []engine.Cue {
	speed := src.Playback.Speed
	if speed == 0 {
		speed = 1
	}
	return shiftCues(cues, func(t float64) float64 { return src.Start + (t-src.TrimStart)/speed - captions.Start })
}

// shiftCues places cues, and the times of their words, at at(t).
func shiftCues(cues []transcribe.Cue, at func(float64) float64) []engine.Cue {
	out := make([]engine.Cue, 0, len(cues))
	for _, c := range cues {
		var words []engine.Word
		for _, w := range c.Words {
			words = append(words, engine.Word{Start: at(w.Start), End: at(w.End), Text: w.Text})
		}
		out = append(out, engine.Cue{Start: at(c.Start), End: at(c.End), Text: c.Text, Words: words})
	}
	return out
}

// transcribeMix renders the composition's sound alone (as a wav output
// of the same composition would be) and transcribes it; the cues are in
// scene time.
func (r *renderRun) transcribeMix(ctx context.Context, dir string, scene *engine.Scene, media map[string]engine.Media, field string) ([]transcribe.Cue, *jobs.Failure) {
	work := filepath.Join(dir, "transcribe-mix")
	if err := os.Mkdir(work, 0o700); err != nil {
		return nil, &jobs.Failure{Code: jobs.CodeRenderFailed, Message: "kino could not create a working folder", Retry: true}
	}
	mix := *scene
	mix.Format, mix.Poster, mix.Thumbnail = "wav", nil, nil
	wav := filepath.Join(work, "mix.wav")
	cmd, err := engine.Plan(ctx, &mix, inputs(r.cfg.Env, media), work, wav)
	if err != nil {
		var me *engine.MediaError
		if errors.As(err, &me) {
			return nil, failed(jobs.CodeAssetInvalid, "%s", err.Error())
		}
		return nil, failed(jobs.CodeRenderFailed, "%s: the sound to transcribe could not be planned: %v", field, err)
	}
	if err := cmd.WriteFiles(work); err != nil {
		return nil, &jobs.Failure{Code: jobs.CodeRenderFailed, Message: "kino could not write a working file", Retry: true}
	}
	if err := ffmpeg.Run(ctx, cmd.Args, ffmpeg.RunOptions{Limits: r.cfg.Env.FFmpeg, Dir: work, Duration: scene.Duration}); err != nil {
		if ctx.Err() != nil {
			return nil, nil
		}
		return nil, failed(jobs.CodeRenderFailed, "%s: the sound to transcribe could not be mixed: %s", field, lastLine(err))
	}
	cues, err := r.transcriber().Transcribe(ctx, transcribe.Audio{Path: wav, Format: "wav", Dir: work, Duration: scene.Duration, FFmpeg: r.cfg.Env.FFmpeg})
	if ctx.Err() != nil {
		return nil, nil
	}
	if err != nil {
		r.log.Error("transcribe", "field", field, "err", err)
		return nil, &jobs.Failure{Code: jobs.CodeRenderFailed, Message: fmt.Sprintf("%s: the sound could not be transcribed", field), Retry: true}
	}
	return cues, nil
}

// transcriber is the configured transcriber, or offline pocketsphinx.
func (r *renderRun) transcriber() transcribe.Transcriber {
	if r.cfg.Env.Transcriber != nil {
		return r.cfg.Env.Transcriber
	}
	return transcribe.Pocketsphinx{}
}

var errTooLarge = errors.New("the captions file is larger than the limit")

// readCapped reads a file of at most limit bytes.
func readCapped(path string, limit int64) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.Size() > limit {
		return nil, fmt.Errorf("%w of %d bytes (%d)", errTooLarge, limit, st.Size())
	}
	return os.ReadFile(path)
}
