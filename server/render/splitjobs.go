package render

import (
	"encoding/json"
	"time"

	"github.com/google/uuid"

	renderv1 "github.com/kinohq/kino/gen/kino/render/v1"
	"github.com/kinohq/kino/server/apierr"
	"github.com/kinohq/kino/server/engine"
	"github.com/kinohq/kino/server/ident"
	"github.com/kinohq/kino/server/jobs"
	"github.com/kinohq/kino/server/renderjob"
)

// A render longer than SplitConfig.After is split (docs/split.md): its
// frames in parts of SplitConfig.Part that any worker on any node may run,
// its sound once for the whole timeline, then the render itself joins
// them, copying both. The parts are jobs of their own kind, so that the
// render interface never lists them; the render is the whole the core
// knows (jobs.Job.Parts), and its record reads as an unsplit render's.
// The API makes the jobs (splitJobs); the worker (package renderrun)
// renders the parts and joins them.

// SplitConfig says which renders are split, and how.
type SplitConfig struct {
	// After is the length past which a render is split; 0 never splits.
	After time.Duration
	// Part is the length of each part but the last.
	Part time.Duration
	// Always splits at any length, ignoring After: the request asked.
	Always bool
}

// MaxParts bounds the runs of frames one render is split into: a render
// that its part length would cut into more gets longer parts.
const MaxParts = 100

// MaxSplitFetches bounds the downloads of URL sources that the parts of
// one split render would make if no two ran on one node: each part
// fetches the sources it shows, the sound part those it hears. A render
// whose parts would fetch more gets longer parts, or is not split.
const MaxSplitFetches = 100

// splitFetches counts the URL sources that the parts of ranges and the
// sound part would download, each its own.
func splitFetches(scene *engine.Scene, ranges []engine.PartRange) int {
	count := func(sources []engine.Source) int {
		n := 0
		for _, src := range sources {
			if !ident.IsAsset(src.URL) {
				n++
			}
		}
		return n
	}
	n := 0
	if scene.HasSound() {
		n = count(scene.SoundSources())
	}
	for i, r := range ranges {
		n += count(scene.Part(r, i == len(ranges)-1).Sources())
	}
	return n
}

// minPart is the shortest part a request may ask for: shorter parts
// would cost more in their fixed overhead (about a second of a worker's
// time each) than they could save.
const minPart = 1.0

// ForRequest is the rule for one render: cfg, unless the request's split
// overrides it. A request that gives split asks for a split at any length
// (its part, else cfg's), or, with enabled false, for one piece. maxPart
// bounds the part, in seconds (a longer part than any render is one piece).
func (cfg SplitConfig) ForRequest(req *renderv1.RenderSplit, maxPart float64) (SplitConfig, error) {
	if req == nil {
		return cfg, nil
	}
	if req.Enabled != nil && !req.GetEnabled() {
		if req.Part != nil {
			return cfg, apierr.New(apierr.Validation, "split.part: a render kept in one piece (split.enabled false) has no parts; remove one of them")
		}
		return SplitConfig{}, nil
	}
	out := SplitConfig{Part: cfg.Part, Always: true}
	if req.Part != nil {
		part := req.GetPart()
		// NaN fails both comparisons, so it is refused too.
		if !(part >= minPart && part <= maxPart) {
			return cfg, apierr.New(apierr.Validation, "split.part: must be a number of seconds from %g to %g", minPart, maxPart)
		}
		out.Part = time.Duration(part * float64(time.Second))
	}
	if out.Part <= 0 {
		out.Part = DefaultSplit.Part
	}
	return out, nil
}

// DefaultSplit is the default: renders over a minute, in parts of 30 s.
// Each part costs a fixed overhead (its downloads, an ffmpeg start, an
// encoder warming up, a keyframe) of about a second of a worker's time,
// and the join a few seconds more; under a minute a render takes one
// worker so little time that the overhead would cost more than it saves.
//
//nolint:gochecknoglobals // read-only: the documented split defaults
var DefaultSplit = SplitConfig{After: time.Minute, Part: 30 * time.Second}

// soundWeight is the sound part's share of a split render's work against
// its frames: mixing and encoding sound costs a few percent of encoding
// the picture.
const soundWeight = 0.05

// splitJobs are the jobs of a render of scene to split, with the render
// (the whole) first; nil when it is not split.
func splitJobs(cfg SplitConfig, whole jobs.NewJob, scene *engine.Scene) ([]jobs.NewJob, error) {
	if !scene.Splittable() || (!cfg.Always && (cfg.After <= 0 || scene.Duration <= cfg.After.Seconds())) {
		return nil, nil
	}
	per := int(cfg.Part.Seconds() * float64(scene.FPS))
	// Every part downloads the sources it shows (a background video, all
	// of it, each time) and is a job of its own: a request's one-second
	// parts of a ten-minute render would make 600 of each.
	per = max(per, 1, (scene.Frames()+MaxParts-1)/MaxParts)
	ranges := scene.Ranges(per)
	// What the parts will download is counted before the split: parts on
	// one node share one download of each source (the node's cache), but
	// parts spread over many nodes each fetch what they show, from hosts
	// that are not kino's. Longer parts fetch less.
	for len(ranges) >= 2 && splitFetches(scene, ranges) > MaxSplitFetches {
		per = per*5/4 + 1
		ranges = scene.Ranges(per)
	}
	if len(ranges) < 2 {
		return nil, nil
	}
	var parts []jobs.NewJob
	add := func(typ string, a renderjob.PartArgs, weight float64, inputs map[string]string) error {
		id, err := uuid.NewV7()
		if err != nil {
			return err
		}
		args, err := json.Marshal(a)
		if err != nil {
			return err
		}
		parts = append(parts, jobs.NewJob{ID: id.String(), Kind: renderjob.PartKind, Type: typ, Org: whole.Org, Args: args,
			BatchID: whole.ID, Priority: whole.Priority, Weight: weight})
		whole.Parents = append(whole.Parents, jobs.Parent{ID: id.String(), Inputs: inputs, Whole: true})
		return nil
	}
	for i, r := range ranges {
		// The part that holds the poster's or thumbnail's frame makes it.
		inputs := map[string]string{renderjob.PartInput(i): renderjob.OutputField, renderjob.PosterField: renderjob.PosterField, renderjob.ThumbnailField: renderjob.ThumbnailField}
		if err := add(renderjob.PartFrames, renderjob.PartArgs{Render: whole.ID, Index: i, First: r.First, Count: r.Count, Last: i == len(ranges)-1},
			float64(r.Count), inputs); err != nil {
			return nil, err
		}
	}
	if scene.HasSound() {
		if err := add(renderjob.PartSound, renderjob.PartArgs{Render: whole.ID, Index: len(ranges)}, soundWeight*float64(scene.Frames()),
			map[string]string{renderjob.SoundInput: renderjob.OutputField}); err != nil {
			return nil, err
		}
	}
	whole.Parts = len(parts)
	return append([]jobs.NewJob{whole}, parts...), nil
}
