// Package account answers GET /orgs/current: which organisation the
// caller's key belongs to, the limits it has (server/org's policies and
// the node's flags) and the storage it uses now.
package account

import (
	"context"
	"time"

	mediav1 "github.com/kinohq/kino/gen/kino/media/v1"
	"github.com/kinohq/kino/server/apierr"
	"github.com/kinohq/kino/server/auth"
	"github.com/kinohq/kino/server/org"
	"github.com/kinohq/kino/server/quota"
)

// Config is what the service reads.
type Config struct {
	Policies *org.Policies
	// Quota counts the storage used; nil counts none.
	Quota *quota.Limiter
	// MaxUploadBytes and UploadLifetime are the node's upload limits.
	MaxUploadBytes int64
	UploadLifetime time.Duration
}

// Service is the OrgService implementation.
type Service struct {
	mediav1.UnimplementedOrgServiceServer
	cfg Config
}

// New returns the service.
func New(cfg Config) *Service { return &Service{cfg: cfg} }

// GetCurrentOrg answers the caller's organisation.
func (s *Service) GetCurrentOrg(ctx context.Context, _ *mediav1.GetCurrentOrgRequest) (*mediav1.GetCurrentOrgResponse, error) {
	id := auth.Org(ctx)
	var p org.Policy
	if s.cfg.Policies != nil {
		p = s.cfg.Policies.For(id)
	}
	used, err := s.cfg.Quota.Used(ctx, id)
	if err != nil {
		return nil, apierr.Wrap(err, apierr.Internal, "the organisation's storage could not be counted; try again")
	}
	return &mediav1.GetCurrentOrgResponse{Data: &mediav1.CurrentOrg{
		Org: &mediav1.Org{Id: id, Name: id},
		Limits: &mediav1.OrgLimits{Rate: p.Rate, MaxQueued: int32(p.MaxQueued), MaxRunning: int32(p.MaxRunning),
			StorageQuota: float64(p.StorageQuota), MaxUploadBytes: float64(s.cfg.MaxUploadBytes),
			UploadLifetimeSeconds: s.cfg.UploadLifetime.Seconds(), Weight: int32(max(p.Weight, 1))},
		Storage: &mediav1.OrgStorage{Used: float64(used), Quota: float64(p.StorageQuota)},
	}}, nil
}
