package engine

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kinohq/kino/server/ffmpeg"
)

// Command is an ffmpeg invocation and the files it reads that Plan made.
type Command struct {
	// Args are ffmpeg's arguments, without the program name.
	Args []string
	// Files maps a file name in the working folder to its content; they
	// must be written before ffmpeg runs.
	Files map[string][]byte
}

// audioRate is the sample rate of every output.
const audioRate = 48000

// Plan builds the ffmpeg command that renders the scene to outPath, with
// the sources downloaded and described in media (by Source.Key). workDir
// is the absolute folder where the caller writes Command.Files; text goes
// there, never into the filter graph, so no user string can change the
// graph; every other value placed in the graph is a number, a validated
// colour, or an escaped path. defaultFont is the font file of text layers
// that name none.
//
// The output has exactly the scene's size, frame rate and duration, and
// always a 48 kHz stereo audio track. Layers are placed on whole frames:
// a layer covers the frames whose time t satisfies start <= t < end.
//
// A source that does not fit its layer is a *MediaError.
func Plan(s *Scene, media map[string]Media, workDir, outPath, defaultFont string) (*Command, error) {
	p := &planner{s: s, media: media, workDir: workDir, files: map[string][]byte{}}
	// The topmost opaque colour layer that covers every pixel of every
	// frame is the base itself: nothing below it shows, so it costs no
	// overlay.
	under, background := p.cover()
	p.graph = append(p.graph,
		fmt.Sprintf("color=c=%s:s=%dx%d:r=%d:d=%s[base]", background, s.Width, s.Height, s.FPS, f(s.Duration)),
		fmt.Sprintf("anullsrc=r=%d:cl=stereo,atrim=end=%s[abase]", audioRate, f(s.Duration)),
	)
	video, audio := "base", []string{"abase"}
	for i, l := range s.Layers {
		var (
			a   string
			err error
		)
		// Layers under the cover are never seen, but are still checked,
		// and a video's sound still plays.
		hidden := i <= under
		switch l.Kind {
		case KindColor:
			if !hidden {
				video = p.color(i, l, video)
			}
		case KindImage, KindVideo:
			video, a, err = p.visual(i, l, video, hidden)
		case KindText:
			video, err = p.text(i, l, video, defaultFont, hidden)
		case KindAudio:
			a, err = p.audio(i, l)
		}
		if err != nil {
			return nil, err
		}
		if a != "" {
			audio = append(audio, a)
		}
	}
	// The one format of the main chain: format negotiation carries it back
	// through every overlay and drawtext to the base, so the frame is
	// blended in the encoder's format and never converted.
	p.graph = append(p.graph, fmt.Sprintf("[%s]format=yuv420p[vout]", video))
	var mix strings.Builder
	for _, a := range audio {
		mix.WriteString("[" + a + "]")
	}
	// duration=first: the silent base sets the length; normalize=0 keeps
	// each layer at the volume it asked for instead of dividing by the
	// number of inputs.
	p.graph = append(p.graph, fmt.Sprintf("%samix=inputs=%d:duration=first:normalize=0,aresample=%d[aout]", mix.String(), len(audio), audioRate))

	args := append(p.inputs, "-filter_complex", strings.Join(p.graph, ";"),
		"-map", "[vout]", "-map", "[aout]", "-t", f(s.Duration), "-r", strconv.Itoa(s.FPS))
	args = append(args, encoderArgs(s.Format)...)
	// file: keeps ffmpeg from reading part of the path as a protocol.
	args = append(args, "file:"+outPath)
	return &Command{Args: args, Files: p.files}, nil
}

// encoderArgs are the codec settings of each format: fast presets, since a
// render API is judged on turnaround.
func encoderArgs(format string) []string {
	if format == "webm" {
		return []string{"-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-row-mt", "1",
			"-b:v", "0", "-crf", "33", "-pix_fmt", "yuv420p",
			"-c:a", "libopus", "-b:a", "96k", "-ar", strconv.Itoa(audioRate), "-f", "webm"}
	}
	return []string{"-c:v", "libx264", "-preset", "veryfast", "-crf", "20", "-pix_fmt", "yuv420p",
		"-c:a", "aac", "-b:a", "128k", "-ar", strconv.Itoa(audioRate), "-movflags", "+faststart", "-f", "mp4"}
}

// planner accumulates the inputs and filter chains of one command.
type planner struct {
	s       *Scene
	media   map[string]Media
	workDir string
	inputs  []string
	nInputs int
	graph   []string
	files   map[string][]byte
}

// input adds a downloaded file as an input, opened with the demuxer kino
// probed (never one ffmpeg guesses, which could follow a playlist to other
// files), with its input options, and returns its index.
func (p *planner) input(m Media, opts ...string) int {
	p.inputs = append(p.inputs, ffmpeg.InputArgsFormat(m.Format, m.Path, opts...)...)
	p.nInputs++
	return p.nInputs - 1
}

// medium is the downloaded file behind a layer's source.
func (p *planner) medium(l Layer) (Media, error) {
	m, ok := p.media[l.Source]
	if !ok {
		return Media{}, fmt.Errorf("%s: source %s was not downloaded", l.SourceField, l.Source)
	}
	if m.Format == "" && !m.Font {
		return Media{}, fmt.Errorf("%s: source %s was not probed", l.SourceField, l.Source)
	}
	return m, nil
}
