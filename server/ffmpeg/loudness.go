package ffmpeg

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Loudness is what ffmpeg's loudnorm filter measured of a mix, before any
// gain (its print_format=json answer).
type Loudness struct {
	// Integrated loudness in LUFS; −Inf for silence.
	Integrated float64
	// TruePeak in dBTP.
	TruePeak float64
	// Range is the loudness range in LU.
	Range float64
	// Threshold is the relative gate in LUFS.
	Threshold float64
}

// MeasureLoudness runs args, a command whose graph ends in loudnorm with
// print_format=json (the first pass of a render with loudness: the
// engine's PlanLoudness), and reads the measure loudnorm prints in the
// log. opts are the run's; its OnLogLine is replaced by the reader of
// the measure.
func MeasureLoudness(ctx context.Context, args []string, opts RunOptions) (*Loudness, error) {
	var lines []string
	opts.OnLogLine = func(l string) {
		if len(lines) > 0 || strings.TrimSpace(l) == "{" {
			lines = append(lines, l)
		}
	}
	if err := Run(ctx, args, opts); err != nil {
		return nil, err
	}
	return parseLoudnorm(lines)
}

// parseLoudnorm reads the JSON loudnorm prints (print_format=json) from
// the lines of ffmpeg's log that start at its opening brace.
func parseLoudnorm(lines []string) (*Loudness, error) {
	var end int
	for end < len(lines) && strings.TrimSpace(lines[end]) != "}" {
		end++
	}
	if end == len(lines) {
		return nil, errors.New("loudnorm printed no measurement")
	}
	var v struct {
		I      string `json:"input_i"`
		TP     string `json:"input_tp"`
		LRA    string `json:"input_lra"`
		Thresh string `json:"input_thresh"`
	}
	if err := json.Unmarshal([]byte(strings.Join(lines[:end+1], "\n")), &v); err != nil {
		return nil, fmt.Errorf("read loudnorm's measurement: %w", err)
	}
	var m Loudness
	for _, fv := range []struct {
		s   string
		dst *float64
	}{{v.I, &m.Integrated}, {v.TP, &m.TruePeak}, {v.LRA, &m.Range}, {v.Thresh, &m.Threshold}} {
		x, err := strconv.ParseFloat(strings.TrimSpace(fv.s), 64)
		if err != nil {
			return nil, fmt.Errorf("read loudnorm's measurement %q: %w", fv.s, err)
		}
		*fv.dst = x
	}
	return &m, nil
}
