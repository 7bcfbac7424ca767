// Package docs carries the documents a client reads from the binary:
// kino mcp serves the composition guide to agents as a resource, so that
// an agent writes a valid composition without the repository at hand.
package docs

import _ "embed"

// Compositions is docs/compositions.md: both composition formats, every
// layer, motion, transitions, captions and outputs, with examples.
//
//go:embed compositions.md
var Compositions string
