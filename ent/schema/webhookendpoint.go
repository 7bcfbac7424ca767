package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// WebhookEndpoint is a URL an organisation registered to hear of the end
// of its media jobs and pipeline runs, with the events it wants and the
// secret that signs what it is sent.
type WebhookEndpoint struct {
	ent.Schema
}

// Fields of the WebhookEndpoint.
func (WebhookEndpoint) Fields() []ent.Field {
	return []ent.Field{
		field.String("id").Immutable().NotEmpty(),
		field.String("org_id").Immutable(),
		field.String("name").Default(""),
		field.Text("description").Default(""),
		field.String("url"),
		// The event names it is sent, as given.
		field.Strings("events"),
		// Signs every delivery to it (Standard Webhooks, "whsec_" and
		// base64); kept as it is because each delivery needs it, and
		// answered only when the endpoint is made.
		field.String("secret").Sensitive().Immutable(),
		// False while switched off: it is sent nothing.
		field.Bool("active").Default(true),
		field.Int64("created_at").Immutable(),
		field.Int64("updated_at"),
	}
}

// Indexes of the WebhookEndpoint.
func (WebhookEndpoint) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("org_id", "created_at", "id"),
	}
}
