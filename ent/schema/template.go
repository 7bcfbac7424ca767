package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Template is a stored composition whose text and sources may hold
// {{NAME}} placeholders, rendered again with other values. Times are epoch
// milliseconds.
type Template struct {
	ent.Schema
}

// Fields of the Template.
func (Template) Fields() []ent.Field {
	return []ent.Field{
		field.String("id").Immutable().NotEmpty(),
		field.String("org_id").Immutable(),
		field.String("name"),
		field.String("provider").Immutable(),
		// The composition as submitted, as JSON.
		field.Bytes("composition").Immutable(),
		field.JSON("asset_urls", map[string]string{}).Optional().Immutable(),
		field.Int64("created_at").Immutable(),
		field.Int64("updated_at"),
	}
}

// Indexes of the Template: an organisation's, newest first.
func (Template) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("org_id", "created_at", "id"),
	}
}
