package jobs

import (
	"github.com/kinohq/kino/ent"
	"github.com/kinohq/kino/ent/job"
)

// State is where a job is in its life (see the package comment).
type State = job.State

// Job is a job as the core shows it to the kinds, their APIs and their
// handlers: what they read, never how it is stored. Times are epoch
// milliseconds, as the core keeps them; optional ones are nil when unset.
type Job struct {
	ID, Kind, Type, OrgID string
	State                 State
	// Args is the request the job was made from, as its kind wrote it.
	Args []byte
	// Metadata is what the job's API and its attempts recorded about it.
	Metadata map[string]any
	// InputKeys are the inputs its parents' outputs filled, and Outputs
	// what it stored, as storage keys by field.
	InputKeys, Outputs      map[string]string
	ErrorCode, ErrorMessage *string
	Progress                float64
	Attempt, MaxAttempts    int
	BatchID, PipelineID     *string
	NodeID                  *string
	// Parts is how many parts a whole has (parts.go); 0 for a job that is
	// not one.
	Parts int
	// RequestHash identifies the submit that made the job under an
	// idempotency key; "" when it had none.
	RequestHash                      string
	CreatedAt, UpdatedAt             int64
	ClaimedAt, StartedAt, FinishedAt *int64
}

// Whole reports whether the job is made of parts that run as jobs of their
// own (parts.go).
func (j *Job) Whole() bool { return j.Parts > 0 }

// view is the core's Job of a stored row.
func view(e *ent.Job) *Job {
	if e == nil {
		return nil
	}
	j := &Job{
		ID: e.ID, Kind: e.Kind, Type: e.Type, OrgID: e.OrgID, State: e.State,
		Args: e.Args, Metadata: e.Metadata, InputKeys: e.InputKeys, Outputs: e.Outputs,
		ErrorCode: e.ErrorCode, ErrorMessage: e.ErrorMessage, Progress: e.Progress,
		Attempt: e.Attempt, MaxAttempts: e.MaxAttempts,
		BatchID: e.BatchID, PipelineID: e.PipelineID, NodeID: e.NodeID, Parts: partsOf(e),
		CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt,
		ClaimedAt: e.ClaimedAt, StartedAt: e.StartedAt, FinishedAt: e.FinishedAt,
	}
	if e.RequestHash != nil {
		j.RequestHash = *e.RequestHash
	}
	return j
}

func views(es []*ent.Job) []*Job {
	out := make([]*Job, len(es))
	for i, e := range es {
		out[i] = view(e)
	}
	return out
}
