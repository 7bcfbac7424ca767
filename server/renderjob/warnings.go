package renderjob

import "github.com/kinohq/kino/server/jobs"

// WarningsKey is the key of a render job's metadata (and of each part's,
// in a split render) that holds its warnings: what the render did not
// draw as the composition asked, a sentence each (engine.Command's
// Warnings).
const WarningsKey = "warnings"

// maxWarnings bounds the warnings a job keeps: a sentence per layer that
// lacks a font is a few dozen at most in any composition written by hand,
// and the record stays small whatever is submitted.
const maxWarnings = 50

// Warnings reads the warnings stored in a job's metadata, nil when there
// are none.
func Warnings(j *jobs.Job) []string {
	return warningsOf(j.Metadata)
}

func warningsOf(meta map[string]any) []string {
	var out []string
	switch v := meta[WarningsKey].(type) {
	case []string: // not yet stored: as the worker made it
		out = append(out, v...)
	case []any: // read back from the store's JSON
		for _, w := range v {
			if s, ok := w.(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

// MergeWarnings is the warnings of several plans (a split render's
// parts) in one list: each once, in the order they first come, at most
// maxWarnings.
func MergeWarnings(lists ...[]string) []string {
	seen := map[string]bool{}
	var out []string
	for _, l := range lists {
		for _, w := range l {
			if seen[w] || len(out) == maxWarnings {
				continue
			}
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// WithWarnings adds warnings to a job's result metadata (meta may be
// nil); none adds nothing.
func WithWarnings(meta map[string]any, warnings []string) map[string]any {
	warnings = MergeWarnings(warnings)
	if len(warnings) == 0 {
		return meta
	}
	if meta == nil {
		meta = map[string]any{}
	}
	meta[WarningsKey] = warnings
	return meta
}
