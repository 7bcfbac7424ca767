// Package usage is what each job used and cost, and what an organisation
// used in all. When a job ends, its cost fields are computed from what its
// attempts used (the job core meters their CPU time and providers'
// charges) and written into its metadata, and a row of the usage ledger
// is written, in the transaction that ends it. GET /usage adds up the
// ledger; Prometheus gets per-organisation counters.
//
// Money is USD:
//
//	infraCost    = cpuSeconds × --cpu-second-cost
//	providerCost = what outside providers charged (Whisper: minutes × --whisper-minute-price)
//	margin       = price − providerCost − infraCost
package usage

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/kinohq/kino/ent"
	"github.com/kinohq/kino/server/jobs"
	"github.com/kinohq/kino/server/metrics"
)

// Keys of a job's metadata that hold its usage and cost; cpuSeconds and
// providerCost are the job core's (jobs.MetaCPUSeconds, MetaProviderCost).
const (
	// MetaMediaSeconds is the seconds of media a job worked on: a media
	// job's inputs, a render's output.
	MetaMediaSeconds = "mediaSeconds"
	// MetaPrice is what the job costs the organisation, set when it ends.
	MetaPrice = "price"
	// MetaEstimatedPrice is the price estimated at submit.
	MetaEstimatedPrice = "estimatedPrice"
	MetaInfraCost      = "infraCost"
	MetaMargin         = "margin"
)

// Other is the organisation label of every organisation not named.
const Other = "other"

// DefaultCPUSecondCost is --cpu-second-cost's default: 0.072 USD a CPU hour.
const DefaultCPUSecondCost = 0.00002

// Config tunes the recorder.
type Config struct {
	// CPUSecondCost is what one CPU second costs kino, in USD.
	CPUSecondCost float64
	// Parts maps the kind of a part of a job (a split render's) to the
	// kind it is counted under: its CPU time is its job's, and it is no
	// job of its own.
	Parts map[string]string
	// Named says whether an organisation gets its own label in
	// Prometheus; the others are counted as Other, so the labels stay as
	// few as the organisations the operator named.
	Named   func(org string) bool
	Metrics *metrics.Metrics
}

// Recorder computes each ending job's cost and records its usage; its
// methods are the job core's final hooks.
type Recorder struct{ cfg Config }

// New returns a recorder.
func New(cfg Config) *Recorder {
	if cfg.Named == nil {
		cfg.Named = func(string) bool { return false }
	}
	return &Recorder{cfg: cfg}
}

// cost is what a job that ended used and cost. counted: the job is
// recorded; part: it is a part of a job, counted with it.
type cost struct {
	Kind, Type    string
	Jobs          int
	MediaSeconds  float64
	CPUSeconds    float64
	Price         float64
	ProviderCost  float64
	InfraCost     float64
	Margin        float64
	counted, part bool
}

// costs reads what j used from its metadata. A job is counted when it
// completed or failed, or ran before it was cancelled.
func (r *Recorder) costs(j *jobs.Job) cost {
	num := func(key string) float64 {
		v, _ := j.Metadata[key].(float64)
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0
		}
		return v
	}
	c := cost{Kind: j.Kind, Type: j.Type, Jobs: 1, MediaSeconds: num(MetaMediaSeconds), CPUSeconds: num(jobs.MetaCPUSeconds),
		ProviderCost: num(jobs.MetaProviderCost)}
	if j.State == jobs.Completed {
		c.Price = num(MetaPrice)
	}
	if kind, ok := r.cfg.Parts[j.Kind]; ok {
		c.Kind, c.Type, c.Jobs, c.part = kind, kind, 0, true
		c.Price, c.MediaSeconds = 0, 0
	}
	c.InfraCost = c.CPUSeconds * r.cfg.CPUSecondCost
	c.Margin = c.Price - c.ProviderCost - c.InfraCost
	c.counted = j.State == jobs.Completed || j.State == jobs.Failed || c.CPUSeconds > 0 || c.ProviderCost > 0
	return c
}

// Final writes j's cost fields into its metadata and its row of the
// ledger, in the transaction that ends it (a jobs.FinalHook).
func (r *Recorder) Final(ctx context.Context, tx *ent.Tx, j *jobs.Job) error {
	c := r.costs(j)
	if !c.counted {
		return nil
	}
	meta := make(map[string]any, len(j.Metadata)+4)
	for k, v := range j.Metadata {
		meta[k] = v
	}
	if !c.part {
		meta[MetaPrice] = c.Price
	}
	meta[jobs.MetaProviderCost], meta[MetaInfraCost], meta[MetaMargin] = c.ProviderCost, c.InfraCost, c.Margin
	if err := tx.Job.UpdateOneID(j.ID).SetMetadata(meta).Exec(ctx); err != nil {
		return fmt.Errorf("record the cost of job %s: %w", j.ID, err)
	}
	// The hooks after commit see what was stored.
	j.Metadata = meta
	finished := time.Now().UnixMilli()
	if j.FinishedAt != nil {
		finished = *j.FinishedAt
	}
	err := tx.Usage.Create().SetID(j.ID).SetOrgID(j.OrgID).SetKind(c.Kind).SetType(c.Type).
		SetDay(time.UnixMilli(finished).UTC().Format(time.DateOnly)).SetState(string(j.State)).SetJobs(c.Jobs).
		SetMediaSeconds(c.MediaSeconds).SetCPUSeconds(c.CPUSeconds).SetPrice(c.Price).
		SetProviderCost(c.ProviderCost).SetInfraCost(c.InfraCost).SetFinishedAt(finished).Exec(ctx)
	if err != nil {
		return fmt.Errorf("record the usage of job %s: %w", j.ID, err)
	}
	return nil
}

// After counts j in Prometheus once its end committed.
func (r *Recorder) After(j *jobs.Job) {
	c := r.costs(j)
	if !c.counted {
		return
	}
	org := Other
	if r.cfg.Named(j.OrgID) {
		org = j.OrgID
	}
	r.cfg.Metrics.OrgUsed(org, c.Kind, c.Jobs, c.CPUSeconds, c.Price)
}
