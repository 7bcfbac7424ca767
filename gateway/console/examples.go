package console

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// Example is one composition of docs/compositions.md, as a render request,
// its media kino's demo files.
type Example struct {
	Title   string          `json:"title"`
	Request json.RawMessage `json:"request"`
}

// exampleMedia is where the document's examples find their media.
const exampleMedia = "https://media.kino.example/"

// DemoOrigin is the origin the examples name kino's demo media at (the
// README's); the page puts its own origin in its place, so that the node
// that serves the page reads them from its binary.
const DemoOrigin = "http://localhost:8080"

// demoFor is the demo file (server/demo) that stands in for each medium of
// the document's examples; an example naming any other is left out.
//
//nolint:gochecknoglobals // read-only table: the demo file for each medium of the examples
var demoFor = map[string]string{
	"video.mp4":    "talk.mp4",
	"picture.png":  "picture1.jpg",
	"music.mp3":    "music.mp3",
	"font.ttf":     "font.ttf",
	"captions.vtt": "captions.srt",
	"speech.mp3":   "talk.mp4",
	"screen.psd":   "screen.psd",
	"shirt.psd":    "shirt.psd",
}

// withDemoMedia names the demo media in place of the document's, and
// reports whether every medium the text names has one.
func withDemoMedia(text string) (string, bool) {
	ok := true
	out := mediaURL.ReplaceAllStringFunc(text, func(u string) string {
		demo, found := demoFor[strings.TrimPrefix(u, exampleMedia)]
		if !found {
			ok = false
			return u
		}
		return DemoOrigin + "/demo/" + demo
	})
	return out, ok
}

var mediaURL = regexp.MustCompile(regexp.QuoteMeta(exampleMedia) + `[A-Za-z0-9._-]+`)

// extractExamples picks the whole compositions and render requests out of
// the document's JSON blocks, titled by the section they sit in.
func extractExamples(md []byte) ([]Example, error) {
	var (
		out      []Example
		heading  string
		block    []string
		in       bool
		count    = map[string]int{}
		sc       = bufio.NewScanner(bytes.NewReader(md))
		lineNo   int
		startsAt int
		lead     string // the paragraph above the block
		prev     string // the line above
	)
	for sc.Scan() {
		lineNo++
		line := sc.Text()
		switch {
		case !in && strings.TrimSpace(line) == "```json":
			in, block, startsAt = true, nil, lineNo
		case in && strings.TrimSpace(line) == "```":
			in = false
			text, ok := withDemoMedia(strings.Join(block, "\n"))
			var v map[string]any
			if !ok || json.Unmarshal([]byte(text), &v) != nil {
				continue
			}
			var req map[string]any
			switch {
			case v["provider"] != nil && v["composition"] != nil:
				req = v
			case v["layers"] != nil:
				req = map[string]any{"provider": "provider_a", "composition": v}
			case v["tracks"] != nil:
				req = map[string]any{"provider": "unified", "composition": v}
			default:
				continue // a fragment or a response
			}
			body, err := json.MarshalIndent(req, "", "  ")
			if err != nil {
				return nil, fmt.Errorf("example at line %d: %w", startsAt, err)
			}
			count[heading]++
			title := heading
			if said := gist(lead); said != "" {
				title += ": " + said
			} else if count[heading] > 1 {
				title = fmt.Sprintf("%s (%d)", heading, count[heading])
			}
			out = append(out, Example{Title: title, Request: body})
			lead = ""
		case in:
			block = append(block, line)
		case strings.HasPrefix(line, "## "):
			// Sections are named by their level-2 heading; below it every
			// section has an "Example" of its own.
			heading = strings.Trim(strings.TrimPrefix(line, "## "), " `")
			lead = ""
		case strings.HasPrefix(line, "#"), strings.HasPrefix(line, "|"), strings.HasPrefix(line, "```"):
			lead = ""
		case strings.TrimSpace(line) != "" && !strings.HasPrefix(line, "<!--") && !strings.HasPrefix(line, "!["):
			// The paragraph just above an example says what it shows.
			if prev == "" {
				lead = ""
			}
			lead = strings.TrimSpace(lead + " " + strings.TrimSpace(line))
		}
		if !in {
			prev = strings.TrimSpace(line)
		}
	}
	return out, sc.Err()
}

var (
	mdLink    = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	clauseEnd = regexp.MustCompile(`[:.;](\s|$)`)
)

// gist is the first clause of a paragraph, short enough for a list: up
// to its first colon or full stop, at most 60 characters, without
// Markdown's marks.
func gist(p string) string {
	p = mdLink.ReplaceAllString(strings.NewReplacer("`", "", "**", "", "*", "").Replace(p), "$1")
	if m := clauseEnd.FindStringIndex(p); m != nil {
		p = p[:m[0]]
	}
	if r := []rune(p); len(r) > 60 {
		p = strings.TrimSpace(string(r[:59])) + "…"
	}
	return strings.TrimSpace(p)
}
