package schema

import (
	"entgo.io/ent"
	entsql "entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Job is the one job of kino: a render, a media job, a pipeline node. The
// job core (server/jobs) owns every write of its state; a kind keeps what
// is its own in args (the request, immutable) and metadata (what its runs
// and its API record about it). Times are epoch milliseconds, the
// precision both interfaces carry.
type Job struct {
	ent.Schema
}

// Dependant is a job that waits for this one, and which of this job's
// outputs become which of its inputs (input field -> output field).
type Dependant struct {
	ID     string            `json:"id"`
	Inputs map[string]string `json:"inputs,omitempty"`
	// Whole marks the job this one is a part of (a split render): it
	// fails with this job's own error, and its progress is its parts'.
	Whole bool `json:"whole,omitempty"`
}

// Fields of the Job.
func (Job) Fields() []ent.Field {
	optStr := func(name string) ent.Field { return field.String(name).Optional().Nillable() }
	optMs := func(name string) ent.Field { return field.Int64(name).Optional().Nillable() }
	return []ent.Field{
		field.String("id").Immutable().NotEmpty(),
		// What runs it: "render" or "media".
		field.String("kind").Immutable(),
		// The media job type; "render" for a render.
		field.String("type").Immutable(),
		field.String("org_id").Immutable(),
		// pending: waits for parents; available: claimable now;
		// retrying: waits out a retry's backoff until available_at, out of
		// the claims' index; running: a worker holds its lease.
		field.Enum("state").Values("pending", "available", "running", "completed", "failed", "cancelled", "retrying").Default("available"),
		field.Bytes("args").Immutable(),
		field.JSON("metadata", map[string]any{}).Optional(),
		// Inputs filled from parents' outputs, as storage keys by input field.
		field.JSON("input_keys", map[string]string{}).Optional(),
		// Stored outputs, as storage keys by output field.
		field.JSON("outputs", map[string]string{}).Optional(),
		field.JSON("dependants", []Dependant{}).Optional().Immutable(),
		// How many parents have not completed; a pending job becomes
		// available at 0.
		field.Int("pending_parents").Default(0),
		optStr("error_code"),
		field.Text("error_message").Optional().Nillable(),
		field.Float("progress").Default(0),
		// Claims so far, and how many a job gets.
		field.Int("attempt").Default(0),
		field.Int("max_attempts").Default(3),
		field.Int64("available_at").Default(0),
		// Orders an organisation's own waiting jobs, higher first; it
		// never moves one organisation ahead of another (fair turns do).
		field.Int("priority").Default(0).Immutable(),
		optStr("lease_owner"),
		optMs("lease_expires_at"),
		// A pipeline run's jobs share a batch.
		optStr("batch_id"),
		optStr("pipeline_id"),
		optStr("node_id"),
		// The Idempotency-Key of the submit that made the job (a run's
		// first job holds the run's), and the SHA-256 of that submit.
		optStr("idempotency_key"),
		field.String("request_hash").Optional().Nillable().Immutable(),
		field.Int64("created_at").Immutable(),
		field.Int64("updated_at"),
		optMs("claimed_at"),
		optMs("started_at"),
		optMs("finished_at"),
	}
}

// Indexes of the Job. Lists filter by kind and organisation, then by state
// and/or type, newest first.
func (Job) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("kind", "org_id", "created_at", "id"),
		index.Fields("kind", "org_id", "state", "created_at", "id"),
		index.Fields("kind", "org_id", "type", "created_at", "id"),
		index.Fields("kind", "org_id", "state", "type", "created_at", "id"),
		// A pipeline's runs are its jobs grouped by batch.
		index.Fields("pipeline_id", "batch_id"),
		index.Fields("batch_id"),
		// A claim takes an organisation's first available job of a type,
		// in the order of this index, and counts its running jobs by the
		// index's prefix. It is the only index that leads with state but
		// for the partial ones below, so that no planner reads the
		// available jobs by another: retries fall due by available_at,
		// rescue finds lapsed leases. server/store drops the indexes
		// these replaced.
		index.Fields("state", "org_id", "type", "priority", "created_at", "id").
			Annotations(entsql.DescColumns("priority")),
		index.Fields("state", "available_at").
			Annotations(entsql.IndexWhere("state = 'retrying'")).StorageKey("job_retrying_available_at"),
		index.Fields("state", "lease_expires_at").
			Annotations(entsql.IndexWhere("state = 'running'")).StorageKey("job_running_lease_expires_at"),
		// A submit counts its organisation's jobs waiting (--org-max-queued).
		index.Fields("org_id", "state"),
		// Keys are per organisation and kind: one org's key never finds
		// another's job, and a render's key is not a media job's.
		index.Fields("kind", "org_id", "idempotency_key").Unique(),
	}
}
