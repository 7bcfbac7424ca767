package media

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"entgo.io/ent/dialect"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/kinohq/kino/ent"
	"github.com/kinohq/kino/ent/webhookdelivery"
	"github.com/kinohq/kino/ent/webhookendpoint"
	"github.com/kinohq/kino/server/jobs"
	"github.com/kinohq/kino/server/mediajob"
	"github.com/kinohq/kino/server/storage"
	"github.com/kinohq/kino/server/webhook"
)

// The events a media job or a pipeline run sends when it ends.
const (
	EventJobCompleted = "job.completed"
	EventJobFailed    = "job.failed"
	EventJobCancelled = "job.cancelled"
	EventRunCompleted = "pipeline.run.completed"
	EventRunFailed    = "pipeline.run.failed"
	EventRunCancelled = "pipeline.run.cancelled"
)

// Events are the events an endpoint may subscribe to.
//
//nolint:gochecknoglobals // read-only table: the documented events
var Events = []string{EventJobCompleted, EventJobFailed, EventJobCancelled, EventRunCompleted, EventRunFailed, EventRunCancelled}

// recordJSON writes a record in a payload as the gateway writes it in an
// answer (gateway.marshaler), so that a payload's data reads like GET's.
//
//nolint:gochecknoglobals // read-only: marshal options, a value with no state
var recordJSON = protojson.MarshalOptions{EmitDefaultValues: true}

// envelope is the body of every media webhook: Rendobar's, the record
// under data as GET answers it.
type envelope struct {
	Event      string `json:"event"`
	DeliveryID string `json:"deliveryId"`
	// Timestamp is when the job or run ended, epoch milliseconds.
	Timestamp  int64           `json:"timestamp"`
	OrgID      string          `json:"orgId"`
	JobID      string          `json:"jobId,omitempty"`
	RunID      string          `json:"runId,omitempty"`
	PipelineID string          `json:"pipelineId,omitempty"`
	Data       json.RawMessage `json:"data"`
}

// target is one URL an event goes to: a job's or run's own webhook
// (endpoint ""), or an organisation endpoint.
type target struct {
	url, endpoint string
	// headers are the extra headers of a job's own webhook.
	headers map[string]string
}

// Notifier stores the webhooks of media jobs and pipeline runs that end,
// in the transaction that ends them, for the dispatcher to send.
type Notifier struct {
	d       *webhook.Dispatcher
	st      *storage.Storage
	dialect string
}

// NewNotifier returns a notifier storing deliveries for d; st makes the
// URLs of the records, and dialect (the store's) says whether runs that
// end in two transactions at once need a lock to send their event once.
func NewNotifier(d *webhook.Dispatcher, st *storage.Storage, dialect string) *Notifier {
	return &Notifier{d: d, st: st, dialect: dialect}
}

// Final is a jobs.FinalHook: it stores the job's event for its own webhook
// and for each endpoint of its organisation subscribed to it, and, for a
// pipeline node, makes sure its run's event is stored if this ended it.
func (n *Notifier) Final(ctx context.Context, tx *ent.Tx, j *jobs.Job) error {
	if j.Kind != mediajob.Kind {
		return nil
	}
	args, err := mediajob.ArgsOf(j)
	if err != nil {
		return err
	}
	ctx = jobs.TraceContext(ctx, j)
	eps, err := tx.WebhookEndpoint.Query().Where(webhookendpoint.OrgID(j.OrgID)).Order(webhookendpoint.ByID()).All(ctx)
	if err != nil {
		return fmt.Errorf("read webhook endpoints of %s: %w", j.OrgID, err)
	}
	event := jobEvent(j)
	to := targets(args.Webhook, eps, event)
	if len(to) > 0 && to[0].endpoint == "" {
		to[0].headers = args.WebhookHeaders
	}
	if err := n.send(ctx, tx, j, event, to, func() (proto.Message, error) {
		return jobRecord(ctx, n.st, j)
	}, envelope{JobID: j.ID}); err != nil {
		return err
	}
	if j.PipelineID == nil || j.BatchID == nil {
		return nil
	}
	if args.RunWebhook == "" && !slices.ContainsFunc(eps, func(e *ent.WebhookEndpoint) bool {
		return e.Active && (slices.Contains(e.Events, EventRunCompleted) || slices.Contains(e.Events, EventRunFailed) ||
			slices.Contains(e.Events, EventRunCancelled))
	}) {
		return nil
	}
	// Whether the run ended shows only once every job this transaction
	// ends has ended (a cancelled run ends them all in one), so it is
	// judged as the transaction commits.
	tx.OnCommit(func(next ent.Committer) ent.Committer {
		return ent.CommitFunc(func(ctx context.Context, tx *ent.Tx) error {
			stored, err := n.runEnded(jobs.TraceContext(ctx, j), tx, j)
			if err != nil {
				_ = tx.Rollback()
				return err
			}
			if err := next.Commit(ctx, tx); err != nil {
				return err
			}
			if stored {
				// Stored after the dispatcher's own commit hooks were
				// chained, so it is woken here.
				n.d.Notify()
			}
			return nil
		})
	})
	return nil
}

// runEnded stores the event of j's run if every job of the run has ended
// and none was stored yet, and reports whether it stored one.
func (n *Notifier) runEnded(ctx context.Context, tx *ent.Tx, j *jobs.Job) (bool, error) {
	runID, pipelineID := *j.BatchID, *j.PipelineID
	if n.dialect == dialect.Postgres {
		// Two transactions that end the last two jobs of a run would each
		// see the other's job unfinished; one at a time per run, the
		// second sees the first's once it commits. Taken last thing
		// before the commit, so it waits on nothing but another commit.
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, runID); err != nil {
			return false, fmt.Errorf("lock run %s: %w", runID, err)
		}
	}
	js, err := jobs.BatchIn(ctx, tx, jobs.Filter{Kind: mediajob.Kind, Org: j.OrgID, PipelineID: pipelineID, BatchID: runID})
	if err != nil || len(js) == 0 {
		return false, err
	}
	for _, o := range js {
		if !jobs.Final(o.State) {
			return false, nil
		}
	}
	sent, err := tx.WebhookDelivery.Query().Where(webhookdelivery.RunID(runID)).Exist(ctx)
	if err != nil || sent {
		return false, err
	}
	first, err := mediajob.ArgsOf(js[0])
	if err != nil {
		return false, err
	}
	eps, err := tx.WebhookEndpoint.Query().Where(webhookendpoint.OrgID(j.OrgID)).Order(webhookendpoint.ByID()).All(ctx)
	if err != nil {
		return false, fmt.Errorf("read webhook endpoints of %s: %w", j.OrgID, err)
	}
	status := RunStatus(js)
	event := map[string]string{"complete": EventRunCompleted, "failed": EventRunFailed}[status]
	if event == "" {
		event = EventRunCancelled
	}
	to := targets(first.RunWebhook, eps, event)
	err = n.send(ctx, tx, j, event, to, func() (proto.Message, error) {
		return runRecord(ctx, n.st, pipelineID, runID, js)
	}, envelope{RunID: runID, PipelineID: pipelineID})
	return err == nil && len(to) > 0, err
}

// send stores one delivery of event to each target, the record that
// record makes under data.
func (n *Notifier) send(ctx context.Context, tx *ent.Tx, j *jobs.Job, event string, to []target,
	record func() (proto.Message, error), env envelope) error {
	if len(to) == 0 {
		return nil
	}
	rec, err := record()
	if err != nil {
		return fmt.Errorf("make webhook of job %s: %w", j.ID, err)
	}
	data, err := recordJSON.Marshal(rec)
	if err != nil {
		return fmt.Errorf("make webhook of job %s: %w", j.ID, err)
	}
	env.Event, env.OrgID, env.Data = event, j.OrgID, data
	env.Timestamp = nowMs()
	if j.FinishedAt != nil {
		env.Timestamp = *j.FinishedAt
	}
	for _, t := range to {
		env.DeliveryID = webhook.NewID()
		body, err := json.Marshal(env)
		if err != nil {
			return fmt.Errorf("make webhook of job %s: %w", j.ID, err)
		}
		if err := n.d.Store(ctx, tx, webhook.Msg{ID: env.DeliveryID, JobID: j.ID, URL: t.url, Payload: body,
			EndpointID: t.endpoint, Event: event, RunID: env.RunID, Headers: t.headers}); err != nil {
			return err
		}
	}
	return nil
}

// targets are where event goes: own, the job's or run's webhook, when
// set, then every endpoint subscribed to it.
func targets(own string, eps []*ent.WebhookEndpoint, event string) []target {
	var out []target
	if own != "" {
		out = append(out, target{url: own})
	}
	for _, e := range eps {
		if e.Active && slices.Contains(e.Events, event) {
			out = append(out, target{url: e.URL, endpoint: e.ID})
		}
	}
	return out
}

// jobEvent is the event of a job that ended.
func jobEvent(j *jobs.Job) string {
	switch j.State {
	case jobs.Completed:
		return EventJobCompleted
	case jobs.Failed:
		return EventJobFailed
	}
	return EventJobCancelled
}
