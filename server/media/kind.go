package media

import (
	"encoding/json"
	"fmt"

	"github.com/kinohq/kino/server/jobs"
)

// Kind is the job kind of media jobs and pipeline nodes.
const Kind = "media"

// Args is what a media job holds of its request: inputs and params as the
// JSON text the record shows.
type Args struct {
	Inputs json.RawMessage `json:"inputs"`
	Params json.RawMessage `json:"params"`
	// Webhook is the URL the job's own end is sent to; "" for none.
	Webhook string `json:"webhook,omitempty"`
	// WebhookHeaders are extra headers sent with Webhook (callback.headers).
	WebhookHeaders map[string]string `json:"webhookHeaders,omitempty"`
	// RunWebhook is, on each job of a pipeline run, the URL the run's end
	// is sent to; "" for none.
	RunWebhook string `json:"runWebhook,omitempty"`
}

// ArgsOf reads a media job's args.
func ArgsOf(j *jobs.Job) (Args, error) {
	var a Args
	if err := json.Unmarshal(j.Args, &a); err != nil {
		return Args{}, fmt.Errorf("read media job %s: %w", j.ID, err)
	}
	return a, nil
}

// Decode reads the params and inputs a job was stored with. A job whose
// row does not decode is an error, never a job run with empty params:
// what it would do is not what was asked.
func (a Args) Decode() (params map[string]any, inputs map[string]string, err error) {
	params, inputs = map[string]any{}, map[string]string{}
	if len(a.Params) > 0 && string(a.Params) != "null" {
		if err := json.Unmarshal(a.Params, &params); err != nil {
			return nil, nil, fmt.Errorf("read params: %w", err)
		}
	}
	if len(a.Inputs) > 0 && string(a.Inputs) != "null" {
		if err := json.Unmarshal(a.Inputs, &inputs); err != nil {
			return nil, nil, fmt.Errorf("read inputs: %w", err)
		}
	}
	return params, inputs, nil
}

// The metadata keys of a media job: what its API and its runs measured
// and produced beyond its outputs.
const (
	MetaAPITotalMs      = "apiTotalMs"
	MetaAPIPrechecksMs  = "apiPrechecksMs"
	MetaAPIValidationMs = "apiValidationMs"
	MetaAPIDbInsertMs   = "apiDbInsertMs"
	MetaAPIDispatchMs   = "apiDispatchMs"
	MetaExecDownloadMs  = "execDownloadMs"
	MetaExecExecuteMs   = "execExecuteMs"
	MetaExecUploadMs    = "execUploadMs"
	MetaConsumerTotalMs = "consumerTotalMs"
	// MetaOutputMeta is the outputMeta text without the URLs of the stored
	// outputs, which are made when the record is read.
	MetaOutputMeta = "outputMeta"
	MetaStepsJSON  = "stepsJson"
	MetaPrice      = "price"
	// MetaLogsKey is the storage key of the last attempt's ffmpeg log.
	MetaLogsKey = "logsKey"
	// MetaFiles lists every file a completed job stored ([]StoredFile),
	// for the record's output.files.
	MetaFiles = "files"
)

// OutputField is the primary output of a media job.
const OutputField = "outputUrl"

// Statuses are the job statuses, in lifecycle order.
//
//nolint:gochecknoglobals // read-only table: the documented statuses
var Statuses = []string{"waiting", "dispatched", "running", "complete", "failed", "cancelled"}

// Status is the media interface's word for the state of a job: a running
// job is dispatched until its worker starts it.
func Status(j *jobs.Job) string {
	switch j.State {
	case jobs.Pending, jobs.Available, jobs.Retrying:
		return "waiting"
	case jobs.Running:
		if j.StartedAt == nil {
			return "dispatched"
		}
		return "running"
	case jobs.Completed:
		return "complete"
	}
	return string(j.State) // failed, cancelled
}

// statusIs selects the jobs whose Status is s, one of Statuses.
func statusIs(s string) jobs.Phase {
	switch s {
	case "waiting":
		return jobs.Is(jobs.Waiting...)
	case "dispatched":
		return jobs.Begun(false, jobs.Running)
	case "running":
		return jobs.Begun(true, jobs.Running)
	case "complete":
		return jobs.Is(jobs.Completed)
	}
	return jobs.Is(jobs.State(s))
}

// Upstream words the error of a pipeline node cancelled because a node it
// waits for ended without completing, as the pipeline names them (a
// jobs.Config.Upstream); "" for jobs that are not nodes.
func Upstream(parent *jobs.Job, ended string) string {
	if parent.NodeID == nil {
		return ""
	}
	return fmt.Sprintf("node %s %s, so this node cannot run", *parent.NodeID, ended)
}
