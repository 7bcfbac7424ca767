package render

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/kinohq/kino/ent"
	"github.com/kinohq/kino/server/jobs"
	"github.com/kinohq/kino/server/storage"
	"github.com/kinohq/kino/server/webhook"
)

// WebhookHook stores the callback of a render that ended, in the
// transaction that ends it (a jobs.FinalHook), so the job is never final
// without its delivery, nor the delivery sent for a job that is not.
func WebhookHook(d *webhook.Dispatcher, st *storage.Storage) jobs.FinalHook {
	return func(ctx context.Context, tx *ent.Tx, j *ent.Job) error {
		if j.Kind != Kind {
			return nil
		}
		args, err := ArgsOf(j)
		if err != nil || args.Webhook == "" {
			return err
		}
		var payload any
		res := webhook.Resolution{Width: args.Width, Height: args.Height}
		status := Status(j.State)
		if j.State == jobs.Completed {
			c := webhook.RenderCompleted{JobID: j.ID, Status: status, Duration: args.Duration, Format: args.Format, Resolution: res}
			for field, dst := range map[string]*string{OutputField: &c.OutputURL, PosterField: &c.PosterURL, ThumbnailField: &c.ThumbnailURL} {
				key, ok := j.Outputs[field]
				if !ok {
					continue
				}
				if *dst, err = st.URL(ctx, key); err != nil {
					return err
				}
			}
			payload = c
		} else {
			f := webhook.RenderFailed{JobID: j.ID, Status: status, Duration: args.Duration, Format: args.Format, Resolution: res}
			if j.State == jobs.Failed {
				f.Error = &webhook.ErrorBody{Code: deref(j.ErrorCode), Message: deref(j.ErrorMessage)}
			}
			payload = f
		}
		body, err := json.Marshal(payload)
		if err != nil {
			return fmt.Errorf("encode webhook of job %s: %w", j.ID, err)
		}
		// The delivery stays in the job's trace even when the job ended
		// outside it (a cancel request, a rescue).
		if _, err := d.Enqueue(jobs.TraceContext(ctx, j), tx, j.ID, args.Webhook, body); err != nil {
			return fmt.Errorf("store webhook of job %s: %w", j.ID, err)
		}
		return nil
	}
}

// NotifyWebhooks wakes the dispatcher after a render with a webhook ended.
func NotifyWebhooks(d *webhook.Dispatcher) func(*ent.Job) {
	return func(j *ent.Job) {
		if j.Kind == Kind {
			d.Notify()
		}
	}
}
