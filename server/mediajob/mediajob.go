// Package mediajob is a media job as it is stored: its kind, its args
// (the request's inputs and params as JSON), the keys of its metadata and
// the files it stored. The media API (server/media) writes and reads it,
// the worker (server/mediarun) reads and completes it; neither imports the
// other.
package mediajob

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

// Refs are the inputs a job was stored with: input field (or a command's
// named input) -> URL or asset id. A row that does not decode is an error,
// never a job run without its inputs. Its params are decoded by type,
// once, by the executor of the type (executor.Executors.Decode).
func (a Args) Refs() (map[string]string, error) {
	refs := map[string]string{}
	if len(a.Inputs) > 0 && string(a.Inputs) != "null" {
		if err := json.Unmarshal(a.Inputs, &refs); err != nil {
			return nil, fmt.Errorf("read inputs: %w", err)
		}
	}
	return refs, nil
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

// StoredFile is one file a job stored, as the runner records it in
// MetaFiles: the output record's files are made from these.
type StoredFile struct {
	Key string `json:"key"`
	// Field is the output field the file is, "" for a file stored beside
	// one (an HLS segment).
	Field       string `json:"field,omitempty"`
	ContentType string `json:"contentType"`
	Size        int64  `json:"size"`
}
