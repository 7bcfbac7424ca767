package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Pipeline is a validated graph of media jobs.
type Pipeline struct {
	ent.Schema
}

// Fields of the Pipeline.
func (Pipeline) Fields() []ent.Field {
	return []ent.Field{
		field.String("id").Immutable().NotEmpty(),
		field.String("org_id").Immutable(),
		field.String("name"),
		field.Text("description").Default(""),
		// The nodes and edges as the wire carries them, as JSON.
		field.Bytes("graph"),
		field.Int64("created_at").Immutable(),
		field.Int64("updated_at"),
	}
}

// Indexes of the Pipeline.
func (Pipeline) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("org_id", "created_at", "id"),
	}
}
