package ffmpeg

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os/exec"
	"strconv"
	"strings"

	"github.com/kinohq/kino/server/meter"
)

// FirstFrameAfter is how far past t seconds (from the file's start) the
// first video frame at or after t lies: the frame ffmpeg's accurate seek
// (-ss t on the input) starts the stream with. A part of a split render
// seeks elsewhere and needs it to number the frames as the whole render
// does. It reads packets only, a couple of seconds of them, decoding
// nothing. format is the demuxer kino probed; ffprobe runs within l's
// memory limit.
func FirstFrameAfter(ctx context.Context, l Limits, path, format string, t float64) (float64, error) {
	start, err := probeEntry(ctx, l, path, format, nil, "format=start_time")
	if err != nil {
		return 0, err
	}
	var fst float64
	if len(start.Format.StartTime) > 0 {
		fst = parseFloat(start.Format.StartTime)
	}
	at := t + fst
	p, err := probeEntry(ctx, l, path, format, []string{"-select_streams", "v:0", "-read_intervals", fmt.Sprintf("%f%%+2", at)}, "packet=pts_time")
	if err != nil {
		return 0, err
	}
	first := math.Inf(1)
	for _, pk := range p.Packets {
		if pts := parseFloat(pk.PTSTime); pts >= at-1e-9 && pts < first {
			first = pts
		}
	}
	if math.IsInf(first, 1) {
		return 0, fmt.Errorf("ffprobe %s: no video frame within 2 s after %s s", path, strconv.FormatFloat(t, 'f', -1, 64))
	}
	return first - at, nil
}

type entryJSON struct {
	Format struct {
		StartTime string `json:"start_time"`
	} `json:"format"`
	Packets []struct {
		PTSTime string `json:"pts_time"`
	} `json:"packets"`
}

func probeEntry(ctx context.Context, l Limits, path, format string, extra []string, entries string) (*entryJSON, error) {
	args := []string{"-v", "error", "-protocol_whitelist", "file", "-f", format, "-print_format", "json", "-show_entries", entries}
	args = append(append(args, extra...), "file:"+path)
	cmd := exec.CommandContext(ctx, "ffprobe", args...)
	var stdout bytes.Buffer
	stderr := &tailBuffer{max: stderrKeep}
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start ffprobe: %w", err)
	}
	if err := limit(cmd, l); err != nil {
		return nil, err
	}
	err := cmd.Wait()
	meter.Process(ctx, cmd.ProcessState)
	if err != nil {
		return nil, fmt.Errorf("ffprobe %s: %w: %s", path, err, strings.TrimSpace(stderr.String()))
	}
	var e entryJSON
	if err := json.Unmarshal(stdout.Bytes(), &e); err != nil {
		return nil, fmt.Errorf("ffprobe %s: read its answer: %w", path, err)
	}
	return &e, nil
}
