package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// getToken reads one token as ffmpeg's av_get_token does: backslash
// escapes one character, single quotes quote, an unescaped, unquoted
// character of term ends the token; leading and trailing white space go.
func getToken(s, term string) (string, string) {
	s = strings.TrimLeft(s, " \n\t\r")
	var out []byte
	end := 0 // length of out up to the last escaped or quoted character
	i := 0
	for ; i < len(s); i++ {
		c := s[i]
		if strings.IndexByte(term, c) >= 0 {
			break
		}
		switch {
		case c == '\\' && i+1 < len(s):
			i++
			out = append(out, s[i])
			end = len(out)
		case c == '\'':
			for i++; i < len(s) && s[i] != '\''; i++ {
				out = append(out, s[i])
			}
			end = len(out)
			if i == len(s) { // an unterminated quote runs to the end
				return string(out), ""
			}
		default:
			out = append(out, c)
		}
	}
	for len(out) > end && strings.IndexByte(" \n\t\r", out[len(out)-1]) >= 0 {
		out = out[:len(out)-1]
	}
	return string(out), s[i:]
}

// parsedFilter is one filter of a graph as ffmpeg's parser reads it.
type parsedFilter struct {
	name string
	// args are the filter's options after the graph level's unescaping.
	args    string
	in, out []string
}

var labelRE = regexp.MustCompile(`^[a-z0-9:]+$`)

// parseGraph reads a filter graph as avfilter_graph_parse2 does: chains
// split by ';', filters by ',', each "[in]…name=args[out]…".
func parseGraph(g string) ([]parsedFilter, error) {
	labels := func(s string) ([]string, string, error) {
		var ls []string
		for s = strings.TrimLeft(s, " \n\t\r"); strings.HasPrefix(s, "["); s = strings.TrimLeft(s, " \n\t\r") {
			end := strings.IndexByte(s, ']')
			if end < 0 {
				return nil, "", errors.New("unterminated label")
			}
			if !labelRE.MatchString(s[1:end]) {
				return nil, "", fmt.Errorf("label %q", s[1:end])
			}
			ls = append(ls, s[1:end])
			s = s[end+1:]
		}
		return ls, s, nil
	}
	var out []parsedFilter
	for s := g; ; {
		var pf parsedFilter
		var err error
		if pf.in, s, err = labels(s); err != nil {
			return nil, err
		}
		pf.name, s = getToken(s, "=,;[")
		if strings.HasPrefix(s, "=") {
			pf.args, s = getToken(s[1:], "[],;")
		}
		if pf.out, s, err = labels(s); err != nil {
			return nil, err
		}
		out = append(out, pf)
		switch {
		case s == "":
			return out, nil
		case s[0] == ',' || s[0] == ';':
			s = s[1:]
		default:
			return nil, fmt.Errorf("unexpected %q after filter %s", s, pf.name)
		}
	}
}

// plannedFilters are the filters Plan writes; anything else in a graph
// was smuggled in.
var plannedFilters = []string{"color", "anullsrc", "atrim", "format", "setpts", "fps", "scale", "loop", "settb", "fade",
	"lut", "overlay", "drawtext", "aresample", "asetnsamples", "aformat", "asetpts", "volume", "afade", "adelay", "amix",
	"split", "trim", "palettegen", "paletteuse", "gblur", "crop", "zoompan", "rotate", "geq", "blend",
	"hflip", "vflip", "pad", "colorchannelmixer", "lutrgb", "atempo", "asplit", "apad", "sidechaincompress", "loudnorm", "ass"}

// safeArgs is every character the options of a filter other than drawtext
// may hold once the graph level is unescaped: numbers, names, expressions.
var safeArgs = regexp.MustCompile(`^[A-Za-z0-9_=:.,/()*+\-]*$`)

// checkGraph reports whether graph is only what Plan means to write:
// planned filters, safe options, and drawtext options naming kino's own
// files (a text file in workDir, one of fonts).
func checkGraph(graph, workDir string, fonts ...string) ([]parsedFilter, error) {
	filters, err := parseGraph(graph)
	if err != nil {
		return nil, fmt.Errorf("graph does not parse: %w", err)
	}
	for _, pf := range filters {
		if !slices.Contains(plannedFilters, pf.name) {
			return nil, fmt.Errorf("unexpected filter %q", pf.name)
		}
		if pf.name == "ass" {
			// A captions layer: its script and its font folder, kino's
			// own files; the cue text is in the script.
			opts := map[string]string{}
			for rest := pf.args; rest != ""; {
				var kv string
				kv, rest = getToken(rest, ":")
				rest = strings.TrimPrefix(rest, ":")
				k, v, _ := strings.Cut(kv, "=")
				if _, twice := opts[k]; twice {
					return nil, fmt.Errorf("ass option %s given twice", k)
				}
				opts[k] = v
			}
			script, dir := opts["filename"], opts["fontsdir"]
			if !strings.HasPrefix(script, filepath.Join(workDir, "captions-")) || !strings.HasSuffix(script, ".ass") || !strings.HasPrefix(dir, filepath.Join(workDir, "fonts-")) {
				return nil, fmt.Errorf("ass reads %q and %q", script, dir)
			}
			delete(opts, "filename")
			delete(opts, "fontsdir")
			for k, v := range opts {
				if k != "alpha" || v != "1" {
					return nil, fmt.Errorf("ass option %q=%q", k, v)
				}
			}
			continue
		}
		if pf.name != "drawtext" {
			if !safeArgs.MatchString(pf.args) {
				return nil, fmt.Errorf("filter %s has options %q", pf.name, pf.args)
			}
			continue
		}
		opts := map[string]string{}
		for rest := pf.args; rest != ""; {
			var kv string
			kv, rest = getToken(rest, ":")
			rest = strings.TrimPrefix(rest, ":")
			k, v, _ := strings.Cut(kv, "=")
			if _, twice := opts[k]; twice {
				return nil, fmt.Errorf("drawtext option %s given twice", k)
			}
			opts[k] = v
		}
		if !slices.Contains(fonts, opts["fontfile"]) || !strings.HasPrefix(opts["textfile"], filepath.Join(workDir, "text-")) || opts["expansion"] != "none" {
			return nil, fmt.Errorf("drawtext reads %q and %q, expansion %q", opts["fontfile"], opts["textfile"], opts["expansion"])
		}
		delete(opts, "fontfile")
		delete(opts, "textfile")
		for k, v := range opts {
			if !slices.Contains([]string{"expansion", "fontsize", "fontcolor", "borderw", "bordercolor", "x", "y", "alpha", "enable"}, k) || !safeArgs.MatchString(v) {
				return nil, fmt.Errorf("drawtext option %q=%q", k, v)
			}
		}
	}
	return filters, nil
}

// TestCheckGraph shows that the fuzz targets' check catches what an
// injection would look like.
func TestCheckGraph(t *testing.T) {
	t.Parallel()
	good := "[a]drawtext=fontfile=" + filterValue("/f/x's.ttf") + ":textfile=/w/text-0.txt:expansion=none:x=(w-text_w)/2:enable='between(t,0,1)'[b];[b]format=yuv420p[c]"
	_, err := checkGraph(good, "/w", `/f/x's.ttf`)
	if err != nil {
		t.Fatalf("a planned graph is refused: %v", err)
	}
	for _, bad := range []string{
		`[a]drawtext=fontfile=/f/x.ttf:textfile=/w/text-0.txt:expansion=none:text=hi[b]`,
		`[a]drawtext=fontfile=/f/x.ttf:textfile=/w/text-0.txt:expansion=normal[b]`,
		`[a]drawtext=fontfile=/f/x.ttf:textfile=/etc/passwd:expansion=none[b]`,
		`[a]drawtext=fontfile=/f/x.ttf:textfile=/w/text-0.txt:expansion=none:expansion=normal[b]`,
		`[a]format=yuv420p[b];movie=/etc/passwd[c]`,
		`[a]format=yuv420p,sendcmd=f=x[b]`,
		`[a]overlay=x=1:y=a\ b[b]`,
		`[a]format=yuv420p[b`,
		`[a b]format=yuv420p[c]`,
		`[a]format=yuv420p[b] junk`,
	} {
		if _, err := checkGraph(bad, "/w", "/f/x.ttf"); err == nil {
			t.Errorf("checkGraph accepts %s", bad)
		}
	}
}

func FuzzFilterValue(f *testing.F) {
	for _, s := range []string{"/tmp/a.txt", `it's`, `a:b=c`, `[x],y;z`, `\`, `'''`, "%{pts}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if s != strings.TrimFunc(s, unicode.IsSpace) || strings.ContainsRune(s, 0) {
			t.Skip("paths kino makes never start or end with white space")
		}
		graphLevel, rest := getToken(filterValue(s), "[],;")
		if rest != "" {
			t.Fatalf("%q escaped to %q ends the filter early at %q", s, filterValue(s), rest)
		}
		value, rest := getToken(graphLevel, ":")
		if rest != "" || value != s {
			t.Fatalf("%q escaped to %q reads back as %q (rest %q)", s, filterValue(s), value, rest)
		}
		// In a real plan, the work folder is read as it is.
		workDir := "/w/" + s
		text := Layer{Kind: KindText, Text: "x", FontSize: 1, Color: "0xFFFFFFFF", Duration: 1, Opacity: 1, X: Pos{Center: true}, Y: Pos{Center: true}}
		cmd, err := Plan(context.Background(), &Scene{Width: 16, Height: 16, FPS: 1, Duration: 1, Background: "0x000000FF", Format: "mp4", Layers: []Layer{text}}, inputs(nil, testFont), workDir, "/w/out")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := checkGraph(filterGraph(cmd), workDir, testFont); err != nil {
			t.Fatalf("%v\n%s", err, filterGraph(cmd))
		}
	})
}

func FuzzCompile(f *testing.F) {
	f.Add("provider_a", `{"width":160,"height":90,"fps":10,"layers":[{"type":"text","text":"a'b:c","start":0,"duration":1,"x":"center"}]}`, uint8(0))
	f.Add("provider_a", `{"width":32,"height":32,"fps":5,"duration":2,"layers":[{"type":"image","src":"logo","fadeIn":1},{"type":"audio","src":"https://a.test/m.mp3","volume":2}]}`, uint8(1))
	f.Add("provider_a", `{"width":32,"height":32,"fps":60,"layers":[{"type":"video","src":"logo","start":0.31,"duration":0.0001,"width":3,"trimStart":5,"fadeOut":0.0001,"opacity":0.123456789}]}`, uint8(2))
	f.Add("provider_a", `{"width":16,"height":16,"fps":1,"background":"#ABCDEF12","format":"webm","layers":[{"type":"color","color":"gold","duration":600,"x":-100000,"y":100000,"height":4320}]}`, uint8(3))
	f.Add("unified", `{"output":{"width":64,"height":64,"fps":24},"tracks":[{"clips":[{"asset":{"type":"color","color":"#fff"},"length":1,"position":{"x":1,"y":2}}]}]}`, uint8(0))
	f.Add("unified", `{"output":{"width":64,"height":64,"fps":24,"format":"webm"},"tracks":[{"clips":[{"asset":{"type":"text","text":"]; drawtext=text=x","font":"logo"},"length":1}]}]}`, uint8(1))
	f.Add("unified", `{"output":{"width":64,"height":64,"fps":24,"duration":3},"tracks":[{"clips":[{"asset":{"type":"video","src":"logo","trim":1,"volume":0.5},"start":1,"size":{"height":9}}]},{"clips":[{"asset":{"type":"audio","src":"logo"},"length":2,"fadeIn":1,"fadeOut":1}]}]}`, uint8(2))
	f.Add("provider_a", `{"width":32,"height":32,"fps":10,"format":"gif","background":"transparent","thumbnail":{"capture":0.5,"scale":0.3},"layers":[{"type":"image","src":"logo","duration":1},{"type":"audio","src":"logo","duration":1}]}`, uint8(1))
	f.Add("provider_a", `{"width":32,"height":32,"fps":10,"format":"png","frameTime":0.35,"layers":[{"type":"video","src":"logo","duration":1,"volume":1},{"type":"text","text":"x","duration":1}]}`, uint8(0))
	f.Add("provider_a", `{"width":32,"height":32,"fps":10,"format":"mp4","poster":{"capture":0.9},"thumbnail":{},"layers":[{"type":"video","src":"logo","duration":1}]}`, uint8(0))
	f.Add("unified", `{"output":{"width":64,"height":64,"fps":24,"format":"mp3"},"tracks":[{"clips":[{"asset":{"type":"video","src":"logo","volume":2},"length":1},{"asset":{"type":"text","text":"x"},"length":1}]}]}`, uint8(0))
	f.Add("unified", `{"output":{"width":64,"height":64,"fps":24,"format":"mov","background":"#00000000","poster":{"capture":0.2}},"tracks":[{"clips":[{"asset":{"type":"color","color":"red"},"length":1}]}]}`, uint8(0))
	f.Add("unified", `{"output":{"width":64,"height":64,"fps":24,"format":"jpg","duration":2,"frameTime":1.99},"tracks":[{"clips":[{"asset":{"type":"audio","src":"logo"},"length":1}]}]}`, uint8(0))
	f.Add("provider_a", `{"width":160,"height":90,"fps":10,"duration":1,"layers":[{"type":"text","text":"a'b:c %{pts} [x] long words wrap","width":60,"x":-20,"y":"center","align":"right","lineHeight":1.5,"backgroundColor":"#00000080","paddingX":4,"paddingY":2,"borderRadius":9,"strokeWidth":2,"shadowColor":"red","shadowX":-3,"shadowBlur":5,"fadeIn":0.5},{"type":"rectangle","borderRadius":6,"x":150,"y":-5,"width":30,"height":20,"gradient":{"angle":45,"stops":[{"offset":0,"color":"red"},{"offset":1,"color":"#00f8"}]}},{"type":"ellipse","strokeWidth":3,"opacity":0.4}]}`, uint8(0))
	f.Add("unified", `{"output":{"width":64,"height":64,"fps":24,"duration":1},"tracks":[{"clips":[{"asset":{"type":"text","text":"]; drawtext=text=x\nline","font":"logo","align":"center","verticalAlign":"bottom"},"size":{"width":50,"height":60}},{"asset":{"type":"ellipse","gradient":{"type":"radial","stops":[{"offset":0,"color":"white"},{"offset":1,"color":"transparent"}]}},"start":0.5}]},{"clips":[{"asset":{"type":"rectangle","color":"blue"},"size":{"width":10}}]}]}`, uint8(0))
	f.Add("provider_a", `{"width":64,"height":64,"fps":10,"duration":2,"layers":[{"type":"color","color":"red","x":[{"time":0,"value":-9},{"time":1,"value":40,"easing":"ease-out"}],"opacity":[{"time":0,"value":0},{"time":2,"value":1}],"rotation":30,"enter":{"type":"slide","side":"left"}},{"type":"text","text":"t","scale":[{"time":0,"value":0},{"time":1,"value":2}],"exit":{"type":"fade"}}]}`, uint8(0))
	f.Add("provider_a", `{"width":64,"height":64,"fps":10,"duration":2,"layers":[{"type":"image","src":"logo","kenBurns":"panLeft","enter":{"type":"zoom","duration":1,"easing":"ease-in-out"}},{"type":"video","src":"logo","zoom":2,"scale":0.5,"volume":[{"time":0,"value":0},{"time":2,"value":2}]}]}`, uint8(1))
	f.Add("unified", `{"output":{"width":64,"height":64,"fps":24,"duration":2},"tracks":[{"clips":[{"asset":{"type":"video","src":"logo","volume":[{"time":0,"value":1}]},"position":{"y":[{"time":0,"value":0},{"time":1,"value":9}]},"rotation":[{"time":0,"value":0},{"time":2,"value":-720}],"exit":{"type":"slide","side":"bottom"}}]}]}`, uint8(0))
	// Motion on shapes and laid-out text.
	f.Add("provider_a", `{"width":160,"height":90,"fps":10,"duration":2,"layers":[{"type":"ellipse","color":"red","width":40,"height":30,"x":[{"time":0,"value":-50},{"time":2,"value":170,"easing":"ease-in"}],"rotation":[{"time":0,"value":0},{"time":2,"value":200}],"opacity":[{"time":0,"value":0},{"time":1,"value":1}]},{"type":"rectangle","borderRadius":5,"strokeWidth":2,"color":"#00ff0080","scale":3,"rotation":30,"exit":{"type":"zoom"}},{"type":"rectangle","color":"blue","x":3,"y":3,"width":9,"height":9,"opacity":[{"time":0,"value":1},{"time":2,"value":0}]},{"type":"rectangle","color":"blue","width":9,"height":9,"enter":{"type":"slide","side":"top"}}]}`, uint8(0))
	f.Add("unified", `{"output":{"width":64,"height":64,"fps":24,"duration":2,"format":"webm","background":"transparent"},"tracks":[{"clips":[{"asset":{"type":"text","text":"a'b:c %{pts} [x]\nwrap","backgroundColor":"#00000080","borderRadius":4,"shadowColor":"red","shadowBlur":3,"strokeWidth":1,"align":"center"},"size":{"width":40},"position":{"y":[{"time":0,"value":70},{"time":1,"value":5}]},"rotation":[{"time":0,"value":-10},{"time":2,"value":10}],"scale":0.5,"enter":{"type":"fade"},"exit":{"type":"zoom","duration":0.5}},{"asset":{"type":"text","text":"x","align":"right"},"size":{"width":30,"height":20},"opacity":[{"time":0,"value":0},{"time":2,"value":1}]}]}]}`, uint8(0))
	f.Add("provider_a", `{"width":64,"height":36,"fps":10,"duration":2,"loudness":{"target":-20},"layers":[{"type":"video","src":"logo","fit":"contain-blur","crop":{"left":0.1,"top":0.2},"flip":"both","filters":{"blur":2,"sepia":0.5,"invert":1},"speed":2,"loop":true,"id":"v"},{"type":"audio","src":"https://a.test/m.mp3","speed":0.3,"duck":{"under":["v","a"]}},{"type":"audio","id":"a","src":"logo","duck":{}}]}`, uint8(0))
	f.Add("provider_a", `{"width":64,"height":36,"fps":10,"layers":[{"type":"video","src":"logo","duration":2,"transition":{"name":"circleOpen","duration":0.5}},{"type":"image","src":"logo","start":1.5,"duration":2,"rotation":10,"transition":{"name":"slideUp","easing":"linear"}},{"type":"text","text":"a'b","width":40,"start":3,"duration":1,"transition":{"name":"dissolve"}},{"type":"ellipse","color":"red","start":3.5,"duration":1}]}`, uint8(0))
	f.Add("unified", `{"output":{"width":64,"height":64,"fps":24},"tracks":[{"clips":[{"asset":{"type":"color","color":"red"},"length":1,"transition":{"name":"wipeDown","duration":0.25}},{"asset":{"type":"text","text":"x"},"start":0.75,"length":1,"scale":2,"transition":{"name":"zoom"}},{"asset":{"type":"rectangle","color":"blue"},"start":1.25,"length":1}]},{"clips":[{"asset":{"type":"audio","src":"logo"},"length":2,"transition":{"name":"fade","duration":1}},{"asset":{"type":"audio","src":"logo"},"start":1,"length":2}]}]}`, uint8(1))
	f.Add("provider_a", `{"width":64,"height":36,"fps":10,"duration":2,"layers":[{"type":"audio","src":"logo","id":"v"},{"type":"captions","transcribe":{"layer":"v"},"highlightColor":"red","maxLines":1,"backgroundColor":"#0008","paddingX":3,"strokeWidth":1,"shadowColor":"blue","shadowX":2,"align":"left","verticalAlign":"middle","width":40,"x":4,"opacity":0.5},{"type":"captions","text":"1\n00:00:00,000 --> 00:00:01,000\n{a} \\N b]; c\n","start":0.5}]}`, uint8(0))
	f.Add("unified", `{"output":{"width":64,"height":64,"fps":24,"format":"webm","background":"transparent","duration":2},"tracks":[{"clips":[{"asset":{"type":"captions","src":"https://a.test/c.vtt","font":"logo","verticalAlign":"top"},"position":{"y":4}}]}]}`, uint8(0))
	f.Add("unified", `{"output":{"width":64,"height":64,"fps":24,"loudness":{}},"tracks":[{"clips":[{"asset":{"type":"image","src":"logo","crop":{"right":0.5}},"length":1,"fit":"contain","flip":"horizontal","filters":{"greyscale":1,"contrast":1.5}}]},{"clips":[{"asset":{"type":"audio","src":"logo","loop":true,"duck":{"level":0}},"length":2},{"asset":{"type":"video","src":"logo","volume":2},"id":"x","length":1,"fit":"cover"}]}]}`, uint8(1))
	f.Add("provider_a", `{"width":64,"height":36,"fps":10,"duration":2,"layers":[{"type":"text","color":"red","width":50,"fit":"shrink","maxLines":2,"shadowColor":"black","shadowBlur":2,"spans":[{"text":"a'b "},{"text":"[x]:y\n","fontSize":30,"backgroundColor":"blue","font":["logo","https://a.test/f.ttf"]},{"text":"ش z","fontFeatures":["-liga"]}]}]}`, uint8(0))
	// Languages: a layer's and its spans' (BCP 47), picking Han forms.
	f.Add("provider_a", `{"width":64,"height":36,"fps":10,"duration":2,"layers":[{"type":"text","lang":"zh-Hant-HK","width":50,"spans":[{"text":"a "},{"text":"bc","lang":"ja","fontFeatures":["ss01=2","+kern"]},{"text":"x","lang":"ko-KR"}]}]}`, uint8(0))
	assets := map[string]string{"logo": "https://cdn.test/logo.png"}
	const workDir = `/w/it's [a],b;c:d\e=f`
	// Styled text is measured with its font, so the fonts are real files,
	// under names that need escaping.
	fontDir := f.TempDir()
	font := filepath.Join(fontDir, `de:fault's [font].ttf`)
	if err := os.Symlink(testFont, font); err != nil {
		f.Fatal(err)
	}
	for i := 0; i < DefaultLimits().MaxAssets; i++ {
		if err := os.Symlink(testFont, fuzzFont(fontDir, fmt.Sprintf("s%d", i))); err != nil {
			f.Fatal(err)
		}
	}
	picture := regexp.MustCompile(`^file:` + regexp.QuoteMeta(workDir) + `/(shape|box|shadow|text)-[0-9]+\.png$`)
	f.Fuzz(func(t *testing.T, provider, composition string, kind uint8) {
		s, err := Compile(provider, []byte(composition), assets, DefaultLimits())
		if err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) || ve.Field == "" || ve.Message == "" {
				t.Fatalf("Compile returned %T, not a *ValidationError: %v", err, err)
			}
			return
		}
		if s.Width%2 != 0 || s.Height%2 != 0 || s.Duration <= 0 || s.FPS < 1 {
			t.Fatalf("compiled an impossible scene: %+v", s)
		}
		// Whatever compiles must plan, with media that fit the layers:
		// kind picks whether pictures are stills and videos have sound.
		media := map[string]Media{}
		for i, src := range s.Sources() {
			m := Media{Path: "/m/" + src.Key + `'[x]:y`, Format: "mov", HasVideo: true, HasAudio: true, Font: src.Font, Duration: 10, Width: 64, Height: 64}
			if src.Font {
				m.Path = fuzzFont(fontDir, src.Key)
			}
			m.Still = kind>>i&1 == 1
			media[src.Key] = m
		}
		// The render reads captions files and transcribes before planning;
		// here every such layer gets cues that try to escape.
		for i, l := range s.Layers {
			if l.Captions != nil && l.Captions.Cues == nil {
				s.SetCues(i, []Cue{{Start: 0, End: 0.5, Text: "{\\b1}]; x\\N {y}"}, {Start: 0.25, End: 9, Text: "two words"}})
			}
		}
		cmd, err := Plan(context.Background(), s, inputs(media, font), workDir, "/w/out")
		var ve *ValidationError
		if errors.As(err, &ve) && (strings.HasSuffix(ve.Field, ".text") || strings.HasSuffix(ve.Field, ".spans")) &&
			(strings.Contains(ve.Message, "a render draws at most") || strings.Contains(ve.Message, "a text box that moves is drawn whole")) {
			// Only the font tells how many lines a text wraps to, and how
			// large a text box is.
			return
		}
		if err != nil {
			t.Fatalf("a composition that compiled did not plan: %v", err)
		}
		graph := filterGraph(cmd)
		fonts := []string{font}
		for _, m := range media {
			fonts = append(fonts, m.Path)
		}
		filters, err := checkGraph(graph, workDir, fonts...)
		if err != nil {
			t.Fatalf("%v\n%s", err, graph)
		}

		// The graph is exactly the chains Plan means to write: nothing a
		// user sent added a separator or a label.
		out := formats[s.Format]
		outputs := 0
		if out.picture {
			outputs += 2 // base video, output format
		}
		if out.sound {
			outputs += 2 // base audio, audio mix
		}
		if s.Format == "gif" {
			outputs += 4 // two copies, the palette, the frames that use it
		}
		for _, c := range []*Capture{s.Poster, s.Thumbnail} {
			if c != nil {
				outputs += 2 // a branch of the split, its one frame
			}
		}
		p := &planner{s: s}
		under, _ := p.cover()
		if !out.picture {
			under = len(s.Layers) - 1 // nothing is drawn
		}
		for i, l := range s.Layers {
			hidden := i <= under // under a full-frame colour: not drawn
			switch l.Kind {
			case KindColor:
				c, r := p.colorRect(l)
				if !hidden && r.w > 0 && r.h > 0 && frameWindow(l, s.FPS).frames() > 0 && colorAlpha(c) > 0 {
					outputs += 2 // the layer's chain and its overlay
					if l.ramped() {
						outputs++ // the ramp of its opacity
					}
				}
			case KindImage, KindVideo:
				if !hidden {
					outputs += 2
					if l.ramped() {
						outputs++
					}
				}
				if l.Kind == KindVideo && l.Volume > 0 && !media[l.Source].Still && out.sound {
					outputs++ // its sound
				}
			case KindText:
				// Each picture (the glyphs; with a blurred shadow, the
				// shadow and the box, when there is one or spans have
				// backgrounds) and each
				// overlay of one on another, when anything shows.
				if lay, _ := styledLayout(p, l, media, font); !hidden && frameWindow(l, s.FPS).frames() > 0 && lay.canvas.w > 0 {
					parts := 1
					if l.Style.Shadow.Color != "" && l.Style.Shadow.Blur > 0 {
						parts++
						if l.Style.Background != "" || lay.glyphs.HasBackgrounds() {
							parts++ // the box, and the spans' backgrounds
						}
					}
					outputs += 2 * parts
					if l.ramped() {
						outputs++
					}
				}
			case KindCaptions:
				if !hidden {
					outputs++
				}
			case KindRectangle, KindEllipse:
				if hidden {
					break
				}
				drawn := false
				if p.plainRect(l) {
					c, r := p.colorRect(l)
					drawn = r.w > 0 && r.h > 0 && frameWindow(l, s.FPS).frames() > 0 && colorAlpha(c) > 0
				} else {
					// A moving shape is painted whole, wherever it is.
					_, r := p.shapeRect(l)
					drawn = (l.moves() || r.w > 0 && r.h > 0) && frameWindow(l, s.FPS).frames() > 0
				}
				if drawn {
					outputs += 2
					if l.ramped() {
						outputs++
					}
				}
			default:
				if out.sound {
					outputs++
				}
			}
		}
		outputs += pictureAndSoundOutputs(s, media, under)
		labelled := 0
		for _, pf := range filters {
			labelled += len(pf.out)
		}
		if labelled != outputs {
			t.Fatalf("graph has %d outputs, want %d:\n%s", labelled, outputs, graph)
		}
		for i, l := range s.Layers {
			if l.Kind == KindCaptions {
				for _, c := range l.Captions.Cues {
					if len(c.Text) >= 8 && strings.Contains(graph, c.Text) {
						t.Fatalf("cue %q reached the filter graph", c.Text)
					}
				}
				if script, ok := cmd.Files[fmt.Sprintf("captions-%d.ass", i)]; ok {
					checkScript(t, string(script))
				}
				continue
			}
			if l.Kind != KindText {
				continue
			}
			if len(l.Text) >= 8 && strings.Contains(graph, l.Text) {
				t.Fatalf("text %q reached the filter graph", l.Text)
			}
			// Text is drawn by kino into pictures: no text file is
			// written.
			for name := range cmd.Files {
				if strings.HasPrefix(name, fmt.Sprintf("text-%d", i)) && !strings.HasSuffix(name, ".png") {
					t.Fatalf("%s wrote %s: text is drawn into pictures", l.Field, name)
				}
			}
		}
		// Every other argument is a flag, a number, a label, a codec
		// setting or a path kino chose.
		for i, a := range cmd.Args {
			if a == "-filter_complex" || (i > 0 && cmd.Args[i-1] == "-filter_complex") {
				continue
			}
			if _, err := strconv.ParseFloat(a, 64); err == nil || strings.HasPrefix(a, "file:/m/") || a == "file:/w/out" || a == "file" || a == "mov" || a == "-protocol_whitelist" || a == "-max_pixels" || safeArgs.MatchString(strings.Trim(a, "[]+")) {
				continue
			}
			// The pictures of shapes and boxes, the poster and thumbnail, and
			// a long graph, are files kino wrote in the working folder.
			if picture.MatchString(a) || slices.ContainsFunc(cmd.Pictures, func(p Picture) bool { return a == "file:"+filepath.Join(workDir, p.Name+"."+p.Format) }) ||
				(i > 0 && cmd.Args[i-1] == "-filter_complex_script" && a == workDir+"/"+graphFile) {
				continue
			}
			t.Fatalf("argument %q", a)
		}
	})
}

// fuzzFont is where FuzzCompile puts the font of source key.
func fuzzFont(dir, key string) string { return filepath.Join(dir, key+`'[x]:y`) }

// styledLayout lays a styled text layer out as Plan does.
func styledLayout(p *planner, l Layer, media map[string]Media, defaultFont string) (textLayout, error) {
	p.media = media // the spans' fonts
	path := defaultFont
	if l.Font != "" {
		path = media[l.Font].Path
	}
	return p.measure(l, path)
}

// checkScript checks a captions script: every event's text is one
// override block of kino's, then cue text in which braces are escaped
// (\{, \}) but for kino's own colour changes.
func checkScript(t *testing.T, script string) {
	t.Helper()
	own := regexp.MustCompile(`\{\\1c&H[0-9A-F]{6}&\\1a&H[0-9A-F]{2}&\}`)
	lead := regexp.MustCompile(`^\{\\an[1-9]\\pos\(-?[0-9]+,-?[0-9]+\)(\\xshad-?[0-9]+\\yshad-?[0-9]+)?(\\xbord[0-9]+\\ybord[0-9]+)?\}`)
	for _, ln := range strings.Split(script, "\n") {
		if !strings.HasPrefix(ln, "Dialogue: ") {
			continue
		}
		fields := strings.SplitN(ln, ",", 10)
		text := fields[9]
		if !lead.MatchString(text) {
			t.Fatalf("event does not start with kino's tags: %q", ln)
		}
		text = own.ReplaceAllString(lead.ReplaceAllString(text, ""), "")
		for k := 0; k < len(text); k++ {
			switch {
			case text[k] == '\\' && k+1 < len(text) && strings.IndexByte("{}N", text[k+1]) >= 0:
				// An escaped brace, or a line break between lines.
				k++
			case text[k] == '\\' && k+1 < len(text) && strings.IndexByte("nh", text[k+1]) >= 0,
				text[k] == '{', text[k] == '}', text[k] == '\n':
				t.Fatalf("cue text escapes its event: %q", ln)
			}
		}
		if strings.Contains(text, "x\\N") {
			t.Fatalf("a cue's \\N became a line break: %q", ln)
		}
	}
}

// FuzzParseTranscript: any JSON of words a client sends is read without a
// panic, and what it yields is finite times, never NaN or infinity, which
// would reach the subtitle script as text.
func FuzzParseTranscript(f *testing.F) {
	for _, s := range []string{
		`[{"text":"Hello","start":0.5,"end":0.8},{"word":"world","start":0.9,"end":1.2}]`,
		`{"words":[{"text":"a","start":1,"end":2}],"audio_duration":3}`,
		`{"segments":[{"start":0,"end":2,"text":"hi there","words":[{"word":"hi","start":0,"end":0.5},{"word":"there"}]}]}`,
		`{"results":{"channels":[{"alternatives":[{"words":[{"punctuated_word":"Yes.","start":0.1,"end":0.4}]}]}]}}`,
		`{"words":[{"text":"x","start":1e308,"end":-1e308}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cues, err := ParseTranscript(data)
		if err != nil {
			return
		}
		finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
		for _, c := range cues {
			if !finite(c.Start) || !finite(c.End) {
				t.Fatalf("cue %q has times %v..%v", c.Text, c.Start, c.End)
			}
			for _, w := range c.Words {
				if !finite(w.Start) || !finite(w.End) {
					t.Fatalf("word %q has times %v..%v", w.Text, w.Start, w.End)
				}
			}
		}
	})
}

// FuzzParseCues: any SRT or WebVTT a client sends is read without a panic,
// and its cues and words are timed by finite numbers in order (a karaoke
// tag of NaN hundredths timed every word after it NaN).
func FuzzParseCues(f *testing.F) {
	for _, s := range []string{
		"1\n00:00:01,000 --> 00:00:04,000\n{\\an8\\k50}Ne{\\kf30}ver {\\K70}drink\n{\\k20}{\\ko40}li{\\k10}quid\n",
		"1\n00:00:01,000 --> 00:00:04,000\n{\\kNaN}Never {\\k50}drink\n",
		"WEBVTT\n\n00:00:00.500 --> 00:00:02.000 align:start\n<v Joe>Never <00:00:01.200>drink <c.x>&amp;</c>\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cues, err := ParseCues(data)
		if err != nil {
			return
		}
		finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
		for _, c := range cues {
			if !finite(c.Start) || !finite(c.End) {
				t.Fatalf("cue %q has times %v..%v", c.Text, c.Start, c.End)
			}
			for _, w := range c.Words {
				if !finite(w.Start) || !finite(w.End) || w.Start > w.End {
					t.Fatalf("word %q has times %v..%v", w.Text, w.Start, w.End)
				}
			}
		}
	})
}
