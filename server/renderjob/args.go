// Package renderjob is a render job as it is stored, and what else the
// render API (package render) and the render worker (package renderrun)
// both read: its kinds, its args, its outputs, the parts of a split
// render, the frame a preview asks for and how an invalid composition is
// answered. Neither of those packages imports the other; both import
// this one, as River's API and workers share rivertype.
package renderjob

import (
	"encoding/json"
	"fmt"

	"github.com/kinohq/kino/server/jobs"
)

// Kind is the job kind of renders, and their job type.
const Kind = "render"

// Args is what a render job holds of its request: the composition exactly
// as submitted and the output settings resolved when it was validated (for
// the webhook payload).
type Args struct {
	Provider    string            `json:"provider"`
	Composition json.RawMessage   `json:"composition"`
	AssetURLs   map[string]string `json:"assetUrls,omitempty"`
	Webhook     string            `json:"webhook,omitempty"`
	Format      string            `json:"format"`
	Width       int               `json:"width"`
	Height      int               `json:"height"`
	Duration    float64           `json:"duration"`
}

// ArgsOf reads a render job's args.
func ArgsOf(j *jobs.Job) (Args, error) {
	var a Args
	if err := json.Unmarshal(j.Args, &a); err != nil {
		return Args{}, fmt.Errorf("read render job %s: %w", j.ID, err)
	}
	return a, nil
}

// The outputs of a render, among the job's outputs (storage keys by
// field): the rendered file, and the poster and thumbnail made beside a
// video when the composition asked for them.
const (
	OutputField    = "output"
	PosterField    = "poster"
	ThumbnailField = "thumbnail"
)

// PartKind is the job kind of the parts of split renders (docs/split.md):
// jobs of their own kind, so that the render interface never lists them.
const PartKind = "render-part"

// The job types of parts: a run of frames, or the sound of the whole.
const (
	PartFrames = "render-part"
	PartSound  = "render-sound"
)

// PartArgs are what a part holds: the render it is part of (whose args it
// reads) and its frames; a sound part has none.
type PartArgs struct {
	Render string `json:"render"`
	Index  int    `json:"index"`
	First  int    `json:"first,omitempty"`
	Count  int    `json:"count,omitempty"`
	Last   bool   `json:"last,omitempty"`
}

// SoundInput is the input of a split render that its sound part fills;
// the frames parts fill PartInput(i).
const SoundInput = "sound"

// PartInput is the input of a split render that its i-th frames part
// fills.
func PartInput(i int) string { return fmt.Sprintf("part-%03d", i) }
