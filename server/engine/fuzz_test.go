package engine

import (
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
		default:
			out = append(out, c)
		}
	}
	for len(out) > end && strings.IndexByte(" \n\t\r", out[len(out)-1]) >= 0 {
		out = out[:len(out)-1]
	}
	return string(out), s[i:]
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
	})
}

func FuzzCompile(f *testing.F) {
	f.Add("provider_a", `{"width":160,"height":90,"fps":10,"layers":[{"type":"text","text":"a'b:c","start":0,"duration":1,"x":"center"}]}`)
	f.Add("provider_a", `{"width":32,"height":32,"fps":5,"duration":2,"layers":[{"type":"image","src":"logo","fadeIn":1},{"type":"audio","src":"https://a.test/m.mp3","volume":2}]}`)
	f.Add("unified", `{"output":{"width":64,"height":64,"fps":24},"tracks":[{"clips":[{"asset":{"type":"color","color":"#fff"},"length":1,"position":{"x":1,"y":2}}]}]}`)
	f.Add("unified", `{"output":{"width":64,"height":64,"fps":24,"format":"webm"},"tracks":[{"clips":[{"asset":{"type":"text","text":"]; drawtext=text=x","font":"logo"},"length":1}]}]}`)
	assets := map[string]string{"logo": "https://cdn.test/logo.png"}
	f.Fuzz(func(t *testing.T, provider, composition string) {
		s, err := Compile(provider, []byte(composition), assets, DefaultLimits())
		if err != nil {
			if _, ok := err.(*ValidationError); !ok {
				t.Fatalf("Compile returned %T, not a *ValidationError: %v", err, err)
			}
			return
		}
		// Whatever compiles must plan.
		media := map[string]Media{}
		for _, src := range s.Sources() {
			media[src.Key] = Media{Path: "/work/" + src.Key, HasVideo: true, HasAudio: true, Font: src.Font, Duration: 10, Width: 64, Height: 64}
		}
		cmd, err := Plan(s, media, "/work", "/work/out", "/fonts/default.ttf")
		if err != nil {
			t.Fatalf("a composition that compiled did not plan: %v", err)
		}
		graph := ""
		for i, a := range cmd.Args {
			if a == "-filter_complex" {
				graph = cmd.Args[i+1]
			}
		}
		// The graph splits into exactly the chains Plan wrote: nothing a
		// user sent added a separator.
		chains := 0
		for rest := graph; rest != ""; {
			_, rest = getToken(rest, ";")
			rest = strings.TrimPrefix(rest, ";")
			chains++
		}
		want := 4 // base video, base audio, output format, audio mix
		for _, l := range s.Layers {
			switch l.Kind {
			case KindColor, KindImage, KindVideo:
				want += 2 // the layer's chain and its overlay
				if l.Kind == KindVideo && l.Volume > 0 {
					want++ // its sound
				}
			default:
				want++
			}
		}
		if chains != want {
			t.Fatalf("graph has %d chains, want %d:\n%s", chains, want, graph)
		}
		for _, l := range s.Layers {
			if l.Kind == KindText && len(l.Text) >= 8 && strings.Contains(graph, l.Text) {
				t.Fatalf("text %q reached the filter graph", l.Text)
			}
		}
	})
}
