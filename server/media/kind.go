package media

import (
	"fmt"

	"github.com/kinohq/kino/server/jobs"
)

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
