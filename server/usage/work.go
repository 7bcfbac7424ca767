package usage

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/kinohq/kino/ent"
	"github.com/kinohq/kino/server/ident"
)

// Work that kino does for an organisation outside any job, each recorded
// in the ledger under its own type: the CPU time of the request's own
// work in kino's process (painting, reading and drawing a PSD, measured
// by meter.Thread) and of the processes it ran (ffmpeg, ffprobe).
const (
	// KindPreview is the kind of a preview (POST /api/render/preview).
	KindPreview = "preview"
	// TypePreview is the type usage reports previews under.
	TypePreview = "render.preview"
	// KindUpload is the kind of an upload's reading of its file (POST
	// /assets): a template's drawing, a picture's thumbnail.
	KindUpload = "upload"
	// TypeUpload is the type usage reports uploads under.
	TypeUpload = "asset.upload"
)

// Work is what one piece of work outside a job used.
type Work struct {
	Org, Kind, Type string
	// State is how it ended: completed or failed.
	State string
	CPU   time.Duration
}

// Work records w in the ledger, a row of no job (jobs 0, no price, its
// infraCost from its CPU time), and counts it in Prometheus, even when
// ctx is cancelled (the client left; the work was done all the same).
// Work that used no CPU time is not recorded.
func (r *Recorder) Work(ctx context.Context, db *ent.Client, w Work) error {
	cpu := w.CPU.Seconds()
	if r == nil || db == nil || cpu <= 0 {
		return nil
	}
	// Recorded even when the client has gone: the work was done.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	now := time.Now()
	id := ident.New(strings.ReplaceAll(w.Kind, ".", "_"))
	state := w.State
	if state == "" {
		state = "completed"
	}
	err := db.Usage.Create().SetID(id).SetOrgID(w.Org).SetKind(w.Kind).SetType(w.Type).
		SetDay(now.UTC().Format(time.DateOnly)).SetState(state).SetJobs(0).SetMediaSeconds(0).
		SetCPUSeconds(cpu).SetPrice(0).SetProviderCost(0).SetInfraCost(cpu * r.cfg.CPUSecondCost).
		SetFinishedAt(now.UnixMilli()).Exec(ctx)
	if err != nil {
		return fmt.Errorf("record the usage of a %s: %w", w.Kind, err)
	}
	org := Other
	if r.cfg.Named(w.Org) {
		org = w.Org
	}
	r.cfg.Metrics.OrgUsed(org, w.Kind, 0, cpu, 0)
	return nil
}
