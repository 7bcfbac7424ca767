package webhook

import (
	"context"
	"fmt"

	"github.com/kinohq/kino/ent"
	"github.com/kinohq/kino/ent/webhookdelivery"
)

// Delivery is where the callback of a job stands, as its record shows it.
type Delivery struct {
	// Status is "pending", "delivered" or "failed".
	Status   string
	Attempts int
	// LastStatusCode is the receiver's last answer; 0 when none came.
	LastStatusCode int
	// LastError is why the last attempt failed; "" when it did not.
	LastError string
}

// Latest reads the newest delivery of each of the jobs ids that have one,
// in one query, by job id.
func Latest(ctx context.Context, client *ent.Client, ids ...string) (map[string]Delivery, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	rows, err := client.WebhookDelivery.Query().Where(webhookdelivery.JobIDIn(ids...)).
		Order(ent.Desc(webhookdelivery.FieldCreatedAt)).All(ctx)
	if err != nil {
		return nil, fmt.Errorf("read webhook deliveries: %w", err)
	}
	out := make(map[string]Delivery, len(ids))
	for _, d := range rows {
		if _, ok := out[d.JobID]; !ok { // newest first
			out[d.JobID] = Delivery{Status: string(d.Status), Attempts: d.Attempts, LastStatusCode: d.LastStatusCode, LastError: d.LastError}
		}
	}
	return out, nil
}
