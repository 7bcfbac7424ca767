package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"entgo.io/ent/dialect"

	"github.com/kinohq/kino/ent"
	"github.com/kinohq/kino/ent/job"
	"github.com/kinohq/kino/ent/schema"
)

// Versions of kino before the one job core kept renders in render_jobs and
// media jobs in jobs, each with its own columns and states. Opening such a
// database moves their rows into the one job table: before the schema
// migration, the old jobs table steps aside (as legacy_media_jobs, its
// indexes dropped, as their names are the new table's); after it, every
// old row is copied in one transaction that also drops the old tables, so
// a crash at any point leaves either the old tables or the new rows, and
// the next start finishes the move.
const legacyMediaJobs = "legacy_media_jobs"

// setAsideLegacy renames an old-style jobs table out of the way.
func setAsideLegacy(ctx context.Context, db *sql.DB, dia string) error {
	cols, err := columns(ctx, db, dia, "jobs")
	if err != nil || !cols["pending_inputs"] {
		return err // no table, or already the new one
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var indexes []string
	q := `SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'jobs' AND name NOT LIKE 'sqlite_autoindex%'`
	if dia == dialect.Postgres {
		q = `SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'jobs' AND indexname <> 'jobs_pkey'`
	}
	rows, err := tx.QueryContext(ctx, q)
	if err != nil {
		return fmt.Errorf("list indexes of the old jobs table: %w", err)
	}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return err
		}
		indexes = append(indexes, name)
	}
	rows.Close()
	stmts := make([]string, 0, len(indexes)+2)
	for _, name := range indexes {
		stmts = append(stmts, fmt.Sprintf(`DROP INDEX %q`, name))
	}
	stmts = append(stmts, `ALTER TABLE jobs RENAME TO `+legacyMediaJobs)
	if dia == dialect.Postgres {
		stmts = append(stmts, `ALTER TABLE `+legacyMediaJobs+` RENAME CONSTRAINT jobs_pkey TO `+legacyMediaJobs+`_pkey`)
	}
	for _, s := range stmts {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("set the old jobs table aside (%s): %w", s, err)
		}
	}
	return tx.Commit()
}

// columns are the columns of a table, none when it does not exist.
func columns(ctx context.Context, db *sql.DB, dia, table string) (map[string]bool, error) {
	q := `SELECT name FROM pragma_table_info(?)`
	if dia == dialect.Postgres {
		q = `SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1`
	}
	rows, err := db.QueryContext(ctx, q, table)
	if err != nil {
		return nil, fmt.Errorf("read columns of %s: %w", table, err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return nil, err
		}
		out[c] = true
	}
	return out, rows.Err()
}

// row is one row of an old table, by column.
type row map[string]any

func readAll(ctx context.Context, db *sql.DB, table string) ([]row, error) {
	rows, err := db.QueryContext(ctx, `SELECT * FROM `+table)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", table, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out []row
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, fmt.Errorf("read %s: %w", table, err)
		}
		r := row{}
		for i, c := range cols {
			r[c] = vals[i]
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

func (r row) str(c string) string {
	switch v := r[c].(type) {
	case string:
		return v
	case []byte:
		return string(v)
	}
	return ""
}

// opt is a text column that may be NULL or empty.
func (r row) opt(c string) *string {
	if s := r.str(c); s != "" {
		return &s
	}
	return nil
}

func (r row) num(c string) (float64, bool) {
	switch v := r[c].(type) {
	case int64:
		return float64(v), true
	case int32:
		return float64(v), true
	case int:
		return float64(v), true
	case float64:
		return v, true
	}
	return 0, false
}

func (r row) int(c string) int64 {
	v, _ := r.num(c)
	return int64(v)
}

func (r row) optInt(c string) *int64 {
	if v, ok := r.num(c); ok {
		i := int64(v)
		return &i
	}
	return nil
}

// ms reads a time column (a time, or SQLite's text of one) as epoch ms.
func (r row) ms(c string) *int64 {
	var t time.Time
	switch v := r[c].(type) {
	case time.Time:
		t = v
	case string:
		for _, layout := range []string{"2006-01-02 15:04:05.999999999-07:00", time.RFC3339Nano, "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999"} {
			if p, err := time.Parse(layout, v); err == nil {
				t = p
				break
			}
		}
	}
	if t.IsZero() {
		return nil
	}
	ms := t.UnixMilli()
	return &ms
}

// jsonValue reads a JSON column, whatever the driver made of it.
func (r row) jsonValue(c string, into any) error {
	switch v := r[c].(type) {
	case nil:
		return nil
	case string:
		return json.Unmarshal([]byte(v), into)
	case []byte:
		return json.Unmarshal(v, into)
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		return json.Unmarshal(b, into)
	}
}

// copyLegacy moves the rows of the old tables into the job table.
func copyLegacy(ctx context.Context, s *Store) error {
	// Everything is read before the transaction: SQLite has one connection.
	var renders, media []row
	var drop []string
	for _, t := range []struct {
		name string
		into *[]row
	}{{"render_jobs", &renders}, {legacyMediaJobs, &media}} {
		cols, err := columns(ctx, s.db, s.Dialect, t.name)
		if err != nil {
			return err
		}
		if len(cols) == 0 {
			continue
		}
		if *t.into, err = readAll(ctx, s.db, t.name); err != nil {
			return err
		}
		drop = append(drop, t.name)
	}
	if len(drop) == 0 {
		return nil
	}
	deps, err := legacyDependants(ctx, s, media)
	if err != nil {
		return err
	}
	tx, err := s.Tx(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var creates []*ent.JobCreate
	for _, r := range renders {
		c, err := legacyRender(tx.Job, r)
		if err != nil {
			return err
		}
		creates = append(creates, c)
	}
	for _, r := range media {
		c, err := legacyMedia(tx.Job, r)
		if err != nil {
			return err
		}
		if d := deps[r.str("id")]; len(d) > 0 {
			c.SetDependants(d)
		}
		creates = append(creates, c)
	}
	const batch = 200
	for i := 0; i < len(creates); i += batch {
		if err := tx.Job.CreateBulk(creates[i:min(len(creates), i+batch)]...).Exec(ctx); err != nil {
			return fmt.Errorf("copy old jobs: %w", err)
		}
	}
	for _, t := range drop {
		if _, err := tx.ExecContext(ctx, `DROP TABLE `+t); err != nil {
			return fmt.Errorf("drop %s: %w", t, err)
		}
	}
	return tx.Commit()
}

func legacyRender(jc *ent.JobClient, r row) (*ent.JobCreate, error) {
	var assetURLs map[string]string
	if err := r.jsonValue("asset_urls", &assetURLs); err != nil {
		return nil, fmt.Errorf("render job %s: asset_urls: %w", r.str("id"), err)
	}
	composition := json.RawMessage(r.str("composition"))
	if !json.Valid(composition) {
		return nil, fmt.Errorf("render job %s: the composition is not JSON", r.str("id"))
	}
	dur, _ := r.num("duration")
	// The field names of renderjob.Args, which this package cannot import.
	args, err := json.Marshal(map[string]any{
		"provider": r.str("provider"), "composition": composition, "assetUrls": assetURLs,
		"webhook": r.str("webhook_url"), "format": r.str("format"),
		"width": r.int("width"), "height": r.int("height"), "duration": dur,
	})
	if err != nil {
		return nil, err
	}
	state := map[string]job.State{"queued": job.StateAvailable, "processing": job.StateRunning}[r.str("status")]
	if state == "" {
		state = job.State(r.str("status"))
	}
	progress, _ := r.num("progress")
	created := r.ms("created_at")
	if created == nil {
		return nil, fmt.Errorf("render job %s: no creation time", r.str("id"))
	}
	cr := jc.Create().SetID(r.str("id")).SetKind("render").SetType("render").SetOrgID(r.str("org_id")).
		SetState(state).SetArgs(args).SetProgress(progress).SetAttempt(int(r.int("attempts"))).
		SetCreatedAt(*created).SetUpdatedAt(*created).SetAvailableAt(*created).
		SetNillableClaimedAt(r.ms("started_at")).SetNillableStartedAt(r.ms("started_at")).SetNillableFinishedAt(r.ms("finished_at")).
		SetNillableErrorCode(r.opt("error_code")).SetNillableErrorMessage(r.opt("error_message")).
		SetNillableLeaseOwner(r.opt("lease_owner")).SetNillableLeaseExpiresAt(r.ms("lease_expires_at")).
		SetNillableIdempotencyKey(r.opt("idempotency_key")).SetNillableRequestHash(r.opt("request_hash"))
	if updated := r.ms("updated_at"); updated != nil {
		cr.SetUpdatedAt(*updated)
	}
	if key := r.str("output_key"); key != "" {
		cr.SetOutputs(map[string]string{"output": key})
	}
	return cr, nil
}

func legacyMedia(jc *ent.JobClient, r row) (*ent.JobCreate, error) {
	id := r.str("id")
	status := r.str("status")
	state := map[string]job.State{"waiting": job.StateAvailable, "dispatched": job.StateRunning, "running": job.StateRunning,
		"complete": job.StateCompleted, "failed": job.StateFailed, "cancelled": job.StateCancelled}[status]
	if state == "" {
		return nil, fmt.Errorf("media job %s: unknown status %q", id, status)
	}
	pending := r.int("pending_inputs")
	if state == job.StateAvailable && pending > 0 {
		state = job.StatePending
	}
	inputs, params := json.RawMessage(r.str("inputs")), json.RawMessage(r.str("params"))
	if !json.Valid(inputs) || !json.Valid(params) {
		return nil, fmt.Errorf("media job %s: inputs or params are not JSON", id)
	}
	// The field names of media.Args and its metadata keys, which this
	// package cannot import.
	args, err := json.Marshal(map[string]json.RawMessage{"inputs": inputs, "params": params})
	if err != nil {
		return nil, err
	}
	meta := map[string]any{}
	for col, key := range map[string]string{
		"api_total_ms": "apiTotalMs", "api_prechecks_ms": "apiPrechecksMs", "api_validation_ms": "apiValidationMs",
		"api_db_insert_ms": "apiDbInsertMs", "api_dispatch_ms": "apiDispatchMs", "exec_download_ms": "execDownloadMs",
		"exec_execute_ms": "execExecuteMs", "exec_upload_ms": "execUploadMs", "consumer_total_ms": "consumerTotalMs",
		"price": "price", "provider_cost": "providerCost", "infra_cost": "infraCost", "margin": "margin",
		"estimated_price": "estimatedPrice", "billing_reconciled_at": "billingReconciledAt",
	} {
		if v, ok := r.num(col); ok {
			meta[key] = v
		}
	}
	for col, key := range map[string]string{
		"output_meta": "outputMeta", "steps_json": "stepsJson", "logs_ref": "logsKey",
		"user_id": "userId", "provider_run_id": "providerRunId", "media_type": "mediaType",
	} {
		if v := r.opt(col); v != nil {
			meta[key] = *v
		}
	}
	// A job counts its claims; the old one counted its retries.
	attempt := r.int("retry_count")
	if status != "waiting" && (status != "cancelled" || r.optInt("dispatched_at") != nil) {
		attempt++
	}
	progress, _ := r.num("progress")
	created := r.int("created_at")
	cr := jc.Create().SetID(id).SetKind("media").SetType(r.str("type")).SetOrgID(r.str("org_id")).
		SetState(state).SetArgs(args).SetMetadata(meta).SetProgress(progress).SetAttempt(int(attempt)).
		SetPendingParents(int(pending)).SetAvailableAt(r.int("available_at")).
		SetCreatedAt(created).SetUpdatedAt(r.int("updated_at")).
		SetNillableClaimedAt(r.optInt("dispatched_at")).SetNillableFinishedAt(r.optInt("completed_at")).
		SetNillableErrorCode(r.opt("error_code")).SetNillableErrorMessage(r.opt("error_message")).
		SetNillableLeaseOwner(r.opt("lease_owner")).SetNillableLeaseExpiresAt(r.optInt("lease_expires_at")).
		SetNillableBatchID(r.opt("batch_id")).SetNillablePipelineID(r.opt("pipeline_id")).SetNillableNodeID(r.opt("pipeline_node_id")).
		SetNillableIdempotencyKey(r.opt("idempotency_key")).SetNillableRequestHash(r.opt("request_hash"))
	if status != "dispatched" { // dispatched is a running job not yet started
		cr.SetNillableStartedAt(r.optInt("started_at"))
	}
	if key := r.str("output_key"); key != "" {
		cr.SetOutputs(map[string]string{"outputUrl": key})
	}
	return cr, nil
}

// legacyDependants rebuilds, from each run's pipeline, which jobs of the
// run wait for which: the old tables kept that in the pipeline alone.
func legacyDependants(ctx context.Context, s *Store, rows []row) (map[string][]schema.Dependant, error) {
	type graph struct {
		Edges []struct {
			From, To      string
			OutputMapping struct{ SourceField, TargetField string }
		}
	}
	graphs := map[string]*graph{}
	byNode := map[[2]string]string{} // run, node -> job
	for _, r := range rows {
		if run, node := r.str("batch_id"), r.str("pipeline_node_id"); run != "" && node != "" {
			byNode[[2]string{run, node}] = r.str("id")
		}
	}
	out := map[string][]schema.Dependant{}
	for _, r := range rows {
		pid, run, node := r.str("pipeline_id"), r.str("batch_id"), r.str("pipeline_node_id")
		if pid == "" || run == "" || node == "" {
			continue
		}
		g, ok := graphs[pid]
		if !ok {
			p, err := s.Client.Pipeline.Get(ctx, pid)
			if err != nil {
				return nil, fmt.Errorf("read pipeline %s of job %s: %w", pid, r.str("id"), err)
			}
			g = &graph{}
			if err := json.Unmarshal(p.Graph, g); err != nil {
				return nil, fmt.Errorf("read pipeline %s: %w", pid, err)
			}
			graphs[pid] = g
		}
		deps := map[string]map[string]string{}
		var order []string
		for _, e := range g.Edges {
			if e.From != node {
				continue
			}
			child := byNode[[2]string{run, e.To}]
			if child == "" {
				continue
			}
			if deps[child] == nil {
				deps[child] = map[string]string{}
				order = append(order, child)
			}
			deps[child][e.OutputMapping.TargetField] = e.OutputMapping.SourceField
		}
		for _, child := range order {
			out[r.str("id")] = append(out[r.str("id")], schema.Dependant{ID: child, Inputs: deps[child]})
		}
	}
	return out, nil
}
