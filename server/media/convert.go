package media

import (
	"context"

	"google.golang.org/protobuf/proto"

	"github.com/kinohq/kino/ent"
	"github.com/kinohq/kino/ent/job"
	mediav1 "github.com/kinohq/kino/gen/kino/media/v1"
	"github.com/kinohq/kino/server/storage"
)

func optMs(v *int64) *int32 {
	if v == nil {
		return nil
	}
	return proto.Int32(int32(*v))
}

func optTime(v *int64) *float64 {
	if v == nil {
		return nil
	}
	return proto.Float64(float64(*v))
}

// jobRecord is the wire form of a job; outputUrl only when it is complete
// with an output.
func jobRecord(ctx context.Context, st *storage.Storage, j *ent.Job) (*mediav1.Job, error) {
	r := &mediav1.Job{
		Id: j.ID, OrgId: j.OrgID, UserId: j.UserID, BatchId: j.BatchID, Type: j.Type, Status: string(j.Status),
		ProviderId: j.ProviderID, ProviderType: j.ProviderType, ProviderRunId: j.ProviderRunID, AiPattern: j.AiPattern,
		Inputs: j.Inputs, Params: j.Params, OutputRef: j.OutputRef, OutputMeta: j.OutputMeta,
		ErrorCode: j.ErrorCode, ErrorMessage: j.ErrorMessage, StepsJson: j.StepsJSON,
		MediaType: j.MediaType, PipelineId: j.PipelineID, PipelineNodeId: j.PipelineNodeID,
		Price: j.Price, ProviderCost: j.ProviderCost, InfraCost: j.InfraCost, Margin: j.Margin, EstimatedPrice: j.EstimatedPrice,
		CreatedAt: float64(j.CreatedAt), DispatchedAt: optTime(j.DispatchedAt), StartedAt: optTime(j.StartedAt),
		CompletedAt: optTime(j.CompletedAt), BillingReconciledAt: optTime(j.BillingReconciledAt),
		RetryCount: int32(j.RetryCount), Progress: j.Progress,
		ApiTotalMs: optMs(j.APITotalMs), ApiPrechecksMs: optMs(j.APIPrechecksMs), ApiValidationMs: optMs(j.APIValidationMs),
		ApiDbInsertMs: optMs(j.APIDbInsertMs), ApiDispatchMs: optMs(j.APIDispatchMs),
		ExecDownloadMs: optMs(j.ExecDownloadMs), ExecExecuteMs: optMs(j.ExecExecuteMs), ExecUploadMs: optMs(j.ExecUploadMs),
		QueueWaitMs: optMs(j.QueueWaitMs), ConsumerTotalMs: optMs(j.ConsumerTotalMs),
	}
	// logsRef is stored as a key and handed out as a URL, like the output.
	if j.LogsRef != nil && st != nil {
		u, err := st.URL(ctx, *j.LogsRef)
		if err != nil {
			return nil, err
		}
		r.LogsRef = proto.String(u)
	}
	if j.Status == job.StatusComplete && j.OutputKey != nil && st != nil {
		u, err := st.URL(ctx, *j.OutputKey)
		if err != nil {
			return nil, err
		}
		r.OutputUrl = proto.String(u)
	}
	return r, nil
}
