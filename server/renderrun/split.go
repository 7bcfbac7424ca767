package renderrun

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/kinohq/kino/server/engine"
	"github.com/kinohq/kino/server/jobs"
	"github.com/kinohq/kino/server/renderjob"
	"github.com/kinohq/kino/server/storage"
)

// The parts of a split render (docs/split.md) are jobs of their own kind
// (renderjob.PartKind) that any worker on any node may run: a run of its
// frames, or its sound for the whole timeline. Each stores its output
// under the render's prefix; the render itself, once they are done, joins
// them without encoding again.

// PartHandler runs the parts of split renders for the job core's pool.
type PartHandler struct {
	cfg Config
}

// NewPartHandler returns the handler of parts; the pool records their
// progress into their render's.
func NewPartHandler(cfg Config) *PartHandler {
	return &PartHandler{cfg: cfg}
}

// Types are the job types the handler runs.
func (h *PartHandler) Types() []string { return []string{renderjob.PartFrames, renderjob.PartSound} }

// Run renders one attempt of a part: its frames or the whole's sound,
// stored under the render's prefix for the join to read.
func (h *PartHandler) Run(ctx context.Context, j *jobs.Job, progress func(float64)) jobs.Outcome {
	log := h.cfg.Env.Log.With("job_id", j.ID)
	var pa renderjob.PartArgs
	if err := json.Unmarshal(j.Args, &pa); err != nil {
		return jobs.Outcome{Failure: failed(jobs.CodeRenderFailed, "the job could not be read")}
	}
	whole, err := h.cfg.Jobs.Get(ctx, renderjob.Kind, j.OrgID, pa.Render)
	if err != nil {
		if ctx.Err() != nil {
			return jobs.Outcome{}
		}
		return jobs.Outcome{Failure: &jobs.Failure{Code: jobs.CodeRenderFailed, Message: "the render could not be read", Retry: true}}
	}
	args, err := renderjob.ArgsOf(whole)
	if err != nil {
		return jobs.Outcome{Failure: failed(jobs.CodeRenderFailed, "the job could not be read")}
	}
	log = log.With("render_id", whole.ID, "part", pa.Index)
	r := &renderRun{cfg: h.cfg, job: whole, args: args, log: log, progress: progress, maxOutput: h.cfg.Env.MaxOutputBytes}
	o := r.outcome(r.part(ctx, j.Type, pa))
	if o.Failure == nil {
		// The join gathers its parts' warnings into the render's.
		o.Result.Metadata = renderjob.WithWarnings(nil, r.warnings)
	}
	return o
}

// part renders a part of r's render: the frames pa names, or its sound.
func (r *renderRun) part(parent context.Context, typ string, pa renderjob.PartArgs) (map[string]string, *jobs.Failure) {
	plan := func(ctx context.Context, scene *engine.Scene, media map[string]engine.Media, dir string) (*engine.Command, string, float64, error) {
		if typ == renderjob.PartSound {
			out := filepath.Join(dir, "sound.mp4")
			// The sound is mixed once for the whole timeline, so its
			// loudness is measured here, over the whole, as unsplit.
			if err := measureLoudness(ctx, r.cfg.Env, scene, media, dir); err != nil {
				return nil, out, scene.Duration, err
			}
			cmd, err := engine.PlanSound(ctx, scene, inputs(r.cfg.Env, media), dir, out)
			return cmd, out, scene.Duration, err
		}
		p := scene.Part(engine.PartRange{First: pa.First, Count: pa.Count}, pa.Last)
		r.maxOutput = partShare(r.cfg.Env.MaxOutputBytes, pa.Count, scene.Frames())
		seekVideos(ctx, r.cfg.Env, p, media, r.seekFailed)
		out := filepath.Join(dir, "part.ts")
		cmd, err := engine.PlanPart(ctx, p, inputs(r.cfg.Env, media), dir, out)
		return cmd, out, p.Shown(), err
	}
	sources := func(scene *engine.Scene) []engine.Source {
		if typ == renderjob.PartSound {
			return scene.SoundSources()
		}
		return scene.Part(engine.PartRange{First: pa.First, Count: pa.Count}, pa.Last).Sources()
	}
	key := fmt.Sprintf("renders/%s.%s.ts", r.job.ID, renderjob.PartInput(pa.Index))
	if typ == renderjob.PartSound {
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
		if _, ok := r.job.InputKeys[renderjob.SoundInput]; ok {
			sound = filepath.Join(dir, "sound.mp4")
		}
		out := filepath.Join(dir, "output."+scene.Format)
		return engine.PlanJoin(scene, r.cfg.Env.FFmpeg, parts, sound, dir, out), out, scene.Duration, nil
	}
	fetch := func(ctx context.Context, dir string) *jobs.Failure {
		// The joined output is about as large as its parts together: parts
		// past the limit are not downloaded to be joined into a file that
		// would be refused.
		var total int64
		for input, key := range r.job.InputKeys {
			name := input + ".ts"
			switch {
			case input == renderjob.SoundInput:
				name = "sound.mp4"
			case !strings.HasPrefix(input, "part-"):
				continue // a poster or thumbnail, stored already
			}
			n, err := r.cfg.Env.Storage.Download(ctx, key, filepath.Join(dir, name))
			if err != nil {
				if ctx.Err() != nil {
					return nil
				}
				return &jobs.Failure{Code: jobs.CodeStorageFailed, Message: "a part of the render could not be read back", Retry: true}
			}
			if total += n; r.cfg.Env.MaxOutputBytes > 0 && total > r.cfg.Env.MaxOutputBytes {
				return tooLargeFailure(r.cfg.Env.MaxOutputBytes)
			}
		}
		return nil
	}
	keys, f := r.runWith(parent, nil, fetch, plan, fmt.Sprintf("renders/%s.mp4", r.job.ID), contentType("mp4"))
	if f != nil {
		return nil, f
	}
	for _, field := range []string{renderjob.PosterField, renderjob.ThumbnailField} {
		if key, ok := r.job.InputKeys[field]; ok {
			keys[field] = key
		}
	}
	// The parts planned the frames: their warnings are the render's.
	parts, err := r.cfg.Jobs.Batch(parent, jobs.Filter{Kind: renderjob.PartKind, Org: r.job.OrgID, BatchID: r.job.ID})
	if err != nil {
		if parent.Err() != nil {
			return nil, nil
		}
		return nil, &jobs.Failure{Code: jobs.CodeRenderFailed, Message: "the parts of the render could not be read", Retry: true}
	}
	for _, p := range parts {
		r.warnings = renderjob.MergeWarnings(r.warnings, renderjob.Warnings(p))
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
	r.warnings = cmd.Warnings
	return r.store(a, upload{field: renderjob.OutputField, key: key, path: out, contentType: ctype}, cmd)
}

// CleanParts removes what the parts of a split render stored, once the
// render has ended (a jobs after-hook): the parts and the sound always,
// the poster and thumbnail unless the render completed with them.
func CleanParts(st *storage.Storage, c *jobs.Client, log *slog.Logger) func(*jobs.Job) {
	return func(j *jobs.Job) {
		if j.Kind != renderjob.Kind || !j.Whole() {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		parts, err := c.Batch(ctx, jobs.Filter{Kind: renderjob.PartKind, Org: j.OrgID, BatchID: j.ID})
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
