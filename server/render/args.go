package render

import (
	"encoding/json"
	"fmt"

	"github.com/kinohq/kino/server/engine"
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

// argsOf is what a render job keeps of a valid request. The output
// settings describe the file: an audio format has no picture (0 × 0), a
// still no duration.
func argsOf(provider string, composition json.RawMessage, assets map[string]string, webhook string, scene *engine.Scene) Args {
	a := Args{Provider: provider, Composition: composition, AssetURLs: assets,
		Webhook: webhook, Format: scene.Format, Width: scene.Width, Height: scene.Height, Duration: scene.Duration}
	if !scene.HasPicture() {
		a.Width, a.Height = 0, 0
	}
	if scene.Still() {
		a.Duration = 0
	}
	return a
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
