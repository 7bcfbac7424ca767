// Package node records this process's heartbeat in the shared database and
// lists the nodes that share it, so an operator sees which kinos are alive,
// what each may run and what it runs now.
package node

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/kinohq/kino/ent"
	entnode "github.com/kinohq/kino/ent/node"
	renderv1 "github.com/kinohq/kino/gen/kino/render/v1"
	"github.com/kinohq/kino/server/apierr"
	"github.com/kinohq/kino/server/auth"
	"github.com/kinohq/kino/server/store"
)

// Roles a node may take.
const (
	RoleAll    = "all"
	RoleAPI    = "api"
	RoleWorker = "worker"
)

// Heartbeat timing: a node writes its row every HeartbeatEvery; a row not
// written for StaleAfter is listed as stale (the node is probably gone),
// and one not written for PruneAfter is deleted by the next heartbeat of
// any node.
const (
	HeartbeatEvery = 5 * time.Second
	StaleAfter     = 30 * time.Second
	PruneAfter     = 10 * time.Minute
)

// Info describes this node.
type Info struct {
	ID      string
	Role    string
	Version string
	Workers int
	// Every is the time between heartbeats; default HeartbeatEvery.
	Every time.Duration
}

// Heartbeat keeps this node's row fresh until its context ends.
type Heartbeat struct {
	st      *store.Store
	info    Info
	host    string
	started time.Time
	// running lists the jobs this node runs now.
	running func() []string
	every   time.Duration
	log     *slog.Logger

	wg   sync.WaitGroup
	stop context.CancelFunc
}

// NewHeartbeat returns a heartbeat for the node; running reports the ids
// of the jobs it runs (nil: none).
func NewHeartbeat(st *store.Store, info Info, running func() []string, log *slog.Logger) *Heartbeat {
	host, err := os.Hostname()
	if err != nil {
		host = "unknown"
	}
	if running == nil {
		running = func() []string { return nil }
	}
	every := info.Every
	if every <= 0 {
		every = HeartbeatEvery
	}
	return &Heartbeat{st: st, info: info, host: host, started: time.Now(), running: running, every: every, log: log}
}

// Start writes the first heartbeat, so the node is listed as soon as it
// serves, then keeps writing in the background. An error is the first
// heartbeat's: the later ones go on regardless, so the node is listed once
// the database answers again.
func (h *Heartbeat) Start(ctx context.Context) error {
	first := h.beat(ctx)
	ctx, h.stop = context.WithCancel(ctx)
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		t := time.NewTicker(h.every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if err := h.beat(ctx); err != nil && ctx.Err() == nil {
					h.log.Warn("node heartbeat", "err", err)
				}
			}
		}
	}()
	return first
}

// Stop ends the heartbeats and removes the node's row: a node that shut
// down cleanly is not listed as stale.
func (h *Heartbeat) Stop(ctx context.Context) {
	if h.stop != nil {
		h.stop()
	}
	h.wg.Wait()
	if err := h.st.Node.DeleteOneID(h.info.ID).Exec(ctx); err != nil && !ent.IsNotFound(err) {
		h.log.Warn("remove node row", "err", err)
	}
}

func (h *Heartbeat) beat(ctx context.Context) error {
	now := time.Now().UnixMilli()
	running := h.running()
	slices.Sort(running)
	err := h.st.Node.Create().
		SetID(h.info.ID).SetHostname(h.host).SetVersion(h.info.Version).SetRole(h.info.Role).
		SetWorkers(h.info.Workers).SetRunningJobs(running).SetRunningCount(len(running)).
		SetStartedAt(h.started.UnixMilli()).SetLastSeen(now).
		OnConflictColumns(entnode.FieldID).
		Update(func(u *ent.NodeUpsert) {
			u.UpdateRunningJobs().UpdateRunningCount().UpdateLastSeen()
		}).Exec(ctx)
	if err != nil {
		return fmt.Errorf("record heartbeat: %w", err)
	}
	if _, err := h.st.Node.Delete().Where(entnode.LastSeenLT(now - PruneAfter.Milliseconds())).Exec(ctx); err != nil {
		return fmt.Errorf("prune nodes: %w", err)
	}
	return nil
}

// Service is the NodeService.
type Service struct {
	renderv1.UnimplementedNodeServiceServer
	st  *store.Store
	log *slog.Logger
}

// NewService returns the NodeService on st.
func NewService(st *store.Store, log *slog.Logger) *Service {
	return &Service{st: st, log: log}
}

// ListNodes lists the nodes heard from within PruneAfter. Nodes are the
// operator's business, not an organisation's: with API keys on, only the
// admin key may list them.
func (s *Service) ListNodes(ctx context.Context, _ *renderv1.ListNodesRequest) (*renderv1.ListNodesResponse, error) {
	if !auth.Admin(ctx) {
		return nil, apierr.New(apierr.Forbidden, "listing nodes needs the admin key")
	}
	now := time.Now()
	rows, err := s.st.Node.Query().
		Where(entnode.LastSeenGTE(now.Add(-PruneAfter).UnixMilli())).
		Order(ent.Desc(entnode.FieldStartedAt), ent.Asc(entnode.FieldID)).
		All(ctx)
	if err != nil {
		s.log.ErrorContext(ctx, "list nodes", "err", err)
		return nil, apierr.New(apierr.Internal, "the nodes could not be listed")
	}
	out := &renderv1.ListNodesResponse{Nodes: make([]*renderv1.Node, 0, len(rows))}
	for _, r := range rows {
		running := r.RunningJobs
		if running == nil {
			running = []string{}
		}
		out.Nodes = append(out.Nodes, &renderv1.Node{
			Id: r.ID, Hostname: r.Hostname, Version: r.Version, Role: r.Role,
			Workers: int32(r.Workers), RunningJobs: running, RunningCount: int32(r.RunningCount),
			StartedAt: timestamp(r.StartedAt), LastSeen: timestamp(r.LastSeen),
			Stale: now.Sub(time.UnixMilli(r.LastSeen)) > StaleAfter,
		})
	}
	return out, nil
}

func timestamp(ms int64) string {
	return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z07:00")
}
