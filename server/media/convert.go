package media

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"google.golang.org/protobuf/proto"

	mediav1 "github.com/kinohq/kino/gen/kino/media/v1"
	"github.com/kinohq/kino/server/catalog"
	"github.com/kinohq/kino/server/jobs"
	"github.com/kinohq/kino/server/mediajob"
	"github.com/kinohq/kino/server/storage"
)

func optTime(v *int64) *float64 {
	if v == nil {
		return nil
	}
	return proto.Float64(float64(*v))
}

// metaMs is a duration in ms kept in the metadata.
func metaMs(m map[string]any, key string) *int32 {
	if v, ok := m[key].(float64); ok {
		return proto.Int32(int32(v))
	}
	return nil
}

func metaNum(m map[string]any, key string) *float64 {
	if v, ok := m[key].(float64); ok {
		return proto.Float64(v)
	}
	return nil
}

func metaStr(m map[string]any, key string) *string {
	if v, ok := m[key].(string); ok {
		return proto.String(v)
	}
	return nil
}

// jobRecord is the wire form of a job, the one conversion every answer
// (and a webhook's payload) makes: the flat fields of the interface, and
// beside them the output and error objects in Rendobar's shape. Stored files are kept as storage
// keys and handed out as URLs made now (signed where the bucket needs it):
// outputUrl only when the job is complete, inputs fed by a pipeline edge,
// the files in outputMeta, logsRef.
func jobRecord(ctx context.Context, st *storage.Storage, j *jobs.Job) (*mediav1.Job, error) {
	args, err := mediajob.ArgsOf(j)
	if err != nil {
		return nil, err
	}
	m := j.Metadata
	r := &mediav1.Job{
		Id: j.ID, OrgId: j.OrgID, BatchId: j.BatchID, Type: j.Type, Status: Status(j),
		Params: string(args.Params), ErrorCode: j.ErrorCode, ErrorMessage: j.ErrorMessage,
		StepsJson: metaStr(m, mediajob.MetaStepsJSON), PipelineId: j.PipelineID, PipelineNodeId: j.NodeID,
		Price: metaNum(m, mediajob.MetaPrice), CreatedAt: float64(j.CreatedAt), DispatchedAt: optTime(j.ClaimedAt),
		StartedAt: optTime(j.StartedAt), CompletedAt: optTime(j.FinishedAt),
		RetryCount: int32(retries(j)), Progress: jobs.ShownProgress(j.Progress),
		ApiTotalMs: metaMs(m, mediajob.MetaAPITotalMs), ApiPrechecksMs: metaMs(m, mediajob.MetaAPIPrechecksMs), ApiValidationMs: metaMs(m, mediajob.MetaAPIValidationMs),
		ApiDbInsertMs: metaMs(m, mediajob.MetaAPIDbInsertMs), ApiDispatchMs: metaMs(m, mediajob.MetaAPIDispatchMs),
		ExecDownloadMs: metaMs(m, mediajob.MetaExecDownloadMs), ExecExecuteMs: metaMs(m, mediajob.MetaExecExecuteMs), ExecUploadMs: metaMs(m, mediajob.MetaExecUploadMs),
		ConsumerTotalMs: metaMs(m, mediajob.MetaConsumerTotalMs),
		// Fields kino does not compute, kept as an earlier version stored them.
		UserId: metaStr(m, "userId"), ProviderRunId: metaStr(m, "providerRunId"), MediaType: metaStr(m, "mediaType"),
		ProviderCost: metaNum(m, "providerCost"), InfraCost: metaNum(m, "infraCost"), Margin: metaNum(m, "margin"),
		EstimatedPrice: metaNum(m, "estimatedPrice"), BillingReconciledAt: metaNum(m, "billingReconciledAt"),
	}
	if t, ok := catalog.Lookup(j.Type); ok {
		r.ProviderId, r.ProviderType, r.AiPattern = proto.String(t.ProviderID), proto.String(t.Resource), proto.String(t.Pattern)
	}
	if j.ClaimedAt != nil {
		r.QueueWaitMs = proto.Int32(int32(*j.ClaimedAt - j.CreatedAt))
	}
	url := func(key string) (string, error) { return st.URL(ctx, key) }
	if r.Inputs, err = inputs(args.Inputs, j.InputKeys, url); err != nil {
		return nil, err
	}
	if key, ok := j.Outputs[mediajob.OutputField]; ok {
		r.OutputRef = proto.String(key)
	}
	var outMeta map[string]any
	if text, ok := m[mediajob.MetaOutputMeta].(string); ok {
		meta := map[string]any{}
		if err := json.Unmarshal([]byte(text), &meta); err != nil {
			return nil, err
		}
		// URLs an earlier kino stored in the meta itself are made again,
		// so they carry a signature where the bucket now needs one. Only
		// those of this job's own files: the meta also holds what the
		// input said (a transcript of its subtitles), and a URL of any
		// other key made there must not come back signed.
		own := fmt.Sprintf("jobs/%s/%s/", j.OrgID, j.ID)
		for field, v := range meta {
			if s, ok := v.(string); ok {
				if key, ok := st.KeyOf(s); ok && strings.HasPrefix(key, own) {
					if meta[field], err = url(key); err != nil {
						return nil, err
					}
				}
			}
		}
		for field, key := range j.Outputs {
			if meta[field], err = url(key); err != nil {
				return nil, err
			}
		}
		b, err := json.Marshal(meta)
		if err != nil {
			return nil, err
		}
		r.OutputMeta = proto.String(string(b))
		outMeta = meta
	}
	if key, ok := m[mediajob.MetaLogsKey].(string); ok {
		u, err := url(key)
		if err != nil {
			return nil, err
		}
		r.LogsRef = proto.String(u)
	}
	if key, ok := j.Outputs[mediajob.OutputField]; ok && j.State == jobs.Completed {
		u, err := url(key)
		if err != nil {
			return nil, err
		}
		r.OutputUrl = proto.String(u)
	}
	r.Error = jobError(j)
	if r.Output, err = jobOutput(st, j, outMeta, url); err != nil {
		return nil, err
	}
	return r, nil
}

// inputs is the inputs text of a job: as submitted, with the inputs its
// parents' outputs fed added as URLs.
func inputs(given json.RawMessage, keys map[string]string, url func(string) (string, error)) (string, error) {
	if len(keys) == 0 {
		return string(given), nil
	}
	all := map[string]any{}
	if err := json.Unmarshal(given, &all); err != nil {
		return "", err
	}
	for field, key := range keys {
		u, err := url(key)
		if err != nil {
			return "", err
		}
		all[field] = u
	}
	b, err := json.Marshal(all)
	return string(b), err
}

// retries is how many attempts of the job were put back: a job waits
// after each, and runs or ended in the one after the last.
func retries(j *jobs.Job) int {
	if slices.Contains(jobs.Waiting, j.State) {
		return j.Attempt
	}
	return max(0, j.Attempt-1)
}
