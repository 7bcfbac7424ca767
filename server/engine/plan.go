package engine

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
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
// the sources downloaded and described in media (by Source.Key). Text goes
// to files in workDir, never into the filter graph, so no user string can
// change the graph; every other value placed in the graph is a number, a
// validated colour, or an escaped path.
func Plan(s *Scene, media map[string]Media, workDir, outPath, defaultFont string) (*Command, error) {
	p := &planner{s: s, media: media, workDir: workDir, files: map[string][]byte{}}
	p.graph = append(p.graph,
		fmt.Sprintf("color=c=%s:s=%dx%d:r=%d:d=%s[base]", s.Background, s.Width, s.Height, s.FPS, f(s.Duration)),
		fmt.Sprintf("anullsrc=r=%d:cl=stereo,atrim=end=%s[abase]", audioRate, f(s.Duration)),
	)
	video, audio := "base", []string{"abase"}
	for i, l := range s.Layers {
		var err error
		switch l.Kind {
		case KindColor:
			video = p.color(i, l, video)
		case KindImage, KindVideo:
			var a string
			video, a, err = p.visual(i, l, video)
			if a != "" {
				audio = append(audio, a)
			}
		case KindText:
			video, err = p.text(i, l, video, defaultFont)
		case KindAudio:
			var a string
			a, err = p.audio(i, l)
			audio = append(audio, a)
		}
		if err != nil {
			return nil, err
		}
	}
	p.graph = append(p.graph, fmt.Sprintf("[%s]format=yuv420p[vout]", video))
	mix := ""
	for _, a := range audio {
		mix += "[" + a + "]"
	}
	// duration=first: the silent base sets the length; normalize=0 keeps
	// each layer at the volume it asked for.
	p.graph = append(p.graph, fmt.Sprintf("%samix=inputs=%d:duration=first:normalize=0,aresample=%d[aout]", mix, len(audio), audioRate))

	args := append(p.inputs, "-filter_complex", strings.Join(p.graph, ";"),
		"-map", "[vout]", "-map", "[aout]", "-t", f(s.Duration), "-r", strconv.Itoa(s.FPS))
	args = append(args, encoderArgs(s.Format)...)
	args = append(args, outPath)
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

type planner struct {
	s       *Scene
	media   map[string]Media
	workDir string
	inputs  []string
	nInputs int
	graph   []string
	files   map[string][]byte
}

func (p *planner) input(args ...string) int {
	p.inputs = append(p.inputs, args...)
	p.nInputs++
	return p.nInputs - 1
}

// alpha is the chain that fades a layer in and out and sets its opacity,
// in layer time (before the shift to its start).
func alpha(l Layer) string {
	var parts []string
	if l.FadeIn > 0 {
		parts = append(parts, fmt.Sprintf("fade=t=in:st=0:d=%s:alpha=1", f(l.FadeIn)))
	}
	if l.FadeOut > 0 {
		parts = append(parts, fmt.Sprintf("fade=t=out:st=%s:d=%s:alpha=1", f(l.Duration-l.FadeOut), f(l.FadeOut)))
	}
	if l.Opacity < 1 {
		parts = append(parts, fmt.Sprintf("colorchannelmixer=aa=%s", f(l.Opacity)))
	}
	return strings.Join(parts, ",")
}

func join(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, ",")
}

// overlay places the layer chain lbl over video during the layer's time.
func (p *planner) overlay(i int, l Layer, video, lbl string) string {
	x, y := "(W-w)/2", "(H-h)/2"
	if !l.X.Center {
		x = strconv.Itoa(l.X.Px)
	}
	if !l.Y.Center {
		y = strconv.Itoa(l.Y.Px)
	}
	out := fmt.Sprintf("v%d", i)
	p.graph = append(p.graph, fmt.Sprintf("[%s][%s]overlay=x=%s:y=%s:eof_action=pass:enable='between(t,%s,%s)'[%s]",
		video, lbl, x, y, f(l.Start), f(l.End()), out))
	return out
}

func shift(l Layer) string {
	return fmt.Sprintf("setpts=PTS-STARTPTS+%s/TB", f(l.Start))
}

func (p *planner) color(i int, l Layer, video string) string {
	w, h := l.Width, l.Height
	if w == 0 {
		w = p.s.Width
	}
	if h == 0 {
		h = p.s.Height
	}
	lbl := fmt.Sprintf("l%d", i)
	p.graph = append(p.graph, fmt.Sprintf("%s[%s]", join(
		fmt.Sprintf("color=c=%s:s=%dx%d:r=%d:d=%s", l.Color, w, h, p.s.FPS, f(l.Duration)),
		"format=rgba", alpha(l), shift(l)), lbl))
	return p.overlay(i, l, video, lbl)
}

// scale sizes a layer: both given, one given (the other keeps the aspect
// ratio), or none (natural size).
func scale(l Layer) string {
	switch {
	case l.Width > 0 && l.Height > 0:
		return fmt.Sprintf("scale=%d:%d", l.Width, l.Height)
	case l.Width > 0:
		return fmt.Sprintf("scale=%d:-1", l.Width)
	case l.Height > 0:
		return fmt.Sprintf("scale=-1:%d", l.Height)
	}
	return ""
}

func (p *planner) visual(i int, l Layer, video string) (string, string, error) {
	m, ok := p.media[l.Source]
	if !ok {
		return "", "", fmt.Errorf("%s: source %s was not downloaded", l.SourceField, l.Source)
	}
	if !m.HasVideo {
		return "", "", &MediaError{Field: l.SourceField, Message: fmt.Sprintf("the file has no picture; a %s layer needs an image or a video", l.Kind)}
	}
	var in int
	if m.Still {
		in = p.input("-loop", "1", "-framerate", strconv.Itoa(p.s.FPS), "-t", f(l.Duration), "-i", m.Path)
	} else {
		in = p.input("-ss", f(l.TrimStart), "-t", f(l.Duration), "-i", m.Path)
	}
	lbl := fmt.Sprintf("l%d", i)
	p.graph = append(p.graph, fmt.Sprintf("[%d:v]%s[%s]", in, join(
		"setpts=PTS-STARTPTS", fmt.Sprintf("fps=%d", p.s.FPS), scale(l), "format=rgba", alpha(l), shift(l)), lbl))
	out := p.overlay(i, l, video, lbl)
	if l.Kind == KindVideo && m.HasAudio && !m.Still && l.Volume > 0 {
		return out, p.audioChain(i, l, in), nil
	}
	return out, "", nil
}

func (p *planner) audio(i int, l Layer) (string, error) {
	m, ok := p.media[l.Source]
	if !ok {
		return "", fmt.Errorf("%s: source %s was not downloaded", l.SourceField, l.Source)
	}
	if !m.HasAudio {
		return "", &MediaError{Field: l.SourceField, Message: "the file has no sound; an audio layer needs an audio or video file with an audio track"}
	}
	in := p.input("-ss", f(l.TrimStart), "-t", f(l.Duration), "-i", m.Path)
	return p.audioChain(i, l, in), nil
}

// audioChain brings input in's sound to the mix: one format, the layer's
// volume and fades, delayed to its start.
func (p *planner) audioChain(i int, l Layer, in int) string {
	lbl := fmt.Sprintf("a%d", i)
	parts := []string{
		fmt.Sprintf("aresample=%d", audioRate),
		"aformat=sample_fmts=fltp:channel_layouts=stereo",
		"asetpts=PTS-STARTPTS",
		fmt.Sprintf("volume=%s", f(l.Volume)),
	}
	if l.FadeIn > 0 {
		parts = append(parts, fmt.Sprintf("afade=t=in:st=0:d=%s", f(l.FadeIn)))
	}
	if l.FadeOut > 0 {
		parts = append(parts, fmt.Sprintf("afade=t=out:st=%s:d=%s", f(l.Duration-l.FadeOut), f(l.FadeOut)))
	}
	parts = append(parts, fmt.Sprintf("adelay=delays=%d:all=1", int(l.Start*1000+0.5)))
	p.graph = append(p.graph, fmt.Sprintf("[%d:a]%s[%s]", in, strings.Join(parts, ","), lbl))
	return lbl
}

// text draws a text layer with drawtext. The text itself is written to a
// file and read with textfile and expansion=none, so quotes, colons,
// backslashes and %{…} sequences are drawn as they are.
func (p *planner) text(i int, l Layer, video, defaultFont string) (string, error) {
	font := defaultFont
	if l.Font != "" {
		m, ok := p.media[l.Font]
		if !ok {
			return "", fmt.Errorf("%s: font %s was not downloaded", l.Field, l.Font)
		}
		if !m.Font {
			return "", &MediaError{Field: l.Field + ".font", Message: "the file is not a TrueType, OpenType or WOFF font"}
		}
		font = m.Path
	}
	name := fmt.Sprintf("text-%d.txt", i)
	p.files[name] = []byte(l.Text)
	x, y := "(w-text_w)/2", "(h-text_h)/2"
	if !l.X.Center {
		x = strconv.Itoa(l.X.Px)
	}
	if !l.Y.Center {
		y = strconv.Itoa(l.Y.Px)
	}
	// Opacity and fades as one alpha expression of the frame time t.
	a := f(l.Opacity)
	if l.FadeIn > 0 {
		a += fmt.Sprintf("*min(1\\,max(0\\,(t-%s)/%s))", f(l.Start), f(l.FadeIn))
	}
	if l.FadeOut > 0 {
		a += fmt.Sprintf("*min(1\\,max(0\\,(%s-t)/%s))", f(l.End()), f(l.FadeOut))
	}
	out := fmt.Sprintf("v%d", i)
	p.graph = append(p.graph, fmt.Sprintf(
		"[%s]drawtext=fontfile=%s:textfile=%s:expansion=none:fontsize=%d:fontcolor=%s:x=%s:y=%s:alpha=%s:enable='between(t,%s,%s)'[%s]",
		video, filterValue(font), filterValue(filepath.Join(p.workDir, name)), l.FontSize, l.Color, x, y, a,
		f(l.Start), f(l.End()), out))
	return out, nil
}
