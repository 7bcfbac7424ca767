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
	}
}

// Indexes of the WebhookDelivery.
func (WebhookDelivery) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("status", "next_attempt_at"),
		index.Fields("job_id"),
	}
}
