package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// RenderJob is one submitted render: its request, its place in the queue and
// what became of it. Queued rows are the queue.
type RenderJob struct {
	ent.Schema
}

// Fields of the RenderJob.
func (RenderJob) Fields() []ent.Field {
	return []ent.Field{
		field.String("id").Immutable().NotEmpty(),
		// The organisation of the API key that submitted it.
		field.String("org_id").Immutable().Default("default"),
		field.String("provider").Immutable(),
		// The composition exactly as submitted, as JSON.
		field.Bytes("composition").Immutable(),
		field.JSON("asset_urls", map[string]string{}).Optional().Immutable(),
		field.String("webhook_url").Optional().Immutable(),
		field.Enum("status").Values("queued", "processing", "completed", "failed", "cancelled").Default("queued"),
		field.Float("progress").Default(0),
		// Object key of the output in blob storage; set only when completed.
		field.String("output_key").Optional(),
		field.String("error_code").Optional(),
		field.String("error_message").Optional(),
		// Output settings resolved at validation, for the webhook payload.
		field.String("format").Immutable(),
		field.Int("width").Immutable(),
		field.Int("height").Immutable(),
		field.Float("duration").Immutable(),
		field.String("idempotency_key").Optional().Nillable(),
		// SHA-256 of the canonical request, to tell a true repeat from a reused key.
		field.String("request_hash").Immutable(),
		// How many times a worker has claimed the job.
		field.Int("attempts").Default(0),
		field.String("lease_owner").Optional(),
		field.Time("lease_expires_at").Optional().Nillable(),
		field.Time("created_at").Immutable().Default(now),
		field.Time("updated_at").Default(now),
		field.Time("started_at").Optional().Nillable(),
		field.Time("finished_at").Optional().Nillable(),
	}
}

// Indexes of the RenderJob.
func (RenderJob) Indexes() []ent.Index {
	return []ent.Index{
		// Claims take the oldest queued job.
		index.Fields("status", "created_at"),
		// Recovery looks for processing jobs whose lease ran out.
		index.Fields("status", "lease_expires_at"),
		// Keys are per organisation: one org's key never finds another's job.
		index.Fields("org_id", "idempotency_key").Unique(),
	}
}
