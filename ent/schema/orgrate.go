package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
)

// OrgRate is one organisation's submit rate as it stands: the time its
// next submit is due if it keeps to its --org-rate exactly (the
// "theoretical arrival time" of a generic cell rate algorithm), in epoch
// microseconds of the database's clock. One conditional upsert of this row
// takes a submit or refuses it, so every node shares the one bucket.
type OrgRate struct {
	ent.Schema
}

// Fields of the OrgRate.
func (OrgRate) Fields() []ent.Field {
	return []ent.Field{
		field.String("id").Immutable().NotEmpty().Comment("the organisation"),
		field.Int64("tat"),
	}
}
