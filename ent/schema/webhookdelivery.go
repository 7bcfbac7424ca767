package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// WebhookDelivery is one callback to send. It is stored before the first
// attempt so that a restart resumes it, and keeps its id across retries.
type WebhookDelivery struct {
	ent.Schema
}

// Fields of the WebhookDelivery.
func (WebhookDelivery) Fields() []ent.Field {
	return []ent.Field{
		// Sent as the webhook-id header; receivers deduplicate on it.
		field.String("id").Immutable().NotEmpty(),
		field.String("job_id").Immutable(),
		field.String("url").Immutable(),
		field.Bytes("payload").Immutable(),
		field.Enum("status").Values("pending", "delivered", "failed").Default("pending"),
		field.Int("attempts").Default(0),
		field.Time("next_attempt_at").Default(now),
		field.Int("last_status_code").Optional(),
		field.String("last_error").Optional(),
		field.Time("created_at").Immutable().Default(now),
		field.Time("updated_at").Default(now),
		// The W3C trace context (traceparent, tracestate) that its attempts
		// continue: the trace of the job it reports. Last, as a column that
		// migrations add to an existing table goes at the end.
		field.JSON("trace_context", map[string]string{}).Optional().Immutable(),
		// The organisation endpoint it goes to, whose secret signs it; ""
		// for a job's own webhook, signed with the server's secret. A
		// delivery whose endpoint was deleted is not sent.
		field.String("endpoint_id").Optional().Immutable(),
		// What it reports ("job.completed", "pipeline.run.failed"…); ""
		// for a render's callback.
		field.String("event").Optional().Immutable(),
		// The pipeline run it reports, for a run's event: a run ends once,
		// so at most one delivery of a run goes to one target.
		field.String("run_id").Optional().Immutable(),
		// Extra request headers the job asked for (callback.headers); may
		// hold a credential, so never logged nor answered.
		field.JSON("headers", map[string]string{}).Optional().Immutable().Sensitive(),
	}
}

// Indexes of the WebhookDelivery.
func (WebhookDelivery) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("status", "next_attempt_at"),
		index.Fields("job_id"),
		index.Fields("run_id"),
	}
}
