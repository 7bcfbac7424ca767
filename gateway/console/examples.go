package console

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Example is one composition of docs/compositions.md, as a render request.
type Example struct {
	Title   string          `json:"title"`
	Request json.RawMessage `json:"request"`
}

// exampleMediaHost is where the document's examples find their media; the
// console offers only the examples that need none, so every one renders
// on any kino as it is.
const exampleMediaHost = "media.kino.example"

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
	)
	for sc.Scan() {
		lineNo++
		line := sc.Text()
		switch {
		case !in && strings.TrimSpace(line) == "```json":
			in, block, startsAt = true, nil, lineNo
		case in && strings.TrimSpace(line) == "```":
			in = false
			text := strings.Join(block, "\n")
			var v map[string]any
			if json.Unmarshal([]byte(text), &v) != nil || strings.Contains(text, exampleMediaHost) {
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
			if count[heading] > 1 {
				title = fmt.Sprintf("%s (%d)", heading, count[heading])
			}
			out = append(out, Example{Title: title, Request: body})
		case in:
			block = append(block, line)
		case strings.HasPrefix(line, "## "):
			// Sections are named by their level-2 heading; below it every
			// section has an "Example" of its own.
			heading = strings.Trim(strings.TrimPrefix(line, "## "), " `")
		}
	}
	return out, sc.Err()
}
