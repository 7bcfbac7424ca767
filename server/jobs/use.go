package jobs

import (
	"maps"

	"github.com/kinohq/kino/ent"
	"github.com/kinohq/kino/server/meter"
)

// What every attempt of a job used, summed over its attempts, in its
// metadata: the CPU seconds of its processes and what outside providers
// charged (USD). Usage and the cost fields are computed from these when
// the job ends.
const (
	MetaCPUSeconds   = "cpuSeconds"
	MetaProviderCost = "providerCost"
)

// metered adds what an attempt used to what j's earlier attempts used, in
// the metadata its outcome records: a completed attempt's result, or a
// failed one's metadata. An attempt whose outcome is not recorded (stopped,
// handed back) is not metered.
func metered(j *ent.Job, o Outcome, u meter.Used) Outcome {
	if u.CPU <= 0 && u.ProviderCost <= 0 {
		return o
	}
	prior := func(key string) float64 {
		v, _ := j.Metadata[key].(float64)
		return v
	}
	add := func(m map[string]any) map[string]any {
		out := maps.Clone(m)
		if out == nil {
			out = map[string]any{}
		}
		out[MetaCPUSeconds] = prior(MetaCPUSeconds) + u.CPU.Seconds()
		out[MetaProviderCost] = prior(MetaProviderCost) + u.ProviderCost
		return out
	}
	if o.Failure == nil {
		o.Result.Metadata = add(o.Result.Metadata)
	} else {
		o.FailureMetadata = add(o.FailureMetadata)
	}
	return o
}
