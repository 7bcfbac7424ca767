package transcribe

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kinohq/kino/server/engine"
	"github.com/kinohq/kino/server/ffmpeg"
	"github.com/kinohq/kino/server/meter"
)

// Whisper transcribes with a Whisper-compatible HTTP service (OpenAI's
// /v1/audio/transcriptions, faster-whisper-server, whisper.cpp's server…),
// asking for verbose_json to get timed segments and words. The URL is the operator's
// own configuration, so it is called directly, not through the address
// guard that protects against users' URLs.
type Whisper struct {
	// URL is the full transcription endpoint.
	URL    string
	Model  string
	APIKey string
	Client *http.Client
	// PricePerMinute is what the endpoint charges, in USD per minute of
	// audio sent (--whisper-minute-price): the job's providerCost.
	PricePerMinute float64
}

// Transcribe sends the sound as 16 kHz mono WAV and reads the segments.
func (w Whisper) Transcribe(ctx context.Context, a Audio) ([]Cue, error) {
	wav := filepath.Join(a.Dir, "whisper.wav")
	if err := a.ffmpegRun(ctx, a.Duration, append(ffmpeg.InputArgsFormat(a.FFmpeg, a.Format, a.Path), "-vn", "-ac", "1", "-ar", "16000", "file:"+wav)); err != nil {
		return nil, fmt.Errorf("prepare audio for whisper: %w", err)
	}
	f, err := os.Open(wav)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	model := w.Model
	if model == "" {
		model = "whisper-1"
	}
	_ = mw.WriteField("model", model)
	_ = mw.WriteField("response_format", "verbose_json")
	// Words timed as well as segments (OpenAI's API sends segments only
	// when asked for them beside words); services that time no words
	// ignore the field.
	_ = mw.WriteField("timestamp_granularities[]", "word")
	_ = mw.WriteField("timestamp_granularities[]", "segment")
	if a.Language != "" && a.Language != "auto" {
		_ = mw.WriteField("language", a.Language)
	}
	fw, _ := mw.CreateFormFile("file", "audio.wav")
	if _, err := io.Copy(fw, f); err != nil {
		return nil, err
	}
	mw.Close()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.URL, &body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	if w.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+w.APIKey)
	}
	hc := w.Client
	if hc == nil {
		hc = &http.Client{Timeout: 10 * time.Minute}
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("whisper: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return nil, fmt.Errorf("whisper answered %d: %s", resp.StatusCode, strings.TrimSpace(string(b)))
	}
	answer, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil {
		return nil, fmt.Errorf("whisper: read its answer: %w", err)
	}
	if len(answer) > maxAnswer {
		return nil, fmt.Errorf("whisper: its answer is larger than %d bytes", maxAnswer)
	}
	// The endpoint answered: it charges for the audio whatever kino does next.
	meter.Provider(ctx, w.PricePerMinute*a.Duration/60)
	return whisperCues(answer, a.Duration)
}

// maxAnswer bounds a Whisper answer read: an hour of speech, its words
// and segments (with their tokens), is a few MiB.
const maxAnswer = 64 << 20

// whisperCues reads a verbose_json answer: its segments, with the words
// each holds (the answer's words, or the segment's own), cut to the
// sound's duration; only its text when it has neither segments nor words.
func whisperCues(answer []byte, duration float64) ([]Cue, error) {
	cues, err := engine.ParseTranscript(answer)
	var out []Cue
	for _, c := range cues {
		c.End = min(c.End, duration)
		if c.Start >= c.End {
			continue
		}
		for i := range c.Words {
			c.Words[i].Start, c.Words[i].End = min(c.Words[i].Start, duration), min(c.Words[i].End, duration)
		}
		out = append(out, c)
	}
	if len(out) > 0 {
		return out, nil
	}
	var v struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(answer, &v) != nil {
		if err == nil {
			return nil, nil
		}
		return nil, fmt.Errorf("whisper: read its answer: %w", err)
	}
	if t := strings.TrimSpace(v.Text); t != "" {
		return []Cue{{Start: 0, End: duration, Text: t}}, nil
	}
	return nil, nil
}
