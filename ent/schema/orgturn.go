package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// OrgTurn is an organisation's place in the fair turns of claims: its pass
// grows by 1/weight with each job claimed, and the waiting organisation
// with the lowest pass is served next (stride scheduling). It lives in the
// database so that every node claims by the same turns, and its row is the
// lock that makes an organisation's running cap hold across nodes.
type OrgTurn struct {
	ent.Schema
}

// Fields of the OrgTurn.
func (OrgTurn) Fields() []ent.Field {
	return []ent.Field{
		// The organisation.
		field.String("id").Immutable().NotEmpty(),
		field.Float("pass").Default(0),
		// Whether the organisation may have available jobs: set with
		// every job that becomes available, cleared by the claim that
		// takes its last one (or by the sweep after a cancel).
		field.Bool("waiting").Default(false),
		// Jobs of the organisation running, as the last claim counted
		// them under the row's lock; set to 0 (unknown) whenever one
		// stops running. It is never above the true count, so claims may
		// skip an organisation it shows at its cap without counting.
		field.Int("running").Default(0),
	}
}

// Indexes of the OrgTurn: claims walk the waiting organisations by pass.
func (OrgTurn) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("waiting", "pass", "id"),
	}
}
