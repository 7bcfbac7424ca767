package ffmpeg

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"slices"
	"strconv"
	"strings"

	"github.com/kinohq/kino/server/meter"
)

// Info is what ffprobe says of a file.
type Info struct {
	// FormatName is the demuxer's name, such as "mov,mp4,m4a,3gp,3g2,mj2",
	// "matroska,webm" or "png_pipe".
	FormatName string
	// Duration of the file in seconds, 0 when unknown (a still picture).
	Duration float64
	Streams  []Stream
}

// Stream is one stream of a probed file. Numbers ffprobe does not know
// are 0.
type Stream struct {
	Index     int
	CodecType string // video, audio, subtitle, data, attachment
	CodecName string
	// Width and Height of a video stream, as stored (before any rotation).
	Width, Height int
	// Rotation is how far, in degrees, the container asks players to turn
	// the picture (its display matrix, as ffprobe reports it: 90, -90,
	// 180…); ffmpeg's decoding turns it. 0 when upright.
	Rotation int
	// FPS is the average frame rate, or the real base rate when the
	// average is unknown.
	FPS float64
	// NbFrames is the frame count the container declares (Probe) or the
	// frames decoded (ProbeFrames).
	NbFrames   int
	Duration   float64
	PixFmt     string
	SampleRate int
	Channels   int
}

// Video is the first video stream, or nil.
func (i *Info) Video() *Stream { return i.first("video") }

// Audio is the first audio stream, or nil.
func (i *Info) Audio() *Stream { return i.first("audio") }

func (i *Info) first(kind string) *Stream {
	for k := range i.Streams {
		if i.Streams[k].CodecType == kind {
			return &i.Streams[k]
		}
	}
	return nil
}

type probeJSON struct {
	Format struct {
		FormatName string `json:"format_name"`
		Duration   string `json:"duration"`
	} `json:"format"`
	Streams []struct {
		Index        int    `json:"index"`
		CodecType    string `json:"codec_type"`
		CodecName    string `json:"codec_name"`
		Width        int    `json:"width"`
		Height       int    `json:"height"`
		AvgFrameRate string `json:"avg_frame_rate"`
		RFrameRate   string `json:"r_frame_rate"`
		NbFrames     string `json:"nb_frames"`
		NbReadFrames string `json:"nb_read_frames"`
		Duration     string `json:"duration"`
		PixFmt       string `json:"pix_fmt"`
		SampleRate   string `json:"sample_rate"`
		Channels     int    `json:"channels"`
		SideData     []struct {
			Rotation float64 `json:"rotation"`
		} `json:"side_data_list"`
	} `json:"streams"`
}

// Probe reads the container and streams of the file at path, from their
// headers: quick, but NbFrames is 0 where the container does not say (WebM,
// raw streams). A file kino will not open (a format that refers to other
// files, an unknown one, a picture over l's pixel limit) is an
// *InputError. ffprobe runs within l's memory limit.
func Probe(ctx context.Context, l Limits, path string) (*Info, error) {
	ctx, span := startProbe(ctx, readerFFprobe)
	info, err := probe(ctx, l, path, false)
	return endProbe(span, info, err)
}

// ProbeFrames is Probe, with NbFrames counted by decoding the whole file:
// exact, and as slow as a decode. For tests and diagnostics.
func ProbeFrames(ctx context.Context, l Limits, path string) (*Info, error) {
	ctx, span := startProbe(ctx, readerFFprobe)
	info, err := probe(ctx, l, path, true)
	return endProbe(span, info, err)
}

// ProbeOutput is Probe for a file kino made itself, such as an HLS
// playlist beside its segments: any format, references followed.
func ProbeOutput(ctx context.Context, l Limits, path string) (*Info, error) {
	ctx, span := startProbe(ctx, readerFFprobe)
	info, err := ffprobe(ctx, l, path, nil)
	return endProbe(span, info, err)
}

func probe(ctx context.Context, l Limits, path string, count bool) (*Info, error) {
	if w, h, ok := pictureHeader(path); ok {
		if err := checkPixels(l, w, h); err != nil {
			return nil, err
		}
	}
	// Only the demuxers kino opens, so that ffprobe itself never follows a
	// playlist's references.
	args := []string{"-protocol_whitelist", "file", "-format_whitelist", formatWhitelist}
	if count {
		args = append(args, "-count_frames")
	}
	info, err := ffprobe(ctx, l, path, args)
	if err != nil {
		if reason, ok := describeRefusal(path); ok {
			return nil, &InputError{Reason: reason}
		}
		return nil, err
	}
	if err := info.check(l); err != nil {
		return nil, err
	}
	return info, nil
}

// probeEntries are the fields of probeJSON, all ffprobe is asked for:
// -show_format and -show_streams would add every tag, and a file's tags
// are as long as the file makes them.
const probeEntries = "format=format_name,duration" +
	":stream=index,codec_type,codec_name,width,height,avg_frame_rate,r_frame_rate,nb_frames,nb_read_frames,duration,pix_fmt,sample_rate,channels" +
	":stream_side_data=rotation"

// ffprobe runs ffprobe on path with extra options, under l's memory limit.
func ffprobe(ctx context.Context, l Limits, path string, extra []string) (*Info, error) {
	count := slices.Contains(extra, "-count_frames")
	args := append([]string{"-v", "error", "-print_format", "json", "-show_entries", probeEntries}, extra...)
	// file: keeps ffprobe from reading part of the path as a protocol.
	cmd := exec.CommandContext(ctx, "ffprobe", append(args, "file:"+path)...)
	var stdout bytes.Buffer
	// Errors are kept as a run's are: the end, where ffprobe says what
	// went wrong, however many a damaged file makes it print.
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
	out := stdout.Bytes()
	var p probeJSON
	if err := json.Unmarshal(out, &p); err != nil {
		return nil, fmt.Errorf("ffprobe %s: read its answer: %w", path, err)
	}
	info := &Info{FormatName: p.Format.FormatName, Duration: parseFloat(p.Format.Duration)}
	for _, s := range p.Streams {
		fps := parseRate(s.AvgFrameRate)
		if fps == 0 {
			fps = parseRate(s.RFrameRate)
		}
		nb, _ := strconv.Atoi(s.NbFrames)
		if count {
			nb, _ = strconv.Atoi(s.NbReadFrames)
		}
		sr, _ := strconv.Atoi(s.SampleRate)
		rotation := 0
		for _, sd := range s.SideData {
			if sd.Rotation != 0 {
				rotation = int(sd.Rotation)
			}
		}
		info.Streams = append(info.Streams, Stream{
			Index: s.Index, CodecType: s.CodecType, CodecName: s.CodecName,
			Width: s.Width, Height: s.Height, Rotation: rotation, FPS: fps, NbFrames: nb,
			Duration: parseFloat(s.Duration), PixFmt: s.PixFmt, SampleRate: sr, Channels: s.Channels,
		})
	}
	return info, nil
}

func parseFloat(s string) float64 {
	f, _ := strconv.ParseFloat(s, 64)
	return f
}

// parseRate reads ffprobe's "30000/1001" rates.
func parseRate(s string) float64 {
	num, den, ok := strings.Cut(s, "/")
	if !ok {
		return parseFloat(s)
	}
	n, d := parseFloat(num), parseFloat(den)
	if d == 0 {
		return 0
	}
	return n / d
}
