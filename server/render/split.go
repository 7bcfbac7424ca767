package render

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	renderv1 "github.com/kinohq/kino/gen/kino/render/v1"
	"github.com/kinohq/kino/server/apierr"
	"github.com/kinohq/kino/server/engine"
	"github.com/kinohq/kino/server/jobs"
	"github.com/kinohq/kino/server/storage"
)

// A render longer than SplitConfig.After is split (docs/split.md): its
// frames in parts of SplitConfig.Part that any worker on any node may run,
// its sound once for the whole timeline, then the render itself joins
// them, copying both. The parts are jobs of their own kind, so that the
// render interface never lists them; the render is the whole the core
// knows (jobs.Job.Parts), and its record reads as an unsplit render's.

// PartKind is the job kind of the parts of split renders.
const PartKind = "render-part"

// The job types of parts: a run of frames, or the sound of the whole.
const (
	PartFrames = "render-part"
	PartSound  = "render-sound"
)

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
			if !engine.IsAssetID(src.URL) {
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

// PartArgs are what a part holds: the render it is part of (whose args it
// reads) and its frames; a sound part has none.
type PartArgs struct {
	Render string `json:"render"`
	Index  int    `json:"index"`
	First  int    `json:"first,omitempty"`
	Count  int    `json:"count,omitempty"`
	Last   bool   `json:"last,omitempty"`
}

// soundInput is the input of a split render that its sound part fills;
// the frames parts fill partInput(i).
const soundInput = "sound"

func partInput(i int) string { return fmt.Sprintf("part-%03d", i) }

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
	add := func(typ string, a PartArgs, weight float64, inputs map[string]string) error {
		id, err := uuid.NewV7()
		if err != nil {
			return err
		}
		args, err := json.Marshal(a)
		if err != nil {
			return err
		}
		parts = append(parts, jobs.NewJob{ID: id.String(), Kind: PartKind, Type: typ, Org: whole.Org, Args: args,
			BatchID: whole.ID, Priority: whole.Priority, Weight: weight})
		whole.Parents = append(whole.Parents, jobs.Parent{ID: id.String(), Inputs: inputs, Whole: true})
		return nil
	}
	for i, r := range ranges {
		// The part that holds the poster's or thumbnail's frame makes it.
		inputs := map[string]string{partInput(i): OutputField, PosterField: PosterField, ThumbnailField: ThumbnailField}
		if err := add(PartFrames, PartArgs{Render: whole.ID, Index: i, First: r.First, Count: r.Count, Last: i == len(ranges)-1},
			float64(r.Count), inputs); err != nil {
			return nil, err
		}
	}
	if scene.HasSound() {
		if err := add(PartSound, PartArgs{Render: whole.ID, Index: len(ranges)}, soundWeight*float64(scene.Frames()),
			map[string]string{soundInput: OutputField}); err != nil {
			return nil, err
		}
	}
	whole.Parts = len(parts)
	return append([]jobs.NewJob{whole}, parts...), nil
}

// PartHandler runs the parts of split renders for the job core's pool.
type PartHandler struct {
	cfg HandlerConfig
}

// NewPartHandler returns the handler of parts; the pool records their
// progress into their render's.
func NewPartHandler(cfg HandlerConfig) *PartHandler {
	return &PartHandler{cfg: cfg}
}

// Types are the job types the handler runs.
func (h *PartHandler) Types() []string { return []string{PartFrames, PartSound} }

// Run renders one attempt of a part: its frames or the whole's sound,
// stored under the render's prefix for the join to read.
func (h *PartHandler) Run(ctx context.Context, j *jobs.Job, progress func(float64)) jobs.Outcome {
	log := h.cfg.Log.With("job_id", j.ID)
	var pa PartArgs
	if err := json.Unmarshal(j.Args, &pa); err != nil {
		return jobs.Outcome{Failure: failed(jobs.CodeRenderFailed, "the job could not be read")}
	}
	whole, err := h.cfg.Jobs.Get(ctx, Kind, j.OrgID, pa.Render)
	if err != nil {
		if ctx.Err() != nil {
			return jobs.Outcome{}
		}
		return jobs.Outcome{Failure: &jobs.Failure{Code: jobs.CodeRenderFailed, Message: "the render could not be read", Retry: true}}
	}
	args, err := ArgsOf(whole)
	if err != nil {
		return jobs.Outcome{Failure: failed(jobs.CodeRenderFailed, "the job could not be read")}
	}
	log = log.With("render_id", whole.ID, "part", pa.Index)
	r := &renderRun{cfg: h.cfg, job: whole, args: args, log: log, progress: progress, maxOutput: h.cfg.MaxOutputBytes}
	return r.outcome(r.part(ctx, j.Type, pa))
}

// part renders a part of r's render: the frames pa names, or its sound.
func (r *renderRun) part(parent context.Context, typ string, pa PartArgs) (map[string]string, *jobs.Failure) {
	plan := func(ctx context.Context, scene *engine.Scene, media map[string]engine.Media, dir string) (*engine.Command, string, float64, error) {
		if typ == PartSound {
			out := filepath.Join(dir, "sound.mp4")
			// The sound is mixed once for the whole timeline, so its
			// loudness is measured here, over the whole, as unsplit.
			if err := engine.MeasureLoudness(ctx, scene, media, dir); err != nil {
				return nil, out, scene.Duration, err
			}
			cmd, err := engine.PlanSoundContext(ctx, scene, media, dir, out)
			return cmd, out, scene.Duration, err
		}
		p := scene.Part(engine.PartRange{First: pa.First, Count: pa.Count}, pa.Last)
		r.maxOutput = partShare(r.cfg.MaxOutputBytes, pa.Count, scene.Frames())
		p.SeekVideos(ctx, media, r.seekFailed)
		out := filepath.Join(dir, "part.ts")
		cmd, err := engine.PlanPartContext(ctx, p, media, dir, out, r.cfg.DefaultFont)
		return cmd, out, p.Shown(), err
	}
	sources := func(scene *engine.Scene) []engine.Source {
		if typ == PartSound {
			return scene.SoundSources()
		}
		return scene.Part(engine.PartRange{First: pa.First, Count: pa.Count}, pa.Last).Sources()
	}
	key := fmt.Sprintf("renders/%s.%s.ts", r.job.ID, partInput(pa.Index))
	if typ == PartSound {
		key = fmt.Sprintf("renders/%s.sound.mp4", r.job.ID)
	}
	return r.run(parent, sources, plan, key, "video/mp2t")
}

// partShare bounds the output of a part of count frames of a render of
// frames: twice its share of limit, as frames differ in cost, and never
// more than limit. The join refuses parts that together pass limit.
func partShare(limit int64, count, frames int) int64 {
	if limit <= 0 || frames <= 0 {
		return limit
	}
	return min(limit, 2*int64(float64(limit)*float64(count)/float64(frames)))
}

// join is the last step of a split render: its parts, stored by their
// workers, downloaded and joined with its sound into its output.
func (r *renderRun) join(parent context.Context) (map[string]string, *jobs.Failure) {
	var names []string
	for input := range r.job.InputKeys {
		if strings.HasPrefix(input, "part-") {
			names = append(names, input)
		}
	}
	slices.Sort(names)
	// The parts made the progress up to PartsShare; the join makes the
	// rest, never moving it back.
	progress := r.progress
	r.progress = func(p float64) { progress(jobs.PartsShare*100 + p*(1-jobs.PartsShare)) }
	plan := func(ctx context.Context, scene *engine.Scene, _ map[string]engine.Media, dir string) (*engine.Command, string, float64, error) {
		var parts []string
		for _, name := range names {
			parts = append(parts, filepath.Join(dir, name+".ts"))
		}
		sound := ""
		if _, ok := r.job.InputKeys[soundInput]; ok {
			sound = filepath.Join(dir, "sound.mp4")
		}
		out := filepath.Join(dir, "output."+scene.Format)
		return engine.PlanJoin(scene, parts, sound, dir, out), out, scene.Duration, nil
	}
	fetch := func(ctx context.Context, dir string) *jobs.Failure {
		// The joined output is about as large as its parts together: parts
		// past the limit are not downloaded to be joined into a file that
		// would be refused.
		var total int64
		for input, key := range r.job.InputKeys {
			name := input + ".ts"
			switch {
			case input == soundInput:
				name = "sound.mp4"
			case !strings.HasPrefix(input, "part-"):
				continue // a poster or thumbnail, stored already
			}
			n, err := r.cfg.Storage.Download(ctx, key, filepath.Join(dir, name))
			if err != nil {
				if ctx.Err() != nil {
					return nil
				}
				return &jobs.Failure{Code: jobs.CodeStorageFailed, Message: "a part of the render could not be read back", Retry: true}
			}
			if total += n; r.cfg.MaxOutputBytes > 0 && total > r.cfg.MaxOutputBytes {
				return tooLargeFailure(r.cfg.MaxOutputBytes)
			}
		}
		return nil
	}
	keys, f := r.runWith(parent, nil, fetch, plan, fmt.Sprintf("renders/%s.mp4", r.job.ID), contentType("mp4"))
	if f != nil {
		return nil, f
	}
	for _, field := range []string{PosterField, ThumbnailField} {
		if key, ok := r.job.InputKeys[field]; ok {
			keys[field] = key
		}
	}
	return keys, nil
}

// planFunc plans a step of a split render in dir from the scene and the
// downloaded sources: the command, the file it writes, and how long that
// lasts (for progress).
type planFunc func(ctx context.Context, scene *engine.Scene, media map[string]engine.Media, dir string) (*engine.Command, string, float64, error)

// run is one step of a split render that downloads its sources.
func (r *renderRun) run(parent context.Context, sources func(*engine.Scene) []engine.Source, plan planFunc, key, contentType string) (map[string]string, *jobs.Failure) {
	return r.runWith(parent, sources, nil, plan, key, contentType)
}

// runWith is a step of a split render under one deadline, as an unsplit
// render's attempt is: its downloads (sources of the scene, or what fetch
// reads), ffmpeg, and the upload of its output to key and of the
// pictures it made beside it to the render's own keys.
func (r *renderRun) runWith(parent context.Context, sources func(*engine.Scene) []engine.Source,
	fetch func(context.Context, string) *jobs.Failure, plan planFunc, key, ctype string) (map[string]string, *jobs.Failure) {
	a, f := r.begin(parent)
	if f != nil {
		return nil, f
	}
	defer a.End()
	var media map[string]engine.Media
	if sources != nil {
		media, f = r.fetchSources(a.Attempt, sources(a.scene))
	} else {
		f = fetch(a.Context(), a.Dir)
	}
	if f, ok := a.Stopped(); ok {
		return nil, f
	}
	if f != nil {
		return nil, f
	}
	cmd, out, dur, err := plan(a.Context(), a.scene, media, a.Dir)
	if f, ok := r.encode(a, cmd, err, dur); !ok {
		return nil, f
	}
	return r.store(a, upload{field: OutputField, key: key, path: out, contentType: ctype}, cmd)
}

// CleanParts removes what the parts of a split render stored, once the
// render has ended (a jobs after-hook): the parts and the sound always,
// the poster and thumbnail unless the render completed with them.
func CleanParts(st *storage.Storage, c *jobs.Client, log *slog.Logger) func(*jobs.Job) {
	return func(j *jobs.Job) {
		if j.Kind != Kind || !j.Whole() {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		parts, err := c.Batch(ctx, jobs.Filter{Kind: PartKind, Org: j.OrgID, BatchID: j.ID})
		if err != nil {
			log.Error("find parts of a split render to remove", "job_id", j.ID, "err", err)
			return
		}
		keep := map[string]bool{}
		if j.State == jobs.Completed {
			for _, key := range j.Outputs {
				keep[key] = true
			}
		}
		for _, p := range parts {
			for _, key := range p.Outputs {
				if keep[key] {
					continue
				}
				if err := st.Delete(ctx, key); err != nil {
					log.Error("remove part of a split render", "key", key, "err", err)
				}
			}
		}
	}
}
