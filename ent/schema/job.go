package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Job is a typed media job (section 2.2 of the media interface). Times are
// epoch milliseconds, as the interface carries them.
type Job struct {
	ent.Schema
}

// Fields of the Job.
func (Job) Fields() []ent.Field {
	optStr := func(name string) ent.Field { return field.String(name).Optional().Nillable() }
	optMs := func(name string) ent.Field { return field.Int64(name).Optional().Nillable() }
	optNum := func(name string) ent.Field { return field.Float(name).Optional().Nillable() }
	return []ent.Field{
		field.String("id").Immutable().NotEmpty(),
		field.String("org_id").Immutable(),
		optStr("user_id"),
		optStr("batch_id"),
		field.String("type").Immutable(),
		field.Enum("status").Values("waiting", "dispatched", "running", "complete", "failed", "cancelled").Default("waiting"),
		optStr("provider_id"),
		optStr("provider_type"),
		optStr("provider_run_id"),
		optStr("ai_pattern"),
		// JSON text, as on the wire.
		field.Text("inputs"),
		field.Text("params"),
		optStr("output_ref"),
		field.Text("output_meta").Optional().Nillable(),
		optStr("error_code"),
		field.Text("error_message").Optional().Nillable(),
		optStr("logs_ref"),
		field.Text("steps_json").Optional().Nillable(),
		optStr("media_type"),
		optStr("pipeline_id"),
		optStr("pipeline_node_id"),
		// Object key of the primary output, for outputUrl.
		optStr("output_key"),
		// How many upstream pipeline nodes must complete before this job can
		// run; a waiting job is claimed only at 0.
		field.Int("pending_inputs").Default(0),
		// A waiting job is claimed only from this time on (epoch ms): the
		// backoff before a retry.
		field.Int64("available_at").Default(0),
		// The worker holding the job and until when (epoch ms); renewed while it runs.
		optStr("lease_owner"),
		optMs("lease_expires_at"),
		optNum("price"),
		optNum("provider_cost"),
		optNum("infra_cost"),
		optNum("margin"),
		optNum("estimated_price"),
		field.Int64("created_at").Immutable(),
		field.Int64("updated_at"),
		optMs("dispatched_at"),
		optMs("started_at"),
		optMs("completed_at"),
		optMs("billing_reconciled_at"),
		field.Int("retry_count").Default(0),
		// Percent done, from ffmpeg's progress reports.
		field.Float("progress").Default(0),
		optMs("api_total_ms"),
		optMs("api_prechecks_ms"),
		optMs("api_validation_ms"),
		optMs("api_db_insert_ms"),
		optMs("api_dispatch_ms"),
		optMs("exec_download_ms"),
		optMs("exec_execute_ms"),
		optMs("exec_upload_ms"),
		optMs("queue_wait_ms"),
		optMs("consumer_total_ms"),
		// The Idempotency-Key of the submit that made the job, or the run
		// whose first node it is (a run's other jobs hold none), and the
		// SHA-256 of that submit, to tell a repeat from a reused key.
		optStr("idempotency_key"),
		field.String("request_hash").Optional().Nillable().Immutable(),
	}
}

// Indexes of the Job. Lists filter by organisation, then by status and/or
// type, newest first: each index serves one shape of GET /jobs without a sort.
func (Job) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("org_id", "created_at", "id"),
		index.Fields("org_id", "status", "created_at", "id"),
		index.Fields("org_id", "type", "created_at", "id"),
		index.Fields("org_id", "status", "type", "created_at", "id"),
		index.Fields("batch_id"),
		// A pipeline's runs are its jobs grouped by batch.
		index.Fields("pipeline_id", "batch_id"),
		// Claims take the oldest waiting job.
		index.Fields("status", "created_at"),
		// Keys are per organisation: one org's key never finds another's job.
		index.Fields("org_id", "idempotency_key").Unique(),
	}
}
