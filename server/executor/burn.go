package executor

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kinohq/kino/server/catalog"
	"github.com/kinohq/kino/server/engine"
	"github.com/kinohq/kino/server/ffmpeg"
	"github.com/kinohq/kino/server/jobs"
	"github.com/kinohq/kino/server/transcribe"
)

// captionBurn burns subtitles into a video with libass: an ASS or SSA file
// exactly as written; SRT and WebVTT, given or transcribed from the sound,
// in the style the params ask for. Both reach libass as one ASS script
// burned by ffmpeg's subtitles filter, the font input in a folder of its
// own as the filter's fontsdir.
type captionBurn struct{ *env }

func (e captionBurn) Work(ctx context.Context, t Task[catalog.CaptionBurn]) (Result, error) {
	in := t.Inputs["source"]
	v := in.Info.Video()
	if v == nil {
		return Result{}, permanent(jobs.CodeInputInvalid, "inputs.source: the file has no picture to burn captions into")
	}
	font, err := burnFont(t.Attempt)
	if err != nil {
		return Result{}, err
	}
	script := filepath.Join(t.Dir, "subtitles.ass")
	var warnings []string
	values := map[string]any{}
	subs, given := t.Inputs["subtitles"]
	switch {
	case given && isASS(subs):
		// Burned as written: libass reads the file's own PlayResX/Y,
		// styles and positions, exactly as ffmpeg's subtitles filter does.
		if err := os.Link(subs.Path, script); err != nil {
			return Result{}, err
		}
		warnings = append(warnings, assWarnings(t.Given, subs.Path, font)...)
	case given:
		if !hasSubtitles(subs) {
			return Result{}, permanent(jobs.CodeInputInvalid, "inputs.subtitles: the file is not SRT, WebVTT, ASS or SSA")
		}
		if t.Params.MaxCharsPerLine > 0 {
			warnings = append(warnings, "params.maxCharsPerLine applies to transcribed captions only: the subtitles' own lines are kept")
		}
		if err := e.styled(ctx, t, subs.Path, demuxer(subs.Info), v.Width, v.Height, font, script); err != nil {
			return Result{}, err
		}
	default:
		srt, transcript, err := e.hear(ctx, t, in)
		if err != nil {
			return Result{}, err
		}
		values["transcript"] = transcript
		if err := e.styled(ctx, t, srt, "srt", v.Width, v.Height, font, script); err != nil {
			return Result{}, err
		}
	}
	vf := "subtitles=filename=" + engine.FilterPath(script)
	if font.dir != "" {
		vf += ":fontsdir=" + engine.FilterPath(font.dir)
	}
	out := filepath.Join(t.Dir, "output.mp4")
	args := append(ffmpeg.InputArgs(e.FFmpeg, in.Info, in.Path), "-vf", vf, "-map", "0:v:0", "-map", "0:a?",
		"-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-movflags", "+faststart", "file:"+out)
	// libass and FreeType parse what the client wrote (an ASS script with
	// its own embedded fonts, a font file), so the run that reads them is
	// confined like a client's own command: no network, and only its
	// folder and the system's read-only files. Partial: a kernel without
	// the walls still burns captions, as before them.
	if err := e.runIn(ctx, t.Attempt, in.Info.Duration, args, &ffmpeg.Sandbox{Partial: true}); err != nil {
		return Result{}, err
	}
	if len(warnings) > 0 {
		values["warnings"] = warnings
	}
	return Result{Files: map[string]Output{"outputUrl": {Path: out, ContentType: "video/mp4", Ext: ".mp4"}}, Values: values}, nil
}

// isASS says whether probed subtitles are an ASS or SSA script.
func isASS(in Input) bool {
	if in.Info.FormatName == "ass" {
		return true
	}
	for _, s := range in.Info.Streams {
		if s.CodecType == "subtitle" && (s.CodecName == "ass" || s.CodecName == "ssa") {
			return true
		}
	}
	return false
}

// hear transcribes the source's sound and writes it as SRT, in cues of at
// most 6 seconds and 12 words, and of two lines of maxCharsPerLine when
// that is given.
func (e captionBurn) hear(ctx context.Context, t Task[catalog.CaptionBurn], in Input) (string, string, error) {
	if in.Info.Audio() == nil {
		return "", "", permanent(jobs.CodeInputInvalid, "inputs.subtitles: not given, and inputs.source has no sound to transcribe")
	}
	tr, lang := e.Transcriber, t.Params.Language
	if _, offline := tr.(transcribe.Pocketsphinx); offline && lang != "auto" && lang != "en" {
		return "", "", permanent(jobs.CodeInputInvalid,
			"params.language: this kino transcribes offline, in English (en) only; %s needs a Whisper endpoint (--whisper-url), or send inputs.subtitles", lang)
	}
	cues, err := tr.Transcribe(ctx, transcribe.Audio{Path: in.Path, Format: demuxer(in.Info), Dir: t.Dir, Duration: in.Info.Duration,
		Language: lang, Log: t.Log, OnProgress: t.OnProgress})
	if err != nil {
		return "", "", err
	}
	cues = split(cues, 6)
	if n := t.Params.MaxCharsPerLine; n > 0 {
		cues = wrapCues(cues, n)
	}
	path := filepath.Join(t.Dir, "transcript.srt")
	f, err := os.Create(path)
	if err != nil {
		return "", "", err
	}
	writeCaptions(f, cues, "srt")
	if err := f.Close(); err != nil {
		return "", "", err
	}
	words := make([]string, len(cues))
	for i, c := range cues {
		words[i] = strings.ReplaceAll(c.Text, "\n", " ")
	}
	return path, strings.Join(words, " "), nil
}

// wrapCues breaks each cue's words into lines of at most n characters (a
// longer word stands alone), and cues of more than two lines into cues of
// two, sharing the time by word count.
func wrapCues(cues []transcribe.Cue, n int) []transcribe.Cue {
	var out []transcribe.Cue
	for _, c := range cues {
		words := strings.Fields(c.Text)
		if len(words) == 0 {
			continue
		}
		var lines [][]string
		width := 0
		for _, w := range words {
			if len(lines) == 0 || width+1+len([]rune(w)) > n {
				lines = append(lines, []string{w})
				width = len([]rune(w))
				continue
			}
			lines[len(lines)-1] = append(lines[len(lines)-1], w)
			width += 1 + len([]rune(w))
		}
		per := (c.End - c.Start) / float64(len(words))
		at := 0
		for i := 0; i < len(lines); i += 2 {
			group := lines[i:min(i+2, len(lines))]
			var text []string
			count := 0
			for _, l := range group {
				text = append(text, strings.Join(l, " "))
				count += len(l)
			}
			out = append(out, transcribe.Cue{Start: c.Start + float64(at)*per, End: c.Start + float64(at+count)*per, Text: strings.Join(text, "\n")})
			at += count
		}
	}
	return out
}

// styled converts SRT or WebVTT to ASS with ffmpeg's own decoders (those
// its subtitles filter would use: the same tags, the same line breaks),
// then puts kino's header on the events: the video's size as PlayResX/Y,
// so that every size is in pixels of the output, and the style of the
// params.
func (e captionBurn) styled(ctx context.Context, t Task[catalog.CaptionBurn], path, format string, w, h int, font burnFontFile, script string) error {
	st, err := styleOf(t.Params, font)
	if err != nil {
		return err
	}
	events := []byte("[Events]\nFormat: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text\n")
	if fi, err := os.Stat(path); err == nil && fi.Size() > 0 && format != "" {
		converted := filepath.Join(t.Dir, "converted.ass")
		if err := e.run(ctx, t.Attempt, 0, append(ffmpeg.InputArgsFormat(e.FFmpeg, format, path), "-map", "0:s:0", "-c:s", "ass", "-f", "ass", "file:"+converted)); err != nil {
			return err
		}
		b, err := os.ReadFile(converted)
		if err != nil {
			return err
		}
		if i := bytes.Index(b, []byte("\n[Events]")); i >= 0 {
			events = b[i+1:]
		}
	}
	return os.WriteFile(script, append([]byte(st.header(w, h)), events...), 0o644)
}

// burnStyle is the ASS style the params make.
type burnStyle struct {
	family                     string
	size                       int
	primary, outline, back     string
	bold, italic               bool
	border                     int
	outlineWidth, shadow       float64
	alignment, marginV, margin int
}

// header is the script's [Script Info] and its one style, Default (the
// style ffmpeg's decoders give every event).
func (s burnStyle) header(w, h int) string {
	flag := func(b bool) int {
		if b {
			return -1
		}
		return 0
	}
	return fmt.Sprintf("[Script Info]\nScriptType: v4.00+\nPlayResX: %d\nPlayResY: %d\nWrapStyle: 0\nScaledBorderAndShadow: yes\n\n"+
		"[V4+ Styles]\nFormat: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, "+
		"ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding\n"+
		"Style: Default,%s,%d,%s,%s,%s,%s,%d,%d,0,0,100,100,0,0,%d,%g,%g,%d,%d,%d,%d,1\n\n",
		w, h, s.family, s.size, s.primary, s.primary, s.outline, s.back, flag(s.bold), flag(s.italic),
		s.border, s.outlineWidth, s.shadow, s.alignment, s.margin, s.margin, s.marginV)
}

// styleOf is the style of the params (Rendobar's defaults, filled in by
// the catalogue) and of the font input.
func styleOf(p catalog.CaptionBurn, font burnFontFile) (burnStyle, error) {
	s := burnStyle{size: p.FontSize, italic: p.Italic, border: 1, outlineWidth: p.OutlineWidth, shadow: p.Shadow,
		marginV: p.MarginV, margin: p.MarginH, family: p.FontFamily}
	// A font given is drawn as it is: bold by default would embolden a
	// regular face.
	s.bold = font.dir == ""
	if p.Bold != nil {
		s.bold = *p.Bold
	}
	switch {
	case s.family != "":
	case font.name != "":
		s.family = font.name
	case font.dir != "":
		return s, permanent(jobs.CodeInputInvalid, "inputs.font: kino cannot read a name the font can be selected by "+
			"(a WOFF2 font, or names holding commas); name its family in params.fontFamily, or send it as TTF, OTF or WOFF")
	default:
		s.family = "DejaVu Sans"
	}
	fill, ok1 := webColour(p.FontColor, 1)
	edge, ok2 := webColour(p.OutlineColor, 1)
	// The drop shadow is the outline's colour at half its opacity.
	shade, _ := webColour(p.OutlineColor, 0.5)
	box, ok3 := webColour(p.BoxColor, p.BoxOpacity)
	if !ok1 || !ok2 || !ok3 {
		return s, permanent(jobs.CodeInputInvalid, "params.fontColor, outlineColor and boxColor: must be #RRGGBB or #AARRGGBB")
	}
	s.primary, s.outline, s.back = fill, edge, shade
	if p.BoxEnabled {
		// libass's BorderStyle 4: one box an event in BackColour, around
		// the outlined text, padded by Shadow (so no drop shadow is drawn).
		s.border, s.back, s.shadow = 4, box, math.Max(2, math.Round(float64(s.size)/5))
	}
	row := map[string]int{"bottom": 0, "center": 3, "middle": 3, "top": 6}[p.Position]
	s.alignment = row + map[string]int{"left": 1, "center": 2, "right": 3}[p.Alignment]
	return s, nil
}

// webColour turns #RRGGBB or #AARRGGBB (alpha first, FF opaque) into
// libass's &HAABBGGRR (alpha 00 opaque), its opacity times opacity.
func webColour(hex string, opacity float64) (string, bool) {
	if !catalog.WebColour.MatchString(hex) {
		return "", false
	}
	hex = strings.ToUpper(hex[1:])
	alpha := 1.0
	if len(hex) == 8 {
		var a int
		fmt.Sscanf(hex[:2], "%02X", &a)
		alpha = float64(a) / 255
		hex = hex[2:]
	}
	transparency := 255 - int(math.Round(255*alpha*opacity))
	return fmt.Sprintf("&H%02X%s%s%s", transparency, hex[4:6], hex[2:4], hex[0:2]), true
}

// assWarnings says what of the job does not apply to an ASS file: the
// styling params, and a font input whose names no style of the file uses.
func assWarnings(given []string, path string, font burnFontFile) []string {
	var out []string
	if len(given) > 0 {
		out = append(out, fmt.Sprintf("params %s: not applied, the ASS file is burned as written (its own styles)", strings.Join(given, ", ")))
	}
	if len(font.names) == 0 {
		return out
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return out
	}
	used := assFontNames(string(b))
	for _, n := range font.names {
		if slices.ContainsFunc(used, func(u string) bool { return strings.EqualFold(u, n) }) {
			return out
		}
	}
	return append(out, fmt.Sprintf("inputs.font is %q, a name no style of the file uses (%s): libass draws those styles with other fonts",
		font.names[0], strings.Join(used, ", ")))
}

// assFontNames are the font names of an ASS or SSA file's styles (the
// field after the name, in both formats).
func assFontNames(s string) []string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), "Style:")
		if !ok {
			continue
		}
		f := strings.Split(rest, ",")
		if len(f) > 1 {
			name := strings.TrimPrefix(strings.TrimSpace(f[1]), "@")
			if !slices.Contains(out, name) {
				out = append(out, name)
			}
		}
	}
	return out
}
