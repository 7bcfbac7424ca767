package app

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/kinohq/kino/ent"
	"github.com/kinohq/kino/ent/renderjob"
	"github.com/kinohq/kino/server/storage"
	"github.com/kinohq/kino/server/webhook"
)

// enqueueWebhook stores the callback of a job that reached a terminal state,
// in the transaction that records that state.
func enqueueWebhook(ctx context.Context, tx *ent.Tx, d *webhook.Dispatcher, st *storage.Storage, job *ent.RenderJob) error {
	if job.WebhookURL == "" {
		return nil
	}
	var payload any
	res := webhook.Resolution{Width: job.Width, Height: job.Height}
	if job.Status == renderjob.StatusCompleted {
		u, err := st.URL(ctx, job.OutputKey)
		if err != nil {
			return err
		}
		payload = webhook.RenderCompleted{JobID: job.ID, Status: string(job.Status), OutputURL: u,
			Duration: job.Duration, Format: job.Format, Resolution: res}
	} else {
		f := webhook.RenderFailed{JobID: job.ID, Status: string(job.Status), Duration: job.Duration, Format: job.Format, Resolution: res}
		if job.Status == renderjob.StatusFailed {
			f.Error = &webhook.ErrorBody{Code: job.ErrorCode, Message: job.ErrorMessage}
		}
		payload = f
	}
	body, err := json.Marshal(payload)
	if err != nil {
		return fmt.Errorf("encode webhook of job %s: %w", job.ID, err)
	}
	if _, err := d.Enqueue(ctx, tx, job.ID, job.WebhookURL, body); err != nil {
		return fmt.Errorf("store webhook of job %s: %w", job.ID, err)
	}
	return nil
}
