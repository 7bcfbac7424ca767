package webhook

import (
	"context"
	"fmt"

	"github.com/kinohq/kino/ent"
	"github.com/kinohq/kino/server/jobs"
)

// Callback is what a kind sends when one of its jobs ends: the URL and
// the JSON body, or "" when the job asked for no callback.
type Callback func(ctx context.Context, j *jobs.Job) (url string, body []byte, err error)

// Hook stores the callback of each job that ended, in the transaction
// that ends it (a jobs.FinalHook), so that a job is never final without
// its delivery, nor a delivery sent for a job that is not.
func (d *Dispatcher) Hook(callback Callback) jobs.FinalHook {
	return func(ctx context.Context, tx *ent.Tx, j *jobs.Job) error {
		url, body, err := callback(ctx, j)
		if err != nil || url == "" {
			return err
		}
		// The delivery stays in the job's trace even when the job ended
		// outside it (a cancel request, a rescue).
		if _, err := d.Enqueue(jobs.TraceContext(ctx, j), tx, j.ID, url, body); err != nil {
			return fmt.Errorf("store webhook of job %s: %w", j.ID, err)
		}
		return nil
	}
}
