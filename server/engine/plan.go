package engine

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kinohq/kino/server/ffmpeg"
	"github.com/kinohq/kino/server/glyphs"
	"github.com/kinohq/kino/server/meter"
	"github.com/kinohq/kino/server/mockup"
)

// Command is an ffmpeg invocation and the files it reads that Plan made.
type Command struct {
	// Args are ffmpeg's arguments, without the program name.
	Args []string
	// Files maps a file name in the working folder to its content; they
	// must be written before ffmpeg runs.
	Files map[string][]byte
	// Pictures are the poster and thumbnail the command writes beside the
	// output, in the working folder.
	Pictures []Picture
	// Warnings say what the render does not draw as asked: characters no
	// font has, named with the layer's text field.
	Warnings []string
	// drawn are files beside Files that WriteFiles draws as it writes
	// them, frame by frame, rather than hold in memory: the frames of
	// text whose words or letters move (wordframes.go), up to
	// MaxDrawnBytes a command.
	drawn map[string]func(io.Writer) error
}

// Picture is a picture a command writes beside its output.
type Picture struct {
	// Name is "poster" or "thumbnail".
	Name string
	// Format is "jpg", or "png" for a transparent video's.
	Format string
	// Path is where the command writes it.
	Path string
}

// audioRate is the sample rate of every output.
const audioRate = 48000

// maxGraphArg bounds the filter graph passed as an argument: Linux refuses
// to start a program with an argument over 128 KiB, which many lines of
// laid-out text (one drawtext each) or many keyframes can reach. A longer
// graph goes to graphFile, which ffmpeg reads with -filter_complex_script.
const (
	maxGraphArg = 64 << 10
	graphFile   = "graph.txt"
)

// Inputs are what a plan reads beside its scene, all of it gathered by
// the worker before planning: the engine runs no process and reads no
// store or network (see the package comment).
type Inputs struct {
	// Media are the downloaded sources, probed (MediaFromInfo) or read
	// (FontFromFile), by Source.Key.
	Media map[string]Media
	// DefaultFont is the font file of text layers that name none.
	DefaultFont string
	// Templates opens the mockup templates mockup layers draw; nil when
	// the scene has none.
	Templates OpenTemplate
	// FFmpeg are the limits of the ffmpeg that runs the command (the
	// node's): the pixel bound of its inputs, and the memory the layers
	// may take in its graph.
	FFmpeg ffmpeg.Limits
	// Fonts are the node's fallback fonts, tried for each character the
	// layer's own fonts lack; nil falls back to none.
	Fonts *glyphs.Machine
	// drawBudget replaces MaxDrawnBytes when not 0 (tests); below 0, no
	// frames are drawn.
	drawBudget int64
}

// OpenTemplate opens the mockup template downloaded at path, decoded with
// package mockup (mockup.Load, or a cache of templates), and returns a
// function that lets it go. A plan opens each template when it first
// draws it and lets it go after the last layer that draws it, so that it
// holds one template's pixels at a time. A template kino cannot draw is
// an error saying why, which the plan reports on the layer's template.
type OpenTemplate func(path string) (*mockup.Template, func(), error)

// Plan builds the ffmpeg command that renders the scene to outPath, with
// what the worker gathered in in. workDir is the absolute folder where the
// caller writes Command.Files; text goes there, never into the filter
// graph, so no user string can change the graph; every other value placed
// in the graph is a number, a validated colour, or an escaped path. The
// poster and thumbnail asked for are written to workDir by the same
// command (Command.Pictures). Plan reads nothing but the fonts of styled
// text layers, whose glyphs it measures to break and place lines, and
// the pictures of mockup layers, which it draws into their templates.
//
// A video has exactly the scene's size, frame rate and duration, and,
// but for a GIF, a 48 kHz stereo audio track; an audio format holds that
// track alone, a still the one frame. Layers are placed on whole frames:
// a layer covers the frames whose time t satisfies start <= t < end.
//
// A source that does not fit its layer is a *MediaError. Laid-out text
// that comes to more lines on screen than a render draws is a
// *ValidationError naming the layer's text: only the font tells how many
// lines a text wraps to.
//
// The work Plan does in kino's process (painting shapes, laying text out,
// drawing mockup templates) stops between layers, and between rows of a
// picture, once ctx is done, and Plan returns ctx's error; its CPU time
// goes to ctx's meter (meter.Thread), as an ffmpeg process's does.
func Plan(ctx context.Context, s *Scene, in Inputs, workDir, outPath string) (*Command, error) {
	return plan(ctx, s, in, workDir, outPath, whole)
}

// PlanPart plans a part of a split render (Scene.Part): its frames alone,
// no sound, with the encoder settings of the whole, in a container whose
// parts join without encoding again (MPEG-TS for H.264: no edit list, so
// no frame is lost or repeated where two parts meet).
func PlanPart(ctx context.Context, part *Scene, in Inputs, workDir, outPath string) (*Command, error) {
	return plan(ctx, part, in, workDir, outPath, pictureOnly)
}

// PlanSound plans the sound of a split render: the whole timeline's mix,
// encoded once as the unsplit render encodes it, so that no encoder
// priming or padding falls between parts.
func PlanSound(ctx context.Context, s *Scene, in Inputs, workDir, outPath string) (*Command, error) {
	return plan(ctx, s, in, workDir, outPath, soundOnly)
}

// planMode is what of the output a command makes.
type planMode int

const (
	whole planMode = iota
	pictureOnly
	soundOnly
)

func plan(ctx context.Context, s *Scene, in Inputs, workDir, outPath string, mode planMode) (*Command, error) {
	defer meter.Thread(ctx)()
	if mode == whole && s.Still() && !s.stillCut {
		s = s.StillFrame()
	}
	p := &planner{ctx: ctx, s: s, media: in.Media, limits: in.FFmpeg, fallback: in.Fonts, openTemplate: in.Templates, workDir: workDir, files: map[string][]byte{}, mode: mode,
		drawn: map[string]func(io.Writer) error{}, drawBudget: in.drawBudget}
	if p.drawBudget == 0 {
		p.drawBudget = MaxDrawnBytes
	}
	defaultFont := in.DefaultFont
	defer p.closeTemplates()
	picture, sound := s.HasPicture() && mode != soundOnly, s.HasSound() && mode != pictureOnly
	// The topmost opaque colour layer that covers every pixel of every
	// frame is the base itself: nothing below it shows, so it costs no
	// overlay.
	under, background := p.cover()
	if picture {
		if err := p.checkGraphMemory(); err != nil {
			return nil, err
		}
		base := fmt.Sprintf("color=c=%s:s=%dx%d:r=%d:d=%s", background, s.Width, s.Height, s.FPS, f(s.Shown()))
		if s.lead > 0 {
			// A part's frames start where its timeline's lead ends: the
			// frames before are never drawn, only the layers' clocks run.
			base = join(base, fmt.Sprintf("setpts=N+%d", s.lead))
		}
		p.graph = append(p.graph, base+"[base]")
	} else {
		// Nothing is drawn: every layer is only checked, and a video's
		// sound still plays.
		under = len(s.Layers) - 1
	}
	if sound {
		p.graph = append(p.graph, fmt.Sprintf("anullsrc=r=%d:cl=stereo,atrim=end=%s[abase]", audioRate, f(s.Duration)))
	}
	// Only a background that is not opaque leaves pixels transparent:
	// layers are blended over it and never lower its alpha.
	alpha := formats[s.Format].alpha && colorAlpha(background) < 0xFF
	video := "base"
	// The label of each layer's sound in the mix, by layer index.
	sounds := map[int]string{}
	for i, l := range s.Layers {
		var (
			a   string
			err error
		)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// Layers under the cover are never seen, but are still checked,
		// and a video's sound still plays.
		hidden := i <= under
		if mode == soundOnly && l.Kind != KindVideo && l.Kind != KindAudio && l.Kind != KindMockup {
			continue // silent: nothing to check that the whole render did not
		}
		switch l.Kind {
		case KindColor:
			if !hidden {
				video = p.color(i, l, video)
			}
		case KindImage, KindVideo:
			video, a, err = p.visual(i, l, video, hidden)
		case KindMockup:
			video, a, err = p.mockupLayer(i, l, video, hidden)
		case KindText:
			video, err = p.text(i, l, video, defaultFont, hidden)
		case KindAudio:
			a, err = p.audio(i, l)
		case KindCaptions:
			video, err = p.captionsLayer(i, l, video, defaultFont, alpha, hidden || !s.HasPicture())
		case KindRectangle, KindEllipse:
			if !hidden {
				video = p.shape(i, l, video)
			}
		}
		if err == nil {
			err = ctx.Err()
		}
		if err != nil {
			return nil, err
		}
		if a != "" {
			sounds[i] = a
		}
	}
	if picture {
		p.pictureChains(video, alpha)
	}
	if sound {
		p.mix(sounds)
	}

	graph := strings.Join(p.graph, ";")
	args := append(p.threads(graph), p.inputArgs()...)
	if len(graph) > maxGraphArg {
		p.files[graphFile] = []byte(graph)
		args = append(args, "-filter_complex_script", filepath.Join(workDir, graphFile))
	} else {
		args = append(args, "-filter_complex", graph)
	}
	if picture {
		args = append(args, "-map", "[vout]")
	}
	if sound {
		args = append(args, "-map", "[aout]")
	}
	switch {
	case s.Still():
		args = append(args, "-frames:v", "1")
	case picture:
		args = append(args, "-t", f(s.Shown()), "-r", strconv.Itoa(s.FPS))
	default:
		args = append(args, "-t", f(s.Duration))
	}
	enc := encoderArgs(s.Format, alpha)
	if mode == pictureOnly {
		enc = partContainer(enc)
	}
	args = append(args, enc...)
	// file: keeps ffmpeg from reading part of the path as a protocol.
	args = append(args, "file:"+outPath)
	for _, pic := range p.pictures {
		args = append(args, "-map", "["+pic.Name+"]", "-frames:v", "1")
		args = append(args, encoderArgs(pic.Format, pic.Format == "png")...)
		args = append(args, "file:"+pic.Path)
	}
	return &Command{Args: args, Files: p.files, Pictures: p.pictures, Warnings: p.warnings, drawn: p.drawn}, nil
}

// partContainer changes the container of a part's encoder settings to
// MPEG-TS, whose parts the concat demuxer joins end to end, and drops what
// only MP4 takes. The codec settings stay those of the whole render.
func partContainer(enc []string) []string {
	var out []string
	for i := 0; i < len(enc); i++ {
		switch enc[i] {
		case "-movflags":
			i++
		case "-f":
			out = append(out, "-f", "mpegts")
			i++
		default:
			out = append(out, enc[i])
		}
	}
	return out
}

// sound reports whether the command mixes the scene's sound.
func (p *planner) sound() bool { return p.s.HasSound() && p.mode != pictureOnly }

// Shown is how long the encoded frames last: a part's timeline less its
// lead, to the microsecond like every time the engine writes. Unrounded,
// 2.9 s less 50 frames at 25 fps is 0.8999999999999999 s, and ffmpeg's
// -t and color source end a frame early on it (22 frames, not 23).
func (s *Scene) Shown() float64 { return micro(s.Duration - float64(s.lead)/float64(s.FPS)) }

// EncoderArgs are the codec settings kino encodes format with, without
// alpha: for a benchmark to time the encoder alone on the same settings.
func EncoderArgs(format string) []string { return encoderArgs(format, false) }

// encoderArgs are the codec settings of each format: fast presets, since a
// render API is judged on turnaround. alpha keeps the transparency of a
// format that can hold it.
func encoderArgs(format string, alpha bool) []string {
	rate := strconv.Itoa(audioRate)
	switch format {
	case "webm":
		pixFmt := "yuv420p"
		if alpha {
			pixFmt = "yuva420p"
		}
		return []string{"-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-row-mt", "1",
			"-b:v", "0", "-crf", "33", "-pix_fmt", pixFmt,
			"-c:a", "libopus", "-b:a", "96k", "-ar", rate, "-f", "webm"}
	case "mov":
		// ProRes 4444, the editing format that carries alpha, with
		// uncompressed sound as editors expect beside it. prores_aw
		// takes a third of the CPU time of prores_ks for the same frames.
		pixFmt := "yuv444p10le"
		if alpha {
			pixFmt = "yuva444p10le"
		}
		return []string{"-c:v", "prores_aw", "-profile:v", "4", "-vendor", "apl0", "-pix_fmt", pixFmt,
			"-c:a", "pcm_s16le", "-ar", rate, "-f", "mov"}
	case "gif":
		// The palette filters made the frames; loop forever, as GIFs do.
		return []string{"-c:v", "gif", "-loop", "0", "-f", "gif"}
	case "png":
		pixFmt := "rgb24"
		if alpha {
			pixFmt = "rgba"
		}
		return []string{"-c:v", "png", "-pix_fmt", pixFmt, "-f", "image2pipe"}
	case "jpg":
		return []string{"-c:v", "mjpeg", "-q:v", "2", "-pix_fmt", "yuvj420p", "-f", "image2pipe"}
	case "mp3":
		return []string{"-c:a", "libmp3lame", "-b:a", "192k", "-ar", rate, "-f", "mp3"}
	case "wav":
		return []string{"-c:a", "pcm_s16le", "-ar", rate, "-f", "wav"}
	}
	return []string{"-c:v", "libx264", "-preset", "veryfast", "-crf", "20", "-pix_fmt", "yuv420p",
		"-c:a", "aac", "-b:a", "128k", "-ar", rate, "-movflags", "+faststart", "-f", "mp4"}
}

// pictureChains ends the main chain: the one format of every frame, then
// what the output format needs (one frame of a still, the palette of a
// GIF), and a branch for each picture asked for beside the video.
func (p *planner) pictureChains(video string, alpha bool) {
	s := p.s
	// The one format of the main chain: format negotiation carries it back
	// through every overlay and drawtext to the base, so the frame is
	// blended in the encoder's format and never converted. With alpha,
	// overlay blends the alpha plane of the base too.
	chain := fmt.Sprintf("[%s]format=yuv420p", video)
	if alpha {
		chain = fmt.Sprintf("[%s]format=yuva420p", video)
	}
	if s.lead > 0 {
		chain = join(chain, "setpts=PTS-STARTPTS") // the part's first frame is its frame 0
	}
	if s.Still() {
		chain = join(chain, trimTo(s.frameShownAt(s.FrameTime)))
		if s.scaleTo[0] != 0 {
			// A preview: the render's frame, drawn at its size, then scaled.
			chain = join(chain, fmt.Sprintf("scale=w=%d:h=%d", s.scaleTo[0], s.scaleTo[1]))
		}
	}
	main := "vout"
	if s.Format == "gif" {
		main = "gif"
	}
	var branches []string
	for _, c := range []struct {
		name    string
		capture *Capture
	}{{"poster", s.Poster}, {"thumbnail", s.Thumbnail}} {
		if c.capture == nil {
			continue
		}
		// A capture of a transparent video keeps its alpha, in a PNG.
		format := "jpg"
		if alpha {
			format = "png"
		}
		p.pictures = append(p.pictures, Picture{Name: c.name, Format: format,
			Path: filepath.Join(p.workDir, c.name+"."+format)})
		branch := join("["+c.name+"in]"+trimTo(s.frameShownAt(c.capture.Time)), scaleTo(s, c.capture))
		branches = append(branches, branch+"["+c.name+"]")
	}
	if len(branches) == 0 {
		p.graph = append(p.graph, chain+"["+main+"]")
	} else {
		// The branches drop every frame but one as it passes, so the split
		// holds no frames back.
		labels := "[" + main + "]"
		for _, pic := range p.pictures {
			labels += "[" + pic.Name + "in]"
		}
		p.graph = append(p.graph, join(chain, fmt.Sprintf("split=%d", len(branches)+1))+labels)
		p.graph = append(p.graph, branches...)
	}
	if s.Format == "gif" {
		// One palette for the whole animation, from every frame: the
		// colours of a video in 256, without the banding of a fixed
		// palette. A transparent GIF keeps one entry for transparency.
		reserve := 0
		if alpha {
			reserve = 1
		}
		p.graph = append(p.graph, "[gif]split[gifa][gifb]",
			fmt.Sprintf("[gifa]palettegen=reserve_transparent=%d:stats_mode=full[palette]", reserve),
			"[gifb][palette]paletteuse=dither=sierra2_4a:diff_mode=rectangle[vout]")
	}
}

// trimTo keeps frame n alone.
func trimTo(n int) string { return fmt.Sprintf("trim=start_frame=%d:end_frame=%d", n, n+1) }

// scaleTo sizes a capture: nothing for a poster, which has the video's
// size.
func scaleTo(s *Scene, c *Capture) string {
	if c.Width == 0 || (c.Width == s.Width && c.Height == s.Height) {
		return ""
	}
	return fmt.Sprintf("scale=w=%d:h=%d", c.Width, c.Height)
}

// planner accumulates the inputs and filter chains of one command.
type planner struct {
	// ctx stops the work done in kino's process (see Plan).
	ctx   context.Context
	s     *Scene
	media map[string]Media
	// limits are those of the ffmpeg that runs the command.
	limits  ffmpeg.Limits
	workDir string
	inputs  []plannedInput
	graph   []string
	files   map[string][]byte
	// drawn are the files drawn as they are written (Command.drawn),
	// drawBudget how many bytes more they may take.
	drawn      map[string]func(io.Writer) error
	drawBudget int64
	// pictures are the captures the graph branches off to.
	pictures []Picture
	// fonts holds the fonts read to lay text out, by path; fontBytes is
	// what the downloaded ones among them hold (see maxFontBytes).
	fonts     map[string]readFont
	fontBytes int64
	// fontFiles are the font files read, by path; shapers the text
	// engine's shapers of them.
	fontFiles  map[string][]byte
	glyphFonts map[string]*glyphs.Font
	shapers    map[string]*glyphs.Shaper
	// fallback are the node's fallback fonts (Inputs.Fonts).
	fallback *glyphs.Machine
	// warnings are what the render did not do as asked (see
	// Command.Warnings).
	warnings []string
	// captions is what the captions layers planned so far wrote.
	captions captionSpend
	mode     planMode
	// mock is the mockup layer being planned, nil for other layers.
	mock *mockPlan
	// openTemplate opens the templates of mockup layers; templates are
	// those open, by file (see template).
	openTemplate OpenTemplate
	templates    map[string]openTemplate
}

// input adds a downloaded file as an input, opened with the demuxer kino
// probed (never one ffmpeg guesses, which could follow a playlist to other
// files), with its input options, and returns its index.
func (p *planner) input(m Media, opts ...string) int {
	p.inputs = append(p.inputs, plannedInput{m: m, opts: opts})
	return len(p.inputs) - 1
}

// plannedInput is an input of the command and its input options.
type plannedInput struct {
	m    Media
	opts []string
}

// threadBudget is about how many threads kino lets the decoders of a
// render's videos, and its filters, each start, shared among the layers.
// Left to itself ffmpeg gives every decoder and every scaler of the
// graph as many threads as the machine has CPUs: 60 picture layers made
// thousands of threads, whose stacks and memory arenas overran the
// address space of --ffmpeg-max-memory ("Resource temporarily
// unavailable"), and 100 4K layers ran out of memory in frame-threaded
// picture decoders. The graph composes one frame at a time anyway.
const threadBudget = 8

// inputArgs are the arguments of every input. A picture is decoded once,
// in one thread; videos share threadBudget decoder threads once there
// are more than two.
func (p *planner) inputArgs() []string {
	videos := 0
	for _, in := range p.inputs {
		if in.m.HasVideo && !in.m.Still {
			videos++
		}
	}
	var args []string
	for _, in := range p.inputs {
		opts := in.opts
		switch {
		case in.m.Still || in.m.Format == "png_pipe":
			opts = append([]string{"-threads", "1"}, opts...)
		case in.m.HasVideo && videos > 2:
			opts = append([]string{"-threads", strconv.Itoa(max(1, threadBudget/videos))}, opts...)
		}
		args = append(args, ffmpeg.InputArgsFormat(p.limits, in.m.Format, in.m.Path, opts...)...)
	}
	return args
}

// threads are the global options that bound the graph's threads: every
// scaler (one a layer, and those ffmpeg inserts to convert formats)
// starts as many threads as the graph may use, so a graph of more than
// two layers shares threadBudget among them.
func (p *planner) threads(graph string) []string {
	layers := strings.Count(graph, "overlay=") + strings.Count(graph, "drawtext=")
	if layers <= 2 {
		return nil
	}
	return []string{"-filter_complex_threads", strconv.Itoa(max(1, threadBudget/layers))}
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

// WriteFiles writes the command's files into dir, the workDir given to
// Plan, making the folders some are in (a captions layer's font); and
// draws those it draws as it writes them (the frames of words that move,
// up to MaxDrawnBytes), stopping when the plan's context is done, its
// CPU time going to that context's meter, as Plan's does.
func (c *Command) WriteFiles(dir string) error {
	for name, content := range c.Files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return err
		}
		if err := os.WriteFile(path, content, 0o600); err != nil {
			return err
		}
	}
	for name, draw := range c.drawn {
		if err := writeDrawn(filepath.Join(dir, name), draw); err != nil {
			return fmt.Errorf("draw %s: %w", name, err)
		}
	}
	return nil
}

// writeDrawn writes the file at path as draw draws it.
func writeDrawn(path string, draw func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	err = draw(w)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
