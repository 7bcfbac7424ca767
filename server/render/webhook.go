package render

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/kinohq/kino/server/jobs"
	"github.com/kinohq/kino/server/renderjob"
	"github.com/kinohq/kino/server/storage"
	"github.com/kinohq/kino/server/webhook"
)

// WebhookHook stores the callback of a render that ended, in the
// transaction that ends it (a jobs.FinalHook), so the job is never final
// without its delivery, nor the delivery sent for a job that is not.
func WebhookHook(d *webhook.Dispatcher, st *storage.Storage) jobs.FinalHook {
	return d.Hook(func(ctx context.Context, j *jobs.Job) (string, []byte, error) {
		if j.Kind != renderjob.Kind {
			return "", nil, nil
		}
		args, err := renderjob.ArgsOf(j)
		if err != nil || args.Webhook == "" {
			return "", nil, err
		}
		payload, err := callback(ctx, st, j, args)
		if err != nil {
			return "", nil, err
		}
		body, err := json.Marshal(payload)
		if err != nil {
			return "", nil, fmt.Errorf("encode webhook of job %s: %w", j.ID, err)
		}
		return args.Webhook, body, nil
	})
}

// callback is the body of an ended render's webhook: RenderCompleted, or
// RenderFailed for a failed or cancelled one.
func callback(ctx context.Context, st *storage.Storage, j *jobs.Job, args renderjob.Args) (any, error) {
	res := Resolution{Width: args.Width, Height: args.Height}
	status := Status(j.State)
	if j.State != jobs.Completed {
		f := RenderFailed{JobID: j.ID, Status: status, Duration: args.Duration, Format: args.Format, Resolution: res}
		if j.State == jobs.Failed {
			f.Error = &ErrorBody{Code: deref(j.ErrorCode), Message: deref(j.ErrorMessage)}
		}
		return f, nil
	}
	c := RenderCompleted{JobID: j.ID, Status: status, Duration: args.Duration, Format: args.Format, Resolution: res, Warnings: renderjob.Warnings(j)}
	for field, dst := range map[string]*string{renderjob.OutputField: &c.OutputURL, renderjob.PosterField: &c.PosterURL, renderjob.ThumbnailField: &c.ThumbnailURL} {
		key, ok := j.Outputs[field]
		if !ok {
			continue
		}
		var err error
		if *dst, err = st.URL(ctx, key); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// NotifyWebhooks wakes the dispatcher after a render with a webhook ended.
func NotifyWebhooks(d *webhook.Dispatcher) func(*jobs.Job) {
	return func(j *jobs.Job) {
		if j.Kind == renderjob.Kind {
			d.Notify()
		}
	}
}
