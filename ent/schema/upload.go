package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Upload is a file a client sent with POST /uploads, kept until it expires:
// its bytes are in storage at storage_key, under the organisation's own
// prefix. The row counts against the organisation's storage quota while
// it lives; the sweeper deletes the file and then the row. Times are
// epoch milliseconds.
type Upload struct {
	ent.Schema
}

// Fields of the Upload.
func (Upload) Fields() []ent.Field {
	return []ent.Field{
		field.String("id").Immutable().NotEmpty(),
		field.String("org_id").Immutable(),
		field.String("filename").Immutable(),
		field.String("content_type").Immutable(),
		field.Int64("size").Immutable(),
		field.String("storage_key").Immutable(),
		field.Int64("created_at").Immutable(),
		field.Int64("expires_at").Immutable(),
	}
}

// Indexes of the Upload: an organisation's live uploads (its quota), and
// the expired ones (the sweeper).
func (Upload) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("org_id", "expires_at"),
		index.Fields("expires_at"),
	}
}
