package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Asset is a stored file of an organisation, or of the system scope shared
// with all (section 2.1 of the media interface). Times are epoch milliseconds.
type Asset struct {
	ent.Schema
}

// Fields of the Asset.
func (Asset) Fields() []ent.Field {
	return []ent.Field{
		field.String("id").Immutable().NotEmpty(),
		// The owner; system assets belong to the organisation of the admin key.
		field.String("org_id").Immutable(),
		// captions (SRT or WebVTT) is kino's own, beside the interface's three.
		field.Enum("type").Values("psd_template", "image", "font", "captions").Immutable(),
		field.String("name"),
		field.String("filename").Immutable(),
		field.String("storage_key").Immutable(),
		// Bytes.
		field.Int64("file_size").Immutable(),
		// JSON text.
		field.Text("metadata").Default("{}"),
		field.Enum("scope").Values("org", "system").Immutable(),
		field.Enum("status").Values("processing", "ready", "failed").Default("processing"),
		field.Enum("category").Values("apparel", "drinkware", "devices", "print").Optional().Nillable(),
		field.String("thumbnail_key").Optional().Nillable(),
		field.Int64("created_at").Immutable(),
		field.Int64("updated_at"),
	}
}

// Indexes of the Asset: one per list shape, newest first.
func (Asset) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("org_id", "scope", "created_at", "id"),
		index.Fields("scope", "type", "category", "created_at", "id"),
	}
}
