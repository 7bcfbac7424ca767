package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
)

// Node is one kino process sharing the database: a heartbeat row it
// rewrites every few seconds, so operators see which nodes are alive and
// what they run. Times are epoch milliseconds.
type Node struct {
	ent.Schema
}

// Fields of the Node.
func (Node) Fields() []ent.Field {
	return []ent.Field{
		field.String("id").Immutable().NotEmpty(),
		field.String("hostname"),
		field.String("version"),
		field.String("role"),
		field.Int("workers"),
		field.JSON("running_jobs", []string{}).Optional(),
		field.Int("running_count"),
		field.Int64("started_at").Immutable(),
		field.Int64("last_seen"),
	}
}

// Setting is one value shared by every node, created once by whichever
// node needs it first: the secret that signs file URLs.
type Setting struct {
	ent.Schema
}

// Fields of the Setting.
func (Setting) Fields() []ent.Field {
	return []ent.Field{
		field.String("id").Immutable().NotEmpty(),
		field.String("value").Immutable().Sensitive(),
	}
}
