package rawcmd

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/kinohq/kino/server/catalog"
	"github.com/kinohq/kino/server/fetch"
)

// Limits of one command, shared by validation and the executor.
const (
	// MaxCommandBytes bounds the command's text.
	MaxCommandBytes = catalog.MaxCommandBytes
	// MaxWords bounds its arguments.
	MaxWords = 1000
	// MaxInputs bounds its -i inputs (each a download) and named inputs.
	MaxInputs = 20
	// MaxOutputs bounds the output names it writes.
	MaxOutputs = 10
	// MaxStoredFiles bounds the files a job stores: a numbered sequence
	// of pictures (thumb_%03d.png) counts each picture.
	MaxStoredFiles = 100
)

// Error is a refused command; Word is the argument (or part of one)
// that was refused, and the message names it.
type Error struct {
	Word    string
	Message string
}

func (e *Error) Error() string { return e.Message }

func errorf(word, format string, args ...any) *Error {
	return &Error{Word: word, Message: fmt.Sprintf(format, args...)}
}

// InputKind is where an input comes from.
type InputKind int

// The kinds of input.
const (
	// URL is an http(s) URL kino downloads (a stored upload's URL too).
	URL InputKind = iota
	// Asset is an asset id of the organisation.
	Asset
	// Named is a file of the job's named inputs (the ffmpeg type).
	Named
	// Graph is a lavfi filter graph (-f lavfi -i color=…): no file.
	Graph
)

// Input is one -i of a command.
type Input struct {
	Kind InputKind
	// Ref is the URL, asset id, named input or graph as written.
	Ref string
	// Loop is set when the input is looped (-loop): a picture is then
	// opened as an image sequence of one picture.
	Loop bool
	word int // index in Command.words of the value of -i
}

// Output is one file a command writes.
type Output struct {
	// Name is a bare file name in the job's folder, possibly with one
	// %d pattern (a numbered sequence).
	Name string
	// Format is the muxer forced with -f, if any.
	Format string
	word   int
}

// Command is a checked command.
type Command struct {
	Inputs  []Input
	Outputs []Output
	// Demuxed are the named inputs ffmpeg opens through a demuxer (with
	// -i, or from the subtitles and ass filters): each must be probed as
	// a self-contained media file before ffmpeg starts. Fonts, LUTs and
	// text files read by their filters' own parsers are not.
	Demuxed map[string]bool
	words   []string
}

var (
	assetID    = regexp.MustCompile(`^ast_[A-Za-z0-9_-]{1,64}$`)
	outputName = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}$`)
	pattern    = regexp.MustCompile(`%0?[0-9]?d`)
	specifier  = regexp.MustCompile(`^[A-Za-z0-9:_.#-]{1,40}$`)
	// NamePattern is what a named input of the ffmpeg type is called: a
	// bare file name, staged in the job's folder under exactly that name.
	NamePattern = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}$`)
)

// dropped are options kino sets itself (logging, prompts, overwrite);
// the client's are accepted and left out.
//
//nolint:gochecknoglobals // read-only table: the options kino sets itself and drops
var dropped = map[string]bool{"y": true, "n": true, "hide_banner": true, "nostdin": true, "stats": true,
	"nostats": true, "loglevel": true, "v": true, "benchmark": true}

// Parse checks a command. named are the job's named inputs: files staged
// in the folder under their names, which -i and filters may use.
// maxPixels bounds picture sizes the command asks for. outputFormat is
// the job's outputFormat, which lets the first output's name go without
// an extension.
func Parse(command string, named map[string]bool, maxPixels int64, outputFormat string) (*Command, error) {
	if len(command) > MaxCommandBytes {
		return nil, errorf("", "the command is %d bytes, more than the limit of %d", len(command), MaxCommandBytes)
	}
	words, err := Split(command)
	if err != nil {
		return nil, err
	}
	if len(words) > 0 && words[0] == "ffmpeg" {
		words = words[1:]
	}
	if len(words) == 0 {
		return nil, errorf("", "the command is empty")
	}
	if len(words) > MaxWords {
		return nil, errorf("", "the command has %d arguments, more than the limit of %d", len(words), MaxWords)
	}
	p := parser{named: named, maxPixels: maxPixels, outputFormat: outputFormat, cmd: &Command{}}
	for i := 0; i < len(words); i++ {
		w := words[i]
		if !strings.HasPrefix(w, "-") || w == "-" {
			if err := p.output(w); err != nil {
				return nil, err
			}
			continue
		}
		name, spec, _ := strings.Cut(w[1:], ":")
		opt, ok := options[name]
		if !ok {
			return nil, errorf(w, "the option %s is not allowed (kino allows the options listed in docs/media.md; options that read or write files of their own, open devices or sockets are refused)", w)
		}
		if spec != "" && (!opt.spec || !specifier.MatchString(spec)) {
			return nil, errorf(w, "the option %s takes no stream specifier like %q", "-"+name, spec)
		}
		if opt.arity == flag {
			if !dropped[name] {
				p.emit(w)
			}
			continue
		}
		if i+1 >= len(words) {
			return nil, errorf(w, "the option %s needs a value", w)
		}
		i++
		if err := p.option(w, name, opt.arity, words[i]); err != nil {
			return nil, err
		}
	}
	if p.format != "" {
		return nil, errorf("-f", "-f %s is followed by no input or output", p.format)
	}
	if len(p.cmd.Outputs) == 0 {
		return nil, errorf("", "the command writes no output: end it with a file name such as output.mp4")
	}
	return p.cmd, nil
}

type parser struct {
	named        map[string]bool
	maxPixels    int64
	outputFormat string
	cmd          *Command
	format       string // a pending -f
	loop         bool   // a pending -loop
}

func (p *parser) emit(w ...string) { p.cmd.words = append(p.cmd.words, w...) }

func (p *parser) demuxed(name string) {
	if p.cmd.Demuxed == nil {
		p.cmd.Demuxed = map[string]bool{}
	}
	p.cmd.Demuxed[name] = true
}

// option checks one option and its value.
func (p *parser) option(w, name string, a arity, v string) error {
	switch a {
	case inputV:
		return p.input(v)
	case formatV:
		f := strings.ToLower(v)
		if !inputFormats[f] && !outputFormats[f] {
			return errorf(v, "the format %q (-f) is not allowed: kino opens every downloaded input with the format it detects, allows -f lavfi for generated inputs, and writes the formats listed in docs/media.md", v)
		}
		p.format = f
		return nil // emitted with its file
	case codecV:
		if !codecs[v] {
			return errorf(v, "the codec %q is not allowed (see docs/media.md for the codecs kino runs)", v)
		}
	case graphV:
		if err := checkGraph(w, v, p.named, p.maxPixels, p.demuxed); err != nil {
			return err
		}
	case sizeV:
		if err := checkSize(w, "", v, p.maxPixels); err != nil {
			return err
		}
	}
	if name == "loop" {
		p.loop = v != "0"
	}
	if !dropped[name] {
		p.emit(w, v)
	}
	return nil
}

// input checks the value of -i.
func (p *parser) input(v string) error {
	if len(p.cmd.Inputs) >= MaxInputs {
		return errorf(v, "the command has more than %d inputs (%q is one too many)", MaxInputs, v)
	}
	in := Input{Ref: v, Loop: p.loop}
	switch {
	case p.format == "lavfi":
		in.Kind = Graph
		if err := checkGraph(v, v, p.named, p.maxPixels, p.demuxed); err != nil {
			return err
		}
		p.emit("-f", "lavfi")
	case p.format != "":
		return errorf(p.format, "-f %s cannot be forced on an input: kino opens every downloaded input with the format it detects (only -f lavfi is allowed before -i)", p.format)
	case p.named[v]:
		in.Kind = Named
		p.demuxed(v)
	case assetID.MatchString(v):
		in.Kind = Asset
	case fetch.IsHTTPURL(v):
		in.Kind = URL
	default:
		if p.named != nil {
			return errorf(v, "the input %q is not an http(s) URL, an asset id or one of the job's named inputs", v)
		}
		return errorf(v, "the input %q is not an http(s) URL or an asset id: kino downloads every input itself and ffmpeg reads only those copies", v)
	}
	p.format, p.loop = "", false
	p.emit("-i")
	in.word = len(p.cmd.words)
	p.emit(v)
	p.cmd.Inputs = append(p.cmd.Inputs, in)
	return nil
}

// output checks an output name.
func (p *parser) output(w string) error {
	if len(p.cmd.Outputs) >= MaxOutputs {
		return errorf(w, "the command writes more than %d outputs (%q is one too many)", MaxOutputs, w)
	}
	if !outputName.MatchString(strings.Replace(w, "%", "p", 1)) || strings.Contains(w, "..") || len(pattern.FindAllString(w, -1)) != strings.Count(w, "%") || strings.Count(w, "%") > 1 {
		return errorf(w, "the output %q is not a bare file name: outputs are written only into the job's folder, named by letters, digits, '.', '_' and '-' (one %%d for a numbered sequence)", w)
	}
	if p.named[w] || strings.HasPrefix(w, "input-") {
		return errorf(w, "the output %q has the name of an input", w)
	}
	for _, o := range p.cmd.Outputs {
		if o.Name == w {
			return errorf(w, "the output %q is written twice", w)
		}
	}
	if p.format == "" && !strings.Contains(w, ".") && (len(p.cmd.Outputs) > 0 || p.outputFormat == "") {
		return errorf(w, "the output %q has no extension to tell its format; add one (output.mp4) or -f before it", w)
	}
	if p.format != "" && !outputFormats[p.format] {
		return errorf(p.format, "the format %q cannot be written", p.format)
	}
	o := Output{Name: w, Format: p.format}
	if p.format != "" {
		p.emit("-f", p.format)
	}
	p.format, p.loop = "", false
	o.word = len(p.cmd.words)
	p.emit(w)
	p.cmd.Outputs = append(p.cmd.Outputs, o)
	return nil
}

// Local is a downloaded input as ffmpeg opens it.
type Local struct {
	// Path is the file in the job's folder.
	Path string
	// Demuxer is the format kino detected, forced on the input.
	Demuxer string
}

// Args are the command's arguments for ffmpeg: every input replaced by
// its local copy (locals, by input index; Graph inputs have none), each
// opened with its detected format forced and local files the only
// protocol, every output a file of the folder. maxPixels bounds each
// decoded frame. withFormat, when set, is forced on the first output.
func (c *Command) Args(locals map[int]Local, maxPixels int64, firstFormat string) ([]string, error) {
	at := map[int]int{} // word index -> input index
	for i, in := range c.Inputs {
		at[in.word] = i
	}
	outAt := map[int]int{}
	for i, o := range c.Outputs {
		outAt[o.word] = i
	}
	var args []string
	for w := 0; w < len(c.words); w++ {
		word := c.words[w]
		if word == "-i" && w+1 < len(c.words) {
			in := c.Inputs[at[w+1]]
			if in.Kind == Graph {
				args = append(args, "-protocol_whitelist", "file", "-i", in.Ref)
				w++
				continue
			}
			l, ok := locals[at[w+1]]
			if !ok {
				return nil, fmt.Errorf("input %d (%s) was not downloaded", at[w+1], in.Ref)
			}
			d := l.Demuxer
			extra := []string{"-max_pixels", fmt.Sprint(maxPixels)}
			if in.Loop && strings.HasSuffix(d, "_pipe") {
				// A looped picture is an image sequence of one file;
				// image2 without a pattern reads exactly that file.
				d, extra = "image2", append(extra, "-pattern_type", "none")
			}
			args = append(args, "-protocol_whitelist", "file", "-f", d)
			args = append(args, extra...)
			args = append(args, "-i", "file:"+l.Path)
			w++
			continue
		}
		if i, ok := outAt[w]; ok {
			if i == 0 && firstFormat != "" && c.Outputs[0].Format == "" {
				args = append(args, "-f", firstFormat)
			}
			args = append(args, "file:"+word)
			continue
		}
		args = append(args, word)
	}
	return args, nil
}
