// Package ent holds the generated data layer; the model lives in ./schema.
package ent

// Every ent feature the store uses is listed here, in one place:
//   - sql/lock: FOR UPDATE SKIP LOCKED claims on PostgreSQL.
//   - sql/upsert: idempotent inserts.
//   - sql/modifier: conditional updates that guard state transitions.
//   - sql/execquery: the raw claim statement on SQLite.
//go:generate go tool ent generate --feature sql/lock,sql/upsert,sql/modifier,sql/execquery ./schema
