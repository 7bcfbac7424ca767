package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Usage is what one finished job used and cost, written in the transaction
// that ends it: the ledger GET /usage adds up. It outlives the job's own
// row, so usage stays true when finished jobs are removed. Its id is the
// job's. Money is USD; times are epoch milliseconds.
type Usage struct {
	ent.Schema
}

// Fields of the Usage.
func (Usage) Fields() []ent.Field {
	return []ent.Field{
		field.String("id").Immutable().NotEmpty(),
		field.String("org_id").Immutable(),
		// The job's kind, and the type usage reports it under: a split
		// render's parts are counted as "render".
		field.String("kind").Immutable(),
		field.String("type").Immutable(),
		// The UTC day the job ended, as 2006-01-02.
		field.String("day").Immutable(),
		field.String("state").Immutable(),
		// 1 for a job the organisation submitted, 0 for a part of one.
		field.Int("jobs").Immutable(),
		field.Float("media_seconds").Immutable(),
		field.Float("cpu_seconds").Immutable(),
		field.Float("price").Immutable(),
		field.Float("provider_cost").Immutable(),
		field.Float("infra_cost").Immutable(),
		field.Int64("finished_at").Immutable(),
	}
}

// Indexes of the Usage: an organisation's usage over a range of days.
func (Usage) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("org_id", "day", "type"),
	}
}
